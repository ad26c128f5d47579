#include "serq/physics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "ir/input_shape.h"
#include "ir/json.h"
#include "text/json_row.h"

namespace serq::physics {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

absl::Status Error(const std::string& file, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(file, ": error: ", message));
}

// The file's JSON object, through the one depth check of every JSON reader
// (text/json_row.h): too deep is an error at its line and column.
absl::StatusOr<Struct> ParseObject(absl::string_view text, const std::string& file) {
  Struct object;
  JsonPlace deep;
  if (absl::Status s = text::ParseJsonRow(text, &object, &deep); !s.ok()) {
    if (deep.line > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", deep.line, ":", deep.column, ": error: ", s.message()));
    }
    return Error(file, absl::StrCat("not a JSON object: ", s.message()));
  }
  return object;
}

const Value* Find(const Struct& object, const char* name) {
  auto it = object.fields().find(name);
  return it == object.fields().end() ? nullptr : &it->second;
}

// A positive whole number field; `fallbacks` are read in order when
// `name` is absent (BLIS's getIntWithFallbacks).
absl::StatusOr<int> WholeField(const Struct& object, const std::string& file, const char* name,
                               std::vector<const char*> fallbacks = {}) {
  const Value* value = Find(object, name);
  for (const char* other : fallbacks) {
    if (value == nullptr) value = Find(object, other);
  }
  if (value == nullptr) return Error(file, absl::StrCat("the config has no '", name, "'"));
  const double x = value->number_value();
  if (value->kind_case() != Value::kNumberValue || !(x >= 1) || x > 1e9 || x != std::floor(x)) {
    return Error(file, absl::StrCat("'", name, "' must be a whole number of at least 1"));
  }
  return static_cast<int>(x);
}

absl::StatusOr<double> PositiveField(const Struct& object, const std::string& file,
                                     const std::string& where, const char* name, bool required) {
  const Value* value = Find(object, name);
  if (value == nullptr) {
    if (!required) return 0.0;
    return Error(file, absl::StrCat(where, " has no '", name, "'"));
  }
  const double x = value->number_value();
  if (value->kind_case() != Value::kNumberValue || !std::isfinite(x) || x < 0 || (required && x == 0)) {
    return Error(file, absl::StrCat(where, "'s '", name, "' must be a positive number"));
  }
  return x;
}

absl::StatusOr<std::vector<double>> Numbers(const Struct& object, const std::string& file,
                                            const char* name) {
  const Value* value = Find(object, name);
  if (value == nullptr || value->kind_case() != Value::kListValue) {
    return Error(file, absl::StrCat("expected '", name, "', a list of numbers"));
  }
  std::vector<double> out;
  for (const Value& v : value->list_value().values()) {
    if (v.kind_case() != Value::kNumberValue || !std::isfinite(v.number_value()) ||
        v.number_value() < 0) {
      return Error(file, absl::StrCat("'", name, "' must hold numbers of at least 0"));
    }
    out.push_back(v.number_value());
  }
  return out;
}

std::string N(double x) { return ShortestDouble(x); }

}  // namespace

Coefficients BlisDefaults() {
  // inference-sim f90a1e3a, defaults.yaml lines 168 and 186.
  Coefficients c;
  c.alpha = {15563.199579, 777.3455, 45.907545};
  c.beta = {0.152128,    0.0,        1.36252915,  0.752037, 32.09546717,
            4.41684444, 126.024825, 481.8613888, 0.0,      1.94710771};
  return c;
}

absl::StatusOr<ModelShape> ReadModelConfig(absl::string_view text, const std::string& file) {
  absl::StatusOr<Struct> parsed = ParseObject(text, file);
  if (!parsed.ok()) return parsed.status();
  Struct config = *parsed;
  // A composite (multimodal) config: its language model's fields, as BLIS
  // pivots to them (sim/latency/config.go, ParseHFConfig).
  if (const Value* inner = Find(config, "text_config");
      inner != nullptr && inner->kind_case() == Value::kStructValue) {
    for (const auto& [key, value] : inner->struct_value().fields()) {
      (*config.mutable_fields())[key] = value;
    }
  }
  for (const char* experts : {"num_local_experts", "num_experts", "n_routed_experts",
                              "moe_num_experts"}) {
    const Value* v = Find(config, experts);
    if (v != nullptr && v->number_value() > 1) {
      return Error(file, absl::StrCat("a mixture-of-experts model ('", experts,
                                      "'): serq physics covers dense models only"));
    }
  }
  if (Find(config, "quantization_config") != nullptr) {
    return Error(file, "a quantized model ('quantization_config'): serq physics covers weights "
                       "in the model's dtype only");
  }
  ModelShape m;
  if (const Value* a = Find(config, "architectures");
      a != nullptr && a->kind_case() == Value::kListValue && a->list_value().values_size() > 0) {
    m.architecture = a->list_value().values(0).string_value();
  } else if (const Value* t = Find(config, "model_type"); t != nullptr) {
    m.architecture = t->string_value();
  }
  absl::StatusOr<int> v = WholeField(config, file, "num_hidden_layers");
  if (!v.ok()) return v.status();
  m.layers = *v;
  if (!(v = WholeField(config, file, "hidden_size")).ok()) return v.status();
  m.hidden = *v;
  if (!(v = WholeField(config, file, "num_attention_heads")).ok()) return v.status();
  m.heads = *v;
  if (Find(config, "num_key_value_heads") == nullptr && Find(config, "num_kv_heads") == nullptr &&
      Find(config, "multi_query_group_num") == nullptr) {
    m.kv_heads = m.heads;  // multi-head attention
  } else {
    if (!(v = WholeField(config, file, "num_key_value_heads",
                         {"num_kv_heads", "multi_query_group_num"}))
             .ok()) {
      return v.status();
    }
    m.kv_heads = *v;
  }
  if (!(v = WholeField(config, file, "intermediate_size", {"ffn_hidden_size"})).ok()) {
    return v.status();
  }
  m.intermediate = *v;
  if (Find(config, "vocab_size") != nullptr) {
    if (!(v = WholeField(config, file, "vocab_size")).ok()) return v.status();
    m.vocab = *v;
  }
  if (m.hidden % m.heads != 0) {
    return Error(file, absl::StrCat("'hidden_size' ", m.hidden, " is not a multiple of "
                                    "'num_attention_heads' ", m.heads));
  }
  m.head_dim = m.hidden / m.heads;
  const Value* dtype = Find(config, "torch_dtype");
  if (dtype == nullptr) dtype = Find(config, "dtype");
  if (dtype == nullptr) return Error(file, "the config has no 'torch_dtype' (nor 'dtype')");
  m.dtype = dtype->string_value();
  if (m.dtype == "float32") {
    m.bytes_per_param = 4;
  } else if (m.dtype == "float16" || m.dtype == "bfloat16") {
    m.bytes_per_param = 2;
  } else if (m.dtype == "int8" || m.dtype == "uint8" || m.dtype == "fp8") {
    m.bytes_per_param = 1;
  } else {
    return Error(file, absl::StrCat("unknown 'torch_dtype' '", m.dtype,
                                    "' (expected float32, float16, bfloat16, int8, uint8 or fp8)"));
  }
  return m;
}

absl::StatusOr<Gpu> ReadGpu(absl::string_view text, const std::string& file, const std::string& gpu) {
  absl::StatusOr<Struct> parsed = ParseObject(text, file);
  if (!parsed.ok()) return parsed.status();
  Gpu out;
  const Struct* sheet = &*parsed;
  if (Find(*parsed, "TFlopsPeak") == nullptr) {
    // BLIS's form: GPUs by name.
    std::vector<std::string> names;
    for (const auto& [name, value] : parsed->fields()) {
      if (value.kind_case() == Value::kStructValue) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    std::string pick = gpu;
    if (pick.empty()) {
      if (names.size() != 1) {
        return Error(file, absl::StrCat("the file has ", names.size(),
                                        " GPUs: name one with --gpu (",
                                        absl::StrJoin(names, ", "), ")"));
      }
      pick = names[0];
    }
    const Value* entry = Find(*parsed, pick.c_str());
    if (entry == nullptr || entry->kind_case() != Value::kStructValue) {
      return Error(file, absl::StrCat("no GPU '", pick, "' (the file has ",
                                      absl::StrJoin(names, ", "), ")"));
    }
    sheet = &entry->struct_value();
    out.name = pick;
  } else {
    out.name = gpu.empty() ? "the GPU" : gpu;
  }
  const std::string where = absl::StrCat("'", out.name, "'");
  absl::StatusOr<double> x = PositiveField(*sheet, file, where, "TFlopsPeak", true);
  if (!x.ok()) return x.status();
  out.tflops = *x;
  if (!(x = PositiveField(*sheet, file, where, "BwPeakTBs", true)).ok()) return x.status();
  out.bw_tbs = *x;
  if (!(x = PositiveField(*sheet, file, where, "TFlopsFP8", false)).ok()) return x.status();
  out.tflops_fp8 = *x;
  if (!(x = PositiveField(*sheet, file, where, "MemoryGiB", false)).ok()) return x.status();
  out.memory_gib = *x;
  return out;
}

absl::StatusOr<Coefficients> ReadCoefficients(absl::string_view text, const std::string& file) {
  absl::StatusOr<Struct> parsed = ParseObject(text, file);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::vector<double>> alpha = Numbers(*parsed, file, "alpha_coeffs");
  if (!alpha.ok()) return alpha.status();
  absl::StatusOr<std::vector<double>> beta = Numbers(*parsed, file, "beta_coeffs");
  if (!beta.ok()) return beta.status();
  if (alpha->size() != 3) return Error(file, "'alpha_coeffs' must hold 3 numbers");
  if (beta->size() != 10 && beta->size() != 11) {
    return Error(file, absl::StrCat("'beta_coeffs' must hold 10 numbers (BLIS's dense form; an "
                                    "11th is allowed), not ", beta->size()));
  }
  Coefficients c;
  for (int i = 0; i < 3; ++i) c.alpha[i] = (*alpha)[i];
  for (int i = 0; i < 10; ++i) c.beta[i] = (*beta)[i];
  return c;
}

absl::StatusOr<std::string> PhysicsBlock(const ModelShape& m, const Gpu& gpu,
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
    absl::StrAppend(&out, "workload w { arrive trace(\"", o.trace, "\"); }\n", "session w {\n",
                    session_lines, "}\n", "run { }\n");
  }
  return out;
}

}  // namespace serq::physics
