// What `serq plan` writes: the candidates and the front as CSV, the front
// as an SVG chart and an HTML page (each point's configuration on hover),
// the best configurations as `vllm serve` lines, and the summary it prints
// (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_RENDER_H_
#define SERQ_SERQ_PLAN_RENDER_H_

#include <string>

#include "serq/plan/plan.h"
#include "serq/vllm/run_folder.h"

namespace serq::plan {

// What the page and the summary say of the inputs.
struct Context {
  std::string model;      // as named: "llama-3.1-8b"
  std::string model_id;   // for `vllm serve` ("" : the name)
  bool moe = false;       // a mixture of experts: a disaggregated role's engines one server's DP ranks
  bool enforce_eager = false;  // --enforce-eager: the servers without CUDA graphs
  // The engine's other arguments every candidate's program models, as
  // `vllm serve` flags (" --block-size 32 --kv-cache-dtype fp8"): a run
  // folder's where they differ from vLLM's defaults, or --max-model-len.
  std::string engine_options;
  std::string gpu;        // "NVIDIA H100 SXM5 80GB"
  int gpus = 0;           // the budget
  std::string workload;   // "Poisson arrivals, lengths llmservingsim-sharegpt"
  std::string condition;  // the SLOs as written
  std::string step_time;  // the step-time source and its measured error
  std::string command;
  int top = 5;
};

// One row a candidate (`front_only`: the front's), the header first.
std::string CandidatesCsv(const PlanSpec& spec, const Plan& plan, bool front_only);
// The chart: every candidate on the chart (kOk) a mark, colocated circles
// and disaggregated diamonds, the 95% intervals as bars, the front joined,
// each mark's configuration in its <title> (shown on hover).
std::string FrontSvg(const PlanSpec& spec, const Plan& plan, const Context& context);
// The page: the chart, the inputs, the step-time source, the front and the
// candidates not plotted and why.
std::string FrontHtml(const PlanSpec& spec, const Plan& plan, const Context& context);
// A run folder's engine arguments that its plan's programs keep and that
// differ from vLLM 0.19's defaults, as `vllm serve` flags
// (Context::engine_options).
std::string ServeOptionsOfRun(const vllm::EngineArgs& a);

// The `vllm serve` command lines of candidate i (a disaggregated one's P/D
// launch lines and the proxy between them).
std::string VllmServe(const Candidate& c, const Context& context);
// What serq plan prints: the front, the top, the fewest GPUs for the
// target, the candidates not plotted.
std::string Summary(const PlanSpec& spec, const Plan& plan, const Context& context);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_RENDER_H_
