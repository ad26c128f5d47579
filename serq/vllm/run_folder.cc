#include "serq/vllm/run_folder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serq/vllm/architecture.h"
#include "serq/models/json_file.h"
#include "serq/models/vllm_engine.h"

namespace serq::vllm {

using models::Describe;
using models::JsonFile;
using models::ModelConfig;
using models::ReadModelConfig;

namespace {

std::string Join(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  return dir.back() == '/' ? dir + file : absl::StrCat(dir, "/", file);
}

// A file of the layout that is not there.
absl::Status Missing(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": error: missing (", what, "; a run folder in LLMServingSim's layout has it)"));
}

// A JSON file of the folder. Python's json module wrote them, and writes
// NaN or Infinity for such a float (resolved_config holds every field of
// vLLM's configuration): read as null, which a field serq reads then is
// absent, and said.
absl::StatusOr<JsonFile> ReadJson(const std::string& path, absl::string_view what,
                                  std::vector<std::string>* warnings) {
  absl::StatusOr<JsonFile> json = JsonFile::Read(path, /*python_floats=*/true);
  if (absl::IsNotFound(json.status())) return Missing(path, what);
  if (json.ok() && json->python_floats() > 0) {
    warnings->push_back(absl::StrCat(path, ":", json->first_python_float(), ": ", json->python_floats(),
                                     " NaN or Infinity (Python's; JSON has no such number) read as null"));
  }
  return json;
}

// gpu_memory_utilization, in engine_kwargs or kv_cache: a share of the GPU.
absl::StatusOr<std::optional<double>> Fraction(const JsonFile& meta, const std::string& path) {
  absl::StatusOr<std::optional<double>> u = meta.Number(path);
  if (u.ok() && u->has_value() && !(**u > 0 && **u <= 1)) {
    return meta.Error(path, absl::StrCat("expected a fraction above 0 and at most 1, not ", **u));
  }
  return u;
}

// kv_cache_dtype (engine_kwargs') or cache_dtype (kv_cache's), at `path`.
absl::Status CheckKvCacheDtype(const JsonFile& meta, const std::string& path, const std::string& dtype) {
  if (dtype == "auto" || dtype == "bfloat16" || dtype == "float16" || dtype == "fp8") return absl::OkStatus();
  return meta.Error(path, absl::StrCat("'", dtype, "': expected auto, bfloat16, float16 or fp8"));
}

std::string Shown(bool b) { return b ? "true" : "false"; }
template <typename T>
std::string Shown(T v) {
  return absl::StrCat(v);
}

// A field of a record of what the engine ran with (kv_cache, or
// resolved_config's sub-configs) that is also an engine argument: it fills
// in where nothing before it gave one (`*from` empty: vLLM's default) and
// must agree where something did (`*from` names that field).
template <typename T, typename Logged>
absl::Status FillIn(const JsonFile& meta, const std::string& path, const std::optional<Logged>& logged, T* value,
                    std::string* from) {
  if (!logged.has_value()) return absl::OkStatus();
  const T v = static_cast<T>(*logged);
  if (!from->empty() && v != *value) {
    return meta.Error(path, absl::StrCat(Shown(v), ", where ", *from, " is ", Shown(*value),
                                         ": the run's two records of the engine disagree"));
  }
  *value = v;
  if (from->empty()) *from = path;
  return absl::OkStatus();
}

// What both engine_kwargs and resolved_config may say of the schedule and
// serq vllm does not model, refused the same way at `path` in either.
absl::Status RefuseWholePrompts(const JsonFile& meta, const std::string& path) {
  absl::StatusOr<std::optional<bool>> chunked = meta.Bool(path);
  if (!chunked.ok()) return chunked.status();
  if (chunked->value_or(true)) return absl::OkStatus();
  return meta.Error(path, "false: vLLM 0.19 then schedules a prompt whole; serq vllm models chunked prefill only");
}
absl::Status RefusePriority(const JsonFile& meta, const std::string& path) {
  absl::StatusOr<std::optional<std::string>> policy = meta.Text(path);
  if (!policy.ok()) return policy.status();
  if (policy->value_or("fcfs") == "fcfs") return absl::OkStatus();
  return meta.Error(path, absl::StrCat("'", **policy, "': the requests carry no priority; serq vllm models fcfs"));
}
absl::Status RefusePipeline(const JsonFile& meta, const std::string& path) {
  absl::StatusOr<std::optional<int64_t>> pp = meta.Whole(path, 1, 1024);
  if (!pp.ok()) return pp.status();
  if (pp->value_or(1) == 1) return absl::OkStatus();
  return meta.Error(path, "pipeline parallelism: serq vllm does not model it");
}

// meta.json's engine_kwargs, each key one vLLM 0.19 takes: the ones that
// shape the schedule are read, the ones that cannot change it (names,
// seeds, loading) accepted, and any other refused by name, so that a run
// with an argument serq does not model is never modelled as if it had not
// been given.
absl::Status ReadEngineArgs(const JsonFile& meta, EngineArgs* a) {
  const google::protobuf::Value* kwargs = meta.Find("engine_kwargs");
  if (kwargs == nullptr) return meta.Error("engine_kwargs", "missing: the engine's arguments");
  if (kwargs->kind_case() != google::protobuf::Value::kStructValue) {
    return meta.Error("engine_kwargs", absl::StrCat("expected an object of the engine's arguments, not ",
                                                    Describe(*kwargs)));
  }
  static const std::set<std::string> kRead = {
      "tensor_parallel_size", "data_parallel_size", "enable_expert_parallel", "max_num_seqs",
      "max_num_batched_tokens", "max_model_len", "block_size", "enable_prefix_caching",
      "async_scheduling", "long_prefill_token_threshold", "gpu_memory_utilization",
      "num_gpu_blocks_override", "dtype", "kv_cache_dtype", "pipeline_parallel_size", "enforce_eager",
      "enable_chunked_prefill", "scheduling_policy", "quantization", "cpu_offload_gb",
      "scheduler_reserve_full_isl"};
  static const std::set<std::string> kHarmless = {
      "model", "seed", "tokenizer", "revision", "trust_remote_code", "download_dir",
      "load_format", "served_model_name", "disable_log_stats",
      "disable_log_requests", "swap_space", "max_logprobs", "tokenizer_mode"};
  for (const auto& [key, value] : kwargs->struct_value().fields()) {
    if (kRead.count(key) == 0 && kHarmless.count(key) == 0) {
      return meta.Error(absl::StrCat("engine_kwargs.", key),
                        "an engine argument serq vllm does not know: its effect on the schedule "
                        "is not modelled (docs/cli.md §serq vllm lists those it reads)");
    }
  }
  auto whole = [&](const char* key, int64_t least, int64_t most,
                   std::optional<int64_t>* out) -> absl::Status {
    absl::StatusOr<std::optional<int64_t>> v =
        meta.Whole(absl::StrCat("engine_kwargs.", key), least, most);
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  auto flag = [&](const char* key, bool* out, std::string* from = nullptr) -> absl::Status {
    absl::StatusOr<std::optional<bool>> v = meta.Bool(absl::StrCat("engine_kwargs.", key));
    if (!v.ok()) return v.status();
    if (v->has_value()) *out = **v;
    if (v->has_value() && from != nullptr) *from = absl::StrCat("engine_kwargs.", key);
    return absl::OkStatus();
  };
  std::optional<int64_t> v;
  if (absl::Status s = whole("tensor_parallel_size", 1, 1024, &v); !s.ok()) return s;
  a->tp = static_cast<int>(v.value_or(1));
  if (absl::Status s = whole("data_parallel_size", 1, 1024, &v); !s.ok()) return s;
  a->dp = static_cast<int>(v.value_or(1));
  if (absl::Status s = RefusePipeline(meta, "engine_kwargs.pipeline_parallel_size"); !s.ok()) return s;
  if (absl::Status s = flag("enable_expert_parallel", &a->expert_parallel); !s.ok()) return s;
  if (absl::Status s = whole("max_num_seqs", 1, 1 << 20, &v); !s.ok()) return s;
  a->max_num_seqs = v.value_or(0);
  if (v.has_value()) a->max_num_seqs_from = "engine_kwargs.max_num_seqs";
  if (absl::Status s = whole("max_num_batched_tokens", 1, 1 << 24, &v); !s.ok()) return s;
  a->max_num_batched_tokens = v.value_or(0);
  if (v.has_value()) a->max_num_batched_tokens_from = "engine_kwargs.max_num_batched_tokens";
  if (absl::Status s = whole("max_model_len", 1, 1 << 26, &a->max_model_len); !s.ok()) return s;
  if (absl::Status s = whole("block_size", 1, 1024, &v); !s.ok()) return s;
  a->block_size = static_cast<int>(v.value_or(16));
  if (v.has_value()) a->block_size_from = "engine_kwargs.block_size";
  if (absl::Status s = flag("enable_prefix_caching", &a->prefix_caching, &a->prefix_caching_from); !s.ok()) {
    return s;
  }
  if (absl::Status s = flag("async_scheduling", &a->async_scheduling, &a->async_scheduling_from); !s.ok()) {
    return s;
  }
  if (absl::Status s = flag("enforce_eager", &a->enforce_eager, &a->enforce_eager_from); !s.ok()) return s;
  if (absl::Status s = flag("scheduler_reserve_full_isl", &a->reserve_full_isl, &a->reserve_full_isl_from);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = RefuseWholePrompts(meta, "engine_kwargs.enable_chunked_prefill"); !s.ok()) return s;
  if (absl::Status s = whole("long_prefill_token_threshold", 0, 1 << 24, &v); !s.ok()) return s;
  a->long_prefill_token_threshold = v.value_or(0);
  absl::StatusOr<std::optional<double>> u = Fraction(meta, "engine_kwargs.gpu_memory_utilization");
  if (!u.ok()) return u.status();
  if (u->has_value()) {
    a->gpu_memory_utilization = **u;
    a->gpu_memory_utilization_from = "engine_kwargs.gpu_memory_utilization";
  }
  if (absl::Status s = whole("num_gpu_blocks_override", 1, int64_t{1} << 40,
                             &a->num_gpu_blocks_override);
      !s.ok()) {
    return s;
  }
  for (auto [key, out] : {std::pair{"dtype", &a->dtype}, std::pair{"kv_cache_dtype", &a->kv_cache_dtype},
                          std::pair{"model", &a->model}}) {
    absl::StatusOr<std::optional<std::string>> t = meta.Text(absl::StrCat("engine_kwargs.", key));
    if (!t.ok()) return t.status();
    if (t->has_value()) *out = **t;
  }
  if (absl::Status s = RefusePriority(meta, "engine_kwargs.scheduling_policy"); !s.ok()) return s;
  if (const google::protobuf::Value* q = meta.Find("engine_kwargs.quantization")) {
    return meta.Error("engine_kwargs.quantization",
                      absl::StrCat(Describe(*q), ": serq vllm models unquantized weights"));
  }
  absl::StatusOr<std::optional<double>> offload = meta.Number("engine_kwargs.cpu_offload_gb");
  if (!offload.ok()) return offload.status();
  if (offload->value_or(0) != 0) {
    return meta.Error("engine_kwargs.cpu_offload_gb", "weights offloaded to the CPU: not modelled");
  }
  if (a->kv_cache_dtype != "auto") a->kv_cache_dtype_from = "engine_kwargs.kv_cache_dtype";
  return CheckKvCacheDtype(meta, "engine_kwargs.kv_cache_dtype", a->kv_cache_dtype);
}

// A part of meta.json that is an object where the run records it (what
// it `holds`, for the message): whether it is there; an error naming it
// when it is something else, never read as absent.
absl::StatusOr<bool> Part(const JsonFile& meta, const char* key, absl::string_view holds) {
  const google::protobuf::Value* v = meta.Find(key);
  if (v == nullptr) return false;
  if (v->kind_case() != google::protobuf::Value::kStructValue) {
    return meta.Error(key, absl::StrCat("expected an object (", holds, "), not ", Describe(*v)));
  }
  return true;
}

// vLLM's cache_dtype at `path` (kv_cache's or resolved_config's): "auto" is
// the model's dtype; another must be the one a field before it gave, where
// one did (another name than the engine argument's: not FillIn's).
absl::Status ReadCacheDtype(const JsonFile& meta, const std::string& path, EngineArgs* a) {
  absl::StatusOr<std::optional<std::string>> dtype = meta.Text(path);
  if (!dtype.ok()) return dtype.status();
  if (!dtype->has_value() || **dtype == "auto") return absl::OkStatus();
  if (a->kv_cache_dtype != "auto" && **dtype != a->kv_cache_dtype) {
    return meta.Error(path, absl::StrCat("'", **dtype, "', where ", a->kv_cache_dtype_from, " is '",
                                         a->kv_cache_dtype, "': the run's two records of the engine disagree"));
  }
  if (absl::Status s = CheckKvCacheDtype(meta, path, **dtype); !s.ok()) return s;
  a->kv_cache_dtype = **dtype;
  if (a->kv_cache_dtype_from.empty()) a->kv_cache_dtype_from = path;
  return absl::OkStatus();
}

// meta.json's kv_cache: vLLM's cache config as the run logged it, after
// vLLM made its choices. num_gpu_blocks is the KV cache the program holds;
// the fields that are also engine arguments say what the engine ran with,
// so they fill in where engine_kwargs gives none (vLLM picks another block
// size than 16 on some attention backends) and must agree where it does:
// a count of blocks read at the wrong block size is a cache of the wrong
// size. Its other fields (num_cpu_blocks, swap_space, ...) change nothing
// of the schedule.
absl::Status ReadKvCache(const JsonFile& meta, RunFolder* r) {
  absl::StatusOr<bool> present = Part(meta, "kv_cache", "vLLM's cache config: num_gpu_blocks, block_size, ...");
  if (!present.ok() || !*present) return present.status();
  absl::StatusOr<std::optional<int64_t>> blocks = meta.Whole("kv_cache.num_gpu_blocks", 2, int64_t{1} << 40);
  if (!blocks.ok()) return blocks.status();
  r->num_gpu_blocks = *blocks;
  if (blocks->has_value()) r->num_gpu_blocks_from = "kv_cache.num_gpu_blocks";
  EngineArgs& a = r->args;
  absl::StatusOr<std::optional<int64_t>> block = meta.Whole("kv_cache.block_size", 1, 1024);
  if (!block.ok()) return block.status();
  if (absl::Status s = FillIn(meta, "kv_cache.block_size", *block, &a.block_size, &a.block_size_from); !s.ok()) return s;
  absl::StatusOr<std::optional<bool>> cache = meta.Bool("kv_cache.enable_prefix_caching");
  if (!cache.ok()) return cache.status();
  if (absl::Status s = FillIn(meta, "kv_cache.enable_prefix_caching", *cache, &a.prefix_caching, &a.prefix_caching_from);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::optional<double>> util = Fraction(meta, "kv_cache.gpu_memory_utilization");
  if (!util.ok()) return util.status();
  if (absl::Status s = FillIn(meta, "kv_cache.gpu_memory_utilization", *util, &a.gpu_memory_utilization,
                              &a.gpu_memory_utilization_from);
      !s.ok()) {
    return s;
  }
  return ReadCacheDtype(meta, "kv_cache.cache_dtype", &a);
}

// CUDA graphs as vLLM resolved them (compilation_config): cudagraph_mode
// as the bench records an enum, its value (0 NONE, 1 PIECEWISE, 2 FULL,
// [2, 0] FULL_DECODE_ONLY, [2, 1] FULL_AND_PIECEWISE) or its name, and the
// captured sizes. A form this does not know is said and vLLM 0.19's default
// kept: the recorder replaces what it cannot hold by a "<type>" tag.
absl::Status ReadCudaGraphs(const JsonFile& meta, RunFolder* r) {
  EngineArgs& a = r->args;
  const std::string mode_path = "resolved_config.compilation_config.cudagraph_mode";
  if (const google::protobuf::Value* mode = meta.Find(mode_path)) {
    std::string name;
    if (mode->kind_case() == google::protobuf::Value::kNumberValue) {
      const double v = mode->number_value();
      name = v == 0 ? "NONE" : v == 1 ? "PIECEWISE" : v == 2 ? "FULL" : "";
    } else if (mode->kind_case() == google::protobuf::Value::kListValue && mode->list_value().values_size() == 2) {
      const auto& l = mode->list_value();
      const double d = l.values(0).number_value(), m = l.values(1).number_value();
      if (d == 2 && m == 0) name = "FULL_DECODE_ONLY";
      if (d == 2 && m == 1) name = "FULL_AND_PIECEWISE";
    } else if (mode->kind_case() == google::protobuf::Value::kStringValue) {
      name = mode->string_value();
      if (absl::StartsWith(name, "CUDAGraphMode.")) name = name.substr(14);
    }
    if (name == "NONE") {
      a.enforce_eager = true;
      a.graph_mode_from = mode_path;
    } else if (name == "FULL_DECODE_ONLY") {
      a.graph_decode_only = true;
      a.graph_mode_from = mode_path;
    } else if (name == "PIECEWISE" || name == "FULL" || name == "FULL_AND_PIECEWISE") {
      a.graph_mode_from = mode_path;
    } else {
      // A list shown by its elements: "a list" says nothing of it.
      std::string shown = Describe(*mode);
      if (mode->kind_case() == google::protobuf::Value::kListValue) {
        std::vector<std::string> items;
        for (const google::protobuf::Value& v : mode->list_value().values()) items.push_back(Describe(v));
        shown = absl::StrCat("[", absl::StrJoin(items, ", "), "]");
      }
      r->warnings.push_back(absl::StrCat(meta.file(), ": ", mode_path, " ", shown,
                                         " is not a mode serq vllm knows: vLLM 0.19's default, "
                                         "FULL_AND_PIECEWISE, is assumed"));
    }
  }
  const std::string sizes_path = "resolved_config.compilation_config.cudagraph_capture_sizes";
  if (const google::protobuf::Value* sizes = meta.Find(sizes_path)) {
    std::set<int64_t> got;
    // What is wrong, where the value is not a list of whole numbers from 1.
    std::string wrong;
    if (sizes->kind_case() != google::protobuf::Value::kListValue) {
      wrong = absl::StrCat(Describe(*sizes), " is not a list of sizes");
    } else {
      for (int i = 0; i < sizes->list_value().values_size() && wrong.empty(); ++i) {
        const google::protobuf::Value& v = sizes->list_value().values(i);
        const double x = v.number_value();
        if (v.kind_case() == google::protobuf::Value::kNumberValue && x >= 1 && x <= (1 << 20) &&
            x == static_cast<double>(static_cast<int64_t>(x))) {
          got.insert(static_cast<int64_t>(x));
        } else {
          wrong = absl::StrCat("element ", i, ", ", Describe(v), ", is not a size (a whole number from 1 to 2^20)");
        }
      }
    }
    // A list longer than the recorder keeps (64) is a tag; the largest size
    // is a number still, and vLLM's default rule up to it is the likeliest
    // list (the default list up to 512 has 51 sizes).
    const std::string max_path = "resolved_config.compilation_config.max_cudagraph_capture_size";
    absl::StatusOr<std::optional<int64_t>> largest = meta.Whole(max_path, 1, 1 << 20);
    if (!wrong.empty() && sizes->kind_case() == google::protobuf::Value::kStringValue && largest.ok() &&
        largest->has_value()) {
      a.graph_sizes = models::CudaGraphSizesUpTo(**largest);
      a.graph_sizes_from = max_path;
      r->warnings.push_back(absl::StrCat(meta.file(), ": ", sizes_path, ": ", wrong, ": vLLM's default sizes up to ",
                                         max_path, " ", **largest, " are assumed"));
    } else if (!wrong.empty()) {
      r->warnings.push_back(absl::StrCat(meta.file(), ": ", sizes_path, ": ", wrong,
                                         ": vLLM 0.19's default sizes are assumed"));
    } else if (got.empty()) {
      a.enforce_eager = true;  // nothing captured: every step eagerly
      a.graph_mode_from = sizes_path;
    } else {
      a.graph_sizes.assign(got.begin(), got.end());
      a.graph_sizes_from = sizes_path;
    }
  }
  return absl::OkStatus();
}

// meta.json's resolved_config: vLLM's whole configuration once it made its
// choices (LLMServingSim's bench records it, a key a sub-config, since
// 2026-08). What ran, as kv_cache is: each field serq models fills in where
// engine_kwargs and kv_cache give none, and must agree where they do. The
// fields serq does not model are not read: unlike engine_kwargs, which
// names what the run changed, a resolved configuration holds every field.
absl::Status ReadResolvedConfig(const JsonFile& meta, RunFolder* r) {
  absl::StatusOr<bool> present =
      Part(meta, "resolved_config", "vLLM's resolved configuration, a key a sub-config");
  if (!present.ok() || !*present) return present.status();
  EngineArgs& a = r->args;
  const std::string sched = "resolved_config.scheduler_config.";
  const std::string cache = "resolved_config.cache_config.";
  auto flag = [&](const std::string& path, bool* value, std::string* from) -> absl::Status {
    absl::StatusOr<std::optional<bool>> v = meta.Bool(path);
    if (!v.ok()) return v.status();
    return FillIn(meta, path, *v, value, from);
  };
  auto whole = [&](const std::string& path, int64_t least, int64_t most, int64_t* value,
                   std::string* from) -> absl::Status {
    absl::StatusOr<std::optional<int64_t>> v = meta.Whole(path, least, most);
    if (!v.ok()) return v.status();
    return FillIn(meta, path, *v, value, from);
  };
  if (absl::Status s = flag(sched + "async_scheduling", &a.async_scheduling, &a.async_scheduling_from); !s.ok()) {
    return s;
  }
  if (absl::Status s = whole(sched + "max_num_seqs", 1, 1 << 20, &a.max_num_seqs, &a.max_num_seqs_from);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = whole(sched + "max_num_batched_tokens", 1, 1 << 24, &a.max_num_batched_tokens,
                             &a.max_num_batched_tokens_from);
      !s.ok()) {
    return s;
  }
  // engine_kwargs' 0 is vLLM's default, no cap: the run's record fills it in.
  std::string threshold_from =
      a.long_prefill_token_threshold ? "engine_kwargs.long_prefill_token_threshold" : "";
  if (absl::Status s = whole(sched + "long_prefill_token_threshold", 0, 1 << 24, &a.long_prefill_token_threshold,
                             &threshold_from);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = flag(sched + "scheduler_reserve_full_isl", &a.reserve_full_isl, &a.reserve_full_isl_from);
      !s.ok()) {
    return s;
  }
  // What changes the schedule and serq does not model, refused as
  // engine_kwargs refuses it: a resolved configuration says it ran so.
  absl::StatusOr<std::optional<int64_t>> partial = meta.Whole(sched + "max_num_partial_prefills", 1, 1 << 20);
  if (!partial.ok()) return partial.status();
  if (partial->value_or(1) > 1) {
    return meta.Error(sched + "max_num_partial_prefills",
                      absl::StrCat(**partial, ": concurrent partial prefills: serq vllm models one"));
  }
  if (absl::Status s = RefusePipeline(meta, "resolved_config.parallel_config.pipeline_parallel_size"); !s.ok()) {
    return s;
  }
  for (const auto& [key, what] : {std::pair{"speculative_config", "speculative decoding"},
                                  std::pair{"lora_config", "LoRA adapters"},
                                  std::pair{"kv_transfer_config", "a KV connector (disaggregated prefill)"}}) {
    const std::string path = absl::StrCat("resolved_config.", key);
    if (const google::protobuf::Value* v = meta.Find(path)) {
      return meta.Error(path, absl::StrCat(Describe(*v), ": ", what, ": serq vllm does not model it"));
    }
  }
  if (absl::Status s = RefuseWholePrompts(meta, sched + "enable_chunked_prefill"); !s.ok()) return s;
  if (absl::Status s = RefusePriority(meta, sched + "policy"); !s.ok()) return s;
  absl::StatusOr<std::optional<int64_t>> block = meta.Whole(cache + "block_size", 1, 1024);
  if (!block.ok()) return block.status();
  if (absl::Status s = FillIn(meta, cache + "block_size", *block, &a.block_size, &a.block_size_from); !s.ok()) {
    return s;
  }
  if (absl::Status s = flag(cache + "enable_prefix_caching", &a.prefix_caching, &a.prefix_caching_from); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::optional<double>> util = Fraction(meta, cache + "gpu_memory_utilization");
  if (!util.ok()) return util.status();
  if (absl::Status s = FillIn(meta, cache + "gpu_memory_utilization", *util, &a.gpu_memory_utilization,
                              &a.gpu_memory_utilization_from);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::optional<int64_t>> blocks = meta.Whole(cache + "num_gpu_blocks", 2, int64_t{1} << 40);
  if (!blocks.ok()) return blocks.status();
  if (blocks->has_value()) {
    int64_t count = r->num_gpu_blocks.value_or(0);
    if (absl::Status s = FillIn(meta, cache + "num_gpu_blocks", *blocks, &count, &r->num_gpu_blocks_from); !s.ok()) {
      return s;
    }
    r->num_gpu_blocks = count;
  }
  if (absl::Status s = ReadCacheDtype(meta, cache + "cache_dtype", &a); !s.ok()) return s;
  if (absl::Status s = flag("resolved_config.model_config.enforce_eager", &a.enforce_eager, &a.enforce_eager_from);
      !s.ok()) {
    return s;
  }
  return ReadCudaGraphs(meta, r);
}

// meta.json's hardware: the GPU the run had, as torch saw it. Its total
// memory is the figure vLLM budgets gpu_memory_utilization of
// (torch.cuda.mem_get_info), more exact than a cluster file's GB.
absl::Status ReadHardware(const JsonFile& meta, RunFolder* r) {
  absl::StatusOr<bool> present =
      Part(meta, "hardware", "the GPU: device_name, device_total_memory_bytes, ...");
  if (!present.ok() || !*present) return present.status();
  absl::StatusOr<std::optional<double>> bytes = meta.Number("hardware.device_total_memory_bytes");
  if (!bytes.ok()) return bytes.status();
  if (bytes->has_value() && !(**bytes > 0)) {
    return meta.Error("hardware.device_total_memory_bytes", absl::StrCat("expected bytes above 0, not ", **bytes));
  }
  r->device_memory_bytes = bytes->value_or(0);
  absl::StatusOr<std::optional<std::string>> name = meta.Text("hardware.device_name");
  if (!name.ok()) return name.status();
  r->device_name = name->value_or("");
  return absl::OkStatus();
}

// The profile's operators against the architecture's: the same set.
absl::Status CheckOperators(const std::string& file, const std::set<std::string>& found,
                            const std::set<std::string>& needed, const std::string& model_type) {
  for (const std::string& op : found) {
    if (needed.count(op) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ": error: operator '", op, "' is not one serq vllm knows for ", model_type,
          " (it sums '", absl::StrJoin(needed, "', '"), "'); a program without it would drop "
          "its time"));
    }
  }
  for (const std::string& op : needed) {
    if (found.count(op) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": error: no operator '", op, "' (",
                                                     model_type, " runs it; the profile has '",
                                                     absl::StrJoin(found, "', '"), "')"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadCluster(const JsonFile& json, int run_tp, Cluster* c,
                         std::vector<std::string>* warnings) {
  c->present = true;
  // A number, or a list of one a topology dimension (LLMServingSim's
  // config_builder.py, _normalize_network_dim_values).
  auto figures = [&](const char* key, bool positive, std::vector<double>* out) -> absl::Status {
    const google::protobuf::Value* v = json.Find(key);
    if (v == nullptr || v->kind_case() == google::protobuf::Value::kNullValue) return absl::OkStatus();
    std::vector<const google::protobuf::Value*> items;
    if (v->kind_case() == google::protobuf::Value::kListValue && v->list_value().values_size() >= 1 &&
        v->list_value().values_size() <= 8) {
      for (const google::protobuf::Value& e : v->list_value().values()) items.push_back(&e);
    } else {
      items.push_back(v);
    }
    for (const google::protobuf::Value* e : items) {
      const double x = e->number_value();
      if (e->kind_case() != google::protobuf::Value::kNumberValue || !std::isfinite(x) ||
          (positive ? !(x > 0) : !(x >= 0))) {
        return json.Error(key, absl::StrCat(positive ? "expected GB/s above 0" : "expected ns, at least 0",
                                            ", or a list of such (one a topology dimension, up to 8), not ",
                                            Describe(*v)));
      }
      out->push_back(x);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = figures("link_bw", true, &c->link_bw); !s.ok()) return s;
  if (absl::Status s = figures("link_latency", false, &c->link_latency); !s.ok()) return s;
  const google::protobuf::Value* nodes = json.Find("nodes");
  if (nodes == nullptr || nodes->kind_case() != google::protobuf::Value::kListValue ||
      nodes->list_value().values_size() == 0) {
    return json.Error("nodes", "missing: the cluster's nodes");
  }
  bool two_deployments = false;
  for (int n = 0; n < nodes->list_value().values_size(); ++n) {
    const google::protobuf::Value& node = nodes->list_value().values(n);
    const std::string at = absl::StrCat("nodes[", n, "]");
    if (node.kind_case() != google::protobuf::Value::kStructValue) {
      return json.Error(at, absl::StrCat("expected an object, not ", Describe(node)));
    }
    auto it = node.struct_value().fields().find("instances");
    if (it == node.struct_value().fields().end() ||
        it->second.kind_case() != google::protobuf::Value::kListValue) {
      return json.Error(at + ".instances", "missing: the node's instances");
    }
    for (int i = 0; i < it->second.list_value().values_size(); ++i) {
      const google::protobuf::Value& inst = it->second.list_value().values(i);
      const std::string here = absl::StrCat(at, ".instances[", i, "]");
      if (inst.kind_case() != google::protobuf::Value::kStructValue) {
        return json.Error(here, absl::StrCat("expected an object, not ", Describe(inst)));
      }
      ++c->instances;
      const auto& f = inst.struct_value().fields();
      // The instance's tensor-parallel degree: the engine's, which meta.json
      // records; another is a folder whose files describe two deployments.
      // The program is meta.json's, and says so.
      if (auto tp = f.find("tp_size"); tp != f.end() && !two_deployments &&
                                       tp->second.kind_case() != google::protobuf::Value::kNullValue &&
                                       !(tp->second.kind_case() == google::protobuf::Value::kNumberValue &&
                                         tp->second.number_value() == run_tp)) {
        two_deployments = true;  // said once, at the first instance
        warnings->push_back(absl::StrCat(json.file(), ": ", here, ".tp_size is ", Describe(tp->second),
                                         ", meta.json's engine_kwargs.tensor_parallel_size ", run_tp,
                                         ": the run's files describe two deployments; the program is "
                                         "meta.json's"));
      }
      if (auto h = f.find("hardware"); h != f.end() &&
                                       h->second.kind_case() == google::protobuf::Value::kStringValue) {
        c->hardware = h->second.string_value();
      }
      auto mem = f.find("npu_mem");
      if (mem == f.end() || mem->second.kind_case() != google::protobuf::Value::kStructValue) continue;
      const auto& m = mem->second.struct_value().fields();
      auto number = [&](const char* key, double* out) -> absl::Status {
        auto x = m.find(key);
        if (x == m.end()) return absl::OkStatus();
        if (x->second.kind_case() != google::protobuf::Value::kNumberValue ||
            !(x->second.number_value() > 0)) {
          return json.Error(absl::StrCat(here, ".npu_mem.", key),
                            absl::StrCat("expected a number above 0, not ", Describe(x->second)));
        }
        *out = x->second.number_value();
        return absl::OkStatus();
      };
      if (absl::Status s = number("mem_size", &c->mem_size); !s.ok()) return s;
      if (absl::Status s = number("mem_util", &c->mem_util); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

std::string GpuName(const RunFolder& r) {
  if (!r.cluster.hardware.empty()) return r.cluster.hardware;
  return r.device_name.empty() ? "GPU" : r.device_name;
}

absl::Status ReadMetaJson(const JsonFile& meta, RunFolder* r) {
  if (absl::Status s = ReadEngineArgs(meta, &r->args); !s.ok()) return s;
  if (absl::Status s = ReadKvCache(meta, r); !s.ok()) return s;
  if (absl::Status s = ReadResolvedConfig(meta, r); !s.ok()) return s;
  if (absl::Status s = ReadHardware(meta, r); !s.ok()) return s;
  if (meta.Find("kv_cache") != nullptr && !r->num_gpu_blocks) {
    r->warnings.push_back(absl::StrCat(meta.file(), ": kv_cache has no num_gpu_blocks: the KV cache is "
                                       "derived from the GPU's memory, not vLLM's count"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunFolder> ReadRunFolder(const std::string& dir, const Redeployment& as) {
  RunFolder r;
  r.dir = dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": error: not a folder (serq vllm reads "
                                                   "a run folder in LLMServingSim's layout)"));
  }
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  r.name = std::filesystem::path(trimmed).filename().string();

  const std::string meta_path = Join(dir, "meta.json");
  absl::StatusOr<JsonFile> meta = ReadJson(meta_path, "the engine's arguments", &r.warnings);
  if (!meta.ok()) return meta.status();
  absl::StatusOr<std::optional<std::string>> version = meta->Text("vllm_version");
  if (!version.ok()) return version.status();
  r.vllm_version = version->value_or("");
  if (absl::Status s = ReadMetaJson(*meta, &r); !s.ok()) return s;
  // vLLM's front-end adds up its engines' counts as they start
  // (wait_for_engine_startup: "Sum values from all engines in DP case"),
  // and the bench records the front-end's: an engine holds its share.
  if (r.num_gpu_blocks && r.args.dp > 1) {
    r.num_gpu_blocks_total = *r.num_gpu_blocks;
    r.num_gpu_blocks_engines = r.args.dp;
    r.num_gpu_blocks = *r.num_gpu_blocks / r.args.dp;
    if (*r.num_gpu_blocks < 2) {
      return meta->Error(r.num_gpu_blocks_from,
                         absl::StrCat(r.num_gpu_blocks_total, " blocks over ", r.args.dp, " data-parallel engines is ",
                                      *r.num_gpu_blocks, " an engine; vLLM needs at least 2"));
    }
  }
  const int run_tp = r.args.tp;
  {
    EngineArgs& a = r.args;
    // With expert parallel the data-parallel degree is the experts' spread,
    // and so the weights each GPU holds.
    const bool same = as.tp.value_or(a.tp) == a.tp &&
                      (!a.expert_parallel || as.dp.value_or(a.dp) == a.dp) &&
                      as.max_num_seqs.value_or(a.max_num_seqs) == a.max_num_seqs &&
                      as.max_num_batched_tokens.value_or(a.max_num_batched_tokens) == a.max_num_batched_tokens;
    if (!same) r.num_gpu_blocks.reset();
    // The captured sizes the run recorded: vLLM's default ones follow the
    // limits, and are the new limits' defaults; others stay, but for those
    // above the new token limit (vLLM drops them), and none left is none
    // captured.
    const int64_t new_seqs = as.max_num_seqs.value_or(a.max_num_seqs);
    const int64_t new_tokens = as.max_num_batched_tokens.value_or(a.max_num_batched_tokens);
    if (!a.graph_sizes.empty() && (new_seqs != a.max_num_seqs || new_tokens != a.max_num_batched_tokens)) {
      if (a.graph_sizes == models::VllmCudaGraphSizes(a.max_num_seqs, a.max_num_batched_tokens)) {
        a.graph_sizes.clear();
        a.graph_sizes_from.clear();
      } else if (new_tokens > 0) {
        std::erase_if(a.graph_sizes, [&](int64_t size) { return size > new_tokens; });
        if (a.graph_sizes.empty()) a.enforce_eager = true;
      }
    }
    a.tp = as.tp.value_or(a.tp);
    a.dp = as.dp.value_or(a.dp);
    a.max_num_seqs = as.max_num_seqs.value_or(a.max_num_seqs);
    a.max_num_batched_tokens = as.max_num_batched_tokens.value_or(a.max_num_batched_tokens);
    // A plan's limit is its own, not a field of the run's.
    if (as.max_num_seqs) a.max_num_seqs_from = "engine_kwargs.max_num_seqs";
    if (as.max_num_batched_tokens) a.max_num_batched_tokens_from = "engine_kwargs.max_num_batched_tokens";
  }

  absl::StatusOr<JsonFile> model = ReadJson(Join(dir, "model.json"), "the model's config.json", &r.warnings);
  if (!model.ok()) return model.status();
  absl::StatusOr<ModelConfig> config = ReadModelConfig(*model);
  if (!config.ok()) return config.status();
  r.model = *config;
  const EngineArgs& a = r.args;
  if (a.dtype != "auto" && a.dtype != r.model.dtype) {
    return meta->Error("engine_kwargs.dtype",
                       absl::StrCat("'", a.dtype, "', where the model is ", r.model.dtype,
                                    ": serq vllm models the model's own dtype"));
  }
  if (r.model.heads % a.tp != 0) {
    return meta->Error("engine_kwargs.tensor_parallel_size",
                       absl::StrCat(a.tp, " does not divide the model's ", r.model.heads,
                                    " attention heads"));
  }
  if (a.expert_parallel && !r.model.moe()) {
    return meta->Error("engine_kwargs.enable_expert_parallel",
                       "expert parallelism, and the model has no experts");
  }
  r.ep = a.expert_parallel ? a.dp * a.tp : 1;
  if (r.model.moe() && a.tp > 1 && a.dp > 1) {
    return meta->Error("engine_kwargs.tensor_parallel_size",
                       "a mixture of experts at tensor and data parallel both: serq vllm models "
                       "one or the other");
  }
  if (r.ep > 1 && r.model.experts % r.ep != 0) {
    return meta->Error("engine_kwargs.enable_expert_parallel",
                       absl::StrCat("the model's ", r.model.experts, " experts do not split over ",
                                    r.ep, " GPUs"));
  }

  const std::string cluster_path = Join(dir, "llmservingsim-config.json");
  if (std::filesystem::exists(cluster_path, ec)) {
    absl::StatusOr<JsonFile> cluster = ReadJson(cluster_path, "the cluster", &r.warnings);
    if (!cluster.ok()) return cluster.status();
    if (absl::Status s = ReadCluster(*cluster, run_tp, &r.cluster, &r.warnings); !s.ok()) return s;
  }

  const std::string profile_meta = Join(dir, "profile/meta.yaml");
  absl::StatusOr<ProfileMeta> profile = ReadProfileMeta(profile_meta);
  if (absl::IsNotFound(profile.status())) return Missing(profile_meta, "how the profile was taken");
  if (!profile.ok()) return profile.status();
  r.profile = *profile;
  // A profile of another model times other shapes' kernels. Said, not
  // refused: a model may be named by a local path in one file and by its
  // hub name in the other.
  if (!a.model.empty() && !r.profile.model.empty() && a.model != r.profile.model) {
    r.warnings.push_back(absl::StrCat(profile_meta, ": the profile is of model '", r.profile.model,
                                      "', the run (meta.json engine_kwargs.model) of '", a.model,
                                      "': the step times are that model's kernels"));
  }
  // Likewise a profile of another GPU: meta.json's hardware names the run's.
  if (!r.device_name.empty() && !r.profile.gpu.empty() && r.device_name != r.profile.gpu) {
    r.warnings.push_back(absl::StrCat(profile_meta, ": the profile was taken on '", r.profile.gpu,
                                      "', the run (meta.json hardware.device_name) on '", r.device_name,
                                      "': the step times are that GPU's kernels"));
  }
  const Architecture* arch = FindArchitecture(r.profile.architecture);
  if (arch == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        profile_meta, ": error: architecture '", r.profile.architecture,
        "': serq vllm knows the operators of ", absl::StrJoin(KnownModelTypes(), ", ")));
  }
  if (FindArchitecture(r.model.model_type) != arch) {
    return absl::InvalidArgumentError(absl::StrCat(
        profile_meta, ": error: the profile is of architecture '", r.profile.architecture,
        "', the run's model (model.json) of '", r.model.model_type, "'"));
  }
  bool profiled = false;
  for (int tp : r.profile.tp_degrees) profiled = profiled || tp == a.tp;
  if (!profiled) {
    return absl::InvalidArgumentError(absl::StrCat(
        profile_meta, ": error: ", as.tp ? "the engine asked for is" : "the run is", " at tensor parallel ", a.tp,
        ", and the profile has tp_degrees [", absl::StrJoin(r.profile.tp_degrees, ", "), "]"));
  }
  r.profile_dir = Join(dir, absl::StrCat("profile/tp", a.tp));
  for (const char* file : {"attention.csv", "dense.csv", "per_sequence.csv"}) {
    const std::string path = Join(r.profile_dir, file);
    if (!std::filesystem::exists(path, ec)) return Missing(path, "the profile at the run's TP degree");
  }
  // The operators of each file against the architecture's.
  std::set<std::string> dense_ops;
  for (const std::string& op : arch->per_step) dense_ops.insert(op);
  for (const auto& [op, n] : arch->per_layer) dense_ops.insert(op);
  if (r.model.dense_layers > 0) {
    if (arch->dense_mlp.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Join(dir, "model.json"), ": error: ", r.model.dense_layers, " layers without experts, "
          "and ", r.model.model_type, " has no dense MLP"));
    }
    for (const std::string& op : arch->dense_mlp) dense_ops.insert(op);
  }
  const std::string dense_path = Join(r.profile_dir, "dense.csv");
  absl::StatusOr<std::set<std::string>> found = ReadColumnValues(dense_path, "layer");
  if (!found.ok()) return found.status();
  if (absl::Status s = CheckOperators(dense_path, *found, dense_ops, r.model.model_type); !s.ok()) {
    return s;
  }
  const std::string per_sequence = Join(r.profile_dir, "per_sequence.csv");
  found = ReadColumnValues(per_sequence, "layer");
  if (!found.ok()) return found.status();
  if (absl::Status s = CheckOperators(per_sequence, *found,
                                      {arch->per_sequence.begin(), arch->per_sequence.end()},
                                      r.model.model_type);
      !s.ok()) {
    return s;
  }
  if (r.model.moe()) {
    if (!arch->experts) {
      return absl::InvalidArgumentError(absl::StrCat(Join(dir, "model.json"), ": error: ",
                                                     r.model.model_type, " has no experts in serq "
                                                     "vllm's catalog"));
    }
    // Whole experts on each GPU with expert parallelism: one GPU's kernels
    // at tensor parallel 1; without it, the experts split as the run's TP.
    r.moe_file = Join(dir, absl::StrCat("profile/tp", r.ep > 1 ? 1 : a.tp, "/moe.csv"));
    // LLMServingSim's profiler times the experts at tensor parallel 1 only
    // (profiler/core/categories.py, categories_for), so a profile has no
    // tpN/moe.csv: the whole experts' kernels, a 1/TP share of them a GPU.
    if (r.ep == 1 && a.tp > 1 && !std::filesystem::exists(r.moe_file, ec)) {
      const std::string whole = Join(dir, "profile/tp1/moe.csv");
      if (std::filesystem::exists(whole, ec)) {
        r.moe_file = whole;
        r.moe_split = a.tp;
      }
    }
    if (!std::filesystem::exists(r.moe_file, ec)) {
      return Missing(r.moe_file, "the experts' kernels of a mixture-of-experts model");
    }
  }
  r.requests = Join(dir, "requests.jsonl");
  if (!std::filesystem::exists(r.requests, ec)) return Missing(r.requests, "the requests replayed");
  return r;
}

}  // namespace serq::vllm
