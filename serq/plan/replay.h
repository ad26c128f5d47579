// `serq plan --replay TRACE`: a trace's arrivals as the workload, at each
// rate the search tries. The trace's mean rate is measured once by the
// simulator's own reader (a program that only receives its arrivals, run
// without a horizon), so that every format serq reads is read as a run
// reads it; each candidate's program then replays every arrival at
// TraceRate / Rate x its trace time (`trace("f", scale)`), and the search's
// Rate stays requests a second.
#ifndef SERQ_SERQ_PLAN_REPLAY_H_
#define SERQ_SERQ_PLAN_REPLAY_H_

#include <cstdint>
#include <string>

#include "serq/pipeline/commands.h"

namespace serq::plan {

struct TraceArrivals {
  int64_t rows = 0;
  double first = 0, last = 0;  // the first and last arrival, trace seconds
  // Requests a second: (rows - 1) / (last - first), the mean gap's inverse.
  double Rate() const { return (rows - 1) / (last - first); }
};

// Writes the probe program to `probe_path` (the trace named relative to
// its folder) and simulates it once. False, with `error` filled (the
// simulator's message at the trace's line, or fewer than two arrivals, or
// all at one instant), when the trace cannot be replayed.
bool MeasureTrace(const std::string& trace, const std::string& probe_path, TraceArrivals* out,
                  CommandResult* error);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_REPLAY_H_
