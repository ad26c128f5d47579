#include "serq/vllm/model_config.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace serq::vllm {
namespace {

constexpr int64_t kMostDimension = 1 << 24;

}  // namespace

absl::StatusOr<ModelConfig> ReadModelConfig(const JsonFile& json) {
  ModelConfig m;
  auto whole = [&](const char* field, int* out, bool required) -> absl::Status {
    absl::StatusOr<std::optional<int64_t>> v = json.Whole(field, 1, kMostDimension);
    if (!v.ok()) return v.status();
    if (!v->has_value()) {
      if (required) return json.Error(field, "missing: the model's config.json gives it");
      return absl::OkStatus();
    }
    *out = static_cast<int>(**v);
    return absl::OkStatus();
  };
  const google::protobuf::Value* archs = json.Find("architectures");
  if (archs != nullptr && archs->kind_case() == google::protobuf::Value::kListValue &&
      archs->list_value().values_size() > 0 &&
      archs->list_value().values(0).kind_case() == google::protobuf::Value::kStringValue) {
    m.architecture = archs->list_value().values(0).string_value();
  }
  absl::StatusOr<std::optional<std::string>> type = json.Text("model_type");
  if (!type.ok()) return type.status();
  if (!type->has_value()) return json.Error("model_type", "missing: the model's config.json gives it");
  m.model_type = **type;
  if (json.Find("quantization_config") != nullptr) {
    return json.Error("quantization_config",
                      "a quantized model: serq vllm reads models in bf16 or fp16 only");
  }
  if (json.Find("kv_lora_rank") != nullptr) {
    return json.Error("kv_lora_rank",
                      "multi-head latent attention (MLA): serq vllm does not model its KV cache");
  }
  for (auto [field, out] : {std::pair{"num_hidden_layers", &m.layers},
                            std::pair{"hidden_size", &m.hidden},
                            std::pair{"num_attention_heads", &m.heads},
                            std::pair{"vocab_size", &m.vocab}}) {
    if (absl::Status s = whole(field, out, true); !s.ok()) return s;
  }
  m.kv_heads = m.heads;
  if (absl::Status s = whole("num_key_value_heads", &m.kv_heads, false); !s.ok()) return s;
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    return json.Error("num_key_value_heads",
                      absl::StrCat(m.kv_heads, " KV heads do not divide the ", m.heads,
                                   " heads evenly"));
  }
  if (absl::Status s = whole("head_dim", &m.head_dim, false); !s.ok()) return s;
  m.head_dim_given = m.head_dim > 0;
  if (!m.head_dim_given) {
    if (m.hidden % m.heads != 0) {
      return json.Error("head_dim", absl::StrCat("missing, and hidden_size ", m.hidden,
                                                 " is not a multiple of the ", m.heads, " heads"));
    }
    m.head_dim = m.hidden / m.heads;
  }
  absl::StatusOr<std::optional<bool>> tied = json.Bool("tie_word_embeddings");
  if (!tied.ok()) return tied.status();
  m.tied = tied->value_or(false);
  absl::StatusOr<std::optional<std::string>> dtype = json.Text("torch_dtype");
  if (!dtype.ok()) return dtype.status();
  if (!dtype->has_value()) {
    dtype = json.Text("dtype");
    if (!dtype.ok()) return dtype.status();
  }
  m.dtype = dtype->value_or("bfloat16");
  if (m.dtype == "bfloat16" || m.dtype == "float16") {
    m.dtype_bytes = 2;
  } else if (m.dtype == "float32") {
    m.dtype_bytes = 4;
  } else {
    return json.Error("torch_dtype", absl::StrCat("dtype '", m.dtype,
                                                  "': serq vllm knows bfloat16, float16, float32"));
  }
  // Experts: Qwen's num_experts, Mixtral's num_local_experts.
  for (const char* field : {"num_experts", "num_local_experts"}) {
    if (absl::Status s = whole(field, &m.experts, false); !s.ok()) return s;
    if (m.experts > 0) break;
  }
  if (absl::Status s = whole("intermediate_size", &m.intermediate, !m.moe()); !s.ok()) return s;
  m.moe_layers = 0;
  m.dense_layers = m.layers;
  if (m.moe()) {
    if (absl::Status s = whole("num_experts_per_tok", &m.top_k, true); !s.ok()) return s;
    if (m.top_k > m.experts) {
      return json.Error("num_experts_per_tok", absl::StrCat(m.top_k, " experts a token, of ",
                                                            m.experts));
    }
    m.expert_intermediate = m.intermediate;
    if (absl::Status s = whole("moe_intermediate_size", &m.expert_intermediate, m.intermediate == 0);
        !s.ok()) {
      return s;
    }
    // Qwen's layers: every decoder_sparse_step-th has experts, but those
    // listed in mlp_only_layers (vLLM's Qwen3MoeDecoderLayer).
    int step = 1;
    if (absl::Status s = whole("decoder_sparse_step", &step, false); !s.ok()) return s;
    std::set<int> dense_only;
    if (const google::protobuf::Value* only = json.Find("mlp_only_layers")) {
      if (only->kind_case() != google::protobuf::Value::kListValue) {
        return json.Error("mlp_only_layers", absl::StrCat("expected a list of layers, not ",
                                                          Describe(*only)));
      }
      for (const auto& v : only->list_value().values()) {
        const double x = v.kind_case() == google::protobuf::Value::kNumberValue ? v.number_value() : -1;
        if (!(x >= 0 && x < m.layers && x == static_cast<int>(x))) {
          return json.Error("mlp_only_layers", absl::StrCat("expected layer numbers from 0 to ",
                                                            m.layers - 1, ", not ", Describe(v)));
        }
        dense_only.insert(static_cast<int>(x));
      }
    }
    m.moe_layers = 0;
    for (int i = 0; i < m.layers; ++i) {
      if (dense_only.count(i) == 0 && (i + 1) % step == 0) ++m.moe_layers;
    }
    m.dense_layers = m.layers - m.moe_layers;
    if (m.dense_layers > 0 && m.intermediate == 0) {
      return json.Error("intermediate_size", "missing: the model's dense layers need it");
    }
  }
  return m;
}

double KvBytesPerToken(const ModelConfig& m, int tp, int kv_dtype_bytes) {
  const int heads = std::max(1, m.kv_heads / tp);
  return 2.0 * m.layers * heads * m.head_dim * kv_dtype_bytes;
}

double WeightBytesPerGpu(const ModelConfig& m, int tp, int ep) {
  const double h = m.hidden, q = static_cast<double>(m.heads) * m.head_dim,
               kv = static_cast<double>(m.kv_heads) * m.head_dim;
  // Split over tp: the attention's projections, the embeddings, a dense MLP.
  double split = m.layers * (h * q + 2 * h * kv + q * h);
  split += (m.tied ? 1 : 2) * static_cast<double>(m.vocab) * h;
  split += m.dense_layers * 3.0 * h * m.intermediate;
  // On every GPU: the norms (two a layer, the final one; Qwen3's q and k
  // norms are head_dim each) and a router a MoE layer.
  double each = (2.0 * m.layers + 1) * h;
  if (m.model_type == "qwen3" || m.model_type == "qwen3_moe") each += 2.0 * m.layers * m.head_dim;
  double experts = 0;
  if (m.moe()) {
    each += m.moe_layers * h * m.experts;
    experts = m.moe_layers * static_cast<double>(m.experts) * 3 * h * m.expert_intermediate;
  }
  const double expert_share = ep > 1 ? experts / ep : experts / tp;
  return (split / tp + each + expert_share) * m.dtype_bytes;
}

}  // namespace serq::vllm
