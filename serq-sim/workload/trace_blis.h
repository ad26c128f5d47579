// BLIS's TraceV2 (github.com/inference-sim/inference-sim,
// sim/workload/tracev2.go): a CSV of requests, `w1.trace.csv`, with its
// header beside it as YAML, `w1.trace.yaml`. The CSV is a trace serq
// reads (trace("w1.trace.csv")); the YAML is read for the few fields that
// say how to read the CSV, by the small strict reader below (no YAML
// library: the header is a handful of `key: value` lines).
//
// Exposed for the tests and the fuzz target; ReadTrace is the way in.
#ifndef SERQ_SIM_WORKLOAD_TRACE_BLIS_H_
#define SERQ_SIM_WORKLOAD_TRACE_BLIS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "serq-sim/workload/trace.h"

namespace serq::sim {

// What serq takes from the header.
struct BlisTraceHeader {
  int version = 0;              // trace_version: 2 or 3
  std::string time_unit;        // time_unit: microseconds (or us, as blis observe writes)
  std::string mode;             // mode: real, generated or replayed (not checked)
  int64_t warm_up_requests = 0; // warm_up_requests (>= 0): replayed like the others
};

// A header is at most this long (BLIS writes a few hundred bytes).
inline constexpr size_t kMaxBlisHeader = 1 << 20;

// The header file of TraceV2 data at `data_path`: its name with `.csv`
// replaced by `.yaml` (w1.trace.csv -> w1.trace.yaml), or `.yaml` added to
// a name that does not end in `.csv`.
std::string BlisHeaderPath(absl::string_view data_path);

// Reads the YAML header `text`. Top-level `key: value` lines, comments and
// blank lines; the keys are BLIS's (TraceHeader's, read as strictly as BLIS
// reads them: an unknown key or one given twice is refused); the blocks
// (server, network, goodput_slo_targets, kv_offload, observed_kv_metrics)
// are skipped unread. trace_version and time_unit are required. Refused:
// tabs in indentation, anchors, aliases, tags, block scalars, flow
// collections and escapes in the values serq reads, a second document.
// On error, `*line` is the line at fault (0: the file as a whole).
absl::Status ParseBlisTraceHeader(absl::string_view text, BlisTraceHeader* out, int* line);

// Reads the CSV data whose header line is `first` (the line
// lines->number()), then the rest of `lines`, as TraceFormat::Read does.
absl::Status ReadBlisTraceData(absl::string_view first, TraceLines* lines, Trace* out);

}  // namespace serq::sim

#endif  // SERQ_SIM_WORKLOAD_TRACE_BLIS_H_
