#include "serq/plan/folder.h"

#include "absl/strings/str_cat.h"
#include "stats/format.h"

namespace serq::plan {

absl::StatusOr<FolderFiles> PlanFolderFiles(const PlanSpec& spec, const Plan& plan, const Context& context,
                                            const models::ModelConfig& model, const models::Gpu& gpu,
                                            const ProgramSettings& settings, const std::string& out) {
  FolderFiles folder;
  folder.files = {
      {"candidates.csv", CandidatesCsv(spec, plan, false)},
      {"pareto.csv", CandidatesCsv(spec, plan, true)},
      {"pareto.svg", FrontSvg(spec, plan, context)},
      {"pareto.html", FrontHtml(spec, plan, context)},
  };
  // The best of each kind (by tokens/s/GPU) as a runnable program at its
  // rate, and its vLLM command lines.
  std::string serve;
  for (int kind = 0; kind < 2; ++kind) {
    int best = -1;
    for (int i : plan.ranked) {
      if (spec.candidates[i].disaggregated == (kind == 1)) {
        best = i;
        break;
      }
    }
    if (best < 0) continue;
    ProgramSettings at = settings;
    at.base.workload.rate = plan.results[best].rate;
    at.base.program_dir = out;
    absl::StatusOr<std::string> text = CandidateProgram(model, gpu, spec.candidates[best], at);
    if (!text.ok()) return text.status();
    const std::string name = kind == 0 ? "best-colocated.sq" : "best-disaggregated.sq";
    folder.files.push_back({name, *text});
    absl::StrAppend(&serve, VllmServe(spec.candidates[best], context), "\n");
    absl::StrAppend(&folder.best_lines, "best ", kind == 0 ? "colocated" : "disaggregated", ": ",
                    spec.candidates[best].Label(), " at ", report::FormatShortest(plan.results[best].rate),
                    " req/s: ", name, "\n");
  }
  if (!serve.empty()) {
    folder.files.push_back({"vllm-serve.sh", absl::StrCat("#!/bin/sh\n# Written by serq plan.\n\n", serve)});
  }
  return folder;
}

}  // namespace serq::plan
