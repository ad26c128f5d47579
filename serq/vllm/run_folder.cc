#include "serq/vllm/run_folder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serq/vllm/architecture.h"
#include "serq/models/json_file.h"
#include "serq/models/presets.h"
#include "serq/models/vllm_engine.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/vllm_record.h"
#include "text/lines.h"

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

// The requests as the replay's trace reader takes them (its records, its
// errors at their lines: here at once, not when the program runs), against
// the run's max_model_len where the run records it. vLLM refuses a prompt
// that leaves no room for one output token (its input processor: "plus the
// number of requested output tokens (at least 1)"), so no run holds one.
// A longer request it serves, and stops at max_model_len (Scheduler's
// check_stop: FINISHED_LENGTH_CAPPED), while the bench records the
// dataset's output_toks: those are counted, and the replay caps them.
absl::Status CheckRequests(RunFolder* r) {
  // The bench's records, not another format the replay's reader knows (a
  // row without input_toks reads as Mooncake's, and its error asks for a
  // timestamp): the first record's error is a vLLM record's.
  {
    std::ifstream in(r->requests, std::ios::binary);
    text::Lines lines(&in);
    absl::string_view first;
    if (lines.NextNonBlank(&first) && !sim::LooksLikeVllmRecord(first)) {
      return absl::InvalidArgumentError(absl::StrCat(
          r->requests, ":", lines.number(), ": error: not a vLLM request record (the bench's rows have "
          "input_toks, output_toks, queued_ts, first_token_ts, last_token_ts)"));
    }
  }
  // The replay's own reader first: its errors, at their lines, are the
  // replay's (a row without an arrival, rows on two clocks, ...).
  sim::Trace trace;
  sim::TraceError error;
  if (!sim::ReadTrace(r->requests, &trace, &error)) {
    return absl::InvalidArgumentError(sim::TraceErrorText(r->requests, error));
  }
  std::ifstream in(r->requests, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(r->requests, ": error: cannot be read"));
  text::Lines lines(&in);
  absl::string_view line;
  while (lines.NextNonBlank(&line)) {
    const std::string at = absl::StrCat(r->requests, ":", lines.number(), ": error: ");
    sim::VllmRecord record;
    if (absl::Status s = sim::ParseVllmRecord(line, &record); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(at, s.message()));
    }
    ++r->request_rows;
    // What serq compare will measure of the row: its token times on its
    // arrival's clock, or none (a request the run recorded no figures for,
    // which the replay serves and the comparison cannot).
    if (!record.first_token_ts || !record.last_token_ts) {
      if (r->unfinished_requests++ == 0) r->unfinished_first_line = lines.number();
    } else if (std::optional<sim::VllmClock> clock = sim::ArrivalClock(record)) {
      if (const std::string wrong = sim::TokenTimesOutOfOrder(record, *clock); !wrong.empty() &&
          r->unmeasurable.empty()) {
        r->unmeasurable = absl::StrCat(at, wrong, ": serq compare could not measure it");
      }
    }
    int64_t total = static_cast<int64_t>(record.input_toks + record.output_toks);
    if (r->args.max_model_len) total = std::min(total, *r->args.max_model_len);
    r->request_tokens.push_back(total);
    if (total > r->longest_request) {
      r->longest_request = total;
      r->longest_line = lines.number();
    }
    if (static_cast<int64_t>(record.input_toks) > r->longest_prompt) {
      r->longest_prompt = static_cast<int64_t>(record.input_toks);
      r->longest_prompt_line = lines.number();
    }
    if (!r->args.max_model_len) continue;
    if (record.input_toks >= *r->args.max_model_len) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, models::PromptPastMaxModelLen(static_cast<int64_t>(record.input_toks), *r->args.max_model_len,
                                            "meta.json " + r->args.max_model_len_from),
          ", so the run cannot hold it"));
    }
    if (record.input_toks + record.output_toks > *r->args.max_model_len && r->capped_requests++ == 0) {
      r->capped_first_line = lines.number();
    }
  }
  if (lines.too_long()) {
    return absl::InvalidArgumentError(
        absl::StrCat(r->requests, ":", lines.number() + 1, ": error: a line longer than ", text::Lines::kMaxLine,
                     " bytes: not a request record"));
  }
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(r->requests, ": error: cannot be read"));
  return absl::OkStatus();
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

std::string Field(const std::string& from, const std::string& key) {
  return from.empty() ? absl::StrCat("engine_kwargs.", key) : from;
}

absl::Status ReadCluster(const JsonFile& json, int run_tp, int run_dp, const std::string& tp_from,
                         const std::string& dp_from, Cluster* c,
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
      // At most 1e9 (GB/s, or ns a ring step): a figure past it is no
      // link, and 1e308 GB/s would make the program's bytes a second inf.
      if (e->kind_case() != google::protobuf::Value::kNumberValue || !std::isfinite(x) || x > 1e9 ||
          (positive ? !(x > 0) : !(x >= 0))) {
        return json.Error(key, absl::StrCat(positive ? "expected GB/s above 0 and at most 1e9"
                                                     : "expected ns from 0 to 1e9",
                                            ", or a list of such (one a topology dimension, up to 8), not ",
                                            Describe(*v)));
      }
      out->push_back(x);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = figures("link_bw", true, &c->link_bw); !s.ok()) return s;
  if (absl::Status s = figures("link_latency", false, &c->link_latency); !s.ok()) return s;
  // The link is the two together: LLMServingSim refuses a file with one
  // (config_builder.py: "Both 'link_bw' and 'link_latency' must be
  // specified"), where serq took a missing latency for 0.
  if (c->link_bw.empty() != c->link_latency.empty()) {
    const char* missing = c->link_bw.empty() ? "link_bw" : "link_latency";
    return json.Error(missing, absl::StrCat("missing, where ", c->link_bw.empty() ? "link_latency" : "link_bw",
                                            " is given: the link is the two together (LLMServingSim "
                                            "refuses one without the other)"));
  }
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
                                         ", meta.json's ", tp_from, " ", run_tp,
                                         ": the run's files describe two deployments; the program is "
                                         "meta.json's"));
      }
      // The GPU and its memory: the first instance's. A later instance
      // with others (LLMServingSim simulates unlike instances) is not one
      // vLLM deployment of data-parallel engines: said, not taken.
      const bool first = c->instances == 1;
      auto differs = [&](const std::string& field, const std::string& theirs, const std::string& first_one) {
        warnings->push_back(absl::StrCat(json.file(), ": ", here, ".", field, " is ", theirs, ", the first "
                                         "instance's ", first_one, ": the program takes the first instance's"));
      };
      if (auto h = f.find("hardware"); h != f.end() &&
                                       h->second.kind_case() == google::protobuf::Value::kStringValue) {
        if (first) {
          c->hardware = h->second.string_value();
        } else if (h->second.string_value() != c->hardware) {
          differs("hardware", Describe(h->second), c->hardware.empty() ? "none" : "\"" + c->hardware + "\"");
        }
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
        if (first) {
          *out = x->second.number_value();
        } else if (x->second.number_value() != *out) {
          differs(absl::StrCat("npu_mem.", key), Describe(x->second), *out > 0 ? absl::StrCat(*out) : "none");
        }
        return absl::OkStatus();
      };
      if (absl::Status s = number("mem_size", &c->mem_size); !s.ok()) return s;
      if (absl::Status s = number("mem_util", &c->mem_util); !s.ok()) return s;
    }
  }
  // An instance an engine: another count than meta.json's data-parallel
  // degree is two deployments as well (said once, as the TP degree's).
  if (!two_deployments && c->instances != run_dp) {
    warnings->push_back(absl::StrCat(json.file(), ": nodes hold ", c->instances,
                                     c->instances == 1 ? " instance" : " instances",
                                     ", meta.json's ", dp_from, " ", run_dp,
                                     ": the run's files describe two deployments; the program is meta.json's"));
  }
  return absl::OkStatus();
}

std::string GpuName(const RunFolder& r) {
  // The run's own record of its device first (meta.json, CUDA's name), then
  // LLMServingSim's config.
  if (!r.device_name.empty()) return r.device_name;
  return r.cluster.hardware.empty() ? "GPU" : r.cluster.hardware;
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
  // The requests the bench sent, for a warning only: a value that is not
  // a count is said and set aside, not a refused folder.
  if (absl::StatusOr<std::optional<int64_t>> sent = meta->Whole("num_requests", 0, int64_t{1} << 40); sent.ok()) {
    r.num_requests = *sent;
  } else {
    r.warnings.push_back(absl::StrCat(meta_path, ": num_requests ", Describe(*meta->Find("num_requests")),
                                      " is not a count of requests: not read"));
  }
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
  const int run_tp = r.args.tp, run_dp = r.args.dp;
  {
    EngineArgs& a = r.args;
    // The limits the run's engine ran at. The bench builds it with
    // AsyncLLM.from_engine_args, whose usage context (ENGINE_CONTEXT) is in
    // neither of vLLM's get_batch_defaults tables, so a limit it does not
    // give is SchedulerConfig's, whatever the GPU.
    if (a.max_num_seqs == 0 || a.max_num_batched_tokens == 0) {
      a.max_num_seqs_by_default = a.max_num_seqs == 0;
      a.max_num_batched_tokens_by_default = a.max_num_batched_tokens == 0;
      if (absl::Status s = models::EngineBatchDefaults(&a.max_num_seqs, &a.max_num_batched_tokens); !s.ok()) {
        return meta->Error(a.max_num_seqs_from,
                           absl::StrCat(a.max_num_seqs, " is more than max_num_batched_tokens ",
                                        a.max_num_batched_tokens, ", vLLM's default for the bench's engine, "
                                        "which vLLM refuses (its scheduler config: max_num_batched_tokens must "
                                        "be at least max_num_seqs)"));
      }
    }
    // With expert parallel the data-parallel degree is the experts' spread,
    // and so the weights each GPU holds.
    const bool same = as.tp.value_or(a.tp) == a.tp &&
                      (!a.expert_parallel || as.dp.value_or(a.dp) == a.dp) &&
                      as.max_num_seqs.value_or(a.max_num_seqs) == a.max_num_seqs &&
                      as.max_num_batched_tokens.value_or(a.max_num_batched_tokens) == a.max_num_batched_tokens;
    if (!same) r.num_gpu_blocks.reset();
    // The captured sizes the run recorded: vLLM's default ones follow the
    // limits, and are the new limits' defaults; others stay (but for those
    // past the token limit: below).
    const int64_t new_seqs = as.max_num_seqs.value_or(a.max_num_seqs);
    const int64_t new_tokens = as.max_num_batched_tokens.value_or(a.max_num_batched_tokens);
    if (!a.graph_sizes.empty() && (new_seqs != a.max_num_seqs || new_tokens != a.max_num_batched_tokens) &&
        a.graph_sizes == models::VllmCudaGraphSizes(a.max_num_seqs, a.max_num_batched_tokens)) {
      a.graph_sizes.clear();
      a.graph_sizes_from.clear();
    }
    a.tp = as.tp.value_or(a.tp);
    a.dp = as.dp.value_or(a.dp);
    a.max_num_seqs = as.max_num_seqs.value_or(a.max_num_seqs);
    a.max_num_batched_tokens = as.max_num_batched_tokens.value_or(a.max_num_batched_tokens);
    // A plan's limit is its own, not a field of the run's nor a default;
    // a default max_num_seqs is at most the plan's token limit, as vLLM
    // makes its own.
    if (as.max_num_seqs) {
      a.max_num_seqs_from.clear();
      a.max_num_seqs_by_default = false;
    } else if (a.max_num_seqs_by_default) {
      a.max_num_seqs = std::min(a.max_num_seqs, a.max_num_batched_tokens);
    }
    if (as.max_num_batched_tokens) {
      a.max_num_batched_tokens_from.clear();
      a.max_num_batched_tokens_by_default = false;
    }
    // vLLM captures no graph of more tokens than a step holds: a recorded
    // size past max_num_batched_tokens (a plan's smaller limit, or a list
    // written by hand) is dropped, said where the limit is the run's, and
    // none left is none captured.
    if (!a.graph_sizes.empty() && a.graph_sizes.back() > a.max_num_batched_tokens) {
      const size_t kept = std::upper_bound(a.graph_sizes.begin(), a.graph_sizes.end(), a.max_num_batched_tokens) -
                          a.graph_sizes.begin();
      if (!as.max_num_batched_tokens) {
        r.warnings.push_back(absl::StrCat(meta_path, ": ", a.graph_sizes_from, ": ", a.graph_sizes.size() - kept,
                                          " of its sizes pass max_num_batched_tokens ", a.max_num_batched_tokens,
                                          ", a step's most tokens, the largest ", a.graph_sizes.back(),
                                          ": vLLM captures none of them, and the program pads to none"));
      }
      a.graph_sizes.resize(kept);
      if (a.graph_sizes.empty()) a.enforce_eager = true;
    }
  }

  r.model_file = Join(dir, "model.json");
  absl::StatusOr<JsonFile> model = ReadJson(r.model_file, "the model's config.json", &r.warnings);
  if (!model.ok()) return model.status();
  absl::StatusOr<ModelConfig> config = ReadModelConfig(*model);
  if (!config.ok()) return config.status();
  r.model = *config;
  const EngineArgs& a = r.args;
  // The dtype vLLM's auto serves the model in (a float32 model in
  // bfloat16), or the same given.
  if (a.dtype != "auto" && a.dtype != r.model.dtype) {
    return meta->Error("engine_kwargs.dtype",
                       a.dtype == r.model.config_dtype
                           ? absl::StrCat("'", a.dtype, "': serq vllm models a model served in 16 bits (a ",
                                          a.dtype, " model vLLM's dtype auto serves as ", r.model.dtype, ")")
                           : r.model.config_dtype == r.model.dtype
                               ? absl::StrCat("'", a.dtype, "', where the model is ", r.model.dtype,
                                              ": serq vllm models the model's own dtype")
                               : absl::StrCat("'", a.dtype, "', where vLLM's dtype auto serves the model (",
                                              r.model.config_dtype, " in model.json) in ", r.model.dtype,
                                              ": serq vllm models that dtype"));
  }
  // A degree a plan asked for (`as`) is the plan's, not a field of the
  // run's: said of the engine asked for.
  const bool planned = (as.tp && *as.tp != run_tp) || (as.dp && *as.dp != run_dp);
  auto refuse = [&](const std::string& field, const std::string& message) {
    if (!planned) return meta->Error(field, message);
    return absl::InvalidArgumentError(absl::StrCat(dir, ": error: the engine asked for, tensor parallel ", a.tp,
                                                   " and data parallel ", a.dp, ": ", message));
  };
  if (r.model.heads % a.tp != 0) {
    return refuse(Field(a.tp_from, "tensor_parallel_size"),
                  absl::StrCat(a.tp, " does not divide the model's ", r.model.heads, " attention heads"));
  }
  if (a.expert_parallel && !r.model.moe()) {
    return meta->Error(Field(a.expert_parallel_from, "enable_expert_parallel"),
                       "expert parallelism, and the model has no experts");
  }
  r.ep = a.expert_parallel ? a.dp * a.tp : 1;
  if (r.ep > 1 && a.all2all_backend != "allgather_reducescatter") {
    return meta->Error(a.all2all_backend_from,
                       absl::StrCat("'", a.all2all_backend, "': serq vllm models the experts' exchange of vLLM "
                                    "0.19's default backend, allgather_reducescatter"));
  }
  if (r.model.moe() && a.enable_eplb) {
    return meta->Error(a.enable_eplb_from, "true: the experts' load balancer moves experts between GPUs as the "
                                           "run goes; serq vllm models them where they are placed");
  }
  if (r.ep > 1 && r.model.experts % r.ep != 0) {
    return refuse(Field(a.expert_parallel_from, "enable_expert_parallel"),
                  absl::StrCat("the model's ", r.model.experts, " experts do not split over ", r.ep, " GPUs"));
  }

  const std::string cluster_path = Join(dir, "llmservingsim-config.json");
  if (std::filesystem::exists(cluster_path, ec)) {
    absl::StatusOr<JsonFile> cluster = ReadJson(cluster_path, "the cluster", &r.warnings);
    if (!cluster.ok()) return cluster.status();
    if (absl::Status s = ReadCluster(*cluster, run_tp, run_dp, Field(r.args.tp_from, "tensor_parallel_size"),
                                     Field(r.args.dp_from, "data_parallel_size"), &r.cluster, &r.warnings);
        !s.ok()) {
      return s;
    }
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
  // Without it, the cluster file's hardware names the run's GPU as the
  // profile's hardware names the profile's (LLMServingSim's keys of its
  // profiles, "RTXPRO6000"), compared without case or punctuation.
  const bool by_device = !r.device_name.empty() && !r.profile.gpu.empty();
  if (by_device && r.device_name != r.profile.gpu) {
    r.warnings.push_back(absl::StrCat(profile_meta, ": the profile was taken on '", r.profile.gpu,
                                      "', the run (meta.json hardware.device_name) on '", r.device_name,
                                      "': the step times are that GPU's kernels"));
  } else if (!by_device && !r.cluster.hardware.empty() && !r.profile.hardware.empty() &&
             models::Folded(r.cluster.hardware) != models::Folded(r.profile.hardware)) {
    r.warnings.push_back(absl::StrCat(profile_meta, ": the profile was taken on '", r.profile.hardware,
                                      "', the run (llmservingsim-config.json hardware) on '", r.cluster.hardware,
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
  // Types that share a decoder (llama and mistral; qwen3 and qwen3_moe)
  // share operators, but a profile of the other is of another model: with
  // or without experts, of other shapes.
  if (ModelTypeOf(r.profile.architecture) != r.model.model_type) {
    r.warnings.push_back(absl::StrCat(
        profile_meta, ": the profile is of architecture '", r.profile.architecture, "', the run's model (model.json) "
        "of '", r.model.model_type, "': the step time reads the operators ", r.model.model_type,
        " runs, as that profile timed them"));
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
    // at tensor parallel 1; without it, the experts split as the run's TP,
    // or over the engines' GPUs at data parallel (vLLM flattens data
    // parallel into the experts' tensor parallel), from the whole experts.
    r.moe_file = Join(dir, absl::StrCat("profile/tp", r.ep > 1 ? 1 : a.tp, "/moe.csv"));
    if (r.ep == 1) r.moe_split = a.dp;
    // LLMServingSim's profiler times the experts at tensor parallel 1 only
    // (profiler/core/categories.py, categories_for), so a profile has no
    // tpN/moe.csv: the whole experts' kernels, a 1/TP share of them a GPU
    // (1/(TP x DP) at data parallel).
    if (r.ep == 1 && a.tp > 1 && !std::filesystem::exists(r.moe_file, ec)) {
      const std::string whole = Join(dir, "profile/tp1/moe.csv");
      if (std::filesystem::exists(whole, ec)) {
        r.moe_file = whole;
        r.moe_split = a.tp * a.dp;
      }
    }
    r.moe_whole = r.ep > 1 || r.moe_file == Join(dir, "profile/tp1/moe.csv");
    if (!std::filesystem::exists(r.moe_file, ec)) {
      return Missing(r.moe_file, "the experts' kernels of a mixture-of-experts model");
    }
  }
  r.requests = Join(dir, "requests.jsonl");
  if (!std::filesystem::exists(r.requests, ec)) return Missing(r.requests, "the requests replayed");
  if (absl::Status s = CheckRequests(&r); !s.ok()) return s;
  return r;
}

}  // namespace serq::vllm
