// serq compare's output: the comparison as text, csv or json, and the two
// CDFs of each metric as charts (an SVG of its own, and the html page's
// comparison section). Times in milliseconds (docs/cli.md §serq compare).
#ifndef SERQ_SERQ_COMPARE_RENDER_H_
#define SERQ_SERQ_COMPARE_RENDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "chart/chart.h"
#include "serq/measured/compare.h"
#include "serq/measured/measured.h"

namespace serq::compare {

// The comparison in `format`: text (a table), csv (sections: compared,
// comparison, note) or json. Other formats are an error (html is the
// report's page, serq/compare_cli.cc).
absl::StatusOr<std::string> RenderComparison(const Comparison& comparison,
                                             absl::string_view format);

// One chart a metric either run holds values of (ttft, tpot, itl, e2e):
// the CDF of each side that holds them, in ms, labelled measured and
// simulated. A summary (figures only) draws no line; a metric with no line
// has no chart.
std::vector<view::Chart> CdfCharts(const Run& measured, const Run& simulated);

// CdfCharts as one SVG document.
std::string CdfSvg(const Run& measured, const Run& simulated);

}  // namespace serq::compare

#endif  // SERQ_SERQ_COMPARE_RENDER_H_
