// What the CSV trace formats share (serq's CSV and the Azure LLM inference
// trace): fields, the header, and every column but the time numeric.
#ifndef SERQ_SIM_WORKLOAD_TRACE_CSV_H_
#define SERQ_SIM_WORKLOAD_TRACE_CSV_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "serq-sim/workload/trace.h"
#include "text/csv.h"

namespace serq::sim::csv {

// The fields of a CSV line, and whether a header names a column
// (text/csv.h).
using text::CheckCsvHeader;
using text::CsvFields;
using text::HasColumn;

// How a format turns its time column into seconds.
class TimeColumn {
 public:
  virtual ~TimeColumn() = default;
  // The arrival time of a row whose time field is `text`, or why there is
  // none (a message without file and line).
  virtual absl::Status Seconds(absl::string_view text, double* seconds) = 0;
};

// Reads a CSV trace whose header is `header`: the column `time_name` gives
// each row's arrival time through `time`; every other column is a number
// (finite) that sets the session variable of its name. Rows must have as
// many fields as the header and times must not decrease.
absl::Status ReadTable(absl::string_view header, absl::string_view time_name, TimeColumn* time,
                       TraceLines* lines, Trace* out);

}  // namespace serq::sim::csv

#endif  // SERQ_SIM_WORKLOAD_TRACE_CSV_H_
