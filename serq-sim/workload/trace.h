// Traces: the files a `trace("…")` workload replays, one session per row
// (language.md §3.5; docs/traces.md says how each format's columns become
// session variables and its times seconds).
//
// A trace is read once, before the first replication, in the format its
// first non-blank line shows: a JSON object (Mooncake JSON lines), a CSV
// header with a column TIMESTAMP (the Azure LLM inference trace) or with a
// column time (serq's CSV). Each format is a TraceFormat in its own file.
#ifndef SERQ_SIM_WORKLOAD_TRACE_H_
#define SERQ_SIM_WORKLOAD_TRACE_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace serq::sim {

// A trace of arrivals: one session per row.
struct Trace {
  std::string path;
  std::string format;                // the format's name, e.g. "Mooncake JSON lines"
  std::vector<std::string> columns;  // the session variables a row sets
  std::vector<double> times;         // arrival times in seconds: >= 0, non-decreasing
  std::vector<double> values;        // row-major, rows x columns.size()
  // A session's block list from the row (Mooncake's hash_ids, one block of
  // `block_units` tokens each): row r's ids are block_ids[block_starts[r]
  // .. block_starts[r + 1]). Both empty when the format gives no blocks.
  std::vector<int64_t> block_ids;
  std::vector<uint64_t> block_starts;
  double block_units = 0;  // the format's block size; 0: no blocks
};

// The lines of a trace file, numbered from 1, with a UTF-8 byte order mark
// at the start of the file and the CR of a CRLF line end removed.
class TraceLines {
 public:
  explicit TraceLines(std::istream* in) : in_(in) {}
  // The next line that is not blank (white space only): false at the end,
  // and at a line longer than kMaxLine (then too_long()).
  bool NextNonBlank(absl::string_view* line);
  // The number of the line NextNonBlank returned last.
  int number() const { return number_; }
  // A line was longer than kMaxLine: the reading stopped there (/dev/zero,
  // a binary file), its number is number() + 1.
  bool too_long() const { return too_long_; }
  // 256 MB: a Mooncake row of 10^7 hash_ids is ~100 MB.
  static constexpr size_t kMaxLine = 256u << 20;

 private:
  bool ReadLine();
  std::istream* in_;
  std::string line_;
  int number_ = 0;
  bool too_long_ = false;
};

class TraceFormat {
 public:
  virtual ~TraceFormat() = default;
  // How errors and docs name the format: "serq CSV".
  virtual absl::string_view name() const = 0;
  // What its first line looks like, for the error that lists the formats:
  // "a header with a column 'time'".
  virtual absl::string_view looks() const = 0;
  // Whether `first`, the first non-blank line of a file, is this format's.
  virtual bool Recognizes(absl::string_view first) const = 0;
  // Reads the whole trace: `first` (the line lines->number()), then the
  // rest of `lines`. An error is about the line NextNonBlank returned last;
  // its message says what is wrong without the file and line, which the
  // caller adds.
  virtual absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const = 0;
};

const TraceFormat& SerqCsvTraceFormat();   // trace_csv.cc
const TraceFormat& AzureTraceFormat();     // trace_azure.cc
const TraceFormat& MooncakeTraceFormat();  // trace_mooncake.cc

// What is wrong with a trace.
struct TraceError {
  bool opened = true;  // false: the file could not be opened (the program's error)
  int line = 0;        // the line of the file that is wrong; 0: the file as a whole
  std::string message;
};

// Reads the trace at `path` (also its name in errors and in out->path), in
// the format its first non-blank line shows. False after filling `error`.
bool ReadTrace(const std::string& path, Trace* out, TraceError* error);

// The same from a stream, for tests: `path` names it.
bool ReadTrace(std::istream* in, const std::string& path, Trace* out, TraceError* error);

}  // namespace serq::sim

#endif  // SERQ_SIM_WORKLOAD_TRACE_H_
