// `serq physics`: an analytic step time from a model's Hugging Face
// config.json and a GPU's datasheet, in roofline terms over a step's
// figures, with BLIS's trained-physics corrections as the default
// coefficients (docs/cli.md §serq physics).
//
// The form is generated source: a block of `param`s (the corrections, so
// `serq fit` and `-D` can move them) and a step stage whose `let`s are the
// roofline terms, which a program pastes or which `serq physics` writes
// whole around a trace (--trace). Generated text rather than a built-in:
// the step time stays one expression of the language, visible and
// editable (a term dropped, a correction fitted), and the IR, the linker
// and the simulator learn nothing new.
//
// The arithmetic is BLIS's (inference-sim at f90a1e3a,
// sim/latency/trained_physics_model.go, StepTime), for dense models:
//   prefill compute  L (2 d (2 d + 2 dkv) + 6 d dff) / tp FLOPs a prefill
//                    token, plus 4 L (h / tp) dh t (s + t/2) a prefill job
//                    of t tokens with s its prompt, over the peak FLOP/s
//   prefill KV       2 L (dkv / tp) 2 bytes a prefill token, over HBM bandwidth
//   decode compute   the same per-token FLOPs a decode job, plus 4 L (h / tp)
//                    dh c, c its context before the token
//   decode KV        2 L (dkv / tp) 2 (c + 1) bytes
//   weights          L (d (2 d + 2 dkv) + 3 d dff) bpp / tp bytes a step
//   TP all-reduce    2 L tokens d bpp 2 (tp - 1) / tp bytes
//   step = B1A prefill compute + B1B prefill KV + B2A decode compute
//        + B2B decode KV + B3 weights + B4 all-reduce + B5 L + B6 jobs + B7,
//          truncated to whole microseconds, at least 1
// and per request, outside the step: A0 before the queue, A2 for each
// output token, A1 after the last (added to TTFT and E2E as BLIS adds
// them, not spent on the GPU).
#ifndef SERQ_SERQ_PHYSICS_H_
#define SERQ_SERQ_PHYSICS_H_

#include <array>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace serq::physics {

// A dense transformer, as its config.json gives it.
struct ModelShape {
  std::string architecture;  // architectures[0], or model_type
  int layers = 0;            // num_hidden_layers
  int hidden = 0;            // hidden_size
  int heads = 0;             // num_attention_heads
  int kv_heads = 0;          // num_key_value_heads (absent: heads)
  int head_dim = 0;          // hidden / heads, as BLIS takes it
  int intermediate = 0;      // intermediate_size
  int vocab = 0;             // vocab_size (not in BLIS's step time; said in the comment)
  double bytes_per_param = 0;  // from torch_dtype (or dtype)
  std::string dtype;
};

// A GPU's datasheet: peak dense FLOP/s at the model's dtype and HBM
// bandwidth (BLIS's hardware_config.json entry).
struct Gpu {
  std::string name;
  double tflops = 0;      // TFlopsPeak
  double tflops_fp8 = 0;  // TFlopsFP8 (0: none), used for 1-byte weights
  double bw_tbs = 0;      // BwPeakTBs
  double memory_gib = 0;  // MemoryGiB (said in the comment)
};

// BLIS's coefficients: alpha (us) and the 10 betas of the dense step time,
// in BLIS's order B1A, B2A, B3, B4, B5, B6, B7, B8, B1B, B2B (B8, the
// interleaved-MoE term, is 0 for a dense model and not used).
struct Coefficients {
  std::array<double, 3> alpha = {};
  std::array<double, 10> beta = {};
};

// BLIS's defaults.yaml, trained_physics_coefficients (f90a1e3a; "iter29").
Coefficients BlisDefaults();

// Parses config.json (`file` names it in errors: "FILE: error: ..."). A
// composite config's text_config is read as BLIS reads it. A field missing
// or not a positive whole number, an MoE model (num_local_experts,
// num_experts, n_routed_experts or moe_num_experts above 1) or a quantized
// one (quantization_config): InvalidArgument.
absl::StatusOr<ModelShape> ReadModelConfig(absl::string_view text, const std::string& file);

// Parses a hardware file: BLIS's hardware_config.json (an object of GPUs
// by name; `gpu` picks one, or the only one when empty) or one GPU's
// object ({"TFlopsPeak": ..., "BwPeakTBs": ...}).
absl::StatusOr<Gpu> ReadGpu(absl::string_view text, const std::string& file, const std::string& gpu);

// Parses a coefficients file: {"alpha_coeffs": [3], "beta_coeffs": [10 or 11]}
// (an 11th beta, BLIS's MoE dispatch term, is ignored for dense models).
absl::StatusOr<Coefficients> ReadCoefficients(absl::string_view text, const std::string& file);

struct BlockOptions {
  int tp = 1;
  std::string stage = "E";  // the step stage's name
  std::string queue = "Q";  // the delay stage of A0
  double seqs = 256;        // the stage's budgets (vLLM's defaults)
  double tokens = 2048;
  std::string config_file, hardware_file;  // named in the comment
  // Non-empty: write a whole program replaying this trace (its columns
  // named by prompt_column and output_column), a growing hold of kv_tokens
  // (0: unbounded) on the KV pool, TTFT, TPOT and E2E observed.
  std::string trace;
  std::string prompt_column = "input_tokens", output_column = "output_tokens";
  double kv_tokens = 0;
};

// The generated source (ends with a newline). Errors (InvalidArgument):
// tp below 1 or not dividing the heads and KV heads, a GPU figure not
// positive, a coefficient negative or not finite.
absl::StatusOr<std::string> PhysicsBlock(const ModelShape& model, const Gpu& gpu,
                                         const Coefficients& coefficients,
                                         const BlockOptions& options);

}  // namespace serq::physics

#endif  // SERQ_SERQ_PHYSICS_H_
