// The sweep's chart: one metric against one numeric parameter, one line per
// value of a second parameter (and per program, in a sweep of several),
// with the 95% interval as bars, the figure's unit on the y axis and the
// bounds it is held to as labelled lines; drawn by serq-view's chart
// library (docs/cli.md §Charts).
#ifndef SERQ_SERQ_SWEEP_CHART_H_
#define SERQ_SERQ_SWEEP_CHART_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chart/chart.h"
#include "serq/sweep/condition.h"
#include "serq/sweep/merge.h"
#include "serq/sweep/metrics.h"

namespace serq {

// A figure's unit on a chart's axis: the values times `scale` are in
// `unit` ("" when the figure has none serq knows). A latency's mean or
// percentile (ttft, tpot, itl, e2e... as the run's tables name them) is in
// ms when `top`, the largest value drawn, is under a second, else in s; a
// rate or goodput in /s (sessions a second); a throughput in requests/s or
// tokens/s, "per GPU" when it is.
struct ChartUnit {
  double scale = 1;
  std::string unit;
};
// `times`: the observations the results say are times, besides the names
// serq-report knows (IsLatency).
ChartUnit MetricUnit(const Metric& metric, double top, const std::set<std::string>& times = {});

// `label (unit)`, or `label` without a unit.
std::string WithChartUnit(const std::string& label, const ChartUnit& unit);

struct SweepChartOptions {
  std::string x;      // a numeric axis ("": the first with more than one value that fits)
  std::string lines;  // another axis ("": the next)
  // The y axis: log (true), linear (false), or unset: log when the values
  // drawn span ten times or more (view::SpansDecadesY).
  std::optional<bool> log_y;
  // Bounds (--until, --slo): those on the charted figure are drawn as
  // labelled horizontal lines (`p99(ttft) <= 2`).
  std::vector<Comparison> bounds;
};

// The chart's axes of `plan`: x (an index of plan.axis), a numeric axis
// without inf, `x` or the first of several values; lines (-1: none), `lines`
// or the next of several values. Every other axis must have one value.
// Errors (InvalidArgument) say which axis is wrong: found from the plan, so
// before any task runs.
struct ChartAxisChoice {
  int x = -1, lines = -1;
};
absl::StatusOr<ChartAxisChoice> ChartAxes(const sweep::Plan& plan, const std::string& x, const std::string& lines);

// `metric` is a label of table.metrics. Every axis other than x and lines
// must have one value, so that each (x, line) is one point. Errors
// (InvalidArgument) say which axis is wrong. In a sweep of several
// programs each program has its lines ("pd.sq, NP=1"); a program without
// the x param is one dashed line across the chart at its figure.
absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const SweepChartOptions& options);
// The same with x and lines alone (the y axis automatic, no bounds).
absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const std::string& x, const std::string& lines);

// The rules of `bounds` on `metric` (matched by label), scaled to `unit`,
// each labelled as written (`p99(ttft) <= 2`, with the unit when scaled).
std::vector<view::ChartRule> BoundRules(const std::vector<Comparison>& bounds, const Metric& metric,
                                        const ChartUnit& unit);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_CHART_H_
