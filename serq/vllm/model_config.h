// A model's Hugging Face config.json (a run folder's model.json), as far as
// the step time and vLLM's KV cache need it: the decoder's shape, its
// mixture of experts, its dtype; and what follows from them: the bytes of
// KV a token takes and the bytes of weights each GPU holds.
#ifndef SERQ_SERQ_VLLM_MODEL_CONFIG_H_
#define SERQ_SERQ_VLLM_MODEL_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/vllm/json_file.h"

namespace serq::vllm {

struct ModelConfig {
  std::string architecture;  // architectures[0], e.g. Qwen3MoeForCausalLM
  std::string model_type;    // e.g. qwen3_moe
  int layers = 0;            // num_hidden_layers
  int hidden = 0;            // hidden_size
  int heads = 0;             // num_attention_heads
  int kv_heads = 0;          // num_key_value_heads (absent: heads)
  int head_dim = 0;          // head_dim (absent: hidden / heads)
  bool head_dim_given = false;
  int intermediate = 0;      // intermediate_size (a dense MLP's)
  int vocab = 0;             // vocab_size
  bool tied = false;         // tie_word_embeddings
  std::string dtype;         // torch_dtype (or dtype)
  int dtype_bytes = 0;
  // Mixture of experts: num_experts (or num_local_experts), top-k, an
  // expert's intermediate size (moe_intermediate_size; Mixtral's is
  // intermediate_size), and which layers have experts.
  int experts = 0;
  int top_k = 0;
  int expert_intermediate = 0;
  int moe_layers = 0;    // layers whose MLP is the experts
  int dense_layers = 0;  // the others

  bool moe() const { return experts > 1; }
};

// Reads config.json's fields (`json` names its file in errors). A field
// missing or not a positive whole number, a quantized model
// (quantization_config), a dtype serq does not know, or a latent-attention
// (MLA) model: InvalidArgument naming the file and the field.
absl::StatusOr<ModelConfig> ReadModelConfig(const JsonFile& json);

// The bytes of KV a token takes on one GPU of a tensor-parallel group of
// `tp` (K and V of every layer, its share of the KV heads, at least one).
double KvBytesPerToken(const ModelConfig& m, int tp, int kv_dtype_bytes);

// The bytes of weights one GPU holds: the attention, the dense MLPs and the
// embeddings split over the `tp` GPUs of its tensor-parallel group, the
// norms on each, and the experts over the `ep` GPUs of expert
// parallelism (whole experts each; without it, every expert split over
// tp). A count from the shapes, as a checkpoint's tensors are.
double WeightBytesPerGpu(const ModelConfig& m, int tp, int ep);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_MODEL_CONFIG_H_
