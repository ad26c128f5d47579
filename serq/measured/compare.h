// A measured run beside a simulated one (serq compare; serq fit's
// objective): for each metric both runs hold, the count, mean and the
// 50th, 90th, 95th and 99th percentiles on each side, and each figure's
// error, (simulated - measured) / measured in percent.
//
// What is compared: distributions. serq's observations carry no request
// ids, so requests are not paired one by one; the two runs must hold the
// same number of each metric (a simulated run that did not finish every
// request would compare its fastest ones), unless allowed otherwise.
// Percentiles by linear interpolation at rank p/100 (n - 1) (vLLM's, the
// bench's, BLIS's and serq's report's rule); from a sketch, within its
// relative accuracy.
#ifndef SERQ_SERQ_COMPARE_H_
#define SERQ_SERQ_COMPARE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/measured/measured.h"

namespace serq::compare {

// The figures of a distribution, in seconds.
inline constexpr int kFigures = 5;  // mean, p50, p90, p95, p99
inline constexpr double kPercentiles[kFigures - 1] = {50, 90, 95, 99};
struct Figures {
  uint64_t n = 0;
  std::array<double, kFigures> values = {};  // mean, p50, p90, p95, p99
};

// "mean", "p50", "p90", "p95", "p99".
absl::string_view FigureName(int figure);

// The figures of `d` (count > 0).
Figures Summarize(const Distribution& d);

// (simulated - measured) / measured * 100; nullopt when measured is 0 (or
// either is not finite).
std::optional<double> ErrorPercent(double measured, double simulated);

struct MetricComparison {
  Metric metric;
  std::optional<Figures> measured;   // absent: the measured run has no such figure
  std::optional<Figures> simulated;  // absent: the simulated run has none
  std::array<std::optional<double>, kFigures> error_percent;  // with both sides
};

struct Comparison {
  std::string measured_file, measured_source;
  std::string simulated_file, simulated_source;
  uint32_t measured_replications = 1, simulated_replications = 1;
  size_t measured_requests = 0;  // vLLM, BLIS: usable rows; 0 for serq results
  // One per metric that either run holds, in the order ttft, tpot, itl, e2e.
  std::vector<MetricComparison> metrics;
  // Said beside the figures: what exists on which side, rows skipped.
  std::vector<std::string> notes;
  bool summary = false;  // either side a summary: its figures only, no samples
};

struct CompareOptions {
  // Compare counts that differ (each side's figures over what it holds).
  bool allow_count_mismatch = false;
  // What the error of counts that differ ends with: the way past it where
  // the caller has one (serq compare's flag; serq fit has none).
  std::string count_mismatch_hint = "--allow-count-mismatch compares them anyway";
};

// Compares two runs. Error (InvalidArgument): for a metric both hold,
// counts that differ (per replication), unless allowed.
absl::StatusOr<Comparison> Compare(const Run& measured, const Run& simulated,
                                   const CompareOptions& options);

}  // namespace serq::compare

#endif  // SERQ_SERQ_COMPARE_H_
