// The sweep report: one row per point, its settings and then each metric
// with the half-width of its 95% interval, as text, csv, json or md
// (docs/cli.md §serq sweep).
#ifndef SERQ_SERQ_SWEEP_REPORT_H_
#define SERQ_SERQ_SWEEP_REPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "serq/sweep/sweep.h"

namespace serq {

// format: text, csv, json or md (else InvalidArgument).
absl::StatusOr<std::string> RenderSweepReport(const SweepTable& table, absl::string_view format);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_REPORT_H_
