// How far a run folder's profile tables reach against what the program
// written from them looks them up at: a lookup past a table's last row
// extrapolates, so each such table is said (LLMServingSim's simulator
// warns of the same, warn_if_runtime_exceeds_profiled).
#ifndef SERQ_SERQ_VLLM_TABLE_REACH_H_
#define SERQ_SERQ_VLLM_TABLE_REACH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/vllm/run_folder.h"

namespace serq::vllm {

// What the engine runs up to: its limits, and the engines a lockstep group
// gathers the experts' tokens from (1 without one).
struct EngineReach {
  int64_t max_num_seqs = 0, max_num_batched_tokens = 0;
  int64_t lockstep_engines = 1;
  // With expert parallel, the busiest GPU's share of the pairs over the
  // mean's (--expert-balancedness): its experts serve 1 / this times more.
  double expert_balancedness = 1;
  bool own_requests = true;  // the program replays the run's requests (their KV is known)
};

// The warnings, in order: a limit past the profiler's sweep (meta.yaml's
// engine_effective); attention.csv's decodes and, of the run's own
// requests, their longest KV; then each table's other key below what the
// program looks it up at (attention's prefill chunk and dense.csv's tokens
// below max_num_batched_tokens, per_sequence.csv's sequences below
// max_num_seqs, each dense and per-sequence operator's rows apart, and
// moe.csv's tokens below those a GPU's experts serve). A table that ends
// short of a limit the sweep's warning already said, but reaches the
// sweep, is not said again. Errors: a table's cell that is not a number.
absl::StatusOr<std::vector<std::string>> TableReachWarnings(const RunFolder& r, const EngineReach& e);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_TABLE_REACH_H_
