// `serq plan --rate R` without `--gpus`: the fewest GPUs at which some
// candidate meets the SLOs at R, by simulation: the plans of growing
// budgets (RunPlan, each a `serq plan --gpus B --rate R`), doubled until
// one meets R, then bisected between the last that fell short and the
// first that met it (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_GROW_H_
#define SERQ_SERQ_PLAN_GROW_H_

#include <functional>
#include <string>
#include <vector>

#include "serq/pipeline/commands.h"
#include "serq/plan/plan.h"

namespace serq::plan {

struct GrowSpec {
  double target = 0;             // --rate, requests a second
  int max_gpus = 64;             // --max-gpus: no budget above it is tried
  double max_rate_per_gpu = 16;  // the search's top a GPU (PlanSpec.max_rate_per_gpu)
};

// The plan of `gpus` GPUs: its candidates and their programs, written,
// and the rest of its PlanSpec; `notes` what its summary adds (candidates
// not enumerated and why). No candidate at all is not an error: the
// budget then falls short. False with `error` when a budget cannot be
// planned.
using PlanAt =
    std::function<bool(int gpus, PlanSpec* spec, std::vector<std::string>* notes, CommandResult* error)>;

// One budget tried, in the order tried.
struct Probe {
  int gpus = 0;
  int candidates = 0;
  bool met = false;
  int best = -1;  // the index (in that budget's plan) of the candidate meeting the highest rate, -1: none
  std::string best_label;
  double best_rate = 0;
};

struct Growth {
  // The fewest GPUs found; 0: none up to GrowSpec.max_gpus.
  int gpus = 0;
  // !gpus and above max_gpus: the fewest GPUs whose search reaches the
  // target at all (target / max_rate_per_gpu, rounded up); nothing ran. A
  // double: a target far beyond any budget gives a count past an int's.
  double lower_bound = 1;
  std::vector<Probe> probes;
  // gpus: the plan at that budget, as RunPlan left it, and its notes.
  PlanSpec spec;
  Plan plan;
  std::vector<std::string> notes;
};

// Grows the budget from the least that could meet the target (a candidate
// of g GPUs is searched up to g x max_rate_per_gpu) by doubling, capped at
// max_gpus, until a budget's plan has a candidate meeting the target; then
// bisects between the last budget that fell short and that one, so that
// the budget found meets it and the one below it does not. `progress`
// gets a line a budget tried. Colocated candidates already searched are
// not searched again (KnownResults); the plan found is RunPlan's at that
// budget, byte for byte.
bool GrowPlan(const GrowSpec& grow, const PlanAt& plan_at, const std::function<void(const std::string&)>& progress,
              Growth* out, CommandResult* error);

// Why no budget up to the cap meets the target: the lower bound above the
// cap, or the most any candidate meets the SLOs at on the cap's plan.
std::string ShortOf(const GrowSpec& grow, const Growth& growth);

// The summary's line: the budgets tried in order, each short of the
// target or meeting it, and the budget found.
std::string GrowthLine(double target, const Growth& growth);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_GROW_H_
