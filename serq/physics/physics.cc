#include "serq/physics/physics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/json.h"
#include "net/interconnect.h"
#include "serq/models/json_file.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"
#include "serq/physics/text.h"

namespace serq::physics {
namespace {

using models::DataParallelRouting;
using models::GpusRun;
using models::PathFor;
using Text = models::ProgramText;

}  // namespace

Coefficients BlisDefaults() {
  // inference-sim f90a1e3a, defaults.yaml lines 168 and 186.
  Coefficients c;
  c.alpha = {15563.199579, 777.3455, 45.907545};
  c.beta = {0.152128,    0.0,        1.36252915,  0.752037, 32.09546717,
            4.41684444, 126.024825, 481.8613888, 0.0,      1.94710771};
  return c;
}

absl::StatusOr<Coefficients> ReadCoefficients(absl::string_view text, const std::string& file) {
  absl::StatusOr<models::JsonFile> json = models::JsonFile::Parse(text, file);
  if (!json.ok()) return json.status();
  auto numbers = [&](const char* name, size_t least, size_t most,
                     std::vector<double>* out) -> absl::Status {
    const google::protobuf::Value* v = json->Find(name);
    if (v == nullptr || v->kind_case() != google::protobuf::Value::kListValue) {
      return json->Error(name, "expected a list of numbers");
    }
    for (const google::protobuf::Value& x : v->list_value().values()) {
      if (x.kind_case() != google::protobuf::Value::kNumberValue || !std::isfinite(x.number_value()) ||
          x.number_value() < 0) {
        return json->Error(name, absl::StrCat("expected numbers of at least 0, not ",
                                              models::Describe(x)));
      }
      out->push_back(x.number_value());
    }
    if (out->size() < least || out->size() > most) {
      return json->Error(name, least == most
                                   ? absl::StrCat("expected ", least, " numbers, not ", out->size())
                                   : absl::StrCat("expected ", least, " numbers (BLIS's dense form; an "
                                                  "11th is allowed), not ", out->size()));
    }
    return absl::OkStatus();
  };
  std::vector<double> alpha, beta;
  if (absl::Status s = numbers("alpha_coeffs", 3, 3, &alpha); !s.ok()) return s;
  if (absl::Status s = numbers("beta_coeffs", 10, 11, &beta); !s.ok()) return s;
  Coefficients c;
  for (int i = 0; i < 3; ++i) c.alpha[i] = alpha[i];
  for (int i = 0; i < 10; ++i) c.beta[i] = beta[i];
  return c;
}

bool ExchangesOverLink(const models::ModelConfig& m, const Deployment& d) {
  return d.tp > 1 || (m.moe() && d.dp > 1);  // the latter: lockstep engines' experts
}

absl::StatusOr<std::string> GenerateProgram(const models::ModelConfig& m, const models::Gpu& gpu,
                                            const ProgramOptions& o, std::vector<std::string>* warnings) {
  const Deployment& d = o.deployment;
  // The parallel layout.
  if (d.tp < 1 || d.dp < 1) return Invalid("--tp and --dp must be at least 1");
  if (m.heads % d.tp != 0) {
    return Invalid(absl::StrCat("tensor parallel ", d.tp, " does not divide the model's ", m.heads,
                                " attention heads (num_attention_heads)"));
  }
  if (!m.mla() && (m.kv_heads >= d.tp ? m.kv_heads % d.tp != 0 : d.tp % m.kv_heads != 0)) {
    return Invalid(absl::StrCat("tensor parallel ", d.tp, " and the model's ", m.kv_heads,
                                " KV heads (num_key_value_heads): vLLM splits them over the GPUs, or "
                                "replicates each over a whole number of them"));
  }
  if (d.ep && !m.moe()) return Invalid("--ep: the model has no experts");
  const bool moe = m.moe();
  const bool lockstep = moe && d.dp > 1;
  // The GPUs the experts spread over: whole (--ep) or each split (vLLM
  // flattens data and tensor parallel for the experts).
  const int moe_group = moe && (d.ep || d.dp > 1) ? d.tp * d.dp : d.tp;
  if (moe && d.ep && m.experts % moe_group != 0) {
    return Invalid(absl::StrCat("the model's ", m.experts, " experts do not split over the ",
                                moe_group, " GPUs of expert parallel (--tp x --dp)"));
  }
  // Expert parallel at tensor and data parallel: the experts' exchange over
  // every GPU, of 1/TP of each engine's tokens a GPU, where the model's MoE
  // block takes them so (models::SequenceParallelExperts).
  const bool sp = models::SequenceParallelExperts(m, d.tp, d.dp, d.ep);
  // The experts' balance over the GPUs of expert parallel: the busiest GPU
  // computes at most every pair, moe_group times the mean.
  const bool spread = moe && d.ep && moe_group > 1;
  if (spread) {
    if (std::string why = models::BalancednessOutOfReach(d.expert_balancedness.value_or(1), moe_group);
        !why.empty()) {
      return Invalid(why);
    }
  }
  // The peak at the weights' dtype.
  double tflops = gpu.tflops;
  std::string flops_what = "dense BF16/FP16";
  std::string flops_field = "TFlopsPeak";
  if (m.linear_bytes == 1) {
    if (!(gpu.tflops_fp8 > 0)) {
      return models::GpuError(gpu, "TFlopsFP8", "none, and the model's fp8 weights "
                                                "(quantization_config) need the GPU's FP8 peak");
    }
    tflops = gpu.tflops_fp8;
    flops_what = "dense FP8";
    flops_field = "TFlopsFP8";
  } else if (m.dtype_bytes == 4) {
    if (!(gpu.tflops_fp32 > 0)) {
      return models::GpuError(gpu, "TFlopsFP32", "none, and the model's float32 weights "
                                                 "(torch_dtype) need the GPU's FP32 peak");
    }
    tflops = gpu.tflops_fp32;
    flops_what = "dense FP32";
    flops_field = "TFlopsFP32";
  }
  // The link, where GPUs exchange anything: named, or given by its figures.
  const bool collectives = ExchangesOverLink(m, d);
  net::Interconnect link;
  if (collectives && d.link_bw_gbps) {
    if (!(*d.link_bw_gbps > 0) || !(d.link_latency_us.value_or(0) >= 0)) {
      return Invalid("--link-bw must be above 0 (GB/s) and --link-latency at least 0 (us)");
    }
    link.name = "--link-bw";
    link.what = absl::StrCat("a link of ", N(*d.link_bw_gbps), " GB/s a direction and ",
                             N(d.link_latency_us.value_or(0)), " us a ring step");
    link.bandwidth = *d.link_bw_gbps * 1e9;
    link.latency = d.link_latency_us.value_or(0) / 1e6;
    link.source = "--link-bw and --link-latency";
  } else if (collectives) {
    const std::string name = d.interconnect.empty() ? gpu.interconnect : d.interconnect;
    if (name.empty()) {
      return models::GpuError(
          gpu, "Interconnect",
          absl::StrCat("none, and the GPUs exchange data (tensor parallel, or data-parallel "
                       "experts): give --interconnect NAME (", net::InterconnectNames(),
                       ") or --link-bw GBPS"));
    }
    if (std::string unknown = net::UnknownInterconnect("interconnect", name); !unknown.empty()) {
      return Invalid(unknown);
    }
    link = *net::FindInterconnect(name);
    // A mesh links only its own GPUs: each group that exchanges over it
    // must be among them.
    const int group = sp ? moe_group : std::max(d.tp, lockstep ? d.dp : 1);
    if (link.mesh > 0 && group > link.mesh) {
      return Invalid(absl::StrCat("the interconnect ", link.name, " links a mesh of ", link.mesh,
                                  " GPUs, and a collective here spans ", group));
    }
  }
  // The engine's limits, vLLM's defaults where none are given.
  const double gpu_gib = d.gpu_memory_gib.value_or(gpu.memory_gib);
  int64_t seqs = d.max_num_seqs, tokens = d.max_num_batched_tokens;
  const bool a100 = absl::StrContains(absl::AsciiStrToLower(absl::StrCat(gpu.name, " ", gpu.what)), "a100");
  if (absl::Status s = models::BatchDefaults(a100, gpu_gib, &seqs, &tokens); !s.ok()) return Invalid(s.message());
  // The KV cache.
  if (!models::KnownKvCacheDtype(d.kv_cache_dtype)) {
    return Invalid(absl::StrCat("--kv-cache-dtype ", d.kv_cache_dtype, ": expected ", models::kKvCacheDtypes));
  }
  const int kv_dtype_bytes = models::KvDtypeBytes(d.kv_cache_dtype, m);
  const double kv_token = models::KvBytesPerToken(m, d.tp, kv_dtype_bytes);
  const double per_block = kv_token * d.block_size;
  int64_t num_gpu_blocks = 0;
  std::vector<std::string> kv_why;
  if (d.kv_blocks) {
    num_gpu_blocks = *d.kv_blocks;
    kv_why.push_back(absl::StrCat("--kv-blocks ", num_gpu_blocks, " (vLLM's num_gpu_blocks)."));
  } else {
    if (!(gpu_gib > 0)) {
      return models::GpuError(gpu, "MemoryGiB", "none, and the KV cache is derived from it: give "
                                                "--gpu-memory GIB or --kv-blocks N");
    }
    // The experts' share of a GPU: 1/moe_group of them when they are
    // spread past the tensor-parallel group or over expert parallel.
    const int kv_ep = moe_group > d.tp || (moe && d.ep) ? moe_group : 1;
    const models::KvFromMemory kv = models::KvBlocksFromMemory(
        m, d.tp, kv_ep, gpu_gib,
        d.gpu_memory_utilization, tokens, seqs, per_block, sp);
    if (kv.blocks < 2) {
      return Invalid(absl::StrCat(
          "no room for the KV cache: ", models::GibText(kv.requested), " of the GPU (",
          absl::StrFormat("%.2f", gpu_gib), " GiB x ", N(d.gpu_memory_utilization), "), ", models::KvDeductionsText(kv),
          "; more GPUs (--tp), --gpu-memory-utilization or --kv-blocks N"));
    }
    if (kv.blocks > models::kMaxKvBlocks) {
      return Invalid(absl::StrCat(gpu_gib, " GiB of GPU memory makes more than 2^40 KV "
                                  "blocks: is the memory (",
                                  d.gpu_memory_gib ? "--gpu-memory" : "the datasheet's MemoryGiB", ") in GiB?"));
    }
    num_gpu_blocks = kv.blocks;
    kv_why.push_back(absl::StrCat(
        "Derived as vLLM 0.19 derives it: GPU memory ", absl::StrFormat("%.2f", gpu_gib), " GiB (",
        d.gpu_memory_gib ? "--gpu-memory" : "the datasheet's MemoryGiB", ") x ",
        N(d.gpu_memory_utilization), " (gpu_memory_utilization) = ", models::GibText(kv.requested), ","));
    kv_why.push_back(absl::StrCat(
        "less the weights one GPU holds, ", models::GibText(kv.weights), " (counted from the config's shapes",
        d.tp > 1 ? absl::StrCat(", 1/", d.tp, " of the split layers") : "",
        moe && moe_group > 1 ? absl::StrCat(", 1/", moe_group, " of the experts") : "",
        sp && m.shared_intermediate > 0 ? ", the shared experts whole (sequence-parallel experts)" : "", "),"));
    for (std::string& line : models::KvEstimatesWhy(m, d.tp, kv_ep, tokens, seqs, kv)) {
      kv_why.push_back(std::move(line));
    }
    kv_why.push_back(absl::StrCat("= ", models::GibText(kv.available), ", in blocks of ", d.block_size,
                                  " tokens x ", N(kv_token), " bytes: ", num_gpu_blocks,
                                  " blocks. Not subtracted: CUDA graphs' memory, which vLLM 0.19 "
                                  "does not subtract."));
  }
  if (num_gpu_blocks < 2) return Invalid("--kv-blocks must be at least 2");
  kv_why.push_back(absl::StrCat(
      "KV a token on one GPU: ",
      m.mla() ? absl::StrCat(m.layers, " layers x (kv_lora_rank ", m.kv_lora_rank,
                             " + qk_rope_head_dim ", m.qk_rope_head_dim, "), the same on every GPU")
              : absl::StrCat("2 (K, V) x ", m.layers, " layers x ", std::max(1, m.kv_heads / d.tp),
                             " KV heads x head_dim ", m.head_dim),
      " x ", kv_dtype_bytes, " bytes = ", N(kv_token), " bytes. One block is vLLM's null block: ",
      num_gpu_blocks - 1, " blocks hold requests."));
  // The workload against max_model_len (FitWorkload), then the cache.
  absl::StatusOr<WorkloadFit> fit = FitWorkload(m, d, o.workload);
  if (!fit.ok()) return fit.status();
  const Workload& w = o.workload;
  // vLLM refuses to start when the KV cache cannot hold one request of
  // max_model_len (check_enough_kv_cache_memory: each layer's most, a full
  // layer ceil(max_model_len / block) blocks, a windowed one ceil(min(window
  // - 1 + max_num_batched_tokens, max_model_len) / block) + 1, against the
  // blocks of every layer), which with a count given (num_gpu_blocks_override)
  // it checks against memory serq does not know.
  if (!d.kv_blocks) {
    auto blocks = [&](int64_t t) { return (t + d.block_size - 1) / d.block_size; };
    const int window_layers = m.sliding_window > 0 ? m.window_layers : 0;
    const int64_t full = blocks(fit->max_len);
    const int64_t windowed = blocks(std::min<int64_t>(m.sliding_window - 1 + tokens, fit->max_len)) + 1;
    const int64_t needed = (m.layers - window_layers) * full + window_layers * windowed;
    // The most it holds: the longest whose full layers' blocks fit (vLLM's
    // estimate in its message, and what `--max-model-len auto` takes).
    const int64_t most = m.layers > window_layers ? (num_gpu_blocks * m.layers - window_layers * windowed) /
                                                        (m.layers - window_layers) * d.block_size
                                                  : 0;
    // Every layer windowed: the window and the step's tokens decide, not
    // max_model_len.
    const bool all_windowed = window_layers == m.layers;
    const std::string start_need = absl::StrCat(
        "one request of max_model_len ", fit->max_len, " (", fit->max_len_from, ") needs ",
        all_windowed ? windowed : full, " KV blocks of ", d.block_size,
        all_windowed ? absl::StrCat(" in each of its ", m.layers, " windowed layers (its sliding_window ",
                                    m.sliding_window, " less 1, plus max_num_batched_tokens ", tokens,
                                    ", and one block more)")
        : window_layers > 0 ? absl::StrCat(" in each of its ", m.layers - window_layers, " full-attention layers")
                            : "",
        ", and the KV cache holds ", num_gpu_blocks, " (", num_gpu_blocks * d.block_size, " tokens)");
    if (needed > num_gpu_blocks * m.layers) {
      if (d.fit_max_model_len && !w.replay.empty() && !d.max_model_len && most > 0) {
        // A replayed run started, so its engine's max_model_len fit where
        // the model's does not: it was given one, or `auto`. The program
        // takes the most the cache holds, vLLM's `auto`, and says so.
        Deployment fitted = d;
        fitted.max_model_len = most;
        fitted.max_model_len_from = absl::StrCat(
            "the most the KV cache holds, as vLLM's --max-model-len auto takes it: the model's ", fit->max_len,
            " does not fit");
        fit = FitWorkload(m, fitted, w);
        if (!fit.ok()) return fit.status();
        if (warnings != nullptr) {
          warnings->push_back(absl::StrCat(
              "vLLM 0.19 would not start at the model's max_model_len: ", start_need, "; the replayed run did, so "
              "its max_model_len fit: the program takes ", most, ", the most the cache holds (vLLM's "
              "--max-model-len auto); give --max-model-len for the run's own"));
        }
      } else {
        return Invalid(absl::StrCat(
            "vLLM 0.19 would not start: ", start_need, ": give ",
            most > 0 ? absl::StrCat("--max-model-len at most ", most)
                     : std::string("a smaller --max-num-batched-tokens"),
            ", more GPUs (--tp) or --gpu-memory-utilization"));
      }
    }
  }
  const int64_t max_len = fit->max_len;
  const std::string& max_len_from = fit->max_len_from;
  const std::string& prompt = fit->prompt;
  const std::string& output = fit->output;
  const LengthLines& lengths = fit->lengths;
  const bool capped = fit->longest > max_len;
  // The longest request, within max_model_len, against the cache.
  if (const std::string why = models::KvCannotHold(std::min(fit->longest, max_len), d.block_size, num_gpu_blocks - 1);
      !why.empty()) {
    const std::string count = d.kv_blocks ? "--kv-blocks" : "derived from the GPU's memory";
    if (!w.replay.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(w.replay, ": error: ", fit->longest_which, ": ", why, " (",
                                                     count, ")"));
    }
    return Invalid(absl::StrCat(fit->longest_which, ": the longest it draws, ", why, " (", count, ")"));
  }
  if (warnings != nullptr && !d.kv_blocks) {
    if (std::string fill = models::DerivedKvCanFill(fit->request_tokens, seqs, d.block_size, num_gpu_blocks - 1,
                                                    d.dp > 1, "no --kv-blocks", "the trace's");
        !fill.empty()) {
      warnings->push_back(std::move(fill));
    }
  }
  const Coefficients& c = o.coefficients;
  for (double x : c.beta) {
    if (!std::isfinite(x) || x < 0) return Invalid("a coefficient is negative or not finite");
  }

  // ---- The program.
  Text t;
  const std::string arch = m.architecture.empty() ? m.model_type : m.architecture;
  const int gpus = d.tp * d.dp;
  t.Comment(absl::StrCat(o.model_name.empty() ? arch : o.model_name, " (", arch, ", ",
                         m.quantization.empty() ? m.dtype : m.dtype + " with " + m.quantization + " weights",
                         ") on ", gpus, " x ", gpu.what.empty() ? gpu.name : gpu.what,
                         ": a vLLM 0.19 deployment predicted by serq, tensor parallel ", d.tp,
                         ", data parallel ", d.dp,
                         moe ? absl::StrCat(", experts over ", moe_group, " GPU", moe_group > 1 ? "s" : "",
                                            d.ep ? " (expert parallel)" : "")
                             : "",
                         "."));
  t.Comment(absl::StrCat("Written by `", o.command.empty() ? "serq physics" : o.command,
                         "` from the model's config.json and the GPU's datasheet alone: every figure "
                         "says where it came from; the step time's corrections are ",
                         o.coefficients_file.empty() ? "BLIS's global ones" : o.coefficients_file + "'s",
                         ", fitted to no run of this deployment."));
  t.Comment("The step time is BLIS's trained-physics roofline (inference-sim, "
            "sim/latency/trained_physics_model.go) in serq's form: head_dim from the config, the "
            "collectives over the link (net/collective.h), the experts a step reaches; the scheduler "
            "is vLLM 0.19's (docs/cli.md §serq physics).");
  t.Line();
  t.Comment(absl::StrCat("The model: ", o.model_source.empty() ? "its config.json" : o.model_source, "."));
  t.Param("Layers", N(m.layers), "num_hidden_layers");
  t.Param("Hidden", N(m.hidden), "hidden_size");
  t.Param("Heads", N(m.heads), "num_attention_heads");
  if (m.mla()) {
    t.Param("QLoraRank", N(m.q_lora_rank), "q_lora_rank (0: q from the hidden state)");
    t.Param("KvLoraRank", N(m.kv_lora_rank), "kv_lora_rank: the KV's latent");
    t.Param("QkNope", N(m.qk_nope_head_dim), "qk_nope_head_dim");
    t.Param("QkRope", N(m.qk_rope_head_dim), "qk_rope_head_dim");
    t.Param("VHeadDim", N(m.v_head_dim), "v_head_dim");
  } else {
    t.Param("KvHeads", N(m.kv_heads),
            m.kv_heads_from == "num_key_value_heads"
                ? (m.kv_heads == m.heads ? "num_key_value_heads" : "num_key_value_heads (grouped-query)")
                : m.kv_heads_from);
    t.Param("HeadDim", N(m.head_dim), m.head_dim_from);
  }
  if (m.dense_layers > 0) t.Param("Intermediate", N(m.intermediate), "intermediate_size: a dense MLP's");
  if (moe) {
    t.Param("Experts", N(m.experts), "num_experts (num_local_experts, n_routed_experts)");
    t.Param("TopK", N(m.top_k), "num_experts_per_tok");
    t.Param("ExpertIntermediate", N(m.expert_intermediate),
            m.expert_intermediate == m.intermediate ? "intermediate_size: an expert's"
                                                    : "moe_intermediate_size");
    t.Param("MoeLayers", N(m.moe_layers), "layers with experts");
    if (m.dense_layers > 0) t.Param("DenseLayers", N(m.dense_layers), "layers with a dense MLP");
    if (m.shared_intermediate > 0) {
      t.Param("SharedIntermediate", N(m.shared_intermediate), "the shared experts of a MoE layer");
    }
  }
  if (m.window_layers > 0) {
    t.Param("Window", N(m.sliding_window),
            m.window_from == "sliding_window" ? "sliding_window: tokens a windowed layer attends to"
                                              : absl::StrCat(m.window_from, ": tokens a windowed layer attends to"));
    t.Param("WindowLayers", N(m.window_layers), m.window_layers_from);
  }
  if (d.tp > 1) t.Param("Vocab", N(m.vocab), "vocab_size");
  t.Param("DtypeBytes", N(m.dtype_bytes), absl::StrCat(m.dtype_from, ": activations"));
  t.Param("WeightBytes", N(m.linear_bytes),
          m.quantization == "fp8" ? "quantization_config fp8: a byte a weight of the linear layers"
                                  : absl::StrCat(m.dtype, ": a weight of the linear layers"));
  if (moe) {
    t.Param("ExpertBytes", N(m.expert_bytes),
            m.quantization == "mxfp4" ? "quantization_config mxfp4: 4.25 bits an expert's weight"
                                      : "an expert's weight");
  }
  t.Param("KvBytes", N(kv_dtype_bytes), d.kv_cache_dtype == "auto" ? "the KV cache's dtype, the model's" : "--kv-cache-dtype " + d.kv_cache_dtype);
  t.Line();
  t.Comment(absl::StrCat("The GPU: ", gpu.preset ? absl::StrCat("preset ", gpu.name) : gpu.name,
                         gpu.what.empty() ? "" : ", " + gpu.what, " (", gpu.file, ")."));
  auto source = [&](const char* field) {
    auto it = gpu.sources.find(field);
    return it == gpu.sources.end() ? std::string() : absl::StrCat(" (", it->second, ")");
  };
  t.Comment(absl::StrCat(flops_field, " ", N(tflops), source(flops_field.c_str()), "."));
  t.Comment(absl::StrCat("BwPeakTBs ", N(gpu.bw_tbs), source("BwPeakTBs"), "."));
  t.Param("FlopsUs", N(tflops * 1e6), absl::StrCat(flops_what, " FLOP a microsecond"));
  t.Param("BytesUs", N(gpu.bw_tbs * 1e6), "memory bytes a microsecond");
  t.Line();
  t.Comment("The engine (vLLM 0.19's defaults where no flag gives one).");
  t.Param("Tp", N(d.tp), "tensor_parallel_size");
  if (d.dp > 1) t.Param("Engines", N(d.dp), "data_parallel_size: an engine a GPU group, each its own scheduler and KV");
  if (moe && moe_group > 1) {
    t.Param("MoeGroup", N(moe_group), d.ep ? "the GPUs of expert parallel, whole experts on each"
                                           : "the GPUs each expert is split over (tensor x data parallel)");
    if (spread) {
      models::BalancednessParam(&t, d.expert_balancedness, "MoeGroup");
    }
  }
  // vLLM's EngineArgs takes a default max_num_seqs at most max_num_batched_tokens.
  t.Param("Seqs", N(seqs), d.max_num_seqs                ? "max_num_seqs"
                           : seqs == tokens && d.max_num_batched_tokens
                               ? "max_num_seqs: vLLM's default for this GPU, at most max_num_batched_tokens"
                               : "max_num_seqs: vLLM's default for this GPU");
  t.Param("Tokens", N(tokens), d.max_num_batched_tokens
                                   ? "max_num_batched_tokens"
                                   : "max_num_batched_tokens: vLLM's default for this GPU");
  if (!d.max_num_seqs || !d.max_num_batched_tokens) {
    t.Comment(absl::StrCat("  vLLM 0.19's EngineArgs.get_batch_defaults for an API server: 1024 and "
                           "8192 on a GPU of 70 GiB or more that is not an A100, else 256 and 2048 (",
                           absl::StrFormat("%.2f", gpu_gib), " GiB here)."));
  }
  const std::vector<int64_t> graph_sizes =
      d.enforce_eager ? std::vector<int64_t>{} : models::VllmCudaGraphSizes(seqs, tokens);
  const bool graphs = !graph_sizes.empty();
  if (graphs) {
    t.Param("GraphMax", N(graph_sizes.back()),
            "vLLM 0.19's largest CUDA graph: min(2 x max_num_seqs, 512, max_num_batched_tokens) tokens");
  }
  t.Param("Block", N(d.block_size), d.block_size == 16 ? "block_size (vLLM's default)" : "block_size");
  if (capped) {
    t.Param("MaxModelLen", N(static_cast<double>(max_len)),
            absl::StrCat("max_model_len, ", max_len_from, ": vLLM stops a request at it"));
  }
  t.Param("KvBlocks", N(num_gpu_blocks - 1), "KV blocks an engine holds requests in:");
  t.Comment(absl::StrCat("  ", absl::StrJoin(kv_why, " ")));
  if (collectives) {
    t.Line();
    t.Comment(absl::StrCat("The link between the GPUs (", link.what, ": ", link.source, ")."));
    t.Param("LinkBw", N(link.bandwidth),
            absl::StrCat(link.name, link.mesh > 0 ? ": bytes/s a direction, each link of the mesh"
                                                   : ": bytes/s a direction"));
    t.Param("LinkLatency", N(link.latency), "s a ring step");
  }
  t.Line();
  t.Comment(absl::StrCat(
      "The corrections (microseconds): ",
      o.coefficients_file.empty()
          ? "BLIS's trained-physics coefficients (defaults.yaml, trained_physics_coefficients; BLIS "
            "publishes a 6.7% median E2E error on its held-out runs for them)"
          : absl::StrCat("the betas of ", o.coefficients_file),
      ". serq fit moves them (--param PHYS_B3=0.5:2)."));
  t.Param("PHYS_B1A", N(c.beta[0]), "prefill compute");
  t.Param("PHYS_B1B", N(c.beta[8]), "prefill KV writes");
  t.Param("PHYS_B2A", N(c.beta[1]), "decode compute");
  t.Param("PHYS_B2B", N(c.beta[9]), "decode KV reads");
  t.Param("PHYS_B3", N(c.beta[2]), "weight reads");
  if (collectives) {
    t.Param("PHYS_B4", "1", "the collectives: the link model's time (BLIS's 0.752 corrects HBM time)");
  }
  if (d.mixed_attention) {
    t.Param("PHYS_B2M", "1", "decodes in a step with a prefill, at the padded query tile (no BLIS term: at the peak)");
    t.Param("QueryTile", "64", "query rows of FlashAttention 2's split-KV tile (kBlockM), which paged KV takes");
  }
  t.Param("PHYS_B5", N(c.beta[4]), "a layer");
  t.Param("PHYS_B6", N(c.beta[5]), "a job in the batch");
  t.Param("PHYS_B7", N(c.beta[6]), "a step");
  t.Line();
  const bool dp = d.dp > 1;
  const bool cache = d.prefix_cache;
  const std::string arr = dp ? "[Engines]" : "";
  const std::string idx = dp ? "[i]" : "";
  t.Comment(absl::StrCat("The KV cache", dp ? " of each engine" : "", ": blocks of Block tokens",
                         cache ? "; prefix caching on (vLLM 0.19's default)." : "."));
  t.Line(absl::StrCat("pool kv", arr, " { cap KvBlocks * Block; block Block;", cache ? " cache Block;" : "",
                      " }"));
  t.Line();
  t.Comment(absl::StrCat(dp ? "The engines" : "The engine", ": a step's time on one GPU in microseconds, ",
                         "BLIS's roofline terms over the step's figures."));
  t.Line(absl::StrCat("stage E", arr, " : step(floor(max(us, 1)) * 1e-6) {"));
  // The tokens the layers run at: a step's own, or with CUDA graphs the
  // captured size it is padded to (vLLM pads the batch, the engines of a
  // lockstep group to their largest step's size).
  std::string at = "tokens";
  if (graphs) {
    at = "padded";
    const std::string base = lockstep ? "group_tokens_max" : "tokens";
    t.Line("  // CUDA graphs (vLLM 0.19's default): a step of at most GraphMax tokens runs at the captured");
    t.Line("  // size above it, 1, 2, 4, then multiples of 8 (and of 16 from 256), its padded rows computed");
    t.Line(lockstep ? "  // as a token's are outside attention; the engines agree on their largest step's, and every"
                    : "  // as a token's are outside attention; a larger step runs eagerly at its own tokens.");
    if (lockstep) t.Line("  // engine runs at that one (vLLM's DP padding), or all run eagerly at their own.");
    t.Lines(models::CudaGraphLets(base, graph_sizes, /*decode_only=*/false));
    t.Line("  let pad = padded - tokens;  // computed with the step's prefill if it has one, else its decodes");
  }
  // A layer's parameters.
  {
    std::vector<std::string> parts = {"the attention's projections (split over Tp)"};
    if (m.mla()) parts.push_back("the latents' down projections (on every GPU)");
    if (m.dense_layers > 0) parts.push_back("a dense MLP (gate, up, down)");
    if (moe) parts.push_back("an expert's MLP");
    std::string line = absl::StrCat("  // A layer's parameters: ", absl::StrJoin(parts, ", "), ".");
    t.Line(line);
  }
  if (m.mla()) {
    t.Line(absl::StrCat("  let attn = ",
                        m.q_lora_rank > 0 ? "QLoraRank * Heads * (QkNope + QkRope)"
                                          : "Hidden * Heads * (QkNope + QkRope)",
                        " + KvLoraRank * Heads * (QkNope + VHeadDim) + Heads * VHeadDim * Hidden;"));
    t.Line(absl::StrCat("  let attn_each = ", m.q_lora_rank > 0 ? "Hidden * QLoraRank + " : "",
                        "Hidden * (KvLoraRank + QkRope);"));
  } else {
    t.Line("  let attn = Hidden * (2 * Heads * HeadDim + 2 * KvHeads * HeadDim);");
  }
  if (m.dense_layers > 0) t.Line("  let mlp = 3 * Hidden * Intermediate;");
  std::string split = m.dense_layers > 0 ? (m.moe() ? "Layers * attn + DenseLayers * mlp" : "Layers * (attn + mlp)")
                                         : "Layers * attn";
  std::string each;  // parameters every GPU holds and computes, all layers
  if (m.mla()) each = "Layers * attn_each";
  // With sequence-parallel experts each GPU runs the router and the shared
  // experts on 1/Tp of the tokens (after the block's chunk), the shared
  // experts whole (DeepSeek's block builds them with disable_tp): the
  // FLOPs of a split weight, the reads of a whole one.
  std::string shared_whole;
  if (moe && m.shared_intermediate > 0) {
    absl::StrAppend(&split, " + MoeLayers * 3 * Hidden * SharedIntermediate");
    if (sp) shared_whole = " + MoeLayers * 3 * Hidden * SharedIntermediate * WeightBytes * (Tp - 1) / Tp";
  }
  std::string flops_split = split;
  if (moe) {
    const std::string router = "MoeLayers * Hidden * Experts";
    if (sp) {
      absl::StrAppend(&flops_split, " + ", router);
    } else {
      absl::StrAppend(&each, each.empty() ? "" : " + ", router);
    }
    t.Line("  let expert = 3 * Hidden * ExpertIntermediate;");
  }
  t.Line("  // FLOPs a token outside attention (2 a weight), a query-key pair, KV bytes a token, the");
  t.Line(absl::StrCat("  // weights read once a step", moe ? " but the experts'" : "", "."));
  t.Line(absl::StrCat("  let flops_token = 2 * (", flops_split, ") / Tp",
                      each.empty() ? "" : " + 2 * (" + each + ")", ";"));
  const std::string pair = m.mla() ? "2 * Heads / Tp * (QkNope + QkRope + VHeadDim)" : "4 * Heads / Tp * HeadDim";
  t.Line(absl::StrCat("  let flops_pair = ", pair, ";  // a layer"));
  t.Line(absl::StrCat("  let kv_bytes = ",
                      m.mla() ? "(KvLoraRank + QkRope) * KvBytes"
                              : (m.kv_heads >= d.tp ? "2 * KvHeads / Tp * HeadDim * KvBytes"
                                                    : "2 * HeadDim * KvBytes"),
                      ";  // a layer"));
  std::string weight_bytes = absl::StrCat("(", split, ") * WeightBytes / Tp");
  if (m.mla()) absl::StrAppend(&weight_bytes, " + Layers * attn_each * WeightBytes");
  if (moe) absl::StrAppend(&weight_bytes, " + MoeLayers * Hidden * Experts * DtypeBytes", shared_whole);
  t.Line(absl::StrCat("  let weight_bytes = ", weight_bytes, ";"));
  std::string expert_flops_pf, expert_flops_dc, expert_weights;
  if (moe) {
    t.Line(lockstep ? "  // The experts: every engine's tokens gathered to every GPU (vLLM's default "
                      "all-gather,"
                    : "  // The experts: the step's tokens, reached uniformly (each its TopK of the "
                      "Experts);");
    if (lockstep) t.Line("  // reduce-scatter after), reached uniformly (each its TopK of the Experts);");
    if (sp) {
      t.Line("  // sequence-parallel (vLLM's use_sequence_parallel_moe): each of an engine's Tp GPUs sends");
      t.Line("  // 1/Tp of its tokens, to every GPU, and the engine's GPUs gather the outputs after;");
    }
    t.Line(moe_group > 1 ? "  // a GPU computes its share of the (token, expert) pairs, on the experts any of them reach."
                         : "  // the GPU computes every (token, expert) pair, on the experts any of them reach.");
    t.Line(absl::StrCat("  let gathered = ",
                        !lockstep                ? at
                        : !graphs                ? "group_tokens"
                                                 : "graphed * Engines * padded + (1 - graphed) * group_tokens",
                        ";"));
    const std::string group = moe_group > 1 ? " / MoeGroup" : "";
    if (spread) {
      models::BusiestGpuComment(&t);
      t.Line("  let pairs = gathered * TopK / MoeGroup / Balancedness;");
      t.Line("  let reached = Experts / MoeGroup * (1 - pow(1 - TopK / Experts, gathered / Balancedness));");
    } else {
      t.Line(absl::StrCat("  let pairs = gathered * TopK", group, ";"));
      t.Line("  let reached = Experts * (1 - pow(1 - TopK / Experts, gathered));");
    }
    t.Line("  let pf_share = prefill / max(tokens, 1);");
    expert_flops_pf = " + 2 * MoeLayers * expert * pairs * pf_share";
    expert_flops_dc = " + 2 * MoeLayers * expert * pairs * (1 - pf_share)";
    expert_weights = absl::StrCat(" + MoeLayers * expert * ExpertBytes * reached",
                                  !d.ep && moe_group > 1 ? " / MoeGroup" : "");
  }
  // Attention over the context: every layer's, or a window's on windowed layers.
  std::string pf_attn, dc_attn, dc_kv;
  if (m.window_layers > 0) {
    const std::string full = m.window_layers == m.layers ? "" : "(Layers - WindowLayers) * ";
    pf_attn = absl::StrCat(
        m.window_layers == m.layers ? "" : absl::StrCat(full, "sum_prefill(prefill * (prefill_context + prefill / 2)) + "),
        "WindowLayers * sum_prefill(prefill * min(prefill_context + prefill / 2, Window))");
    dc_attn = absl::StrCat(m.window_layers == m.layers ? "" : absl::StrCat(full, "decode_kv + "),
                           "WindowLayers * sum_decode(min(decode_kv, Window))");
    dc_kv = absl::StrCat(m.window_layers == m.layers ? "" : absl::StrCat(full, "(decode_kv + decode) + "),
                         "WindowLayers * sum_decode(min(decode_kv, Window) + 1)");
  } else {
    pf_attn = "Layers * sum_prefill(prefill * (prefill_context + prefill / 2))";
    dc_attn = "Layers * decode_kv";
    dc_kv = "Layers * (decode_kv + decode)";
  }
  t.Line("  // BLIS's basis functions (us): prefill and decode compute at the peak, their KV");
  t.Line("  // traffic and the weights at the memory's bandwidth.");
  // A padded row is computed with the step's kind: with its prefill when it
  // has one, else with its decodes.
  t.Line(absl::StrCat("  let pf_compute = (flops_token * ", graphs ? "(prefill + (prefill > 0) * pad)" : "prefill",
                      " + flops_pair * (", pf_attn, ")", expert_flops_pf, ") / FlopsUs;"));
  t.Line("  let pf_kv = Layers * kv_bytes * prefill / BytesUs;");
  t.Line(absl::StrCat("  let dc_compute = (flops_token * ", graphs ? "(decode + (prefill == 0) * pad)" : "decode",
                      " + flops_pair * (", dc_attn, ")", expert_flops_dc, ") / FlopsUs;"));
  t.Line(absl::StrCat("  let dc_kv = kv_bytes * (", dc_kv, ") / BytesUs;"));
  t.Line(expert_weights.empty() ? "  let weights = weight_bytes / BytesUs;"
                                : absl::StrCat("  let weights = (weight_bytes", expert_weights, ") / BytesUs;"));
  std::string mixed;
  if (d.mixed_attention) {
    // vLLM's FlashAttention 2 runs a batch with a prefill through its varlen
    // kernel, which packs a KV group's query heads into the tile's rows only
    // when every query is one token (seqlenq_ngroups_swapped): with a prefill
    // in the step, each decode's one query row fills a tile of QueryTile rows
    // in each query head, and its attention costs QueryTile times its pairs.
    t.Line("  // Decodes beside a prefill: each decode's query row in a padded tile of QueryTile rows,");
    t.Line("  // every query head (FlashAttention 2's varlen kernel packs no heads then).");
    t.Line(absl::StrCat("  let mixed = (prefill > 0) * flops_pair * QueryTile * (", dc_attn, ") / FlopsUs;"));
    mixed = " + PHYS_B2M * mixed";
  }
  std::string comm;
  if (collectives) {
    std::vector<std::string> parts;
    if (d.tp > 1) {
      const std::string bw = models::LinkBwAmong(link.mesh > 0, "Tp");
      if (sp) {
        t.Line("  // Tensor parallel: an all-reduce of the step's activations after the attention of");
        t.Line("  // each layer and after a dense MLP (vLLM's row-parallel layers), one after the");
        t.Line("  // embedding, and the logits gathered from every GPU; the experts take 1/Tp of an");
        t.Line("  // engine's tokens a GPU (vLLM's sequence-parallel experts), and its GPUs gather");
        t.Line("  // their outputs after each MoE layer.");
        parts.push_back(absl::StrCat("(2 * Layers + 1 - MoeLayers) * all_reduce(Tp, ", at,
                                     " * Hidden * DtypeBytes, ", bw, ", LinkLatency)"));
        parts.push_back(absl::StrCat("MoeLayers * all_gather(Tp, ", at, " * Hidden * DtypeBytes, ", bw,
                                     ", LinkLatency)"));
      } else {
        t.Line("  // Tensor parallel: an all-reduce of the step's activations after the attention and");
        t.Line("  // after the MLP of each layer (vLLM's row-parallel layers), one after the embedding,");
        t.Line("  // and the logits gathered from every GPU.");
        parts.push_back(absl::StrCat("(2 * Layers + 1) * all_reduce(Tp, ", at, " * Hidden * DtypeBytes, ", bw,
                                     ", LinkLatency)"));
      }
      parts.push_back(absl::StrCat("all_gather(Tp, seqs * Vocab * DtypeBytes, ", bw, ", LinkLatency)"));
    }
    if (lockstep) {
      // Over every GPU where the experts take their tokens sequence-parallel,
      // else among the engines' GPUs of one TP rank.
      const char* group = sp ? "MoeGroup" : "Engines";
      t.Line(sp ? "  // The experts' exchange among every GPU, every MoE layer."
                : "  // The experts' exchange between the engines, every MoE layer.");
      const std::string bw = models::LinkBwAmong(link.mesh > 0, group);
      parts.push_back(absl::StrCat(
          "MoeLayers * (all_gather(", group, ", gathered * Hidden * DtypeBytes, ", bw, ", LinkLatency)\n"
          "                              + reduce_scatter(", group, ", gathered * Hidden * DtypeBytes, ",
          bw, ", LinkLatency))"));
    }
    t.Line(absl::StrCat("  let comm = 1e6 * (", absl::StrJoin(parts, "\n                   + "), ");"));
    comm = " + PHYS_B4 * comm";
  }
  t.Line(absl::StrCat("  let us = PHYS_B1A * pf_compute + PHYS_B1B * pf_kv + PHYS_B2A * dc_compute + PHYS_B2B * dc_kv",
                      mixed));
  t.Line(absl::StrCat("         + PHYS_B3 * weights", comm, " + PHYS_B5 * Layers + PHYS_B6 * seqs + PHYS_B7;"));
  std::string opts = d.role == models::EngineRole::kDecode
                         ? "  seqs Seqs; tokens Tokens; preempt by (-since); recompute last;"
                         : "  seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt;";
  if (d.async_scheduling) opts += " async;";
  if (lockstep) opts += " lockstep;";
  t.Line(opts);
  t.Line("}");
  t.Line();
  if (!w.replay.empty()) {
    t.Comment("The requests, replayed from the trace.");
    t.Line(absl::StrCat("workload requests { arrive trace(", models::Quoted(PathFor(w.replay, o.program_dir)), "); }"));
  } else {
    t.Comment(absl::StrCat("The requests: ", N(w.requests), " arriving as a Poisson process of ", N(w.rate),
                           " a second, their lengths ", lengths.what, "."));
    // Params, so that -D moves them and `serq search --param Rate` finds the largest rate
    // that meets an SLO without editing the program.
    t.Line(absl::StrCat("param Rate = ", N(w.rate), ";  // requests a second"));
    t.Line(absl::StrCat("param Requests = ", N(w.requests), ";  // how many arrive"));
    t.Line("workload requests { arrive poisson(Rate); limit Requests; }");
  }
  t.Line("session requests {");
  for (const std::string& line : lengths.lines) t.Line("  " + line);
  DataParallelRouting(&t, lockstep, dp);
  // The tokens a request makes: its output, or up to max_model_len where
  // the workload passes it (vLLM's FINISHED_LENGTH_CAPPED).
  std::string made = output;
  if (capped) {
    t.Line("  // vLLM stops a request at max_model_len.");
    t.Line(absl::StrCat("  set made = min(", output, ", MaxModelLen - ", prompt, ");"));
    made = "made";
  }
  if (cache) {
    t.Line("  // No token ids: a request's blocks are its own, and serve its recompute after a");
    t.Line("  // preemption (vLLM keeps a freed block's hash until reused).");
    t.Line(absl::StrCat("  prefix (-1 - serial, ceil((", prompt, " + ", made, ") / Block));"));
  }
  t.Line("  // TTFT and E2E count from `queued`, as vLLM's engine counts them: from when it took the");
  t.Line("  // request in, which it does between steps.");
  t.Line(absl::StrCat("  hold kv", idx, " (0) {"));
  t.Line(absl::StrCat("    run E", idx, " prefill (", prompt, ") growing kv", idx, ";"));
  t.Line("    observe ttft = now - queued;");
  t.Line("    set first = now;");
  t.Line(absl::StrCat("    run E", idx, " decode (", made, " - 1) growing kv", idx, " observe itl;"));
  t.Line(absl::StrCat("    if (", made, " > 1) { observe tpot = (now - first) / (", made, " - 1); }"));
  t.Line("    observe e2e = now - queued;");
  t.Line("  }");
  t.Line("}");
  t.Line();
  GpusRun(&t, d.tp, d.dp, /*tp_param=*/true);
  return t.Take();
}

}  // namespace serq::physics
