// The sweep report: one row per point, its settings and then each metric
// with the half-width of its 95% interval, as text, csv, json or md
// (docs/cli.md §serq sweep).
#ifndef SERQ_SERQ_SWEEP_REPORT_H_
#define SERQ_SERQ_SWEEP_REPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "serq/sweep/merge.h"

namespace serq {

// format: text, csv, json or md (else InvalidArgument).
absl::StatusOr<std::string> RenderSweepReport(const SweepTable& table, absl::string_view format);

// The table as CSV with each figure and its half-width rounded as the text
// table rounds them (two significant digits of the half-width): the HTML
// page's table, which a person reads. --format=csv keeps every digit.
std::string RoundedSweepCsv(const SweepTable& table);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_REPORT_H_
