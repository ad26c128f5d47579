// serq-report as a library: results in, the report out. serq-report's main
// and the `serq run` driver both call RenderReport, so the pipe and the
// driver print the same bytes.
#ifndef SERQ_REPORT_REPORT_H_
#define SERQ_REPORT_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/results.pb.h"

namespace serq::report {

struct ReportOptions {
  std::string format = "text";           // text, csv, json or md
  std::vector<double> quantiles = {99};  // the quantile columns, in percent
};

// The value of --quantiles: percentages separated by commas ("50,90,99"),
// each strictly between 0 and 100, none twice. Empty: no quantile columns.
absl::StatusOr<std::vector<double>> ParseQuantiles(absl::string_view list);

// Checks the format's name and the quantiles (as ParseQuantiles does).
// Callers check options first: they are the user's flags (exit 2), where
// RenderReport's errors are about the results (exit 1).
absl::Status ValidateReportOptions(const ReportOptions& options);

// Merges `inputs` (docs/report.md §Merging) and renders the report.
// `files` names the inputs in error messages (default: "<results>", or
// "<results N>" when there are several). Errors: InvalidArgument, with
// every diagnostic in the message (`file:ir.path: error: ...`, one a line).
absl::StatusOr<std::string> RenderReport(const std::vector<results::Results>& inputs,
                                         const ReportOptions& options,
                                         const std::vector<std::string>& files = {});

}  // namespace serq::report

#endif  // SERQ_REPORT_REPORT_H_
