// BLIS's dense trained-physics form (`serq physics --blis`), kept for
// conformance with BLIS: its shape of a model (head_dim = hidden / heads)
// and its block of params and step stage (physics.h).
#include "serq/physics/physics.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "serq/models/program_text.h"
#include "serq/physics/text.h"

namespace serq::physics {

absl::StatusOr<ModelShape> BlisShape(const models::ModelConfig& m, const std::string& file) {
  if (m.moe() || m.mla()) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": error: ", m.moe() ? "a mixture of experts" : "latent attention",
        ": --blis writes BLIS's dense trained-physics form; serq's form (without --blis) covers it"));
  }
  if (m.hidden % m.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": error: hidden_size ", m.hidden,
                                                   " is not a multiple of the ", m.heads,
                                                   " heads (BLIS takes head_dim = hidden / heads)"));
  }
  ModelShape s;
  s.architecture = m.architecture.empty() ? m.model_type : m.architecture;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.heads = m.heads;
  s.kv_heads = m.kv_heads;
  s.head_dim = m.hidden / m.heads;  // BLIS's d / h, whatever the config's head_dim
  s.intermediate = m.intermediate;
  s.vocab = m.vocab;
  s.bytes_per_param = m.linear_bytes;
  s.dtype = m.quantization.empty() ? m.dtype : m.quantization;
  return s;
}

absl::StatusOr<std::string> PhysicsBlock(const ModelShape& m, const models::Gpu& gpu,
                                         const Coefficients& c, const BlockOptions& o) {
  if (o.tp < 1 || m.heads % o.tp != 0 || m.kv_heads % o.tp != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor parallel ", o.tp, " must be at least 1 and divide the heads (", m.heads,
        ") and the KV heads (", m.kv_heads, ")"));
  }
  if (!(gpu.tflops > 0) || !(gpu.bw_tbs > 0)) {
    return absl::InvalidArgumentError("the GPU's TFlopsPeak and BwPeakTBs must be positive");
  }
  for (double x : c.alpha) {
    if (!std::isfinite(x) || x < 0) return absl::InvalidArgumentError("a negative coefficient");
  }
  for (double x : c.beta) {
    if (!std::isfinite(x) || x < 0) return absl::InvalidArgumentError("a negative coefficient");
  }
  const double L = m.layers, d = m.hidden, dkv = double(m.kv_heads) * m.head_dim;
  const double tp = o.tp, bpp = m.bytes_per_param;
  // Per GPU. FLOPs of a token outside attention: the projections
  // (q, o: d x d; k, v: d x dkv; 2 FLOPs a multiply-add) and the gated MLP
  // (3 matrices d x dff).
  const double flops_token = L * 2 * d * (2 * d + 2 * dkv) / tp + L * 6 * d * m.intermediate / tp;
  const double flops_pair = 4 * L * (double(m.heads) / tp) * m.head_dim;  // a query-key pair
  const double kv_bytes = L * 2 * (dkv / tp) * 2;  // K and V of a token, fp16
  // BLIS sizes weights at bytes_per_param but reads 1-byte weights at the
  // GPU's FP8 peak.
  const double flops_us = (bpp == 1 && gpu.tflops_fp8 > 0 ? gpu.tflops_fp8 : gpu.tflops) * 1e6;
  const double weight_bytes = (L * d * (2 * d + 2 * dkv) * bpp + L * 3 * d * m.intermediate * bpp) / tp;
  const double allreduce_bytes = 2 * L * d * bpp * 2 * (tp - 1) / tp;  // a token
  const double bytes_us = gpu.bw_tbs * 1e6;
  const std::string s = o.stage;

  std::string out;
  absl::StrAppend(
      &out, "// An analytic step time (serq physics): BLIS's trained-physics roofline terms\n",
      "// (inference-sim f90a1e3a, sim/latency/trained_physics_model.go) with its global\n",
      "// corrections (defaults.yaml, trained_physics_coefficients) unless --coefficients.\n",
      "// Model ", o.config_file.empty() ? "" : absl::StrCat(o.config_file, ": "),
      m.architecture.empty() ? "a dense transformer" : m.architecture, ", ", m.layers,
      " layers, hidden ", m.hidden, ", ", m.heads, " heads (", m.kv_heads, " KV) of ", m.head_dim,
      ", MLP ", m.intermediate, m.vocab > 0 ? absl::StrCat(", vocabulary ", m.vocab) : "", ", ",
      m.dtype, ".\n", "// GPU ", o.hardware_file.empty() ? "" : absl::StrCat(o.hardware_file, " "),
      gpu.name, ": ", N(flops_us / 1e6), " TFLOP/s, ", N(gpu.bw_tbs), " TB/s",
      gpu.memory_gib > 0 ? absl::StrCat(", ", N(gpu.memory_gib), " GiB") : "",
      "; tensor parallel ", o.tp, ".\n",
      "// Microseconds. Decode contexts are the jobs' KV: run decodes 'growing' a pool\n",
      "// that the prefill filled, so that decode_kv counts the prompt.\n",
      "param PHYS_A0 = ", N(c.alpha[0]), ";  // before the queue, a request\n",
      "param PHYS_A1 = ", N(c.alpha[1]), ";  // after the last token, a request (E2E only)\n",
      "param PHYS_A2 = ", N(c.alpha[2]), ";  // an output token (TTFT has one)\n",
      "param PHYS_B1A = ", N(c.beta[0]), ";  // prefill compute\n",
      "param PHYS_B1B = ", N(c.beta[8]), ";  // prefill KV writes\n",
      "param PHYS_B2A = ", N(c.beta[1]), ";  // decode compute\n",
      "param PHYS_B2B = ", N(c.beta[9]), ";  // decode KV reads\n",
      "param PHYS_B3 = ", N(c.beta[2]), ";  // weight reads\n",
      "param PHYS_B4 = ", N(c.beta[3]), ";  // tensor-parallel all-reduce\n",
      "param PHYS_B5 = ", N(c.beta[4]), ";  // a layer\n",
      "param PHYS_B6 = ", N(c.beta[5]), ";  // a job in the batch\n",
      "param PHYS_B7 = ", N(c.beta[6]), ";  // a step\n");
  if (!o.trace.empty()) {
    absl::StrAppend(&out, "pool kv { cap ", o.kv_tokens > 0 ? N(o.kv_tokens) : "inf", "; }\n");
  }
  absl::StrAppend(
      &out, "stage ", o.queue, " : delay;\n", "stage ", s, " : step(floor(max(us, 1)) * 1e-6) {\n",
      "  let flops_token = ", N(flops_token), ";  // FLOPs a token outside attention\n",
      "  let flops_pair = ", N(flops_pair), ";  // FLOPs a query-key pair\n",
      "  let kv_bytes = ", N(kv_bytes), ";  // KV bytes a token\n",
      "  let weight_bytes = ", N(weight_bytes), ";  // read once a step\n",
      "  let allreduce_bytes = ", N(allreduce_bytes), ";  // a token\n",
      "  let flops_us = ", N(flops_us), ";  // peak FLOP a microsecond\n",
      "  let bytes_us = ", N(bytes_us), ";  // HBM bytes a microsecond\n",
      "  let pf_compute = (flops_token * prefill\n",
      "                    + flops_pair * sum_prefill(prefill * (prefill_context + prefill / 2)))\n",
      "                   / flops_us;\n",
      "  let pf_kv = kv_bytes * prefill / bytes_us;\n",
      "  let dc_compute = (flops_token * decode + flops_pair * decode_kv) / flops_us;\n",
      "  let dc_kv = kv_bytes * (decode_kv + decode) / bytes_us;\n",
      "  let us = PHYS_B1A * pf_compute + PHYS_B1B * pf_kv + PHYS_B2A * dc_compute\n",
      "         + PHYS_B2B * dc_kv + PHYS_B3 * weight_bytes / bytes_us\n",
      "         + PHYS_B4 * allreduce_bytes * tokens / bytes_us\n", "         + PHYS_B5 * ",
      m.layers, " + PHYS_B6 * seqs + PHYS_B7;\n", "  seqs ", N(o.seqs), "; tokens ", N(o.tokens),
      ";\n}\n");
  const std::string session_lines = absl::StrCat(
      "  run ", o.queue, " (floor(PHYS_A0) * 1e-6);\n", "  hold kv (0) {\n", "    run ", s,
      " prefill (", o.prompt_column, ") growing kv;\n",
      "    observe ttft = now - arrival + floor(PHYS_A2) * 1e-6;\n", "    set first = now;\n",
      "    run ", s, " decode (", o.output_column, " - 1) growing kv;\n",
      "    observe tpot = (now - first + (floor(PHYS_A2) * (", o.output_column,
      " - 1) + floor(PHYS_A1)) * 1e-6) / (", o.output_column, " - 1);\n",
      "    observe e2e = now - arrival + (floor(PHYS_A2) * ", o.output_column,
      " + floor(PHYS_A1)) * 1e-6;\n", "  }\n");
  if (o.trace.empty()) {
    absl::StrAppend(&out, "// A session over it, with a pool kv { cap inf; } or of the GPU's KV:\n");
    for (absl::string_view line : absl::StrSplit(session_lines, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&out, "//", line, "\n");
    }
  } else {
    absl::StrAppend(&out, "workload w { arrive trace(", models::Quoted(models::PathFor(o.trace, o.program_dir)), "); }\n", "session w {\n",
                    session_lines, "}\n", "// The deployment's GPUs, tensor parallel (", o.tp,
                    "): the report's per-GPU figures.\n", "run { gpus ", o.tp, "; }\n");
  }
  return out;
}

}  // namespace serq::physics
