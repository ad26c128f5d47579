// Test helpers for the trace readers: read a trace from a string.
#ifndef SERQ_SIM_WORKLOAD_TRACE_TESTING_H_
#define SERQ_SIM_WORKLOAD_TRACE_TESTING_H_

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "serq-sim/workload/trace.h"

namespace serq::sim::testing {

struct TraceRead {
  bool ok = false;
  Trace trace;
  std::string error;  // "t:LINE: message" (no line: "t: message")
};

inline TraceRead ReadText(const std::string& text) {
  TraceRead r;
  std::istringstream in(text);
  TraceError error;
  r.ok = ReadTrace(&in, "t", &r.trace, &error);
  if (!r.ok) {
    r.error = error.line == 0 ? absl::StrCat("t: ", error.message)
                              : absl::StrCat("t:", error.line, ": ", error.message);
  }
  return r;
}

// Row `row` of the trace's values.
inline std::vector<double> Row(const Trace& t, size_t row) {
  size_t n = t.columns.size();
  return std::vector<double>(t.values.begin() + row * n, t.values.begin() + (row + 1) * n);
}

}  // namespace serq::sim::testing

#endif  // SERQ_SIM_WORKLOAD_TRACE_TESTING_H_
