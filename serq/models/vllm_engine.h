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
#include "absl/strings/string_view.h"

#include "serq/models/model_config.h"

namespace serq::models {

// The largest max_num_seqs and max_num_batched_tokens serq takes (a run's
// meta.json, serq physics' flags, serq plan's lists): vLLM bounds neither,
// but 2^20 sequences and 2^24 tokens a step are far past any GPU's, and
// keep what is computed from them (2 x max_num_seqs, the CUDA graphs'
// sizes, the program's params) exact.
inline constexpr int64_t kMostMaxNumSeqs = int64_t{1} << 20;
inline constexpr int64_t kMostMaxNumBatchedTokens = int64_t{1} << 24;

// vLLM 0.19's max_num_seqs and max_num_batched_tokens for an API server
// where the user gives none (0) (EngineArgs.get_batch_defaults): 1024 and
// 8192 on a GPU of at least 70 GiB that is not an A100, else 256 and 2048;
// then a default max_num_seqs at most max_num_batched_tokens. A given
// max_num_seqs above max_num_batched_tokens is an error: vLLM's scheduler
// config refuses it rather than lower it.
absl::Status BatchDefaults(bool a100, double gpu_gib, int64_t* seqs, int64_t* tokens);

// The same for an engine made by AsyncLLM.from_engine_args (LLMServingSim's
// bench) or LLMEngine.from_engine_args: their usage context,
// ENGINE_CONTEXT, is in neither of get_batch_defaults's tables, so vLLM
// 0.19 falls back to SchedulerConfig's DEFAULT_MAX_NUM_SEQS, 128, and
// DEFAULT_MAX_NUM_BATCHED_TOKENS, 2048, whatever the GPU; then the same
// rules as above.
inline constexpr int64_t kSchedulerDefaultSeqs = 128;
inline constexpr int64_t kSchedulerDefaultTokens = 2048;
absl::Status EngineBatchDefaults(int64_t* seqs, int64_t* tokens);

// The sampler's warm-up in vLLM's profile run (GPUModelRunner.
// _dummy_sampler_run) samples max_num_seqs dummy sequences with top-k and
// top-p on, so each sequence's logits over the whole vocabulary (a
// "logit" below is one sequence's score of one entry) live several times
// at once. How many depends on the top-k/top-p masking:
//
// - vLLM 0.19 masks with its Triton kernel (apply_top_k_top_p, at 8 rows or
//   more; topk_topp_triton.py, vllm#33538), in place: the logits in the
//   model's dtype, their float32 copy, the probabilities and the
//   exponential noise the sample divides them by, 4 bytes each, so 2 + 12
//   bytes a logit for a 16-bit model (12 when the logits are float32
//   already), and the kernel's buffer of one vocabulary row in float32 for
//   each program, min(next power of 2 of the rows, the GPU's SMs) of
//   them, taken here at 128 (the RTX 4090 has 128 SMs, the H100 132).
//   vLLM 0.19's log of Llama-3.1-8B on an H100 gives 1.89 GiB of torch
//   peak (it names no batch sizes); at `vllm serve`'s 1024 sequences and
//   8192 tokens this gives 1.84.
// - Below 8 rows it sorts in PyTorch: logits, sort values and int64
//   indices, the sort's buffers, probabilities, a mask, some 38.4 bytes a
//   logit, as the logs of vLLM's versions that always sorted give it
//   ((peak - hidden states) / (sequences x vocabulary): 38.25 to 38.55 for
//   five models on an H100 at 1024 sequences, llm-d-benchmark's
//   empirical-vllm-memory-results.md; vllm#33538's benchmark: 5.00 GB at
//   1024 x 131,072, against 1.56 GB for the Triton kernel).
inline constexpr int64_t kTritonSamplerMinRows = 8;
inline constexpr double kSortBytesPerLogit = 38.4;
inline constexpr int64_t kTritonSamplerPrograms = 128;
double SamplerBytesPerLogit(const ModelConfig& m, int64_t seqs);

// The activation peak vLLM's profile run leaves (bytes): the larger of a
// forward pass of max_num_batched_tokens tokens, whose largest layer's
// tensors live at once, and the sampler's warm-up over max_num_seqs
// sequences while the forward pass's hidden states are still held. The
// two come one after the other, so the peak is the larger, not the sum.
// An estimate from the shapes (vLLM measures it): for Llama-3.1-8B the
// sampler's is the larger at 128 sequences and 2048 tokens, the forward
// pass's at 256 and 8192.
double ActivationPeakBytes(const ModelConfig& m, int tp, int64_t tokens, int64_t seqs);

// The memory outside PyTorch that vLLM's profile run sees grow (its
// non_torch_increase: cuBLAS's workspaces, the kernels loaded, the
// communicators' buffers), which vLLM subtracts too and serq cannot
// measure. On one GPU, 0.25 GiB, vLLM 0.19's log of Llama-3.1-8B on an
// H100 ("non-torch forward increase memory: 0.25GiB"). Where the GPUs of
// an engine communicate in its forward pass (tensor or expert parallel),
// NCCL's and the custom all-reduce's buffers add 0.42 GiB more: an older
// version's logs give 0.13 GiB on one GPU and 0.55 at TP 2 (Llama-3.3-70B;
// llm-d-benchmark's empirical-vllm-memory-results.md, H100s); 0.67 GiB.
// `ep` is the GPUs an engine's experts are spread over (expert parallel,
// or a mixture of experts at data parallel, whose experts vLLM splits
// over every GPU).
inline constexpr double kNonTorchOneGpuGiB = 0.25;
inline constexpr double kNonTorchCommunicatorsGiB = 0.42;
double NonTorchBytes(int tp, int ep);

// Sequence-parallel experts. With expert parallel at tensor and data
// parallel both (and the default all-to-all backend, allgather_reducescatter),
// vLLM turns on ParallelConfig.use_sequence_parallel_moe, and a model whose
// MoE block honours it (among serq's: qwen3_moe, deepseek_v2 and _v3,
// gpt_oss; its block passes is_sequence_parallel to FusedMoE) gives each of
// an engine's TP GPUs 1/TP of the step's tokens (sequence_parallel_chunk):
// the experts' all-gather and reduce-scatter then run over every GPU (the
// expert-parallel group; AgRsAll2AllManager.dispatch) and the TP GPUs
// all-gather their shares' outputs after. In every other case (mixtral,
// phimoe, qwen2_moe; no expert parallel) each TP GPU holds all of its
// engine's tokens: the exchange runs over the engines' GPUs of one TP rank
// (the data-parallel group) and the TP GPUs all-reduce the experts' output.
bool SequenceParallelExperts(const ModelConfig& m, int tp, int dp, bool expert_parallel);

// The KV cache vLLM derives from a GPU's memory, in bytes and blocks.
// The most KV blocks serq takes an engine to hold (2^40, as a run's
// meta.json may give them): past it, a GPU memory (a flag, a datasheet, a
// cluster file) is surely not what the user meant, and the count would
// leave an int64 for a memory of 1e300 GiB.
inline constexpr int64_t kMaxKvBlocks = int64_t{1} << 40;

struct KvFromMemory {
  double requested = 0;   // ceil(GiB x 2^30 x utilization)
  double weights = 0;     // WeightBytesPerGpu
  double rotary = 0;      // RotaryTableBytes: vLLM counts it in the model's load
  double activation = 0;  // ActivationPeakBytes
  double non_torch = 0;   // NonTorchBytes
  double available = 0;   // requested - weights - rotary - activation - non_torch
  // floor(available / bytes a block); 0 when none fits; kMaxKvBlocks + 1
  // when more than kMaxKvBlocks would.
  int64_t blocks = 0;
};
// `shared_whole`: WeightBytesPerGpu's.
KvFromMemory KvBlocksFromMemory(const ModelConfig& m, int tp, int ep, double gpu_gib,
                                double utilization, int64_t tokens, int64_t seqs,
                                double bytes_per_block, bool shared_whole = false);
// A request the KV cache cannot hold whole, or "": one of `tokens`, prompt
// and output, holds at its last decode the KV of all but its last token,
// in blocks of `block`, and an engine has `usable_blocks` (num_gpu_blocks
// less the null block). vLLM never finishes a longer one (its prompt
// waits for room that never comes, or its decodes preempt every other
// request and then itself), and the replay stops at it; so the generators
// refuse it when they write the program. The text says what it needs
// against what the cache holds; the caller says where the request is and
// where the count came from.
std::string KvCannotHold(int64_t tokens, int64_t block, int64_t usable_blocks);
// The blocks of `block` tokens that the `seats` longest of `tokens` (each
// request's prompt and output tokens) hold together: the most KV an engine
// of `seats` sequences can ever hold of these requests. Where it passes the
// cache's usable blocks, the cache can fill and the engine preempt.
int64_t SeatedBlocksAtMost(const std::vector<int64_t>& tokens, int64_t seats, int64_t block);
// The warning for a KV count derived from the GPU's memory that the
// requests can fill, or "": their `seats` (max_num_seqs) longest hold more
// than an engine's `usable_blocks`. Where the replay then preempts, its
// figures move with the count, and two of the derivation's terms are
// estimates of what vLLM measures (the activation peak, the memory outside
// PyTorch); the text names vLLM's start-up log line, whose count --kv-blocks
// takes. `not_given` says why the count is derived ("the run records no
// count"), `whose` whose requests ("the run's").
std::string DerivedKvCanFill(const std::vector<int64_t>& tokens, int64_t seats, int64_t block, int64_t usable_blocks,
                             bool per_engine, absl::string_view not_given, absl::string_view whose);
// vLLM refuses a prompt of max_model_len tokens or more, which leaves no
// room for an output token (its input processor): the text for one, "a
// prompt of P tokens, not less than max_model_len M (FROM): vLLM refuses …".
std::string PromptPastMaxModelLen(int64_t prompt, int64_t max_model_len, const std::string& from);
// Bytes as a program's comments and the errors say them: "14.96 GiB".
std::string GibText(double bytes);
// What a GPU holds besides the KV cache, for an error that finds no room
// for it: "W GiB of weights, R GiB of rotary table, A GiB of activations
// and N GiB outside PyTorch on each GPU".
std::string KvDeductionsText(const KvFromMemory& kv);
// The lines of a program's comment for the deductions after the weights:
// the rotary table, and the two vLLM measures and serq estimates, the
// activation peak and the memory outside PyTorch; each says what it is
// made of and ends with a comma.
std::vector<std::string> KvEstimatesWhy(const ModelConfig& m, int tp, int ep, int64_t tokens, int64_t seqs,
                                        const KvFromMemory& kv);

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
