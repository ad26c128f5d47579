#include "serq/vllm/generate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "net/interconnect.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"
#include "serq/vllm/architecture.h"
#include "serq/vllm/run_folder.h"
#include "serq/vllm/table_reach.h"

namespace serq::vllm {
namespace {

// A number as the program shows it: whole numbers in full, others to ten
// significant digits (a profile's figures have four).
std::string Num(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::abs(v) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return absl::StrFormat("%.10g", v);
}

using models::DataParallelRouting;
using models::GpusRun;
using models::PathFor;
using Text = models::ProgramText;

using models::Quoted;

// `(x > e1) + (x > e2) + ...`: the bin of x among the inner edges, bins
// right-inclusive (edges[i] < x <= edges[i + 1]).
std::string BinExpression(absl::string_view x, const SkewAxis& axis) {
  std::vector<std::string> parts;
  for (size_t i = 1; i + 1 < axis.edges.size(); ++i) {
    parts.push_back(absl::StrCat("(", x, " > ", Num(axis.edges[i]), ")"));
  }
  return models::SumOf(parts);
}

}  // namespace

absl::StatusOr<Generated> GenerateProgram(const std::string& run_dir, const Options& options) {
  // The folder's path goes into the program's strings (its tables, its
  // requests), which cannot hold a line break.
  if (const std::string c = models::ControlCharacter(run_dir); !c.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        absl::CHexEscape(run_dir), ": error: the run folder's path holds a control character (", c,
        "), which the program's comments and strings cannot hold: rename the folder"));
  }
  absl::StatusOr<RunFolder> read = ReadRunFolder(run_dir, options.redeploy);
  if (!read.ok()) return read.status();
  const RunFolder& r = *read;
  const EngineArgs& a = r.args;
  const models::ModelConfig& m = r.model;
  const Architecture& arch = *FindArchitecture(m.model_type);
  if (!r.unmeasurable.empty() && !options.requests) return absl::InvalidArgumentError(r.unmeasurable);
  Generated out;
  out.warnings = r.warnings;
  // 0.19 and its patch releases ("0.19.1", "0.19.0rc1", a tag's "v0.19.0"),
  // not "0.190".
  if (const absl::string_view v = absl::StripPrefix(r.vllm_version, "v");
      !v.empty() && v != "0.19" && !absl::StartsWith(v, "0.19.")) {
    out.warnings.push_back(absl::StrCat("the run is vLLM ", r.vllm_version,
                                        "; the program models vLLM 0.19's scheduler"));
  }
  // A profile of another vLLM times other kernels (attention backends and
  // fused operators change between versions).
  if (!r.vllm_version.empty() && !r.profile.vllm_version.empty() && r.vllm_version != r.profile.vllm_version) {
    out.warnings.push_back(absl::StrCat(r.profile.path, ": the profile was taken with vLLM ", r.profile.vllm_version,
                                        ", the run (meta.json vllm_version) with ", r.vllm_version,
                                        ": the step times are that version's kernels"));
  }
  // A file of fewer requests than the run sent (a copy cut short): the
  // replay and the comparison are of those only.
  if (r.num_requests && r.request_rows != *r.num_requests && !options.requests) {
    out.warnings.push_back(absl::StrCat(r.requests, ": ", r.request_rows, r.request_rows == 1 ? " request" : " requests",
                                        ", where meta.json's num_requests is ", *r.num_requests,
                                        ": the replay is of the file's"));
  }
  // The run's own requests longer than its max_model_len: capped in the
  // replay as vLLM capped them (below), and said.
  const bool capped = r.capped_requests > 0 && !options.requests;
  if (capped) {
    out.warnings.push_back(absl::StrCat(
        r.requests, ": ", r.capped_requests, r.capped_requests == 1 ? " request has" : " requests have",
        " more prompt and output tokens than max_model_len ", *a.max_model_len, " (meta.json ", a.max_model_len_from,
        "), the first at line ", r.capped_first_line, ": vLLM stops a request at max_model_len, and the bench "
        "records the dataset's output_toks, so the replay stops it there too"));
  }
  // Requests the run recorded no figures for (no first or last token
  // time): served by the replay, skipped by serq compare, which then
  // refuses the two sides' counts apart unless told.
  if (r.unfinished_requests > 0 && !options.requests) {
    out.warnings.push_back(absl::StrCat(
        r.requests, ":", r.unfinished_first_line, ": ", r.unfinished_requests,
        r.unfinished_requests == 1 ? " request lacks" : " requests lack",
        " first_token_ts or last_token_ts (the run recorded no figures for ",
        r.unfinished_requests == 1 ? "it" : "them", "; this line the first): the replay serves ",
        r.unfinished_requests == 1 ? "it" : "them", ", and serq compare, which skips ",
        r.unfinished_requests == 1 ? "it" : "them",
        ", refuses counts that differ unless given --allow-count-mismatch"));
  }
  const bool dp = a.dp > 1;
  const bool lockstep = dp && m.moe();
  // The link, where GPUs exchange anything: an engine's for tensor
  // parallel, the engines' for a mixture of experts over data parallel
  // (the experts whole with expert parallel, or each split over the
  // engines' GPUs without it: vLLM flattens data parallel into the experts'
  // tensor parallel).
  const bool collectives = a.tp > 1 || lockstep;
  // Expert parallel at tensor and data parallel: the experts' exchange
  // over every GPU, of 1/TP of each engine's tokens a GPU, where the
  // model's MoE block takes them so (models::SequenceParallelExperts).
  const bool sp = lockstep && models::SequenceParallelExperts(m, a.tp, a.dp, r.ep > 1);
  double link_bw = 0, link_latency = 0;
  bool mesh = false;  // the link is a mesh's (net::Interconnect's `mesh`)
  std::string bw_why, latency_why;
  if (collectives) {
    if (!options.interconnect.empty()) {
      if (std::string unknown = net::UnknownInterconnect("interconnect", options.interconnect); !unknown.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("serq vllm: error: ", unknown));
      }
      const net::Interconnect* link = net::FindInterconnect(options.interconnect);
      link_bw = link->bandwidth;
      link_latency = link->latency;
      mesh = link->mesh > 0;
      const int group = sp ? a.tp * a.dp : std::max(a.tp, lockstep ? a.dp : 1);
      if (mesh && group > link->mesh) {
        return absl::InvalidArgumentError(absl::StrCat(
            "serq vllm: error: --interconnect ", link->name, " links a mesh of ", link->mesh,
            " GPUs, and a collective of the run spans ", group));
      }
      bw_why = absl::StrCat("--interconnect ", link->name, ": ", link->what, ", bytes/s a direction",
                            mesh ? ", each link of the mesh" : "");
      latency_why = absl::StrCat("s a ring step (", link->source, ")");
    } else if (r.cluster.present && !r.cluster.link_bw.empty()) {
      // One figure, or one a dimension of ASTRA-Sim's topology, which
      // LLMServingSim lays out tensor parallel first and a data-parallel
      // group last (config_builder.py, _compute_network_dims): the
      // collectives of an engine's GPUs on the first, the expert exchange
      // between engines on the last.
      const std::vector<double>& bws = r.cluster.link_bw;
      const std::vector<double>& lats = r.cluster.link_latency;
      const bool tp_comm = a.tp > 1, dp_comm = lockstep;
      const size_t dims = std::max(bws.size(), lats.size());
      auto at = [](const std::vector<double>& v, size_t i) { return v.empty() ? 0.0 : v[std::min(i, v.size() - 1)]; };
      size_t dim = dp_comm && !tp_comm ? dims - 1 : 0;
      if (tp_comm && dp_comm && (at(bws, 0) != at(bws, dims - 1) || at(lats, 0) != at(lats, dims - 1))) {
        return absl::InvalidArgumentError(absl::StrCat(
            run_dir, "/llmservingsim-config.json: error: link_bw and link_latency give the tensor-parallel "
            "dimension another link than the data-parallel one, and serq vllm models one link: give "
            "--interconnect NAME"));
      }
      const std::string which = dims > 1 ? absl::StrCat(" (dimension ", dim + 1, " of ", dims, ")") : "";
      link_bw = at(bws, dim) * 1073741824.0;
      link_latency = at(lats, dim) * 1e-9;
      bw_why = absl::StrCat("llmservingsim-config.json: link_bw ", Num(at(bws, dim)), " GB/s", which,
                            ", read as ASTRA-Sim reads it (2^30 bytes)");
      latency_why = absl::StrCat("llmservingsim-config.json: link_latency ", Num(at(lats, dim)), " ns", which,
                                 ", a ring step");
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          run_dir, ": error: the GPUs exchange data (tensor parallel, or experts shared by engines) and the "
          "run describes no link (llmservingsim-config.json link_bw): give --interconnect NAME (",
          net::InterconnectNames(), ")"));
    }
  }
  // The engine's limits: the run's (vLLM's for the bench's engine where it
  // gives none: ReadRunFolder), or a plan's.
  if (absl::Status s = CheckLimits(r); !s.ok()) return s;
  const int64_t seqs = a.max_num_seqs, tokens = a.max_num_batched_tokens;
  absl::StatusOr<KvCapacity> kv = KvBlocks(r, seqs, tokens, options.kv);
  if (!kv.ok()) return kv.status();
  // The run's longest request (within max_model_len) against the cache: a
  // count given smaller than the run's (--kv-blocks, the run's override)
  // could not hold it, and the replay would stop there.
  if (!options.requests) {
    if (const std::string why = models::KvCannotHold(r.longest_request, a.block_size, kv->usable_blocks);
        !why.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.requests, ":", r.longest_line, ": error: ", why, " (",
          kv->given_by.empty() ? "derived from the GPU's memory" : kv->given_by, ")"));
    }
  }
  if (!options.requests) {
    if (std::string fill = DerivedCountCanFill(r, *kv, seqs); !fill.empty()) out.warnings.push_back(std::move(fill));
  }
  // LLMServingSim's config may size its KV by another share of the memory
  // than the run's engine: said where the count is derived from it.
  if (kv->given_by.empty() && !options.kv.gpu_memory_utilization && r.cluster.mem_util > 0 &&
      r.cluster.mem_util != a.gpu_memory_utilization) {
    out.warnings.push_back(absl::StrCat(
        r.dir, "/llmservingsim-config.json: npu_mem.mem_util ", Num(r.cluster.mem_util),
        ", and the run's gpu_memory_utilization is ", Num(a.gpu_memory_utilization),
        a.gpu_memory_utilization_from.empty() ? " (vLLM's default; meta.json gives none)"
                                              : absl::StrCat(" (meta.json ", a.gpu_memory_utilization_from, ")"),
        ": the KV cache is derived at the run's; --gpu-memory-utilization gives another"));
  }
  if (std::string graphs = LaterVllmSubtractsGraphs(r, *kv); !graphs.empty()) out.warnings.push_back(std::move(graphs));
  EngineReach engine;
  engine.max_num_seqs = seqs;
  engine.max_num_batched_tokens = tokens;
  engine.lockstep_engines = lockstep ? a.dp : 1;
  engine.expert_balancedness = options.expert_balancedness.value_or(1);
  engine.own_requests = !options.requests;
  absl::StatusOr<std::vector<std::string>> reach = TableReachWarnings(r, engine);
  if (!reach.ok()) return reach.status();
  out.warnings.insert(out.warnings.end(), reach->begin(), reach->end());
  // A sliding window: vLLM frees the blocks a window has left behind (its
  // SlidingWindowManager), where the program's pool keeps a request's
  // whole context, so a request past the window holds more KV here.
  if (r.model.sliding_window > 0 && r.model.window_layers > 0 &&
      (options.requests || r.longest_request > r.model.sliding_window)) {
    out.warnings.push_back(absl::StrCat(
        r.model_file, ": sliding_window ", r.model.sliding_window,
        r.model.window_from == "sliding_window"
            ? ""
            : absl::StrCat(" (", absl::StripPrefix(r.model.window_from, "sliding_window: "), ")"),
        " on ", r.model.window_layers, " of ",
        r.model.layers, " layers: the program's KV cache keeps every token of a request, where vLLM frees ",
        "the blocks its window has left", options.requests ? "" : absl::StrCat(
            " (the longest request, ", r.requests, ":", r.longest_line, ", has ", r.longest_request, " tokens)"),
        ", so a request longer than the window holds more KV here than in vLLM"));
  }
  // A flag that changes nothing of this program is said, not dropped.
  auto unused = [&](const char* flag, const std::string& why) {
    out.unused_flags.push_back(absl::StrCat(flag, " changes nothing: ", why));
  };
  const std::string counted =
      absl::StrCat("the KV cache's size is given (", kv->given_by, "), not derived from the GPU's memory");
  if (!kv->given_by.empty() && options.kv.gpu_memory_utilization) unused("--gpu-memory-utilization", counted);
  // The GPU's memory sizes the derived cache only (the engine's limits a
  // run does not give are the bench's engine's, whatever the GPU).
  if (!kv->given_by.empty() && options.kv.gpu_memory_gib) unused("--gpu-memory", counted);
  if (!collectives && !options.interconnect.empty()) {
    unused("--interconnect", "the run's GPUs exchange nothing (tensor parallel 1, and no experts shared by engines)");
  }
  if (options.expert_balancedness && r.ep <= 1) {
    unused("--expert-balancedness", "the run's experts are not spread whole over GPUs (no expert parallel)");
  }
  if (r.ep > 1) {
    if (std::string why = models::BalancednessOutOfReach(options.expert_balancedness.value_or(1), r.ep);
        !why.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("serq vllm: error: ", why));
    }
  }
  if (options.enforce_eager && a.enforce_eager) {
    // Said by the field that says it: enforce_eager, else the graphs' mode
    // (NONE) or their sizes (none captured).
    const std::string& from = !a.enforce_eager_from.empty() ? a.enforce_eager_from
                              : !a.graph_mode_from.empty()  ? a.graph_mode_from
                                                            : a.graph_sizes_from;
    unused("--enforce-eager", absl::StrCat("the run had no CUDA graphs (meta.json ", from, ")"));
  }
  // The skew blend: alpha by bucket for a pure-decode step, alpha_default
  // for the others.
  SkewBlend blend;
  if (options.skew) {
    absl::StatusOr<SkewBlend> b = ResolveSkewBlend(r.profile, a.tp, r.profile_dir);
    if (!b.ok()) return b.status();
    blend = *std::move(b);
    out.warnings.insert(out.warnings.end(), blend.warnings.begin(), blend.warnings.end());
  } else {
    blend.off_why = "--no-skew.";
  }
  const bool skew = blend.on;
  const bool cache = options.prefix_cache && a.prefix_caching;
  const std::string profile = absl::StrCat("profile/tp", a.tp);
  auto path = [&](const std::string& file) { return Quoted(PathFor(file, options.program_dir)); };

  Text t;
  t.Comment(absl::StrCat(r.name, ": a measured vLLM ",
                         r.vllm_version.empty() ? "" : absl::StrCat(r.vllm_version, " "),
                         options.requests ? "run's profile and engine, under other requests."
                                          : "run, replayed by serq."));
  t.Comment(absl::StrCat(
      "Written by `", options.command.empty() ? "serq vllm " + run_dir : options.command,
      "` from the run folder", options.flags ? " and the flags" : " alone",
      ": every figure says where it came from, and none was fitted to the run's latencies."));
  const int gpus = a.dp * a.tp;
  t.Comment(absl::StrCat(a.model.empty() ? m.architecture : a.model, " (", m.architecture, ", ",
                         m.dtype, ") on ", gpus, " x ",
                         GpuName(r), ": tensor parallel ",
                         a.tp, ", data parallel ", a.dp,
                         r.ep > 1 ? absl::StrCat(", expert parallel ", r.ep) : "", "."));
  t.Comment(absl::StrCat(
      "The step time is one GPU's kernels (", profile, ", ",
      r.profile.vllm_version.empty() ? "" : "vLLM " + r.profile.vllm_version + ", ",
      "eager mode), every operator the architecture runs, summed layer by layer as LLMServingSim "
      "sums them, with the collectives between the GPUs over their link; the scheduler is vLLM "
      "0.19's (docs/cli.md §serq vllm)."));
  t.Line();
  t.Comment("The model (model.json).");
  t.Param("Layers", Num(m.layers), "num_hidden_layers");
  t.Param("Hidden", Num(m.hidden), "hidden_size");
  t.Param("DtypeBytes", Num(m.dtype_bytes), m.dtype_from);
  if (a.tp > 1) t.Param("Vocab", Num(m.vocab), "vocab_size");
  if (m.moe()) {
    t.Param("Experts", Num(m.experts), "num_experts");
    t.Param("TopK", Num(m.top_k), "num_experts_per_tok");
    if (m.dense_layers > 0) {
      t.Param("MoeLayers", Num(m.moe_layers), "layers with experts (decoder_sparse_step, mlp_only_layers)");
    }
  }
  t.Line();
  t.Comment("The engine (meta.json's engine_kwargs; vLLM 0.19's defaults where it gives none).");
  if (dp) t.Param("Engines", Num(a.dp), "data_parallel_size: an engine a GPU group, each its own scheduler and KV");
  if (a.tp > 1) t.Param("Tp", Num(a.tp), "tensor_parallel_size");
  if (r.ep > 1) {
    t.Param("Ep", Num(r.ep), absl::StrCat("enable_expert_parallel: the experts over the ",
                                          r.ep, " GPUs, whole"));
    models::BalancednessParam(&t, options.expert_balancedness, "Ep");
  }
  // Where a limit came from: engine_kwargs (its name), resolved_config,
  // vLLM's default for the bench's engine, or a plan.
  auto limit_why = [](const char* name, bool by_default, const std::string& from) {
    if (by_default) {
      return absl::StrCat(name, ": vLLM's default for the bench's engine (AsyncLLM.from_engine_args: "
                                "SchedulerConfig's)");
    }
    return absl::StartsWith(from, "resolved_config") ? absl::StrCat("meta.json ", from) : std::string(name);
  };
  // A default max_num_seqs is at most max_num_batched_tokens
  // (models::EngineBatchDefaults), and says so where that bound it.
  t.Param("Seqs", Num(seqs),
          absl::StrCat(limit_why("max_num_seqs", a.max_num_seqs_by_default, a.max_num_seqs_from),
                       a.max_num_seqs_by_default && !a.max_num_batched_tokens_by_default &&
                               seqs == tokens && seqs < models::kSchedulerDefaultSeqs
                           ? ", at most max_num_batched_tokens"
                           : ""));
  t.Param("Tokens", Num(tokens), limit_why("max_num_batched_tokens", a.max_num_batched_tokens_by_default,
                                           a.max_num_batched_tokens_from));
  const std::vector<int64_t> graph_sizes =
      a.enforce_eager || options.enforce_eager ? std::vector<int64_t>{}
                      : a.graph_sizes.empty() ? models::VllmCudaGraphSizes(seqs, tokens) : a.graph_sizes;
  const int64_t graph_max = graph_sizes.empty() ? 0 : graph_sizes.back();
  if (graph_max > 0) {
    t.Param("GraphMax", Num(graph_max),
            a.graph_sizes.empty()
                ? "vLLM 0.19's largest CUDA graph: min(2 x max_num_seqs, 512, max_num_batched_tokens) tokens"
                : absl::StrCat("the largest CUDA graph, tokens (meta.json ", a.graph_sizes_from, ")"));
  }
  std::string block_why = "block_size (vLLM's default)";
  if (a.block_size_from == "engine_kwargs.block_size") block_why = "block_size";
  if (!a.block_size_from.empty() && a.block_size_from != "engine_kwargs.block_size") {
    block_why = absl::StrCat("meta.json ", a.block_size_from, " (the run's log)");
  }
  t.Param("Block", Num(a.block_size), block_why);
  if (capped) {
    t.Param("MaxModelLen", Num(*a.max_model_len),
            absl::StrCat("meta.json ", a.max_model_len_from, ": vLLM stops a request at it"));
  }
  t.Param("KvBlocks", Num(kv->usable_blocks), "KV blocks an engine holds requests in:");
  t.Comment(absl::StrCat("  ", absl::StrJoin(kv->why, " ")));
  if (collectives) {
    t.Line();
    t.Comment("The link between the GPUs.");
    t.Param("LinkBw", Num(link_bw), bw_why);
    t.Param("LinkLatency", Num(link_latency), latency_why);
  }
  double skew_shift = 1;  // what the skew table adds to each alpha (below)
  if (skew) {
    t.Line();
    t.Comment("Attention of decodes of unequal context (the profile's skew fit): a step takes");
    t.Comment("t_mean + alpha (t_max - t_mean), the lookups at the decodes' mean and longest KV.");
    t.Param("AlphaDefault", Num(blend.alpha_default), absl::StrCat(blend.alpha_why, ": a step with prefill"));
  }
  t.Line();
  t.Comment(absl::StrCat("One GPU's kernels, ", profile, " (one layer at a time, microseconds)."));
  const std::string attention = r.profile_dir + "/attention.csv";
  t.Line(absl::StrCat("table attn = ", path(attention),
                      " { key prefill_chunk, kv_prefill, n_decode, kv_decode; value time_us; }"));
  std::vector<std::string> dense_ops = arch.per_step;
  for (const auto& [op, n] : arch.per_layer) dense_ops.push_back(op);
  if (m.dense_layers > 0) dense_ops.insert(dense_ops.end(), arch.dense_mlp.begin(), arch.dense_mlp.end());
  for (const std::string& op : dense_ops) {
    t.Line(absl::StrCat("table ", op, " = ", path(r.profile_dir + "/dense.csv"), " { where layer = \"",
                        op, "\"; key tokens; value time_us; }"));
  }
  for (const std::string& op : arch.per_sequence) {
    t.Line(absl::StrCat("table ", op, " = ", path(r.profile_dir + "/per_sequence.csv"),
                        " { where layer = \"", op, "\"; key sequences; value time_us; }"));
  }
  if (m.moe()) {
    t.Comment(absl::StrCat("The experts' kernels (with the router) by tokens and experts reached",
                           r.moe_whole ? ": whole experts, profile/tp1." : "."));
    t.Line(absl::StrCat("table moe = ", path(r.moe_file),
                        " { key tokens, activated_experts; value time_us; }"));
  }
  if (skew) {
    const SkewAxis& n = blend.n;
    const SkewAxis& sr = blend.skew_rate;
    const SkewAxis& kb = blend.kv_big;
    const SkewBuckets& buckets = blend.buckets;
    // A table's values are at least 0, so each alpha is written shifted:
    // by 1 (1 + alpha), or where a bucket's fit is below -1 (a weighted
    // least-squares slope of few samples can be) by the least whole number
    // that lifts it to 0.
    const double least = *std::min_element(buckets.alpha.begin(), buckets.alpha.end());
    skew_shift = least >= -1 ? 1 : std::ceil(-least);
    t.Comment(absl::StrCat(skew_shift == 1 ? "1 + alpha" : absl::StrCat("alpha + ", Num(skew_shift)),
                           " of a pure-decode step by bucket (", blend.buckets_why, ", pc 0, "
                           "kp=0; ", buckets.fitted, " of ", buckets.alpha.size(),
                           " buckets fitted,"));
    t.Comment("the others AlphaDefault): decodes (n), skew rate (mean - min) / (max - min), the");
    t.Comment(absl::StrCat("longest decode's KV, as ", blend.axes_why, " bin them",
                           skew_shift == 1 ? "." : absl::StrCat("; shifted by ", Num(skew_shift),
                                                                ", as a table's values are at least 0.")));
    t.Line("table skew {");
    t.Line(skew_shift == 1 ? "  key n_bin, sr_bin, kvb_bin; value one_plus_alpha;"
                           : "  key n_bin, sr_bin, kvb_bin; value shifted_alpha;");
    size_t cell = 0;
    for (size_t i = 0; i < n.labels.size(); ++i) {
      for (size_t j = 0; j < sr.labels.size(); ++j) {
        std::string line = " ";
        for (size_t k = 0; k < kb.labels.size(); ++k) {
          absl::StrAppend(&line, " row ", i, ", ", j, ", ", k, ", ", Num(skew_shift + buckets.alpha[cell++]), ";");
        }
        t.Line(line);
      }
    }
    t.Line("}");
  }
  t.Line();
  const std::string arr = dp ? "[Engines]" : "";
  const std::string idx = dp ? "[i]" : "";
  std::string cache_why = "off (--no-prefix-cache)";
  if (options.prefix_cache) {
    cache_why = absl::StrCat(a.prefix_caching ? "on (" : "off (",
                             a.prefix_caching_from.empty() ? "vLLM 0.19's default" : "meta.json " + a.prefix_caching_from,
                             ")");
  }
  t.Comment(absl::StrCat("The KV cache", dp ? " of each engine" : "", ": blocks of Block tokens; prefix caching ",
                         cache_why, "."));
  t.Line(absl::StrCat("pool kv", arr, " { cap KvBlocks * Block; block Block;",
                      cache ? " cache Block;" : "", " }"));
  t.Line();
  t.Comment(absl::StrCat(dp ? "The engines" : "The engine", ": a step's time in microseconds, ",
                         "each operator looked up at the step's figures."));
  t.Line(absl::StrCat("stage E", arr, " : step(us * 1e-6) {"));
  // The tokens the model's layers run at: a step's own, or with CUDA
  // graphs the captured size it is padded to.
  std::string at = "tokens";
  if (graph_max > 0) {
    at = "padded";
    const std::string base = lockstep ? "group_tokens_max" : "tokens";
    if (a.graph_sizes.empty()) {
      t.Line("  // CUDA graphs (vLLM 0.19's default; the profile timed its kernels eagerly): a step of at");
      t.Line("  // most GraphMax tokens runs at the captured size above it, 1, 2, 4, then multiples of 8");
      t.Line(lockstep ? "  // (and of 16 from 256); the engines agree on their largest step's, and every engine"
                      : "  // (and of 16 from 256); a larger step runs eagerly at its own tokens.");
    } else {
      t.Line("  // CUDA graphs at the sizes the run captured (the profile timed its kernels eagerly): a");
      t.Line(lockstep ? "  // step of at most GraphMax tokens runs at the captured size above it; the engines"
                      : "  // step of at most GraphMax tokens runs at the captured size above it; a larger step");
      t.Line(lockstep ? "  // agree on their largest step's, and every engine"
                      : "  // runs eagerly at its own tokens.");
    }
    if (lockstep) {
      t.Line("  // runs at that one (vLLM's DP padding), or all run eagerly at their own.");
    }
    if (a.graph_decode_only) {
      t.Line(absl::StrCat("  // Only a decode-only step runs as a graph (cudagraph_mode FULL_DECODE_ONLY, meta.json ",
                          a.graph_mode_from, "); a step with a prefill runs eagerly."));
    }
    t.Lines(models::CudaGraphLets(base, graph_sizes, a.graph_decode_only));
  }
  std::vector<std::string> layer_parts;
  for (const auto& [op, count] : arch.per_layer) {
    layer_parts.push_back(count == 1 ? absl::StrCat(op, "(", at, ")") : absl::StrCat(count, " * ", op, "(", at, ")"));
  }
  t.Line(absl::StrCat("  // A layer's operators but attention and the MLP, at the step's ",
                      graph_max > 0 ? "padded tokens;" : "tokens;"));
  // The profiler averages the calls of one name in a pass, so a row is one call's time
  // (both RMSNorms of a layer are 'layernorm', Qwen3's q and k norms 'qk_norm').
  t.Line("  // an operator vLLM calls twice a layer counts twice (a profile row is one call).");
  t.Line(absl::StrCat("  let layer = ", absl::StrJoin(layer_parts, " + "), ";"));
  t.Line("  // Attention, once a layer: the prefill chunks' tokens and KV, the decodes' count and");
  t.Line("  // mean KV (LLMServingSim's lookup).");
  t.Line("  let kv_mean = floor(decode_kv / max(decode, 1));");
  t.Line("  let t_mean = attn(prefill, prefill_kv, decode, kv_mean);");
  if (skew) {
    t.Line("  let t_max = attn(prefill, prefill_kv, decode, decode_kv_max);");
    t.Line("  let rate = (kv_mean - decode_kv_min) / max(decode_kv_max - decode_kv_min, 1);");
    t.Line(absl::StrCat("  let n_bin = ", BinExpression("decode", blend.n), ";"));
    t.Line(absl::StrCat("  let sr_bin = ", BinExpression("rate", blend.skew_rate), ";"));
    t.Line(absl::StrCat("  let kvb_bin = ", BinExpression("decode_kv_max", blend.kv_big), ";"));
    t.Line(absl::StrCat("  let alpha = (prefill == 0) * (skew(n_bin, sr_bin, kvb_bin) - ", Num(skew_shift),
                        ") + (prefill > 0) * AlphaDefault;"));
    // A negative alpha may take the blend below 0: LLMServingSim's floor
    // (max(1 ns, ...)) as 0.
    t.Line("  let attend = max(t_mean + alpha * max(t_max - t_mean, 0), 0);");
  } else {
    t.Line(absl::StrCat("  // No skew blend: ", blend.off_why));
    t.Line("  let attend = t_mean;");
  }
  // The MLP: dense, or the experts, and the collectives around them.
  const std::string dense_mlp = absl::StrCat("gate_up_proj(", at, ") + act_fn(", at, ") + down_proj(", at, ")");
  std::string mlp;
  if (m.moe()) {
    if (sp) {
      t.Line("  // The experts, sequence-parallel (vLLM's use_sequence_parallel_moe: expert parallel at");
      t.Line("  // tensor and data parallel): each of an engine's Tp GPUs takes 1/Tp of its tokens, and");
      t.Line(absl::StrCat("  // each GPU's 1/", r.ep, " of the experts serve every GPU's (the all-gather over the Ep"));
      t.Line("  // GPUs before the experts, reduce-scatter after), reached uniformly: a GPU computes");
      t.Line("  // gathered x TopK / Ep (token, expert) pairs, the tokens of moe.csv times TopK, on the");
      t.Line("  // experts of its share that any of them reaches; then the engine's GPUs gather their");
      t.Line("  // shares' outputs (an all-gather over Tp, in place of the MLP's all-reduce).");
    } else if (lockstep && r.ep > 1) {
      t.Line(absl::StrCat("  // The experts: each GPU's ", r.ep == 2 ? "half" : absl::StrCat("1/", r.ep),
                          " of them serve every engine's tokens (vLLM's default"));
      t.Line(a.tp > 1 ? "  // all-gather over the engines' GPUs of one TP rank before the experts, reduce-scatter"
                      : "  // all-gather before the experts, reduce-scatter after), reached uniformly: a GPU");
      if (a.tp > 1) {
        t.Line("  // after; every GPU of an engine holds all its tokens, this model's MoE block taking");
        t.Line("  // none sequence-parallel), reached uniformly: a GPU");
      }
      t.Line("  // computes gathered x TopK / Ep (token, expert) pairs, the tokens of moe.csv times");
      t.Line("  // TopK, on the experts of its share that any of them reaches.");
    } else if (lockstep) {
      t.Line("  // The experts: each GPU holds a share of every expert (without expert parallel vLLM");
      t.Line("  // splits them over every engine's GPUs) and serves every engine's tokens (the all-gather");
      t.Line("  // before the experts, the reduce-scatter after), reached uniformly.");
    } else {
      t.Line("  // The experts, reached uniformly by the step's tokens: on each GPU its share.");
    }
    t.Line(!lockstep        ? absl::StrCat("  let gathered = ", at, ";")
           : graph_max > 0 ? "  let gathered = graphed * Engines * padded + (1 - graphed) * group_tokens;"
                           : "  let gathered = group_tokens;");
    if (r.ep > 1) {
      // The busiest GPU: every GPU waits for it at the exchange after the experts.
      models::BusiestGpuComment(&t);
      t.Line("  let reached = Experts / Ep * (1 - pow(1 - TopK / Experts, gathered / Balancedness));");
    } else {
      t.Line("  let reached = Experts * (1 - pow(1 - TopK / Experts, gathered));");
    }
    if (r.moe_split > 1) {
      const std::string split = !lockstep                          ? "Tp"
                                : r.moe_split == a.dp * a.tp && a.tp > 1 ? "(Engines * Tp)"
                                                                         : "Engines";
      const std::string timed =
          r.moe_whole ? "whole experts (profile/tp1/moe.csv)"
                      : absl::StrCat("the experts split over tensor parallel ", a.tp, " (", profile, "/moe.csv)");
      t.Line(absl::StrCat("  // The profile times ", timed, "; each GPU holds 1/", split, " of"));
      t.Line(absl::StrCat("  // every expert", r.moe_whole ? "" : "'s share",
                          " (vLLM's tensor-parallel experts), its FLOPs and weights 1/", split, ": a lower"));
      t.Line("  // bound, the router and each kernel's fixed cost do not split.");
      t.Line(absl::StrCat("  let experts = moe(gathered, reached) / ", split, ";"));
    } else {
      t.Line(absl::StrCat("  let experts = moe(", r.ep > 1 ? "gathered / Ep / Balancedness" : "gathered",
                          ", reached);"));
    }
    mlp = "experts";
    if (lockstep) {
      // Over every GPU where the experts take their tokens sequence-parallel
      // (or the engines are one GPU each), else over one TP rank's GPUs.
      const char* group = r.ep > 1 && (a.tp == 1 || sp) ? "Ep" : "Engines";
      const std::string bw = models::LinkBwAmong(mesh, group);
      t.Line(absl::StrCat("  let exchange = 1e6 * (all_gather(", group,
                          ", gathered * Hidden * DtypeBytes, ", bw, ", LinkLatency)"));
      t.Line(absl::StrCat("                      + reduce_scatter(", group,
                          ", gathered * Hidden * DtypeBytes, ", bw, ", LinkLatency));"));
      mlp = "experts + exchange";
    }
    if (sp) {
      t.Line(absl::StrCat("  let regathered = 1e6 * all_gather(Tp, ", at, " * Hidden * DtypeBytes, ",
                          models::LinkBwAmong(mesh, "Tp"), ", LinkLatency);"));
      mlp += " + regathered";
    }
    if (m.dense_layers > 0) {
      t.Line(absl::StrCat("  let dense_mlp = ", dense_mlp, ";"));
      // A dense MLP all-reduces over TP as its row-parallel down_proj does
      // (counted below with the attention's, where no MoE block regathers).
      mlp = absl::StrCat("(MoeLayers * (", mlp, ") + (Layers - MoeLayers) * ",
                         sp ? "(dense_mlp + all_reduced)" : "dense_mlp", ") / Layers");
    }
  } else {
    mlp = dense_mlp;
  }
  std::string per_step =
      absl::StrCat("embedding(", at, ") + final_layernorm(", at, ") + lm_head(seqs) + sampler(seqs)");
  std::string per_layer_comm;
  if (a.tp > 1) {
    t.Line("  // Tensor parallel: an all-reduce of the step's activations after the attention's");
    t.Line(sp ? "  // output (vLLM's row-parallel o_proj; the experts' outputs are gathered instead),"
              : "  // output and after the MLP (vLLM's row-parallel layers), one after the embedding,");
    t.Line(sp ? "  // one after the embedding, and the logits gathered from every GPU."
              : "  // and the logits gathered from every GPU.");
    if (a.disable_custom_all_reduce) {
      t.Line("  // Every all-reduce by NCCL (meta.json engine_kwargs.disable_custom_all_reduce).");
    }
    const std::string bw = models::LinkBwAmong(mesh, "Tp");
    t.Line(absl::StrCat("  let all_reduced = 1e6 * all_reduce(Tp, ", at, " * Hidden * DtypeBytes, ", bw,
                        ", LinkLatency);"));
    t.Line(absl::StrCat("  let logits = 1e6 * all_gather(Tp, seqs * Vocab * DtypeBytes, ", bw, ", LinkLatency);"));
    per_layer_comm = sp ? " + all_reduced" : " + 2 * all_reduced";
    per_step += " + all_reduced + logits";
  }
  t.Line(absl::StrCat("  let us = ", per_step));
  t.Line(absl::StrCat("         + Layers * (layer + attend + ", mlp, per_layer_comm, ");"));
  std::string opts = "  seqs Seqs; tokens Tokens; preempt by (-since);";
  if (options.role == models::EngineRole::kDecode) {
    opts += " recompute last;";
  } else if (a.reserve_full_isl) {
    opts += " reserve prompt;";
  }
  if (a.async_scheduling) opts += " async;";
  if (a.long_prefill_token_threshold > 0) absl::StrAppend(&opts, " chunk ", a.long_prefill_token_threshold, ";");
  if (lockstep) opts += " lockstep;";
  t.Line(opts);
  t.Line("}");
  t.Line();
  if (options.requests) {
    t.Comment(options.requests->what);
    for (const std::string& line : options.requests->declare) t.Line(line);
  } else {
    t.Comment("The requests as the run received them (queued_ts), each with its tokens.");
    t.Line(absl::StrCat("workload requests { arrive trace(", path(r.requests), "); }"));
  }
  t.Line("session requests {");
  if (options.requests) {
    for (const std::string& line : options.requests->session) t.Line("  " + line);
  }
  DataParallelRouting(&t, lockstep, dp);
  // The tokens a request makes: its output_toks, or up to max_model_len
  // where the run's requests pass it (vLLM's FINISHED_LENGTH_CAPPED).
  std::string made = "output_toks";
  if (capped) {
    t.Line("  // vLLM stops a request at max_model_len; output_toks is the dataset's count (its");
    t.Line("  // TPOT below divides by it, as the measurement's does).");
    t.Line("  set made = min(output_toks, MaxModelLen - input_toks);");
    made = "made";
  }
  if (cache) {
    t.Line("  // The replay has no token ids: a request's blocks are its own, and serve its");
    t.Line("  // recompute after a preemption (vLLM keeps a freed block's hash until reused).");
    t.Line(absl::StrCat("  prefix (-1 - serial, ceil((input_toks + ", made, ") / Block));"));
  }
  t.Line("  // TTFT and E2E count from `queued`, as vLLM's from queued_ts: when the engine took the");
  t.Line("  // request in, which it does between steps.");
  t.Line(absl::StrCat("  hold kv", idx, " (0) {"));
  t.Line(absl::StrCat("    run E", idx, " prefill (input_toks) growing kv", idx, ";"));
  t.Line("    observe ttft = now - queued;");
  t.Line("    set first = now;");
  t.Line(absl::StrCat("    run E", idx, " decode (", made, " - 1) growing kv", idx, " observe itl;"));
  t.Line("    if (output_toks > 1) { observe tpot = (now - first) / (output_toks - 1); }");
  t.Line("    observe e2e = now - queued;");
  t.Line("  }");
  t.Line("}");
  t.Line();
  GpusRun(&t, a.tp, a.dp, a.tp > 1);
  out.program = t.Take();
  return out;
}

}  // namespace serq::vllm
