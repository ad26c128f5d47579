// What a --trace writes (docs/cli.md §serq-sim): a window of time
// (--trace-window FROM:TO, seconds) and the kinds of events
// (--trace-select steps,sessions,pools,counters), so that a long run's
// trace can be narrowed to what is looked at. Both forms of the trace
// follow it: the JSON-lines log keeps the lines of the kinds selected whose
// time is in the window (TraceFilter), and the Chrome form the events and
// the parts of slices in the window (ChromeTrace).
#ifndef SERQ_SIM_OUTPUT_TRACE_SELECT_H_
#define SERQ_SIM_OUTPUT_TRACE_SELECT_H_

#include <limits>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace serq::sim {

struct TraceSelect {
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  bool steps = true;     // a step stage's steps
  bool sessions = true;  // sessions: arrivals, runs, waits, observations, holds and leases
  bool pools = true;     // the pools' used, loaded and evictable units
  bool counters = true;  // (Chrome) the jobs present at each stage, its preemptions
  bool everything() const;
  bool InWindow(double t) const { return t >= from && t <= to; }
};

// Parses --trace-window (empty: all of the run; else FROM:TO, seconds, FROM
// at least 0 and below TO, either side empty for the run's start or end)
// and --trace-select (empty: every kind; else a comma list of steps,
// sessions, pools, counters). InvalidArgument says what is wrong.
absl::StatusOr<TraceSelect> ParseTraceSelect(absl::string_view window, absl::string_view select);

// A streambuf that passes on the log's lines TraceSelect keeps to `out`:
// a replication's first line always; a `step` line with steps, a `pool`
// line with pools, any other with sessions; and only in the window.
class TraceFilter : public std::streambuf {
 public:
  TraceFilter(std::ostream* out, const TraceSelect& select) : out_(out), select_(select) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  void Put(char c);
  void Flush();
  std::ostream* out_;
  TraceSelect select_;
  std::string line_;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_OUTPUT_TRACE_SELECT_H_
