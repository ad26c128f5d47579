// Pictures of results (serq-view --plot, the html report): the CDF of
// observations and the time series of stages, pools and sessions, as
// charts of the chart library (chart.h). docs/view.md §Plots.
#ifndef SERQ_CHART_PLOT_H_
#define SERQ_CHART_PLOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/results.pb.h"
#include "stats/sketch.h"
#include "chart/chart.h"

namespace serq::view {

// The empirical CDF of `samples` (unsorted) as a step line labelled
// `label (n=N)`: every sample when there are at most kCdfPoints, else the
// samples of kCdfPoints evenly spaced ranks (the step at rank r is
// exactly the r-th smallest), so the bytes stay bounded.
inline constexpr size_t kCdfPoints = 1000;
ChartLine CdfLine(const std::string& label, std::vector<double> samples);

// The CDF of a sketch (an observation of more samples than serq-sim
// keeps): a step at each bucket's value, clamped to [min, max], to the
// fraction of the samples in it and below it, from (min, 0); with more
// than kCdfPoints buckets, only the buckets where the ranks
// ceil(k n / kCdfPoints) fall, as CdfLine. Each point (x, r / n) has x
// within the sketch's alpha of the exact r-th smallest sample. Infinite
// samples count in the fractions but draw no point. Labelled
// `label (n=N, sketch)`.
ChartLine SketchCdfLine(const std::string& label, const report::QuantileSketch& sketch);

// Observation `name` over every replication given: the kept samples, or,
// when some replication kept a summary instead (more than 2^20 samples),
// every sample in one sketch (the summaries' sketches merged, the other
// replications' kept samples added), as the report's quantiles are made.
struct PooledObservation {
  std::vector<double> samples;
  std::optional<report::QuantileSketch> sketch;
};
PooledObservation PoolObservation(const std::vector<const results::Replication*>& replications,
                                  const std::string& name);

// A CDF chart's x axis made logarithmic when its samples are all above 0
// and span a factor of ten or more (a latency's quick and queued cases),
// its label then ending in "(log scale)": on a linear axis all but the tail
// would be one vertical line. serq-view --plot cdf and the html page.
void LogAxisIfSpansDecades(Chart* chart);

// CdfLine of the samples or SketchCdfLine of the sketch.
ChartLine ObservationCdfLine(const std::string& label, PooledObservation pooled);

// The observations' names, sorted, over every replication.
std::vector<std::string> ObservationNames(
    const std::vector<const results::Replication*>& replications);

// The charts of one replication's series: a chart per stage declaration
// (present, and batch for a step stage, per element), per pool declaration
// (used and loaded per element, evictable when recorded, the cap dashed),
// and one of the sessions in progress (a line per session declaration).
std::vector<Chart> SeriesPlots(const results::Replication& replication);

struct PlotOptions {
  std::string kind;                       // "cdf" or "series"
  std::vector<std::string> observations;  // cdf: the observations to draw (empty: all)
  std::optional<uint32_t> replication;    // series: the replication's index (none: the first)
};

// The SVG of `kind` for `inputs` (results files named `files` in errors),
// merged by serq-report's rules. Errors (InvalidArgument, one diagnostic a
// line): files that do not merge, an observation that is in none of them,
// no series (series), no replication of that index.
absl::StatusOr<std::string> PlotResults(const std::vector<results::Results>& inputs,
                                        const std::vector<std::string>& files,
                                        const PlotOptions& options);

}  // namespace serq::view

#endif  // SERQ_CHART_PLOT_H_
