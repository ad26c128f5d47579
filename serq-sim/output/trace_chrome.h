// --trace-format=chrome: the event log in the Trace Event Format (the JSON
// that ui.perfetto.dev and chrome://tracing open), made from the JSON-lines
// log as the engine writes it (docs/cli.md §serq-sim), line by line, so
// the two formats cannot disagree and the log is never held in memory.
//
// Each replication R has three processes, with tracks by station, not by
// session:
// - "stages" (pid 3R+1): a thread per stage element, each step a complete
//   slice "step" with the batch's seqs, tokens, prefill, decode, context
//   and tau (the other figures are the JSON log's); and (counters) each
//   element's jobs present, and a preempting element's preemptions and the
//   content they threw away;
// - "sessions" (pid 3R+2): each session an async slice named by its
//   workload, id its serial, with its runs, admission waits and stalls
//   nested in it, and its observations, admissions, leases and
//   preemptions as async instants (viewers lay a name's sessions on one
//   track, overlapping ones stacked);
// - "pools" (pid 3R+3): a counter per pool element of its used and loaded
//   units, and evictable when the log has it.
// A counter changes at most once an instant: its last value of the
// instant is written (a step's growths are one change). Times are in
// microseconds. Slices still open at the horizon end there. TraceSelect
// narrows it: only the kinds selected, and only what is in the window
// (slices clipped to it, counters starting with their value at its start).
#ifndef SERQ_SIM_OUTPUT_TRACE_CHROME_H_
#define SERQ_SIM_OUTPUT_TRACE_CHROME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "serq-sim/output/trace_select.h"

namespace serq::sim {

class ChromeTrace {
 public:
  // Writes to `out`; `horizon` closes the slices still open.
  ChromeTrace(std::ostream* out, double horizon, const TraceSelect& select = {});
  ~ChromeTrace();

  // One line of the JSON-lines log. An error for a line that is not a flat
  // JSON object of the log's fields (a bug of the writer, or a log edited
  // by hand).
  absl::Status Line(absl::string_view line);
  // Ends the open slices and the JSON document.
  void Finish();

  // A streambuf that hands each complete line written into it to a
  // ChromeTrace (the engine writes its log to an ostream). The first error
  // is kept; later lines are dropped.
  class LineBuffer : public std::streambuf {
   public:
    explicit LineBuffer(ChromeTrace* trace) : trace_(trace) {}
    const absl::Status& status() const { return status_; }

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

   private:
    void Put(char c);
    ChromeTrace* trace_;
    std::string line_;
    absl::Status status_;
  };

 private:
  struct Value {
    bool is_string = false;
    bool is_null = false;
    double number = 0;
    std::string text;
  };
  using Fields = std::map<std::string, Value>;
  // A session's slices still open, outermost first, each with its start
  // and whether it has been written (one begun before the window is
  // written at the window's start, once the session shows in it).
  struct Open {
    std::string name;
    std::string args;
    double start = 0;
    bool written = false;
  };
  struct SessionTrack {
    std::vector<Open> open;
    bool waiting = false;
    bool stalled = false;
  };

  static absl::Status Parse(absl::string_view line, Fields* fields);
  void Event(const std::string& json);
  void CloseReplication();
  uint32_t StageTid(const std::string& stage);
  SessionTrack& Session(uint32_t serial) { return sessions_[serial]; }
  // A session's slice opens (written now if in the window), or its
  // innermost one closes at `t` (clipped to the window's end).
  void Begin(SessionTrack& s, uint32_t serial, double t, const std::string& name,
             const std::string& args);
  void End(SessionTrack& s, uint32_t serial, double t);
  // Writes the session's open slices not yet written, from the window's
  // start: before any event of it in the window.
  void Reveal(SessionTrack& s, uint32_t serial, double t);
  // An async instant of the session.
  void Instant(uint32_t serial, double t, const std::string& name, const std::string& args);
  // A counter's value at `t`: written at the instant's end (Flush) when in
  // the window, the last of the instant.
  void Counter(double t, uint32_t pid, const std::string& name, const std::string& args);
  void Flush();
  std::string Ts(double t) const;
  uint32_t pid(uint32_t k) const { return 3 * replication_ + k; }

  std::ostream* out_;
  double horizon_;
  TraceSelect select_;
  double last_ = 0;  // the latest time of a line so far
  bool first_ = true;
  bool started_ = false;
  uint32_t replication_ = 0;
  std::map<std::string, uint32_t> stage_tids_;
  std::map<std::string, int64_t> stage_present_;
  struct Preempted {
    int64_t count = 0;
    double content = 0;
  };
  std::map<std::string, Preempted> preempted_;  // per stage element, this replication
  std::map<uint32_t, SessionTrack> sessions_;
  // Counters: each one's latest value (pid, args) and whether it changed
  // at the pending instant, and whether its value at the window's start
  // has been written.
  struct CounterState {
    uint32_t pid = 0;
    std::string args;    // the latest value
    std::string before;  // the value before the pending instant's change ("" none)
    bool changed = false;
    bool written = false;
  };
  std::map<std::string, CounterState> counters_;
  double pending_ = -1;  // the instant whose counter changes wait for Flush
};

}  // namespace serq::sim

#endif  // SERQ_SIM_OUTPUT_TRACE_CHROME_H_
