// meta.json of a run folder: the engine's arguments (engine_kwargs) and
// the records of what the engine ran with (kv_cache, resolved_config,
// hardware), read into a RunFolder and checked against each other. The
// rest of the folder is run_folder.cc's.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serq/models/json_file.h"
#include "serq/models/vllm_engine.h"
#include "serq/vllm/run_folder.h"

namespace serq::vllm {

using models::Describe;
using models::JsonFile;

namespace {

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
  if (models::KnownKvCacheDtype(dtype)) return absl::OkStatus();
  return meta.Error(path, absl::StrCat("'", dtype, "': expected ", models::kKvCacheDtypes));
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

// kv_cache_memory_bytes as a record of what ran gives it (FillIn's rule).
absl::Status FillInBytes(const JsonFile& meta, const std::string& path, const std::optional<int64_t>& logged,
                         EngineArgs* a) {
  int64_t bytes = a->kv_cache_memory_bytes.value_or(0);
  if (absl::Status s = FillIn(meta, path, logged, &bytes, &a->kv_cache_memory_bytes_from); !s.ok()) return s;
  if (!a->kv_cache_memory_bytes_from.empty()) a->kv_cache_memory_bytes = bytes;
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
      "scheduler_reserve_full_isl", "kv_cache_memory_bytes", "disable_custom_all_reduce", "compilation_config",
      "cuda_graph_sizes", "max_cudagraph_capture_size", "all2all_backend", "enable_eplb"};
  static const std::set<std::string> kHarmless = {
      "model", "seed", "tokenizer", "revision", "trust_remote_code", "download_dir",
      "load_format", "served_model_name", "disable_log_stats",
      "disable_log_requests", "enable_log_requests", "swap_space", "max_logprobs", "tokenizer_mode",
      "skip_tokenizer_init", "generation_config", "logprobs_mode", "prefix_caching_hash_algo",
      "enable_sleep_mode", "distributed_executor_backend", "disable_cascade_attn"};
  // Arguments that change what serq models unless at vLLM 0.19's default:
  // accepted at it, refused at another value (the experts' exchange and
  // load balancer are read instead, below: they matter to experts only).
  struct AtDefault {
    const char* key;
    const char* shown;                                    // the default, as a message gives it
    bool (*is)(const google::protobuf::Value& v);         // whether `v` is it
  };
  static constexpr AtDefault kAtDefault[] = {
      {"max_num_partial_prefills", "1", [](const google::protobuf::Value& v) { return Describe(v) == "1"; }},
      {"stream_interval", "1", [](const google::protobuf::Value& v) { return Describe(v) == "1"; }},
      {"hf_overrides", "{}", [](const google::protobuf::Value& v) {
         return v.kind_case() == google::protobuf::Value::kStructValue && v.struct_value().fields().empty();
       }}};
  for (const auto& [key, value] : kwargs->struct_value().fields()) {
    // The bench writes every argument it names, null where the run gave
    // none: null is vLLM's default for it, whatever the argument.
    if (value.kind_case() == google::protobuf::Value::kNullValue) continue;
    const AtDefault* d = nullptr;
    for (const AtDefault& x : kAtDefault) {
      if (key == x.key) d = &x;
    }
    if (d != nullptr) {
      if (d->is(value)) continue;
      return meta.Error(absl::StrCat("engine_kwargs.", key),
                        absl::StrCat(Describe(value), ": serq vllm models vLLM 0.19's default, ", d->shown));
    }
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
  if (v) a->tp_from = "engine_kwargs.tensor_parallel_size";
  if (absl::Status s = whole("data_parallel_size", 1, 1024, &v); !s.ok()) return s;
  a->dp = static_cast<int>(v.value_or(1));
  if (v) a->dp_from = "engine_kwargs.data_parallel_size";
  if (absl::Status s = RefusePipeline(meta, "engine_kwargs.pipeline_parallel_size"); !s.ok()) return s;
  if (absl::Status s = flag("enable_expert_parallel", &a->expert_parallel, &a->expert_parallel_from); !s.ok()) {
    return s;
  }
  if (absl::Status s = whole("max_num_seqs", 1, models::kMostMaxNumSeqs, &v); !s.ok()) return s;
  a->max_num_seqs = v.value_or(0);
  if (v.has_value()) a->max_num_seqs_from = "engine_kwargs.max_num_seqs";
  if (absl::Status s = whole("max_num_batched_tokens", 1, models::kMostMaxNumBatchedTokens, &v); !s.ok()) {
    return s;
  }
  a->max_num_batched_tokens = v.value_or(0);
  if (v.has_value()) a->max_num_batched_tokens_from = "engine_kwargs.max_num_batched_tokens";
  // max_model_len -1 (or "auto", vLLM's alias) asks vLLM to fit it to the
  // KV cache it finds: no figure of the run's, so what vLLM resolved
  // (resolved_config.model_config), where recorded, fills it in.
  const google::protobuf::Value* len = meta.Find("engine_kwargs.max_model_len");
  const bool auto_fit = len != nullptr && ((len->kind_case() == google::protobuf::Value::kNumberValue &&
                                            len->number_value() == -1) ||
                                           (len->kind_case() == google::protobuf::Value::kStringValue &&
                                            absl::AsciiStrToLower(len->string_value()) == "auto"));
  if (!auto_fit) {
    if (absl::Status s = whole("max_model_len", 1, 1 << 26, &a->max_model_len); !s.ok()) return s;
    if (a->max_model_len) a->max_model_len_from = "engine_kwargs.max_model_len";
  }
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
  // vLLM lowercases a dtype and takes "half" for float16 and "float" for
  // float32 (_get_and_verify_dtype's _STR_DTYPE_TO_TORCH_DTYPE).
  a->dtype = absl::AsciiStrToLower(a->dtype);
  if (a->dtype == "half") a->dtype = "float16";
  if (a->dtype == "float") a->dtype = "float32";
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
  if (absl::Status s = whole("kv_cache_memory_bytes", 1, int64_t{1} << 50, &a->kv_cache_memory_bytes); !s.ok()) {
    return s;
  }
  if (a->kv_cache_memory_bytes) a->kv_cache_memory_bytes_from = "engine_kwargs.kv_cache_memory_bytes";
  if (absl::Status s = flag("disable_custom_all_reduce", &a->disable_custom_all_reduce); !s.ok()) return s;
  if (absl::Status s = flag("enable_eplb", &a->enable_eplb, &a->enable_eplb_from); !s.ok()) return s;
  absl::StatusOr<std::optional<std::string>> backend = meta.Text("engine_kwargs.all2all_backend");
  if (!backend.ok()) return backend.status();
  if (backend->has_value()) {
    a->all2all_backend = **backend;
    a->all2all_backend_from = "engine_kwargs.all2all_backend";
  }
  if (a->kv_cache_dtype != "auto") a->kv_cache_dtype_from = "engine_kwargs.kv_cache_dtype";
  return CheckKvCacheDtype(meta, "engine_kwargs.kv_cache_dtype", a->kv_cache_dtype);
}

// A cudagraph_mode as the bench records vLLM's enum: its name, or ""
// for a form this does not know.
std::string GraphModeName(const google::protobuf::Value& mode) {
  std::string name;
  if (mode.kind_case() == google::protobuf::Value::kNumberValue) {
    const double v = mode.number_value();
    name = v == 0 ? "NONE" : v == 1 ? "PIECEWISE" : v == 2 ? "FULL" : "";
  } else if (mode.kind_case() == google::protobuf::Value::kListValue && mode.list_value().values_size() == 2) {
    const auto& l = mode.list_value();
    const double d = l.values(0).number_value(), m = l.values(1).number_value();
    if (d == 2 && m == 0) name = "FULL_DECODE_ONLY";
    if (d == 2 && m == 1) name = "FULL_AND_PIECEWISE";
  } else if (mode.kind_case() == google::protobuf::Value::kStringValue) {
    name = mode.string_value();
    if (absl::StartsWith(name, "CUDAGraphMode.")) name = name.substr(14);
  }
  for (const char* known : {"NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"}) {
    if (name == known) return name;
  }
  return "";
}

// engine_kwargs.compilation_config, as given, and the engine arguments
// that set the CUDA graphs' sizes outside it: its pass_config (the passes
// that fuse an all-reduce or a GEMM with its neighbour, which serq does not
// model: it costs the fused kernels as the two apart) changes nothing of
// the schedule. What vLLM made of the rest is read from
// resolved_config.compilation_config: a key that sets the graphs' mode
// needs its cudagraph_mode there, one that sets their sizes its
// cudagraph_capture_sizes (or max_cudagraph_capture_size), any other
// (the compile mode or level) the graphs' mode; else it is refused at the
// key, never modelled with vLLM's default graphs instead.
absl::Status ReadGivenCompilation(const JsonFile& meta) {
  const std::string path = "engine_kwargs.compilation_config";
  const google::protobuf::Value* given = meta.Find(path);
  const bool given_object = given != nullptr && given->kind_case() == google::protobuf::Value::kStructValue;
  if (given != nullptr && given->kind_case() != google::protobuf::Value::kNullValue && !given_object) {
    return meta.Error(path, absl::StrCat("expected an object (vLLM's CompilationConfig), not ", Describe(*given)));
  }
  const std::string resolved = "resolved_config.compilation_config";
  const google::protobuf::Value* record = meta.Find(resolved);
  const bool recorded = record != nullptr && record->kind_case() == google::protobuf::Value::kStructValue;
  // Recorded readably: a tag (the recorder could not write the value) is
  // not, and is not a look-up here (ReadCudaGraphs says it).
  auto has = [&](const char* key) {
    const std::string at = absl::StrCat(resolved, ".", key);
    if (!recorded || meta.Tag(at)) return false;
    const google::protobuf::Value* v = meta.Find(at);
    return v != nullptr && v->kind_case() != google::protobuf::Value::kNullValue;
  };
  // The mode recorded in a form ReadCudaGraphs reads (one it does not is
  // modelled as the default, which a mode given must not be).
  const bool mode_read = has("cudagraph_mode") &&
                         !GraphModeName(*meta.Find(absl::StrCat(resolved, ".cudagraph_mode"))).empty();
  const bool sizes = has("cudagraph_capture_sizes") || has("max_cudagraph_capture_size");
  // What each set key needs recorded, and what that is, in order: the
  // engine arguments outside the config first, then its keys by name.
  std::vector<std::pair<std::string, std::string>> needs;  // (key, the record it needs)
  for (const char* key : {"cuda_graph_sizes", "max_cudagraph_capture_size"}) {
    const google::protobuf::Value* v = meta.Find(absl::StrCat("engine_kwargs.", key));
    if (v != nullptr && v->kind_case() != google::protobuf::Value::kNullValue && !sizes) {
      needs.push_back({absl::StrCat("engine_kwargs.", key), "cudagraph_capture_sizes"});
    }
  }
  std::set<std::string> inside;
  if (given_object) {
    for (const auto& [key, value] : given->struct_value().fields()) {
      if (key != "pass_config" && value.kind_case() != google::protobuf::Value::kNullValue) inside.insert(key);
    }
  }
  // A size key needs the sizes recorded; any other (the mode, the compile
  // mode or level, which change the graphs vLLM resolves) the mode.
  for (const std::string& key : inside) {
    const bool size = key == "cudagraph_capture_sizes" || key == "max_cudagraph_capture_size";
    if (size ? sizes : mode_read) continue;
    needs.push_back({absl::StrCat(path, ".", key), size ? "cudagraph_capture_sizes" : "cudagraph_mode"});
  }
  if (needs.empty()) return absl::OkStatus();
  const auto& [key, needed] = needs.front();
  return meta.Error(key, absl::StrCat("serq vllm reads what vLLM made of the compilation config (CUDA graphs' "
                                      "mode and sizes) from ", resolved, ".", needed,
                                      ", which this run does not record in a form it reads; only its "
                                      "pass_config is read from the arguments"));
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
  // fp8's spellings name one format of a byte: "fp8" is vLLM's e4m3.
  const auto format = [](const std::string& d) { return d == "fp8" ? std::string("fp8_e4m3") : d; };
  if (a->kv_cache_dtype != "auto" && format(**dtype) != format(a->kv_cache_dtype)) {
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
  absl::StatusOr<std::optional<int64_t>> bytes = meta.Whole("kv_cache.kv_cache_memory_bytes", 1, int64_t{1} << 50);
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = FillInBytes(meta, "kv_cache.kv_cache_memory_bytes", *bytes, &a); !s.ok()) return s;
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
    const std::string name = GraphModeName(*mode);
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
  // A list longer than the recorder keeps (64) is a tag; the largest size
  // is a number still, and vLLM's default rule up to it is the likeliest
  // list (the default list up to 512 has 51 sizes).
  const std::string max_path = "resolved_config.compilation_config.max_cudagraph_capture_size";
  const std::optional<std::string> tag = meta.Tag(sizes_path);
  const google::protobuf::Value* sizes = tag ? nullptr : meta.Find(sizes_path);
  if (!tag && sizes == nullptr) {
    // The largest size alone: vLLM's rule up to it.
    absl::StatusOr<std::optional<int64_t>> largest = meta.Whole(max_path, 1, 1 << 20);
    if (!largest.ok()) return largest.status();
    if (largest->has_value()) {
      a.graph_sizes = models::CudaGraphSizesUpTo(**largest);
      a.graph_sizes_from = max_path;
    }
    return absl::OkStatus();
  }
  std::set<int64_t> got;
  // What is wrong, where the value is not a list of whole numbers from 1.
  std::string wrong;
  if (tag) {
    wrong = absl::StrCat("\"", *tag, "\" is not a list of sizes");
  } else if (sizes->kind_case() != google::protobuf::Value::kListValue) {
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
  absl::StatusOr<std::optional<int64_t>> largest =
      tag ? meta.Whole(max_path, 1, 1 << 20) : absl::StatusOr<std::optional<int64_t>>(std::nullopt);
  if (!wrong.empty() && largest.ok() && largest->has_value()) {
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
  if (absl::Status s =
          whole(sched + "max_num_seqs", 1, models::kMostMaxNumSeqs, &a.max_num_seqs, &a.max_num_seqs_from);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = whole(sched + "max_num_batched_tokens", 1, models::kMostMaxNumBatchedTokens,
                             &a.max_num_batched_tokens, &a.max_num_batched_tokens_from);
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
  // The parallelism that ran: it fills in and must agree, as the rest.
  const std::string parallel = "resolved_config.parallel_config.";
  for (auto [key, value, from] : {std::tuple{"tensor_parallel_size", &a.tp, &a.tp_from},
                                  std::tuple{"data_parallel_size", &a.dp, &a.dp_from}}) {
    absl::StatusOr<std::optional<int64_t>> n = meta.Whole(parallel + key, 1, 1024);
    if (!n.ok()) return n.status();
    if (absl::Status s = FillIn(meta, parallel + key, *n, value, from); !s.ok()) return s;
  }
  if (absl::Status s = flag(parallel + "enable_expert_parallel", &a.expert_parallel, &a.expert_parallel_from);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = flag(parallel + "enable_eplb", &a.enable_eplb, &a.enable_eplb_from); !s.ok()) return s;
  absl::StatusOr<std::optional<std::string>> backend = meta.Text(parallel + "all2all_backend");
  if (!backend.ok()) return backend.status();
  if (absl::Status s = FillIn(meta, parallel + "all2all_backend", *backend, &a.all2all_backend,
                              &a.all2all_backend_from);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::optional<int64_t>> interval = meta.Whole(sched + "stream_interval", 1, 1 << 20);
  if (!interval.ok()) return interval.status();
  if (interval->value_or(1) != 1) {
    return meta.Error(sched + "stream_interval",
                      absl::StrCat(**interval, ": serq vllm models vLLM 0.19's default, 1"));
  }
  for (const auto& [key, what] : {std::pair{"speculative_config", "speculative decoding"},
                                  std::pair{"lora_config", "LoRA adapters"},
                                  std::pair{"kv_transfer_config", "a KV connector (disaggregated prefill)"}}) {
    const std::string path = absl::StrCat("resolved_config.", key);
    // A sub-config the recorder could only tag is there all the same: the
    // feature is on.
    if (std::optional<std::string> tag = meta.Tag(path)) {
      return meta.Error(path, absl::StrCat("\"", *tag, "\": ", what, ": serq vllm does not model it"));
    }
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
  absl::StatusOr<std::optional<int64_t>> bytes = meta.Whole(cache + "kv_cache_memory_bytes", 1, int64_t{1} << 50);
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = FillInBytes(meta, cache + "kv_cache_memory_bytes", *bytes, &a); !s.ok()) return s;
  if (absl::Status s = ReadCacheDtype(meta, cache + "cache_dtype", &a); !s.ok()) return s;
  int64_t model_len = a.max_model_len.value_or(0);
  if (absl::Status s = whole("resolved_config.model_config.max_model_len", 1, 1 << 26, &model_len,
                             &a.max_model_len_from);
      !s.ok()) {
    return s;
  }
  if (!a.max_model_len_from.empty()) a.max_model_len = model_len;
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

}  // namespace

absl::Status ReadMetaJson(const JsonFile& given, RunFolder* r) {
  // What the bench wrote of vLLM's own objects (kv_cache, resolved_config,
  // hardware) may hold its tags for values it could not record: each reads
  // as not recorded, and one the reading looked for is said. engine_kwargs
  // is the arguments as given: a tag there is refused as any odd value is.
  JsonFile meta = given;
  meta.TagsAsAbsent({"kv_cache", "resolved_config", "hardware"});
  if (absl::Status s = ReadEngineArgs(meta, &r->args); !s.ok()) return s;
  if (absl::Status s = ReadGivenCompilation(meta); !s.ok()) return s;
  if (absl::Status s = ReadKvCache(meta, r); !s.ok()) return s;
  if (absl::Status s = ReadResolvedConfig(meta, r); !s.ok()) return s;
  if (absl::Status s = ReadHardware(meta, r); !s.ok()) return s;
  for (const std::string& tag : meta.TagsRead()) {
    r->warnings.push_back(absl::StrCat(meta.file(), ": ", tag, " is the recorder's tag for a value it could "
                                       "not write: read as not recorded"));
  }
  if (meta.Find("kv_cache") != nullptr && !r->num_gpu_blocks && !r->args.kv_cache_memory_bytes &&
      !r->args.num_gpu_blocks_override) {
    r->warnings.push_back(absl::StrCat(meta.file(), ": kv_cache has no num_gpu_blocks: the KV cache is "
                                       "derived from the GPU's memory, not vLLM's count"));
  }
  return absl::OkStatus();
}

}  // namespace serq::vllm
