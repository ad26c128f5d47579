// What a finished plan leaves in its folder (docs/cli.md §serq plan): the
// candidates' table and the front's, the front drawn, and the best
// candidate of each kind as a program a user runs and the `vllm serve`
// lines that deploy it.
#ifndef SERQ_SERQ_PLAN_FOLDER_H_
#define SERQ_SERQ_PLAN_FOLDER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/gpu.h"
#include "serq/models/model_config.h"
#include "serq/plan/plan.h"
#include "serq/plan/program.h"
#include "serq/plan/render.h"

namespace serq::plan {

// A plan's files, by name in its folder, and the summary's lines that name
// the best candidates.
struct FolderFiles {
  std::vector<std::pair<std::string, std::string>> files;
  std::string best_lines;  // "best colocated: LABEL at R req/s: best-colocated.sq", a line each
};

// candidates.csv, pareto.csv, pareto.svg and pareto.html; for each kind
// with a candidate on the ranking, its best by tokens/s/GPU written as a
// runnable program at its rate (best-colocated.sq, best-disaggregated.sq,
// naming its files relative to `out`, the folder), and vllm-serve.sh with
// their `vllm serve` lines. An error: a best candidate's program that
// cannot be written.
absl::StatusOr<FolderFiles> PlanFolderFiles(const PlanSpec& spec, const Plan& plan, const Context& context,
                                            const models::ModelConfig& model, const models::Gpu& gpu,
                                            const ProgramSettings& settings, const std::string& out);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_FOLDER_H_
