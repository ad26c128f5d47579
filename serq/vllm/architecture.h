// The operators of a decoder, architecture by architecture, as a GPU
// profile in LLMServingSim's layout names them (dense.csv's `layer` column,
// per_sequence.csv's, moe.csv), and how many times a step each runs: what
// the step time of `serq vllm` sums. An architecture is known by its
// model_type (model.json's, and the profile's meta.yaml `architecture`).
//
// Every operator a profile has must be one the architecture runs, and
// every operator it runs must be in the profile: a program never drops an
// operator silently (issue: Qwen3's qk_norm, missed by a program copied
// from Llama's).
#ifndef SERQ_SERQ_VLLM_ARCHITECTURE_H_
#define SERQ_SERQ_VLLM_ARCHITECTURE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace serq::vllm {

struct Architecture {
  // model_type values it covers (llama, mistral and qwen2 share a decoder).
  std::vector<std::string> model_types;
  // dense.csv, once a step at the step's tokens: the embedding, the final
  // norm.
  std::vector<std::string> per_step;
  // dense.csv, each layer at the step's tokens, with its count a layer
  // (two RMSNorms a decoder layer).
  std::vector<std::pair<std::string, int>> per_layer;
  // dense.csv, a dense MLP's operators (a layer without experts).
  std::vector<std::string> dense_mlp;
  // Whether its MLP may be a mixture of experts (moe.csv).
  bool experts = false;
  // per_sequence.csv, once a step at the step's sequences.
  std::vector<std::string> per_sequence;
};

// The architecture of `model_type` (or of its Hugging Face class name,
// "Qwen3ForCausalLM"), or null.
const Architecture* FindArchitecture(absl::string_view model_type);
// The model_type a Hugging Face class name denotes ("Qwen3ForCausalLM":
// "qwen3"), or the name as given.
std::string ModelTypeOf(absl::string_view name);
// Every model_type known, sorted, for a message.
std::vector<std::string> KnownModelTypes();

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_ARCHITECTURE_H_
