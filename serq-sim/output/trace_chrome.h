// --trace-format=chrome: the event log in the Trace Event Format (the JSON
// that ui.perfetto.dev and chrome://tracing open), made from the JSON-lines
// log as the engine writes it (docs/cli.md §serq-sim), line by line, so
// the two formats cannot disagree and the log is never held in memory.
//
// Each replication R has three processes: "stages" (pid 3R+1: a thread per
// stage element, each step a complete slice "step" with the batch's seqs,
// tokens, prefill, decode, context and tau, and a counter of the jobs
// present per element), "sessions" (pid 3R+2: a thread per session, its
// life as a slice with its runs, admission waits and stalls nested in it,
// its observations and preemptions as instant events; each stage element
// that preempts has counters of its preemptions and of the content they
// threw away, to be computed again) and "pools" (pid 3R+3: a counter
// per pool element of its used and loaded units, and evictable when the
// log has it). Times are in microseconds. Slices still open at the horizon
// end there.
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

namespace serq::sim {

class ChromeTrace {
 public:
  // Writes to `out`; `horizon` closes the slices still open.
  ChromeTrace(std::ostream* out, double horizon);
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
  struct SessionTrack {
    uint32_t tid = 0;
    std::vector<std::string> open;  // slice names, outermost first
    bool waiting = false;
    bool stalled = false;
  };

  static absl::Status Parse(absl::string_view line, Fields* fields);
  void Event(const std::string& json);
  void CloseReplication();
  uint32_t StageTid(const std::string& stage);
  SessionTrack& Session(double t, uint32_t serial, const std::string& workload);
  void Begin(SessionTrack& s, uint32_t serial, double t, const std::string& name,
             const std::string& args);
  void End(SessionTrack& s, uint32_t serial, double t);
  std::string Ts(double t) const;
  uint32_t pid(uint32_t k) const { return 3 * replication_ + k; }

  std::ostream* out_;
  double horizon_;
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
  std::map<uint32_t, std::string> run_stage_;  // serial -> stage of its run in progress
};

}  // namespace serq::sim

#endif  // SERQ_SIM_OUTPUT_TRACE_CHROME_H_
