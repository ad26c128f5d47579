// vLLM 0.19's sizing of an engine, shared by serq vllm (a run folder) and
// serq physics (a model and a GPU): the batch limits it picks for a GPU
// and the KV cache it derives from the GPU's memory
// (Worker.determine_available_memory, kv_cache_utils.get_num_blocks):
//
//   requested = GPU memory x gpu_memory_utilization
//   available = requested - weights - the activation peak of a profile run
//               - the memory outside PyTorch that grew while it ran
//   blocks    = floor(available / (block_size x KV bytes a token))
#ifndef SERQ_SERQ_MODELS_VLLM_ENGINE_H_
#define SERQ_SERQ_MODELS_VLLM_ENGINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "serq/models/model_config.h"

namespace serq::models {

// vLLM 0.19's max_num_seqs and max_num_batched_tokens for an API server
// where the user gives none (0) (EngineArgs.get_batch_defaults): 1024 and
// 8192 on a GPU of at least 70 GiB that is not an A100, else 256 and 2048;
// then a default max_num_seqs at most max_num_batched_tokens. A given
// max_num_seqs above max_num_batched_tokens is an error: vLLM's scheduler
// config refuses it rather than lower it.
absl::Status BatchDefaults(bool a100, double gpu_gib, int64_t* seqs, int64_t* tokens);

// The sampler's bytes a logit (a sequence's score of one vocabulary
// entry) at the peak of vLLM's profile run. The run samples max_num_seqs
// dummy sequences with top-k and top-p on (GPUModelRunner._dummy_sampler_run),
// so the logits live at once in the model's dtype and in float32, sorted
// (float32 values, int64 indices, and the sort's double buffer of both),
// as probabilities and a mask, and scattered back: some 38 bytes each,
// where a forward pass of the same tokens holds far less. The figure is
// what vLLM's own logs give, (peak activation - the hidden states) /
// (max_num_seqs x vocab): 38.40 (Llama-3.1-8B), 38.55 (Llama-3.3-70B at
// TP 2: the logits are gathered whole on every rank), 38.38 (Qwen3-32B),
// 38.26 (Qwen3-0.6B), 38.25 (gpt-oss-20b), all at 1024 sequences on an
// H100 (llm-d-benchmark's empirical-vllm-memory-results.md), and 39.2 and
// 38.2 at 256 in vLLM's older engine (vllm#10511, vllm#12529).
inline constexpr double kSamplerBytesPerLogit = 38.4;

// The activation peak vLLM's profile run leaves (bytes): the larger of a
// forward pass of max_num_batched_tokens tokens, whose largest layer's
// tensors live at once, and the sampler's run over max_num_seqs
// sequences (kSamplerBytesPerLogit a logit) while the forward pass's
// hidden states are still held. The two come one after the other, so the
// peak is the larger, not the sum. An estimate from the shapes (vLLM
// measures it); the sampler's is the larger at every size vLLM picks.
double ActivationPeakBytes(const ModelConfig& m, int tp, int64_t tokens, int64_t seqs);
// What the estimate is made of, in words, for a program's comment.
std::string ActivationPeakWhy(const ModelConfig& m, int64_t tokens, int64_t seqs);

// The memory outside PyTorch that vLLM's profile run sees grow (its
// non_torch_increase: cuBLAS's workspaces, the kernels loaded, the
// communicators' buffers), which vLLM subtracts too and serq cannot
// measure: the figure vLLM's logs give, 0.13 GiB on one GPU (0.14 for
// Qwen3-32B), 0.55 GiB where the GPUs of an engine communicate in its
// forward pass (one log: Llama-3.3-70B at TP 2, NCCL's and the custom
// all-reduce's buffers), taken for tensor and for expert parallel alike
// (llm-d-benchmark's empirical-vllm-memory-results.md, H100s).
double NonTorchBytes(int tp, int ep);
// Where the figure comes from, in words, for a program's comment.
std::string NonTorchWhy(int tp, int ep);

// The KV cache vLLM derives from a GPU's memory, in bytes and blocks.
// The most KV blocks serq takes an engine to hold (2^40, as a run's
// meta.json may give them): past it, a GPU memory (a flag, a datasheet, a
// cluster file) is surely not what the user meant, and the count would
// leave an int64 for a memory of 1e300 GiB.
inline constexpr int64_t kMaxKvBlocks = int64_t{1} << 40;

struct KvFromMemory {
  double requested = 0;   // ceil(GiB x 2^30 x utilization)
  double weights = 0;     // WeightBytesPerGpu
  double activation = 0;  // ActivationPeakBytes
  double non_torch = 0;   // NonTorchBytes
  double available = 0;   // requested - weights - activation - non_torch
  // floor(available / bytes a block); 0 when none fits; kMaxKvBlocks + 1
  // when more than kMaxKvBlocks would.
  int64_t blocks = 0;
};
KvFromMemory KvBlocksFromMemory(const ModelConfig& m, int tp, int ep, double gpu_gib,
                                double utilization, int64_t tokens, int64_t seqs,
                                double bytes_per_block);

// An engine's role: a whole one, or the decode instance of a prefill-decode
// split (serq plan's disaggregated candidates), whose requests come with
// their prompt's KV from the prefill instance over the link: it reserves
// no prompt (the KV is there when the request is), and a preempted request
// recomputes the KV of its last token only, as its prefill engine's
// blocks are not its own (`recompute last`, docs/language.md).
enum class EngineRole { kWhole, kDecode };

// CUDA graphs. vLLM 0.19 captures its forward pass at a list of token
// counts and runs a step of at most the largest at the next size at or
// above its own (the padded rows computed like any other), a larger step
// eagerly; with data parallel the engines agree on their largest step's
// size (coordinate_batch_across_dp).

// vLLM's rule for the captured sizes, up to `top`: 1, 2, 4, the multiples
// of 8 below 256, then of 16 from 256. Ascending; empty when top < 1.
std::vector<int64_t> CudaGraphSizesUpTo(int64_t top);

// vLLM 0.19's captured sizes for an engine's limits when nothing else is
// given (VllmConfig._set_cudagraph_sizes, no speculative decoding): the
// rule's sizes up to min(2 x max_num_seqs, 512, max_num_batched_tokens).
std::vector<int64_t> VllmCudaGraphSizes(int64_t seqs, int64_t tokens);

// The expression, in the language, of the captured size a step of `x`
// tokens (at most sizes.back()) runs at: the smallest size at or above x.
// vLLM's default sizes are written as their rule (`8 * ceil(x / 8)`), other
// lists as steps (the first size plus each gap x passes). `sizes` is
// ascending and not empty.
std::string PaddedTokensExpression(const std::string& x, const std::vector<int64_t>& sizes);

// A step stage's lines that pad it (each ends with a newline): `graphed`,
// whether the step runs as a graph (`base`, its tokens or with lockstep its
// group's largest step's, at most GraphMax; with `decode_only`, as vLLM's
// FULL_DECODE_ONLY mode, a step without a prefill only), and `padded`, the
// tokens its layers run at (the captured size, else its own tokens).
std::string CudaGraphLets(const std::string& base, const std::vector<int64_t>& sizes, bool decode_only);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_VLLM_ENGINE_H_
