#ifndef SERQ_IR_PROGRESS_H_
#define SERQ_IR_PROGRESS_H_

// Progress of long work on stderr, so that a user can tell work that will
// end from work that will not (a replication, a sweep's planning, its
// tasks). On a terminal: one line, drawn after a second of wall time, then
// redrawn in place four times a second. In a log (stderr not a terminal):
// a whole line every 5 s once the work has run 5 s, unless the environment
// says SERQ_PROGRESS=0 (tests that compare stderr).

#include <cstdio>
#include <functional>

#include "absl/strings/string_view.h"

namespace serq {

// Whether a stderr that is not a terminal gets progress lines: yes unless
// the environment says SERQ_PROGRESS=0.
bool ProgressLinesWanted();

class ProgressLine {
 public:
  enum class Mode { kNone, kInPlace, kLines };
  // The mode stderr calls for: kInPlace on a terminal, else kLines unless
  // SERQ_PROGRESS=0.
  static Mode ForStderr();

  // `now`: a clock in seconds (default: the steady clock), `out` where the
  // lines go (default: stderr); both for tests. The work starts now.
  explicit ProgressLine(Mode mode, std::function<double()> now = {}, std::FILE* out = stderr);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Whether a line is due now; true marks it made, and the caller Shows
  // the line (built only then: it may cost).
  bool Due();
  void Show(absl::string_view text);
  // Erases a line drawn in place, before other output on stderr (and when
  // the work ends).
  void Clear();
  // Wall seconds since the work started.
  double Elapsed() const;

 private:
  Mode mode_;
  std::function<double()> now_;
  std::FILE* out_;
  double started_ = 0;
  double last_ = 0;
  bool shown_ = false;
};

}  // namespace serq

#endif  // SERQ_IR_PROGRESS_H_
