// What `serq plan` reads before it plans: the deployment (the model and the
// GPU, or a run folder), the budget and the SLOs, the candidates' space,
// the settings of their programs and of their searches. A task
// (--candidate K) and the merge (--merge DIR) read them from the plan
// folder's plan.flags, as --emit recorded them. plan_cli.cc then plans.
#ifndef SERQ_SERQ_PLAN_SETUP_H_
#define SERQ_SERQ_PLAN_SETUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "serq/cli.h"
#include "serq/models/gpu.h"
#include "serq/models/model_config.h"
#include "serq/plan/candidate.h"
#include "serq/plan/emit.h"
#include "serq/plan/plan.h"
#include "serq/plan/program.h"
#include "serq/vllm/run_folder.h"

namespace serq {

struct PlanSetup {
  // --merge DIR or --candidate K: the plan's recorded settings, its folder
  // (absolute), and K. Neither: a local run or --emit.
  std::optional<plan::Emitted> emitted;
  std::optional<uint32_t> task;
  std::string plan_dir;
  std::string emit;  // --emit: parallel or slurm

  // The budget: --gpus, or with --rate alone (`grows`) the fewest GPUs up
  // to --max-gpus meeting `target` requests a second.
  int gpus = 0;
  int max_gpus = 0;
  double target = 0;
  bool grows = false;
  std::string until;  // --until, the SLOs as given
  std::string out;    // --out DIR

  // The deployment: a preset or file (model_source says which), or a run
  // folder's (`folder`, from --run `run_dir`).
  std::string run_dir;
  std::string model_name, gpu_name, model_source;
  models::ModelConfig model;
  models::Gpu gpu;
  std::optional<vllm::RunFolder> folder;
  std::string coefficients_path;  // --coefficients

  // The candidates' programs and the space they are enumerated from, with
  // the degrees left out and why (`unplanned`); `sizes` is
  // --disaggregated-gpus.
  plan::ProgramSettings settings;
  plan::Space space;
  std::string sizes;
  std::vector<std::pair<int, std::string>> unplanned;

  // What every budget's plan shares: the condition, the searches' bounds.
  plan::PlanSpec shared;
};

// Reads `setup` from the flags (and for a task or the merge, the plan's
// folder: it enters the directory the plan was made in). On misuse or bad
// input says why on standard error and returns the exit status; nullopt:
// plan.
std::optional<int> ReadPlanSetup(const CommandLine& line, PlanSetup* setup);

// `s` said as serq plan says a failure; returns the exit status: a
// located error as it is, another invalid input as serq plan's own, any
// other failure as the driver's.
int PlanFailed(const absl::Status& s);

// A generator's message without its tool's prefix ("serq physics: error: "):
// serq plan says it as its own.
absl::string_view WithoutTool(absl::string_view m);

}  // namespace serq

#endif  // SERQ_SERQ_PLAN_SETUP_H_
