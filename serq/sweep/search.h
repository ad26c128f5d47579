// `serq search`: the largest value of a param in [lo, hi] whose point meets
// a condition (condition.h), by bisection over the values lo + k * step,
// each point decided by its figures' 95% intervals and given more
// replications (doubling, up to a cap) while undecided (docs/cli.md
// §search). The bisection takes the condition to hold below some value and
// fail above it (true of a latency bound against an arrival rate); a point
// still undecided at the cap counts as failing, and the report says so.
#ifndef SERQ_SERQ_SEARCH_H_
#define SERQ_SERQ_SEARCH_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "serq/pipeline/commands.h"
#include "serq/sweep/condition.h"

namespace serq {

struct SearchPoint;

struct SearchSpec {
  std::string program;
  std::string param;
  double lo = 0, hi = 0, step = 0;
  Condition condition;
  DriverOptions base;  // other -D, --share, and the run's --seed, --horizon, --data-dir, --jobs
  uint32_t replications = 4;       // a point's first replications
  uint32_t max_replications = 64;  // and the most it gets
  // A point not in a steady state (serq-report's verdict OVERLOADED or
  // BACKLOGGED), or leaving more than max_in_progress of the sessions its
  // window saw in progress at the horizon, fails whatever its figures, as
  // its figures cover completed work only; --allow-overload judges the
  // figures alone.
  bool allow_overload = false;
  double max_in_progress = 0.1;
  // Above 0: a point fails for its steady state only when more than this
  // share of its replications are flagged (BACKLOGGED or OVERLOADED), so
  // that one short replication's chance rise does not end a search; 0 (the
  // default): when any is, or when the verdict is UNSETTLED.
  double flagged_share = 0;
  // Asked before each step of the bisection with the highest point that
  // passed and the lowest value that did not: true ends the search there
  // (SearchOutcome.stopped), the answer the value that passed. serq plan
  // stops a candidate that can no longer reach the front with it.
  std::function<bool(const SearchPoint& passed, double failed)> stop;
  // Given each flag of the link in `base` that changes nothing of the
  // program (UnusedLinkFlags: --share, --data-dir), before any point runs.
  std::function<void(const std::string& warning)> warn;
};

struct SearchPoint {
  double value = 0;
  Verdict verdict = Verdict::kUndecided;
  uint32_t replications = 0;
  std::vector<Figure> figures;  // one per condition.metrics
  Health health;
  std::string why;  // a point that did not pass: why (the overload, or the figures)
};

struct SearchOutcome {
  std::vector<SearchPoint> tried;  // in the order tried
  bool found = false;
  double answer = 0;       // found: the largest value that passed
  int above = -1;          // index in `tried` of the value one step above it, if tried
  int lowest = -1;         // !found: index of lo in `tried`
  bool stopped = false;    // SearchSpec.stop ended the bisection early
  // The observations the results say are times (results.proto
  // time_observation), whatever their names: their charts in ms or s.
  std::set<std::string> times;
};

// Runs the search. Errors (a program rejected, a runtime error at a point,
// an observation the condition names that the results lack) come back in
// `error`, and false.
bool RunSearch(const SearchSpec& spec, SearchOutcome* outcome, CommandResult* error);

// The search's report: the question, the answer, how sure, and the points
// tried with their figures.
std::string RenderSearch(const SearchSpec& spec, const SearchOutcome& outcome);

}  // namespace serq

#endif  // SERQ_SERQ_SEARCH_H_
