#include "serq/models/vllm_engine.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serq/models/program_text.h"

namespace serq::models {

constexpr double kGiB = 1073741824.0;

namespace {

// The limits not given (0) take the defaults; a default max_num_seqs is
// then at most max_num_batched_tokens, a given one above it is refused.
absl::Status FillLimits(int64_t default_seqs, int64_t default_tokens, int64_t* seqs, int64_t* tokens) {
  // The callers' readers refuse these at their flag or path; here for a
  // caller that reads none.
  if (*seqs < 0 || *seqs > kMostMaxNumSeqs) {
    return absl::InvalidArgumentError(absl::StrCat("max_num_seqs ", *seqs, " is not from 1 to ", kMostMaxNumSeqs));
  }
  if (*tokens < 0 || *tokens > kMostMaxNumBatchedTokens) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_num_batched_tokens ", *tokens, " is not from 1 to ", kMostMaxNumBatchedTokens));
  }
  const bool seqs_given = *seqs != 0;
  if (*seqs == 0) *seqs = default_seqs;
  if (*tokens == 0) *tokens = default_tokens;
  if (!seqs_given) {
    *seqs = std::min(*seqs, *tokens);
  } else if (*seqs > *tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_num_seqs ", *seqs, " is more than max_num_batched_tokens ", *tokens,
        ", which vLLM refuses (its scheduler config: max_num_batched_tokens must be at least max_num_seqs)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BatchDefaults(bool a100, double gpu_gib, int64_t* seqs, int64_t* tokens) {
  const bool big = gpu_gib >= 70 && !a100;
  return FillLimits(big ? 1024 : 256, big ? 8192 : 2048, seqs, tokens);
}

absl::Status EngineBatchDefaults(int64_t* seqs, int64_t* tokens) {
  return FillLimits(kSchedulerDefaultSeqs, kSchedulerDefaultTokens, seqs, tokens);
}

double SamplerBytesPerLogit(const ModelConfig& m, int64_t seqs) {
  if (seqs < kTritonSamplerMinRows) return kSortBytesPerLogit;
  // The float32 copy is the logits themselves when they are float32.
  return (m.dtype_bytes < 4 ? m.dtype_bytes : 0) + 3 * 4.0;
}

namespace {

// The Triton kernel's buffer: a float32 vocabulary row a program.
double TritonBufferBytes(const ModelConfig& m, int64_t seqs) {
  if (seqs < kTritonSamplerMinRows) return 0;
  int64_t rows = 1;
  while (rows < seqs && rows < kTritonSamplerPrograms) rows *= 2;
  return static_cast<double>(rows) * m.vocab * 4;
}

// A layer's live tensors at their largest, in the model's dtype: the
// residual stream and the normed input (2 hidden), then the larger of the
// attention's q, k, v (its share of the heads) and the MLP's gate-up
// output with its activation (3 intermediate, split over tp) or, with
// experts, the fused kernel's caches for each token's top-k experts
// (2 + 1 expert intermediate and a hidden each).
double ForwardBytes(const ModelConfig& m, int tp, int64_t tokens) {
  const double attention = (m.heads + 2.0 * m.kv_heads) * m.head_dim / tp;
  double mlp = m.dense_layers > 0 ? 3.0 * m.intermediate / tp : 0;
  if (m.moe()) mlp = std::max(mlp, m.top_k * (3.0 * m.expert_intermediate + m.hidden));
  return tokens * (2.0 * m.hidden + std::max(attention, mlp)) * m.dtype_bytes;
}

// The sampler's warm-up with the forward pass's hidden states held. Its
// logits are the whole vocabulary's on every rank.
double SamplerBytes(const ModelConfig& m, int64_t tokens, int64_t seqs) {
  return static_cast<double>(tokens) * m.hidden * m.dtype_bytes +
         static_cast<double>(seqs) * m.vocab * SamplerBytesPerLogit(m, seqs) + TritonBufferBytes(m, seqs);
}

}  // namespace

double ActivationPeakBytes(const ModelConfig& m, int tp, int64_t tokens, int64_t seqs) {
  return std::max(ForwardBytes(m, tp, tokens), SamplerBytes(m, tokens, seqs));
}

double NonTorchBytes(int tp, int ep) {
  return (kNonTorchOneGpuGiB + (tp > 1 || ep > 1 ? kNonTorchCommunicatorsGiB : 0)) * kGiB;
}

bool SequenceParallelExperts(const ModelConfig& m, int tp, int dp, bool expert_parallel) {
  static const auto* kHonour = new std::vector<std::string>{"deepseek_v2", "deepseek_v3", "gpt_oss", "qwen3_moe"};
  return m.moe() && expert_parallel && tp > 1 && dp > 1 &&
         std::find(kHonour->begin(), kHonour->end(), m.model_type) != kHonour->end();
}

KvFromMemory KvBlocksFromMemory(const ModelConfig& m, int tp, int ep, double gpu_gib,
                                double utilization, int64_t tokens, int64_t seqs,
                                double bytes_per_block, bool shared_whole) {
  KvFromMemory kv;
  kv.requested = std::ceil(gpu_gib * kGiB * utilization);
  kv.weights = WeightBytesPerGpu(m, tp, ep, shared_whole);
  kv.rotary = RotaryTableBytes(m);
  kv.activation = ActivationPeakBytes(m, tp, tokens, seqs);
  kv.non_torch = NonTorchBytes(tp, ep);
  kv.available = kv.requested - kv.weights - kv.rotary - kv.activation - kv.non_torch;
  // In doubles first: an int64 cannot hold every quotient (nor inf).
  const double blocks = std::floor(kv.available / bytes_per_block);
  kv.blocks = !(blocks >= 1) ? 0
              : blocks > static_cast<double>(kMaxKvBlocks) ? kMaxKvBlocks + 1
                                                           : static_cast<int64_t>(blocks);
  return kv;
}

std::string KvCannotHold(int64_t tokens, int64_t block, int64_t usable_blocks) {
  const int64_t kv = std::max<int64_t>(tokens - 1, 0);
  const int64_t needed = (kv + block - 1) / block;
  if (needed <= usable_blocks) return "";
  return absl::StrCat("a request of ", tokens, " tokens (prompt and output) holds the KV of ", kv,
                      " at its last decode, ", needed, " blocks of ", block, ", more than the ", usable_blocks,
                      " the KV cache holds: vLLM would never finish it");
}

int64_t SeatedBlocksAtMost(const std::vector<int64_t>& tokens, int64_t seats, int64_t block) {
  std::vector<int64_t> longest = tokens;
  const size_t n = static_cast<size_t>(std::clamp<int64_t>(seats, 0, static_cast<int64_t>(longest.size())));
  std::partial_sort(longest.begin(), longest.begin() + n, longest.end(), std::greater<int64_t>());
  int64_t blocks = 0;
  for (size_t i = 0; i < n; ++i) blocks += (longest[i] + block - 1) / block;
  return blocks;
}

std::string DerivedKvCanFill(const std::vector<int64_t>& tokens, int64_t seats, int64_t block, int64_t usable_blocks,
                             bool per_engine, absl::string_view not_given, absl::string_view whose) {
  const int64_t held = SeatedBlocksAtMost(tokens, seats, block);
  if (held <= usable_blocks) return "";
  // A KV-bound replay's figures move with the count (docs/examples.md: on
  // the Llama folder at an RTX 4090's memory, 16% more blocks take 12% off
  // the TTFT mean), and the derivation estimates two of its terms.
  const int64_t seated = std::min<int64_t>(seats, static_cast<int64_t>(tokens.size()));
  return absl::StrCat(
      "KV cache: ", usable_blocks, " blocks of ", block, " tokens", per_engine ? " an engine" : "",
      ", derived from the GPU's memory (", not_given, "), and ", whose, " requests can fill it: its ", seated,
      " longest (max_num_seqs ", seats, ") hold up to ", held, " blocks together. Where the replay "
      "preempts (serq run's `preemptions:` line), its figures move with the count: vLLM logs it at start-up "
      "(`GPU KV cache size: N tokens`, N / ", block, " blocks), and --kv-blocks takes it");
}

std::string PromptPastMaxModelLen(int64_t prompt, int64_t max_model_len, const std::string& from) {
  return absl::StrCat("a prompt of ", prompt, " tokens, not less than max_model_len ", max_model_len, " (", from,
                      "): vLLM refuses a prompt that leaves no room for an output token");
}

std::string GibText(double bytes) { return absl::StrFormat("%.2f GiB", bytes / kGiB); }

std::string KvDeductionsText(const KvFromMemory& kv) {
  return absl::StrCat(GibText(kv.weights), " of weights, ", GibText(kv.rotary), " of rotary table, ",
                      GibText(kv.activation), " of activations and ", GibText(kv.non_torch),
                      " outside PyTorch on each GPU");
}

std::vector<std::string> KvEstimatesWhy(const ModelConfig& m, int tp, int ep, int64_t tokens, int64_t seqs,
                                        const KvFromMemory& kv) {
  const bool sampler = SamplerBytes(m, tokens, seqs) >= ForwardBytes(m, tp, tokens);
  const bool communicate = tp > 1 || ep > 1;
  return {
      m.rotary_positions > 0
          ? absl::StrCat("less the rotary embedding's cos/sin table, ", GibText(kv.rotary), " (", m.rotary_positions,
                         " positions, ", m.rotary_from, ", x ", m.rotary_dim, " x ", m.rotary_dtype_bytes,
                         " bytes; vLLM builds it as it loads the model),")
          : std::string("less no rotary table (the config gives no max_position_embeddings),"),
      absl::StrCat("less the activation peak of vLLM's profile run, ", GibText(kv.activation),
                   " (estimated: the larger of a forward pass of ", tokens,
                   " tokens and the sampler's warm-up over ", seqs, " sequences of ", m.vocab, " logits, ",
                   SamplerBytesPerLogit(m, seqs), " bytes a logit",
                   seqs < kTritonSamplerMinRows
                       ? absl::StrCat(" (sorted: fewer than ", kTritonSamplerMinRows, " rows)")
                       : " and its Triton kernel's buffer",
                   ", here the ", sampler ? "sampler's" : "forward pass's", "; vLLM measures it),"),
      absl::StrCat("less the memory outside PyTorch the profile run sees grow, ", GibText(kv.non_torch), " (",
                   communicate ? absl::StrCat("vLLM 0.19's logged figure on one GPU, ", kNonTorchOneGpuGiB,
                                              ", and ", kNonTorchCommunicatorsGiB,
                                              " more where an engine's GPUs communicate")
                               : "vLLM 0.19's logged figure on one GPU",
                   "; vLLM measures it),")};
}

std::vector<int64_t> CudaGraphSizesUpTo(int64_t top) {
  std::vector<int64_t> sizes;
  for (int64_t size : {1, 2, 4}) {
    if (size <= top) sizes.push_back(size);
  }
  for (int64_t size = 8; size < 256 && size <= top; size += 8) sizes.push_back(size);
  for (int64_t size = 256; size <= top; size += 16) sizes.push_back(size);
  return sizes;
}

std::vector<int64_t> VllmCudaGraphSizes(int64_t seqs, int64_t tokens) {
  return CudaGraphSizesUpTo(std::min<int64_t>({2 * seqs, 512, tokens}));
}

std::string PaddedTokensExpression(const std::string& x, const std::vector<int64_t>& sizes) {
  const int64_t largest = sizes.back();
  std::string e;
  if (sizes == CudaGraphSizesUpTo(largest)) {
    e = absl::StrCat("(", x, " <= 2) * ", x);
    if (largest >= 4) absl::StrAppend(&e, " + (", x, " > 2) * (", x, " <= 4) * 4");
    if (largest >= 8) {
      absl::StrAppend(&e, " + (", x, " > 4) * (", x, " <= 256) * 8 * ceil(", x, " / 8)");
    }
    if (largest > 256) absl::StrAppend(&e, " + (", x, " > 256) * (256 + 16 * ceil((", x, " - 256) / 16))");
    return e;
  }
  std::vector<std::string> terms = {absl::StrCat(sizes[0])};
  for (size_t i = 1; i < sizes.size(); ++i) {
    terms.push_back(absl::StrCat("(", x, " > ", sizes[i - 1], ") * ", sizes[i] - sizes[i - 1]));
  }
  return SumOf(terms);
}

std::string CudaGraphLets(const std::string& base, const std::vector<int64_t>& sizes, bool decode_only) {
  return absl::StrCat(decode_only ? absl::StrCat("  let graphed = (", base, " <= GraphMax) * (prefill == 0);\n")
                                  : absl::StrCat("  let graphed = ", base, " <= GraphMax;\n"),
                      "  let padded = graphed * (", PaddedTokensExpression(base, sizes), ") + (1 - graphed) * tokens;\n");
}

}  // namespace serq::models
