// A model's Hugging Face config.json, as far as a step time and vLLM's KV
// cache need it: the decoder's shape (attention with its head_dim, GQA,
// multi-head latent attention, sliding windows), its mixture of experts
// (routed and shared experts, which layers have them), its dtype and
// quantization; and what follows from them: the bytes of KV a token takes
// and the bytes of weights each GPU holds. serq vllm reads a run folder's
// model.json with it, serq physics a config file or a preset.
#ifndef SERQ_SERQ_MODELS_MODEL_CONFIG_H_
#define SERQ_SERQ_MODELS_MODEL_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/models/json_file.h"

namespace serq::models {

struct ModelConfig {
  std::string architecture;  // architectures[0], e.g. Qwen3MoeForCausalLM
  std::string model_type;    // e.g. qwen3_moe
  int layers = 0;            // num_hidden_layers
  int hidden = 0;            // hidden_size
  int heads = 0;             // num_attention_heads
  int kv_heads = 0;          // num_key_value_heads (absent: the config class's default, or heads)
  std::string kv_heads_from;  // "num_key_value_heads", or the default taken, for a comment
  int head_dim = 0;          // head_dim (absent: the config class's default; MLA: qk_nope + qk_rope)
  bool head_dim_given = false;
  // Where head_dim came from, for a program's comment: "head_dim", or, where
  // the config has none, the default its Hugging Face class gives (vLLM
  // reads the class's attribute: Qwen3Config's 128, not hidden / heads).
  std::string head_dim_from;
  int intermediate = 0;      // intermediate_size (a dense MLP's)
  int vocab = 0;             // vocab_size
  bool tied = false;         // tie_word_embeddings
  bool qk_norm = false;      // Qwen3's RMSNorm of each head's q and k (by model_type)
  std::string dtype;         // what vLLM's dtype auto serves: torch_dtype (or dtype), float32 as bfloat16
  std::string config_dtype;  // torch_dtype (or dtype) as the config gives it (absent: float32)
  // Where dtype came from, for a program's comment: "torch_dtype bfloat16",
  // or the default taken where the config gives neither field.
  std::string dtype_from;
  int dtype_bytes = 0;
  // Multi-head latent attention (DeepSeek-V2/V3): the KV a token keeps is
  // one latent of kv_lora_rank and one rotary key of qk_rope_head_dim, for
  // every head. All 0 without it.
  int q_lora_rank = 0;       // 0: q projected from the hidden state directly
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  // Sliding-window attention (gpt-oss, Mistral): the layers that attend to
  // their last `sliding_window` tokens only (0: none).
  int sliding_window = 0;
  std::string window_from;  // "sliding_window", or the config class's default taken
  std::string window_layers_from;  // which layers: every one, layer_types', or the class's default
  int window_layers = 0;
  // Mixture of experts: num_experts (or num_local_experts, n_routed_experts),
  // top-k, an expert's intermediate size (moe_intermediate_size; Mixtral's
  // and gpt-oss's is intermediate_size), and which layers have experts.
  int experts = 0;
  int top_k = 0;
  int expert_intermediate = 0;
  int shared_intermediate = 0;  // the shared experts of a MoE layer together (0: none)
  int moe_layers = 0;    // layers whose MLP is the experts
  int dense_layers = 0;  // the others
  // Weights: bytes a parameter of the linear layers and of the experts
  // (the dtype's, or the quantization's: fp8 1, mxfp4 experts 4.25 bits);
  // embeddings, norms and routers stay in the dtype.
  std::string quantization;  // quantization_config.quant_method, or ""
  double linear_bytes = 0;
  double expert_bytes = 0;
  // The rotary embedding's cos/sin table, which vLLM builds on the GPU as
  // it loads the model and counts in the load's memory (get_rope: one table
  // the layers share; one a layer type where the RoPE parameters are by
  // layer type): `rotary_positions` rows of `rotary_dim` values, a cos and
  // a sin half, of `rotary_dtype_bytes` each (the model's dtype; gpt-oss's
  // is float32). The rows follow from max_position_embeddings and the RoPE
  // scaling (`rotary_from` says how, for a program's comment); without
  // max_position_embeddings, 0 rows and nothing counted.
  int64_t rotary_positions = 0;
  int rotary_dim = 0;
  int rotary_dtype_bytes = 0;
  std::string rotary_from;

  // vLLM's max_model_len when none is given (ModelConfig's
  // _get_and_verify_max_len): the least of the config's length keys
  // (max_position_embeddings, n_positions, max_seq_len, seq_length,
  // max_sequence_length, max_seq_length, seq_len), model_max_length over
  // them where given (Command-R's), else 2048; times the RoPE scaling's
  // factor for types other than llama3 and longrope (YaRN's from
  // original_max_position_embeddings); Gemma 3's not scaled. That is the
  // most a user may give, or model_max_length where larger
  // (`max_model_len_limit`). Under longrope the default is the config's
  // original_max_position_embeddings. `max_model_len_from` and
  // `max_model_len_limit_from` say how each came (they differ under
  // longrope and where model_max_length is the larger).
  int64_t max_model_len = 0;
  int64_t max_model_len_limit = 0;
  std::string max_model_len_from, max_model_len_limit_from;

  bool moe() const { return experts > 1; }
  bool mla() const { return kv_lora_rank > 0; }
};

// What a reader accepts beyond what serq vllm's profiles cover (models in
// bf16/fp16/fp32 without latent attention): serq vllm refuses the others by
// name, serq physics reads them.
struct ReadOptions {
  bool latent_attention = false;  // kv_lora_rank (MLA)
  bool quantized = false;         // quantization_config: fp8, mxfp4
  // model_type one of the decoders serq's physics form describes (attention
  // and a dense MLP or experts a layer: KnownDecoderTypes), else an error;
  // serq vllm checks its own catalog against the profile instead.
  bool known_decoders_only = false;
  std::string tool = "serq vllm";  // named in a refusal
};

// The model_types of decoder-only transformers serq's physics form reads
// (its layer: attention, then a dense MLP or experts), sorted.
const std::vector<std::string>& KnownDecoderTypes();

// Reads config.json's fields (`json` names its file in errors); a
// composite (multimodal) config's text_config is read over the top level. A field
// missing or not a positive whole number, a quantization or a dtype serq
// does not know, KV heads that do not divide the heads, or (unless
// `options` allow them) a quantized or latent-attention model:
// InvalidArgument naming the file and the field.
absl::StatusOr<ModelConfig> ReadModelConfig(const JsonFile& json, const ReadOptions& options = {});

// The bytes of KV a token takes on one GPU of a tensor-parallel group of
// `tp` (K and V of every layer, its share of the KV heads, at least one; a
// latent-attention model's latent and rotary key, on every GPU).
double KvBytesPerToken(const ModelConfig& m, int tp, int kv_dtype_bytes);

// vLLM's kv_cache_dtype values serq models, "auto" (the model's dtype),
// "bfloat16", "float16", "fp8" and its two formats "fp8_e4m3" and
// "fp8_e5m2": whether `dtype` is one, and its bytes an element.
bool KnownKvCacheDtype(absl::string_view dtype);
int KvDtypeBytes(absl::string_view kv_cache_dtype, const ModelConfig& m);
// The list of them, for a message: "auto, bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2".
inline constexpr absl::string_view kKvCacheDtypes = "auto, bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2";

// The bytes of weights one GPU holds: the attention, the dense MLPs, the
// shared experts and the embeddings split over the `tp` GPUs of its
// tensor-parallel group, the norms and routers on each, and the experts
// over the `ep` GPUs of expert parallelism (whole experts each; without
// it, every expert split over tp). A count from the shapes, as a
// checkpoint's tensors are. With `shared_whole` (vLLM's sequence-parallel
// experts, models::SequenceParallelExperts: DeepSeek's block builds its
// shared experts with disable_tp) each GPU holds the shared experts whole.
double WeightBytesPerGpu(const ModelConfig& m, int tp, int ep, bool shared_whole = false);

// The rotary table's bytes on each GPU (every GPU builds its own).
double RotaryTableBytes(const ModelConfig& m);

// The parameters of one layer's attention projections (q, k, v, o; MLA's
// down and up projections), the part split over tensor parallel and the
// part every GPU holds (MLA's replicated down projections).
struct AttentionParams {
  double split = 0;
  double replicated = 0;
};
AttentionParams AttentionParamsPerLayer(const ModelConfig& m);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_MODEL_CONFIG_H_
