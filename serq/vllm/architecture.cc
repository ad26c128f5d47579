#include "serq/vllm/architecture.h"

#include <algorithm>

namespace serq::vllm {
namespace {

// vLLM's decoders (vllm/model_executor/models/*.py), as LLMServingSim's
// profiler names their modules: a decoder layer is an RMSNorm, the QKV
// projection (Qwen3: then the per-head q and k norms), the rotary
// embedding, attention, the output projection, an RMSNorm, and the MLP.
// A count is calls a layer: the profiler's row for a name is the mean of
// its calls in a pass (its DedupSink averages samples of one key), so the
// two RMSNorms are 2 x 'layernorm' and Qwen3Attention's q_norm and k_norm
// (two RMSNorm modules, called one after the other) 2 x 'qk_norm'.
// LLMServingSim's trace generator charges qk_norm once a layer.
const std::vector<Architecture>& Catalog() {
  static const auto* catalog = new std::vector<Architecture>{
      {{"llama", "mistral", "qwen2"},
       {"embedding", "final_layernorm"},
       {{"layernorm", 2}, {"qkv_proj", 1}, {"rotary_emb", 1}, {"o_proj", 1}},
       {"gate_up_proj", "act_fn", "down_proj"},
       false,
       {"lm_head", "sampler"}},
      {{"qwen3", "qwen3_moe"},
       {"embedding", "final_layernorm"},
       {{"layernorm", 2}, {"qkv_proj", 1}, {"qk_norm", 2}, {"rotary_emb", 1}, {"o_proj", 1}},
       {"gate_up_proj", "act_fn", "down_proj"},
       true,
       {"lm_head", "sampler"}},
      // Phi-3.5-MoE (phimoe) runs Mixtral's operators, its norms LayerNorms.
      {{"mixtral", "phimoe"},
       {"embedding", "final_layernorm"},
       {{"layernorm", 2}, {"qkv_proj", 1}, {"rotary_emb", 1}, {"o_proj", 1}},
       {},
       true,
       {"lm_head", "sampler"}},
  };
  return *catalog;
}

}  // namespace

std::string ModelTypeOf(absl::string_view name) {
  // A Hugging Face architecture class (config.json's `architectures`) is
  // its model_type's, for a profile that names the class.
  static const auto* kClasses = new std::vector<std::pair<std::string, std::string>>{
      {"LlamaForCausalLM", "llama"},         {"MistralForCausalLM", "mistral"},
      {"Qwen2ForCausalLM", "qwen2"},         {"Qwen3ForCausalLM", "qwen3"},
      {"Qwen3MoeForCausalLM", "qwen3_moe"}, {"MixtralForCausalLM", "mixtral"},
      {"PhiMoEForCausalLM", "phimoe"}};
  for (const auto& [cls, type] : *kClasses) {
    if (name == cls) return type;
  }
  return std::string(name);
}

const Architecture* FindArchitecture(absl::string_view model_type) {
  const std::string type = ModelTypeOf(model_type);
  for (const Architecture& a : Catalog()) {
    for (const std::string& t : a.model_types) {
      if (t == type) return &a;
    }
  }
  return nullptr;
}

std::vector<std::string> KnownModelTypes() {
  std::vector<std::string> out;
  for (const Architecture& a : Catalog()) out.insert(out.end(), a.model_types.begin(), a.model_types.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace serq::vllm
