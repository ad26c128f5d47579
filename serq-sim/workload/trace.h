// Traces: the files a `trace("…")` workload replays, one session per row
// (language.md §3.5; docs/traces.md says how each format's columns become
// session variables and its times seconds).
//
// A trace is read once, before the first replication, in the format its
// first non-blank line shows: a JSON object with a field input_toks (vLLM's
// request records) or another JSON object (Mooncake JSON lines), a CSV
// header with a column TIMESTAMP (the Azure LLM inference trace), with a
// column arrival_time_us (BLIS's TraceV2, its YAML header beside it) or
// with a column time (serq's CSV). Each format is a TraceFormat in its own
// file.
#ifndef SERQ_SIM_WORKLOAD_TRACE_H_
#define SERQ_SIM_WORKLOAD_TRACE_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "text/lines.h"

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

// The lines of a trace file (text/lines.h), as the readers take them.
using TraceLines = text::Lines;

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
const TraceFormat& VllmTraceFormat();      // trace_vllm.cc
const TraceFormat& BlisTraceFormat();      // trace_blis.cc

// The error a format's Read returns for a fault in a file it reads beside
// the trace (BLIS's YAML header), at that file's `line` (0: the whole
// file): ReadTrace reports it there, in TraceError.file.
absl::Status TraceErrorBeside(const std::string& file, int line, absl::string_view message);

// What is wrong with a trace.
struct TraceError {
  bool opened = true;  // false: the file could not be opened (the program's error)
  int line = 0;        // the line of the file that is wrong; 0: the file as a whole
  std::string message;
  std::string file;    // the file at fault when not the trace (BLIS's header beside it)
};

// The error as a tool prints it: "FILE:LINE: error: MESSAGE" at the file at
// fault (the trace, or the file beside it), "FILE: error: MESSAGE" for the
// file as a whole.
std::string TraceErrorText(const std::string& path, const TraceError& error);

// Reads the trace at `path` (also its name in errors and in out->path), in
// the format its first non-blank line shows. False after filling `error`.
bool ReadTrace(const std::string& path, Trace* out, TraceError* error);

// The same from a stream, for tests: `path` names it.
bool ReadTrace(std::istream* in, const std::string& path, Trace* out, TraceError* error);

}  // namespace serq::sim

#endif  // SERQ_SIM_WORKLOAD_TRACE_H_
