#include "serq/plan/grow.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "stats/format.h"

namespace serq::plan {

// Why doubling then bisecting finds the fewest GPUs. A budget's plan meets
// the target when one of its candidates' largest rate meeting the SLOs is
// at least the target. A colocated candidate's search depends neither on
// the budget nor on the other candidates, and a budget's colocated
// candidates include every smaller budget's: for them, a budget that meets
// the target is followed by larger ones that do. Whether a disaggregated
// candidate meets the target does not depend on the budget either: its
// early stop (RunPlan) comes only once that is known (it passed the target,
// and FinishPlan counts it, or a rate at or below it failed); with --disaggregated-gpus all a budget
// holds every smaller one's too, and the bisection is exact; with the
// default (on exactly the budget) it takes a deployment of more GPUs to
// serve at least what one of fewer does. Either way the budget found meets
// the target and the one below it was tried and does not.
bool GrowPlan(const GrowSpec& grow, const PlanAt& plan_at, const std::function<void(const std::string&)>& progress,
              Growth* out, CommandResult* error) {
  *out = Growth();
  // A candidate of g GPUs is searched up to g x max_rate_per_gpu: below
  // target / max_rate_per_gpu GPUs none can reach the target.
  out->lower_bound = std::max(1.0, std::ceil(grow.target / grow.max_rate_per_gpu - 1e-9));
  if (!(out->lower_bound <= grow.max_gpus)) return true;
  KnownResults known;
  // Tries budget b: true when it ran; `met` whether it meets the target.
  auto probe = [&](int b, bool* met) {
    PlanSpec spec;
    std::vector<std::string> notes;
    if (!plan_at(b, &spec, &notes, error)) return false;
    spec.target_rate = grow.target;
    Plan plan;
    if (!spec.candidates.empty()) {
      if (!RunPlan(spec, &plan, error, &known)) return false;
    }
    Probe p;
    p.gpus = b;
    p.candidates = static_cast<int>(spec.candidates.size());
    p.met = plan.min_gpus >= 0;
    for (int i : plan.ranked) {
      if (p.best < 0 || plan.results[i].rate > plan.results[p.best].rate) p.best = i;
    }
    if (p.best >= 0) {
      p.best_label = spec.candidates[p.best].Label();
      p.best_rate = plan.results[p.best].rate;
    }
    for (size_t i = 0; i < spec.candidates.size(); ++i) {
      if (spec.candidates[i].disaggregated) continue;
      CandidateResult r = plan.results[i];
      r.on_front = false;
      known.emplace(spec.candidates[i].Slug(), r);
    }
    std::string line = absl::StrCat("serq plan: ", b, b == 1 ? " GPU: " : " GPUs: ", p.candidates,
                                    p.candidates == 1 ? " candidate" : " candidates");
    const std::string target = report::FormatShortest(grow.target);
    if (p.met) {
      const int m = plan.min_gpus;
      absl::StrAppend(&line, ", ", spec.candidates[m].Label(), " meets ", target, " req/s (",
                      MetRate(plan.results[m]), ")");
    } else if (p.best >= 0) {
      absl::StrAppend(&line, ", the most any meets the SLOs at is ", report::FormatShortest(p.best_rate), " req/s (",
                      p.best_label, "): short of ", target);
    } else {
      absl::StrAppend(&line, p.candidates == 0 ? "" : ", none meets the SLOs at any rate", ": short of ", target);
    }
    progress(line);
    out->probes.push_back(p);
    *met = p.met;
    if (p.met && (out->gpus == 0 || b < out->gpus)) {
      out->gpus = b;
      out->spec = std::move(spec);
      out->plan = std::move(plan);
      out->notes = std::move(notes);
    }
    return true;
  };
  // The budget below the lower bound falls short without a run.
  const int first = static_cast<int>(out->lower_bound);  // at most max_gpus
  int short_of = first - 1, meets = 0;
  for (int b = first;; b = std::min(2 * b, grow.max_gpus)) {
    bool met = false;
    if (!probe(b, &met)) return false;
    if (met) {
      meets = b;
      break;
    }
    short_of = b;
    if (b == grow.max_gpus) return true;
  }
  while (meets - short_of > 1) {
    const int mid = short_of + (meets - short_of) / 2;
    bool met = false;
    if (!probe(mid, &met)) return false;
    (met ? meets : short_of) = mid;
  }
  return true;
}

std::string ShortOf(const GrowSpec& grow, const Growth& growth) {
  const std::string target = report::FormatShortest(grow.target);
  std::string out = absl::StrCat("no budget of up to ", grow.max_gpus, grow.max_gpus == 1 ? " GPU" : " GPUs",
                                 " (--max-gpus) meets ", target, " req/s: ");
  if (growth.probes.empty()) {
    absl::StrAppend(&out, "a candidate of g GPUs is searched up to g x ",
                    report::FormatShortest(grow.max_rate_per_gpu), " req/s (--max-rate-per-gpu), so ", target,
                    " req/s takes at least ", report::FormatShortest(growth.lower_bound), " GPUs");
    return out;
  }
  const Probe& last = growth.probes.back();
  absl::StrAppend(&out, "on ", last.gpus, last.gpus == 1 ? " GPU" : " GPUs", ", ",
                  last.best < 0 ? (last.candidates == 0 ? "no candidate" : "no candidate meets the SLOs at any rate")
                                : absl::StrCat("the most any candidate meets the SLOs at is ",
                                               report::FormatShortest(last.best_rate), " req/s (", last.best_label,
                                               ")"));
  return out;
}

std::string GrowthLine(double target, const Growth& growth) {
  std::string out = absl::StrCat("budgets tried for ", report::FormatShortest(target), " req/s:");
  for (size_t i = 0; i < growth.probes.size(); ++i) {
    const Probe& p = growth.probes[i];
    absl::StrAppend(&out, i == 0 ? " " : ", ", p.gpus, p.met ? " meets" : " short");
  }
  absl::StrAppend(&out, "; the fewest GPUs: ", growth.gpus, "\n");
  return out;
}

}  // namespace serq::plan
