// A sweep's html page: the first line, the table (the csv report's
// columns, readable: docs/report.md §HTML), and one chart a figure against
// the swept axis (serq/sweep/sweep_chart.h), each with its 95% bars. A figure
// whose chart the axes do not allow (more than two axes of several values)
// is named in a note instead. Self-contained, as the run's page is.
#ifndef SERQ_SERQ_SWEEP_SWEEP_HTML_H_
#define SERQ_SERQ_SWEEP_SWEEP_HTML_H_

#include <string>

#include "absl/status/statusor.h"
#include "serq/sweep/merge.h"
#include "serq/sweep/sweep_chart.h"

namespace serq {

// `chart`: each chart's x and lines axes, log y, and the bounds drawn on
// the charts of their figures (--chart-x, --chart-lines, --log-y, --slo).
absl::StatusOr<std::string> RenderSweepHtml(const SweepTable& table, const SweepChartOptions& chart = {});

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_SWEEP_HTML_H_
