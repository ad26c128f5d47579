#include "serq-report/headline.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "stats/format.h"

namespace serq::report {
namespace {

bool Finite(double x) { return std::isfinite(x); }

// A step stage's fill and the budget it is of: the fuller of the two.
bool StepFill(const Stage& s, double* fill, const char** budget) {
  bool has = false;
  if (s.has_seqs_fill() && Finite(s.seqs_fill())) {
    *fill = s.seqs_fill();
    *budget = "seq fill";
    has = true;
  }
  if (s.has_tokens_fill() && Finite(s.tokens_fill()) && (!has || s.tokens_fill() > *fill)) {
    *fill = s.tokens_fill();
    *budget = "token fill";
    has = true;
  }
  return has;
}

std::string Figure(double x) { return FormatFixed(x, 4); }

std::string Describe(const Report& r, const Load& load) {
  if (load.kind == Load::Kind::kPool) {
    const Pool& p = r.pool(load.index);
    return absl::StrCat("pool ", p.name(), ", used ", Figure(load.figure),
                        " of its cap on average, ", Figure(p.max_used() / p.cap()),
                        " at the peak");
  }
  const Stage& s = r.stage(load.index);
  if (load.kind == Load::Kind::kLink) {
    return absl::StrCat("link ", s.name(), " (shared ", s.kind(), " stage), util ",
                        Figure(load.figure));
  }
  if (s.kind() == "step") {
    double fill = 0;
    const char* budget = "";
    StepFill(s, &fill, &budget);
    return absl::StrCat("stage ", s.name(), " (step), ", budget, " ", Figure(fill),
                        " (in a step ", Figure(s.utilisation()), " of the time)");
  }
  return absl::StrCat("stage ", s.name(), " (", s.kind(), "), util ", Figure(load.figure));
}

}  // namespace

std::vector<Load> Loads(const Report& r) {
  std::vector<Load> loads;
  for (int i = 0; i < r.stage_size(); ++i) {
    const Stage& s = r.stage(i);
    if (s.kind() == "step") {
      double fill = 0;
      const char* budget = "";
      if (StepFill(s, &fill, &budget)) loads.push_back({Load::Kind::kStage, i, fill});
    } else if (s.kind() != "delay" && s.has_utilisation() && Finite(s.utilisation())) {
      loads.push_back({s.shared() ? Load::Kind::kLink : Load::Kind::kStage, i, s.utilisation()});
    }
  }
  for (int i = 0; i < r.pool_size(); ++i) {
    const Pool& p = r.pool(i);
    // A pool no hold entered and no growth waited for in the window holds
    // what came before it (a flag leased for ever): full, but nothing waits.
    if (p.admitted() == 0 && p.stalls() == 0) continue;
    if (p.cap() > 0 && Finite(p.cap())) {
      loads.push_back({Load::Kind::kPool, i, p.mean_used() / p.cap()});
    }
  }
  return loads;
}

std::vector<std::string> HeadlineLines(const Report& r) {
  std::vector<std::string> lines;
  std::vector<Load> loads = Loads(r);
  if (!loads.empty()) {
    // The first of the fullest, so that ties go to the report's order.
    const Load* busiest = &loads[0];
    for (const Load& l : loads) {
      if (l.figure > busiest->figure) busiest = &l;
    }
    lines.push_back(absl::StrCat("busiest: ", Describe(r, *busiest)));
  }
  uint64_t preempted = 0, recomputed = 0;
  std::vector<std::string> where;
  for (const Stage& s : r.stage()) {
    if (s.preempted() == 0) continue;
    preempted += s.preempted();
    recomputed += s.recomputed();
    where.push_back(absl::StrCat(s.name(), " ", s.preempted()));
  }
  if (preempted > 0) {
    lines.push_back(absl::StrCat("preemptions: ", preempted, " (", absl::StrJoin(where, ", "),
                                 "), ", recomputed, " tokens recomputed"));
  }
  uint64_t stalls = 0;
  where.clear();
  for (const Pool& p : r.pool()) {
    if (p.stalls() == 0) continue;
    stalls += p.stalls();
    where.push_back(absl::StrCat(p.name(), " ", p.stalls()));
  }
  if (stalls > 0) {
    lines.push_back(absl::StrCat("stalls: ", stalls, " (", absl::StrJoin(where, ", "),
                                 "), growths that waited for a pool's units"));
  }
  return lines;
}

}  // namespace serq::report
