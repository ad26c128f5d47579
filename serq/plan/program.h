// A candidate's program (serq/plan/candidate.h): serq physics's vLLM
// program (serq/physics/physics.h) at the candidate's parallelism and
// engine options, with the arrival rate a param (`Rate`) the search moves
// and a window of about `Requests` arrivals whatever the rate (at least
// `MinHorizon` seconds) after `Warmup` seconds; a disaggregated
// candidate's is composed from the two roles' programs (docs/cli.md
// §serq plan): their engines as stage arrays P[NP] and D[ND], the prompt's
// KV moved from a prefill engine to a decode engine over the link, as
// examples/pd-disaggregation/llmd_nixl_push_vllm.sq moves it.
#ifndef SERQ_SERQ_PLAN_PROGRAM_H_
#define SERQ_SERQ_PLAN_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "serq/models/gpu.h"
#include "serq/models/model_config.h"
#include "serq/physics/physics.h"
#include "serq/plan/candidate.h"
#include "serq/vllm/generate.h"

namespace serq::plan {

struct ProgramSettings {
  // The model, the GPU, the link, the workload (its rate the program's
  // first Rate) and the coefficients, as serq physics takes them; the
  // deployment's tp, dp and engine options are the candidate's.
  physics::ProgramOptions base;
  std::string kv_link;        // the KV transfer's link ("": --interconnect's, or the GPU's)
  int64_t requests = 1000;    // arrivals a replication, about (the horizon Requests / Rate)
  double min_horizon = 60;    // seconds: the window at least this
  double warmup = 30;         // seconds before the window
  // --seed: the programs' `run { seed }`, so that `serq run` of a written
  // program gives the plan's figures (absent: the generator's seed 1).
  std::optional<uint64_t> seed;
  // --run DIR: the engines from a run folder's GPU profile (serq vllm's
  // generator, at the candidate's TP degree, which the profile must have;
  // a disaggregated candidate's each role at its own) instead of serq
  // physics; `run` its options (--interconnect, the KV).
  // The model and the GPU passed with these settings are then unused.
  std::string run_dir;
  vllm::Options run;
  int kv_dtype_bytes = 0;  // --run: the run's KV cache's bytes an element (0: the model's dtype's)
  // --replay (base.workload.replay): the trace's arrivals (replay.h),
  // measured once; its mean rate is TraceRate, and the run lasts its last
  // arrival's time at the rate's scale.
  int64_t trace_rows = 0;
  double trace_rate = 0, trace_last = 0;
};

// The program, or the generator's error (a TP degree the model refuses, no
// room for the KV cache: the candidate does not fit; no link named for the
// KV) as InvalidArgument. The generator's warnings (serq
// vllm's, for a run folder: limits past the profiler's sweep, a skew fit
// it lacks) are appended to `warnings` when given, in the order said.
absl::StatusOr<std::string> CandidateProgram(const models::ModelConfig& model, const models::Gpu& gpu,
                                             const Candidate& candidate, const ProgramSettings& settings,
                                             std::vector<std::string>* warnings = nullptr);

// Whether an engine of `tp` GPUs can hold the model and some KV cache, and
// the model allows that degree (serq physics generates its program): OK,
// or why not (the generator's reason: the weights leave no KV cache, a
// degree that does not divide the heads).
absl::Status Fits(const models::ModelConfig& model, const models::Gpu& gpu, int tp, const ProgramSettings& settings);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_PROGRAM_H_
