// The html page's tables (docs/report.md §HTML): the csv report's sections
// made readable. Each column gets a name a person reads and its unit
// (`service (ms)` for `mean_service`), latencies under a second are shown
// in milliseconds, numbers in fixed notation with a few significant digits
// (the full value in the cell's tooltip), and a table too wide for the
// page is split, each part repeating the first column. A column the csv
// gains and this file does not know is shown under its csv name, so the
// page still carries every figure.
#ifndef SERQ_REPORT_HTML_TABLES_H_
#define SERQ_REPORT_HTML_TABLES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/results.pb.h"

namespace serq::report {

// A number as the page shows it: whole numbers with thousands separators
// (`12,345`), others with four significant digits in fixed notation and
// no trailing zeros (`0.0551`, `0.0000407`, `14.28`, `22,805.7`), `inf`.
// Never an exponent: below 1e-9 in magnitude it is `0`.
std::string ReadableNumber(double x);

// Whether an observation is a latency (its figures seconds): its name is
// one of serving's latency words, or begins or ends with one after `_`.
bool IsLatency(absl::string_view name);

// Whether an observation's figures are seconds: IsLatency's names, and the
// ones the results say are times (results.proto time_observation: the
// program's expressions make each sample a time), whatever their names.
using IsTimeFn = std::function<bool(absl::string_view name)>;
IsTimeFn TimesOf(const results::Results& results);

// One csv line split into its fields (RFC 4180 quoting).
std::vector<std::string> SplitCsvLine(absl::string_view line);

// Every csv section with rows, as headed tables of html (`<h2>` and
// `<table>`s). `csv` is the report's csv (or another command's, such as
// serq compare's, in the same form).
// `is_time` says which observations are times (shown in ms or s).
std::string TablesHtml(const std::string& csv, const IsTimeFn& is_time = IsLatency);

// The most columns a table has on the page before it is split.
inline constexpr int kMaxHtmlColumns = 12;

}  // namespace serq::report

#endif  // SERQ_REPORT_HTML_TABLES_H_
