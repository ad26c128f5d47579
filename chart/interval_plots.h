// The plots of what happened between a time series' samples (results.proto
// Series: run { sample DT; }): token throughput and preemptions per second,
// and each observation's percentiles over time, drawn with the chart
// library for the html report (docs/report.md §Time series). The states at
// the sample times (jobs present, pool use) are plot.h's SeriesPlots.
#ifndef SERQ_CHART_INTERVAL_PLOTS_H_
#define SERQ_CHART_INTERVAL_PLOTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "chart/chart.h"
#include "proto/results.pb.h"

namespace serq::view {

// The charts of `replication`'s interval counts, sampled every `dt` > 0
// seconds. Interval k (k >= 1) is (time[k-1], time[k]]; its count over dt
// is a rate drawn as a step over the interval (interval 0 is the instant
// 0, not drawn). Charts, each only when the series has its data:
//  - tokens/s: output (decode tokens plus one a prefill run, vLLM's
//    output tokens) and total (prompt and output) over every session;
//  - preemptions/s of each step stage whose preemptions are recorded and
//    not all 0;
//  - each observation's p50, p90 and p99 over the samples of each
//    interval (no point where an interval has none); an observation that
//    `is_latency` names is in ms when its largest p99 is under 1 s.
std::vector<Chart> IntervalPlots(const results::Replication& replication, double dt,
                                 const std::function<bool(absl::string_view)>& is_latency);

}  // namespace serq::view

#endif  // SERQ_CHART_INTERVAL_PLOTS_H_
