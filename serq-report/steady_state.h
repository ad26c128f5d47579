// Overload honesty: whether a run reached a steady state, from what
// serq-sim records of the window (the sessions in progress and each stage
// element's jobs present at its start, over its thirds and at its end).
// docs/report.md §steady state defines the verdicts and derives the
// thresholds; steady_state_test calibrates them on M/M/1.
#ifndef SERQ_REPORT_STEADY_STATE_H_
#define SERQ_REPORT_STEADY_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/report.pb.h"
#include "proto/results.pb.h"
#include "stats/merge.h"

namespace serq::report {

// A share of the window's arrivals: a queue that gained at least this
// share of them (and at least kMinGrowth), rising third by third, grew
// through the window; sessions left in progress at the horizon of at
// least this share of those the window saw are a backlog.
inline constexpr double kBacklogShare = 0.02;
inline constexpr uint64_t kMinGrowth = 10;
// A growing queue whose last third rose less than this share of its
// second third's rise is slowing (settling, with a short warm-up).
inline constexpr double kSlowing = 0.75;

// One queue of one replication, as the detector reads it.
struct QueueWindow {
  uint64_t start = 0;           // in progress or present at warmup
  uint64_t end = 0;             // at the horizon
  uint64_t arrived = 0;         // arrived in the window
  std::vector<double> thirds;   // the time-averages over the window's thirds
};

// It grew through the window: it gained kMinGrowth or more, and a share
// kBacklogShare or more of its arrivals, and each third's average is above
// the one before.
bool Growing(const QueueWindow& q);
// It was left with a backlog: at the horizon at least kBacklogShare of
// those it saw in the window (end + those that left) were still there, and
// either it drained through the window (its first third's average above
// its last's by max(kMinGrowth, kBacklogShare of those)) or it ended that
// much above its average over the window. Long sessions leave their
// steady-state count in progress (Little's law), which is neither.
bool Backlogged(const QueueWindow& q);
// Little's law: the mean stay of a member, the window's average count
// over its arrivals a second; 0 without arrivals.
double Stay(const QueueWindow& q, double window);
// It grew, but as a queue filling to its level does: each third rising
// less than the one before, after a warm-up shorter than three stays.
bool Settling(const QueueWindow& q, double window, double warmup);

// The windows of one replication's session `j` and stage element `j`.
QueueWindow SessionWindow(const results::SessionStats& s);
QueueWindow StageWindow(const results::StageStats& s);

// The verdict over every replication (the worst), and what was flagged.
SteadyState JudgeSteadyState(const MergedResults& merged);

// The text (and md) lines under the tables; empty for a stable run, and
// for one that cannot be judged.
std::vector<std::string> SteadyStateLines(const Report& report);

}  // namespace serq::report

#endif  // SERQ_REPORT_STEADY_STATE_H_
