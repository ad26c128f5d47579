// The sweep's chart: one metric against one numeric parameter, one line per
// value of a second parameter, with the 95% interval as bars; drawn by
// serq-view's chart library (docs/cli.md §Charts).
#ifndef SERQ_SERQ_SWEEP_CHART_H_
#define SERQ_SERQ_SWEEP_CHART_H_

#include <string>

#include "absl/status/statusor.h"
#include "serq/sweep/sweep.h"

namespace serq {

// `metric` is a label of table.metrics; `x` a numeric axis and `lines`
// another axis ("" for either: the first axis with more than one value that
// fits, then the next). Every other axis must have one value, so that each
// (x, line) is one point. Errors (InvalidArgument) say which axis is wrong.
absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const std::string& x, const std::string& lines);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_CHART_H_
