// serq's own CSV trace, and the CSV reading it shares with the Azure trace.
#include "serq-sim/workload/trace_csv.h"

#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace csv {

absl::Status ReadTable(absl::string_view header, absl::string_view time_name, TimeColumn* time,
                       TraceLines* lines, Trace* out) {
  if (const size_t n = text::CsvFieldCount(header); n > text::kMaxColumns) {
    return absl::InvalidArgumentError(absl::StrCat("the header has ", n, " columns; serq reads at most ",
                                                   text::kMaxColumns));
  }
  std::vector<absl::string_view> fields;
  CsvFields(header, &fields);
  size_t time_index = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("column ", i + 1, " of the header has no name"));
    }
  }
  if (absl::Status s = CheckCsvHeader(fields); !s.ok()) return s;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == time_name) {
      time_index = i;
    } else {
      out->columns.emplace_back(fields[i]);
    }
  }
  if (time_index == fields.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the header has no column '", time_name, "'"));
  }
  const size_t width = fields.size();
  std::string previous;  // the previous row's time field, for the error
  absl::string_view line;
  while (lines->NextNonBlank(&line)) {
    if (const size_t n = text::CsvFieldCount(line); n != width) {
      return absl::InvalidArgumentError(absl::StrCat("expected ", width, " fields, found ", n));
    }
    CsvFields(line, &fields);
    double seconds;
    absl::Status s = time->Seconds(fields[time_index], &seconds);
    if (!s.ok()) return s;
    if (!out->times.empty() && seconds < out->times.back()) {
      return absl::InvalidArgumentError(absl::StrCat(time_name, " ", fields[time_index],
                                                     " is before the previous row's ", previous,
                                                     " (rows must be in time order)"));
    }
    out->times.push_back(seconds);
    previous = std::string(fields[time_index]);
    size_t column = 0;
    for (size_t i = 0; i < width; ++i) {
      if (i == time_index) continue;
      double value;
      if (fields[i].empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("column '", out->columns[column], "' is empty"));
      }
      if (!absl::SimpleAtod(fields[i], &value) || !std::isfinite(value)) {
        return absl::InvalidArgumentError(absl::StrCat("'", fields[i], "' in column '",
                                                       out->columns[column],
                                                       "' is not a finite number"));
      }
      out->values.push_back(value);
      ++column;
    }
  }
  return absl::OkStatus();
}

}  // namespace csv

namespace {

// serq's time column: seconds from the start of the run, as written.
class SecondsColumn final : public csv::TimeColumn {
 public:
  absl::Status Seconds(absl::string_view text, double* seconds) override {
    if (text.empty()) return absl::InvalidArgumentError("column 'time' is empty");
    if (!absl::SimpleAtod(text, seconds) || !std::isfinite(*seconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", text, "' in column 'time' is not a finite number of seconds"));
    }
    if (*seconds < 0) {
      return absl::InvalidArgumentError(absl::StrCat("time ", text, " is negative"));
    }
    return absl::OkStatus();
  }
};

class SerqCsvFormat final : public TraceFormat {
 public:
  absl::string_view name() const override { return "serq CSV"; }
  absl::string_view looks() const override { return "a header with a column 'time'"; }
  bool Recognizes(absl::string_view first) const override {
    return csv::HasColumn(first, "time");
  }
  absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const override {
    SecondsColumn time;
    return csv::ReadTable(first, "time", &time, lines, out);
  }
};

}  // namespace

const TraceFormat& SerqCsvTraceFormat() {
  static const SerqCsvFormat* format = new SerqCsvFormat();
  return *format;
}

}  // namespace serq::sim
