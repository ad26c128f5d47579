// `serq physics`: the complete vLLM program for a model nobody profiled on
// a GPU nobody profiled, from the model's config.json and the GPU's
// datasheet (presets or files, serq/models): what `serq vllm` writes for a
// run folder (vLLM 0.19's engine and defaults, the KV cache as vLLM
// derives it, tensor, expert and data parallelism over the one link model
// of net/collective.h, lockstep and vLLM's balancer), with the step time
// from physics instead of a profile, and a workload the flags choose
// (docs/cli.md §serq physics).
//
// The step time is BLIS's trained-physics roofline (inference-sim,
// sim/latency/trained_physics_model.go, StepTime) over a step's figures,
// per GPU, in microseconds, with BLIS's global corrections as default
// coefficients; serq's form reads head_dim from the config, counts
// projections at heads x head_dim, charges the collectives over the link
// (not at HBM bandwidth), and covers experts (the experts a step reaches,
// their FLOPs on each GPU's share of the (token, expert) pairs, the router,
// shared experts), latent attention, sliding windows and quantized weights,
// and runs a step as vLLM's CUDA graphs do, at the captured size above its
// tokens (the padded rows costed as a token's outside attention):
//   pf_compute  (FLOPs a token x (prefill + the padded rows of a step
//                with a prefill) + FLOPs a query-key pair x sum over
//                prefill jobs of t (c + t/2) + the experts' FLOPs of the
//                prefill's share) / peak FLOP/s
//   pf_kv       KV bytes a token x prefill / bandwidth
//   dc_compute  (FLOPs a token x (decode + the padded rows of a decode-only
//                step) + FLOPs a pair x decode_kv + the experts' FLOPs of
//                the decodes' share) / peak
//   dc_kv       KV bytes a token x (decode_kv + decode) / bandwidth
//   weights     (weights read once a step + the experts reached) / bandwidth
//   comm        the collectives of tensor and expert parallel (the link model)
//   us = B1A pf_compute + B1B pf_kv + B2A dc_compute + B2B dc_kv + B3 weights
//      + B4 comm + B5 layers + B6 seqs + B7
// `--blis` writes BLIS's own dense form instead (head_dim = hidden / heads,
// the all-reduce at HBM bandwidth, BLIS's alphas around a session from the
// arrival), for BLIS conformance.
//
// Why generated source: the step time stays one expression of the
// language, visible and editable (a term dropped, a correction fitted by
// `serq fit --param PHYS_B3=...`), and the IR, the linker and the
// simulator learn nothing new.
#ifndef SERQ_SERQ_PHYSICS_H_
#define SERQ_SERQ_PHYSICS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/models/gpu.h"
#include "serq/models/model_config.h"
#include "serq/models/vllm_engine.h"

namespace serq::physics {

// BLIS's coefficients: alpha (us) and the 10 betas of the dense step time,
// in BLIS's order B1A, B2A, B3, B4, B5, B6, B7, B8, B1B, B2B (B8, the
// interleaved-MoE term, is not used: none of serq's presets interleaves).
struct Coefficients {
  std::array<double, 3> alpha = {};
  std::array<double, 10> beta = {};
};

// BLIS's defaults.yaml, trained_physics_coefficients (f90a1e3a; "iter29").
Coefficients BlisDefaults();

// Parses a coefficients file: {"alpha_coeffs": [3], "beta_coeffs": [10 or 11]}
// (an 11th beta, BLIS's MoE dispatch term, is ignored), its shape checked
// first (serq/models/json_file.h: ir/input_shape.h's CheckJsonShape, so a
// file nested too deep is refused at its line).
absl::StatusOr<Coefficients> ReadCoefficients(absl::string_view text, const std::string& file);

// The deployment: parallelism, the link, vLLM's engine arguments.
struct Deployment {
  int tp = 1;
  int dp = 1;
  bool ep = false;           // --ep: the experts whole over the dp x tp GPUs
  // --expert-balancedness: with --ep, vLLM's EPLB balancedness of the
  // experts' pairs over the GPUs (absent: 1, balanced routing).
  std::optional<double> expert_balancedness;
  std::string interconnect;  // a name of net/interconnect.h; "": the GPU's
  // A link given by its figures instead (--link-bw GB/s, --link-latency us).
  std::optional<double> link_bw_gbps, link_latency_us;
  int64_t max_num_seqs = 0;  // 0: vLLM 0.19's default for the GPU
  int64_t max_num_batched_tokens = 0;
  int block_size = 16;
  double gpu_memory_utilization = 0.9;
  std::optional<double> gpu_memory_gib;  // instead of the datasheet's
  std::optional<int64_t> kv_blocks;      // vLLM's num_gpu_blocks, instead of derived
  // --max-model-len: vLLM's max_model_len, at most the model's derived one
  // (ModelConfig::max_model_len), which it is when not given.
  std::optional<int64_t> max_model_len;
  // Where max_model_len came from, for the program's comments and errors
  // ("": --max-model-len).
  std::string max_model_len_from;
  // serq physics --replay without --max-model-len: a trace replayed is a
  // run that started, so where the model's max_model_len does not fit the
  // KV cache the program takes the most it holds (vLLM's `auto`) and warns,
  // instead of refusing as vLLM would at the model's. Off for serq plan,
  // whose candidates have not run.
  bool fit_max_model_len = false;
  bool prefix_cache = true;
  bool async_scheduling = true;
  // --enforce-eager: no CUDA graphs, every step at its own tokens. Off:
  // vLLM 0.19's default graphs, a step of at most GraphMax tokens padded to
  // the next captured size (serq/models/vllm_engine.h).
  bool enforce_eager = false;
  // serq plan: a disaggregated candidate's decode engines (vllm_engine.h).
  models::EngineRole role = models::EngineRole::kWhole;
  std::string kv_cache_dtype = "auto";   // auto (the model's) or fp8
  // --mixed-attention: in a step with a prefill, each decode's one query row
  // computed in the attention kernel's padded query tile, every query head
  // (PHYS_B2M; docs/cli.md §serq physics). Off: BLIS's terms alone.
  bool mixed_attention = false;
};

// The requests: a trace replayed, or Poisson arrivals with lengths drawn
// from a named distribution.
struct Workload {
  std::string replay;  // a trace file (any format serq reads)
  // Its prompt and output columns; empty: told from the file's first line
  // (vLLM's input_toks, Mooncake's input_length, Azure's ContextTokens,
  // BLIS's and serq's input_tokens).
  std::string prompt_column, output_column;
  double rate = 0;        // requests a second
  std::string lengths;    // sharegpt | fixed:IN,OUT | uniform:ILO:IHI,OLO:OHI | llmservingsim-sharegpt
  int64_t requests = 0;   // with rate: how many arrive
};

struct ProgramOptions {
  Deployment deployment;
  Workload workload;
  Coefficients coefficients = BlisDefaults();
  std::string coefficients_file;  // "": BLIS's defaults
  std::string model_name;         // as named: a preset's name or a file
  std::string model_source;       // for the comments: "preset llama-3.1-8b: ..." or a file
  // Where the program will be read from: the trace it names is written
  // relative to this folder ("": relative to the current directory).
  std::string program_dir;
  std::string command;  // the command line, for the program's first lines
};

// The complete program (serq's form), or InvalidArgument naming what is
// wrong: a TP degree that does not divide the heads (or the KV heads, or
// is not a multiple of them), experts that do not split over the expert-
// parallel GPUs, --ep without experts, a link needed and none known, a
// datasheet without the figure the weights' dtype needs (TFlopsFP8,
// TFlopsFP32) or without memory (and no --gpu-memory or --kv-blocks), no
// room for the KV cache, a workload that is not one.
// What the program cannot settle but the user should know goes to
// `warnings` when given: a KV count derived from the GPU's memory that the
// replayed requests can fill (models::DerivedKvCanFill).
absl::StatusOr<std::string> GenerateProgram(const models::ModelConfig& model, const models::Gpu& gpu,
                                            const ProgramOptions& options,
                                            std::vector<std::string>* warnings = nullptr);

// Whether the deployment's GPUs exchange anything over a link: tensor
// parallel, or a mixture of experts over data-parallel engines (the
// experts' tokens). Only then does the link (--interconnect, --link-bw)
// change the program.
bool ExchangesOverLink(const models::ModelConfig& model, const Deployment& deployment);

// BLIS's dense form (--blis), kept for conformance with BLIS.

// A dense transformer as BLIS reads it: head_dim = hidden / heads.
struct ModelShape {
  std::string architecture;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  double bytes_per_param = 0;
  std::string dtype;
};

// BLIS's shape of `model`: a mixture of experts is refused (--blis is
// BLIS's dense model), as is a hidden size that the heads do not divide.
absl::StatusOr<ModelShape> BlisShape(const models::ModelConfig& model, const std::string& file);

struct BlockOptions {
  int tp = 1;
  std::string stage = "E";  // the step stage's name
  std::string queue = "Q";  // the delay stage of A0
  double seqs = 256;        // the stage's budgets (vLLM's defaults for a small GPU)
  double tokens = 2048;
  std::string config_file, hardware_file;  // named in the comment
  // Non-empty: write a whole program replaying this trace (its columns
  // named by prompt_column and output_column), a growing hold of kv_tokens
  // (0: unbounded) on the KV pool, TTFT, TPOT and E2E observed.
  std::string trace;
  std::string prompt_column = "input_tokens", output_column = "output_tokens";
  double kv_tokens = 0;
  // The folder the program is written to: the trace's path is written
  // relative to it, as serq run reads it (models::PathFor; "" the current
  // folder).
  std::string program_dir;
};

// BLIS's block (ends with a newline). Errors (InvalidArgument): tp below 1
// or not dividing the heads and KV heads, a GPU figure not positive, a
// coefficient negative or not finite.
absl::StatusOr<std::string> PhysicsBlock(const ModelShape& model, const models::Gpu& gpu,
                                         const Coefficients& coefficients,
                                         const BlockOptions& options);

// The workload's pieces as GenerateProgram writes them, for another
// generator's program (serq plan over a run folder's profile).
// --lengths NAME ("": llmservingsim-sharegpt): the session's lines that set
// input_toks and output_toks, and what they are.
struct LengthLines {
  std::vector<std::string> lines;
  std::string what;
  int64_t longest = 0;         // the most prompt and output tokens a request can draw
  int64_t longest_prompt = 0;  // the longest prompt it can draw
};
absl::StatusOr<LengthLines> ParseLengthLines(const std::string& name);
// --replay TRACE: its prompt and output columns, told from its first line
// unless given (Workload.prompt_column, output_column); an error for a
// path a program's string cannot hold (a control character).
absl::Status ReplayColumns(const std::string& trace, std::string* prompt, std::string* output);
// --replay TRACE read as the replay will read it (its reader's errors at
// their lines, now rather than when the program runs), each request with a
// whole number of prompt and output tokens from 1 (vLLM refuses an empty
// prompt and makes at least one token): the longest request's prompt and
// output tokens, and which it is ("row 3, arriving at 0.25 s"; rows in
// arrival order).
struct LongestRequest {
  int64_t tokens = 0;
  std::string which;
  int64_t prompt = 0;  // the longest prompt, and which request it is
  std::string prompt_which;
  std::vector<int64_t> request_tokens;  // every request's prompt and output tokens, in arrival order
};
absl::StatusOr<LongestRequest> ReplayLongest(const std::string& trace, const std::string& prompt,
                                             const std::string& output);
// The two for a workload's --replay: its columns (the workload's, else told
// from the first line) into `prompt` and `output`, then its requests.
absl::StatusOr<LongestRequest> ReplayRequests(const Workload& workload, std::string* prompt, std::string* output);

// The workload against vLLM's max_model_len, what does not depend on the
// deployment's GPUs (serq plan checks it once, before any candidate): the
// max_model_len (the deployment's, at most the model's limit, else the
// model's), the trace read (ReplayColumns, ReplayLongest) or the lengths
// parsed, no prompt of max_model_len tokens or more (vLLM refuses one that
// leaves no room for an output token). A longer request vLLM stops at
// max_model_len (FINISHED_LENGTH_CAPPED): the program makes at most
// max_model_len - prompt tokens of it.
struct WorkloadFit {
  int64_t max_len = 0;
  std::string max_len_from;
  std::string prompt = "input_toks", output = "output_toks";  // the session's variables
  LengthLines lengths;        // --rate's
  int64_t longest = 0;        // the most prompt and output tokens a request has
  std::string longest_which;  // "row 3 in arrival order, …", or "--lengths fixed:…"
  // --replay's: every request's prompt and output tokens, at most max_len.
  std::vector<int64_t> request_tokens;
};
absl::StatusOr<WorkloadFit> FitWorkload(const models::ModelConfig& model, const Deployment& deployment,
                                        const Workload& workload);

}  // namespace serq::physics

#endif  // SERQ_SERQ_PHYSICS_H_
