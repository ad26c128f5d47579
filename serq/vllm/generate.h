// `serq vllm RUN_DIR`: the program that replays a measured vLLM run from its
// folder alone (docs/cli.md §serq vllm): the workload from requests.jsonl,
// the engines from meta.json with vLLM 0.19's defaults, the KV cache as the
// run records it or as vLLM derives it, the step time from the run's GPU
// profile at its tensor-parallel degree with every operator the
// architecture runs, the collectives of tensor and expert parallelism over
// the run's link, and data-parallel engines behind vLLM's balancer, in
// lockstep for a mixture of experts. Every figure in the text says where
// it came from.
#ifndef SERQ_SERQ_VLLM_GENERATE_H_
#define SERQ_SERQ_VLLM_GENERATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/vllm_engine.h"
#include "serq/vllm/kv_capacity.h"
#include "serq/vllm/run_folder.h"

namespace serq::vllm {

struct Options {
  // Where the program will be read from: the files it names are written
  // relative to this folder ("" : relative to the current directory).
  std::string program_dir;
  KvOptions kv;
  bool skew = true;          // --no-skew: attention at the decodes' mean KV only
  bool prefix_cache = true;  // --no-prefix-cache (the run's own argument otherwise)
  bool enforce_eager = false;  // --enforce-eager: no CUDA graphs, whatever the run had
  // --interconnect NAME: the link between GPUs, instead of the run's
  // llmservingsim-config.json.
  std::string interconnect;
  // --expert-balancedness: vLLM's EPLB balancedness of the experts' pairs
  // over the GPUs of expert parallel (absent: 1, balanced routing).
  std::optional<double> expert_balancedness;
  std::string command;  // the command line, for the program's first lines
  bool flags = false;   // it gives flags that change the program (serq vllm's)
  // serq plan: the engines deployed otherwise than the run's (run_folder.h).
  Redeployment redeploy;
  // serq plan: a disaggregated candidate's decode engines (vllm_engine.h).
  models::EngineRole role = models::EngineRole::kWhole;
  // serq plan: other requests than the run's (requests.jsonl): `what` for
  // the comment above them, `declare` the lines that declare workload
  // `requests` (its params and its `workload` statement), `session` the
  // session's first lines, which set input_toks and output_toks when the
  // workload does not.
  struct Requests {
    std::string what;
    std::vector<std::string> declare, session;
  };
  std::optional<Requests> requests;
};

struct Generated {
  std::string program;
  std::vector<std::string> warnings;  // for stderr: "serq vllm: warning: ..."
  // Options given that change nothing of this program ("--interconnect
  // changes nothing: ..."): serq vllm's flags, said after the warnings; not
  // for serq plan, whose own flags set the options for every candidate.
  std::vector<std::string> unused_flags;
};

absl::StatusOr<Generated> GenerateProgram(const std::string& run_dir, const Options& options);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_GENERATE_H_
