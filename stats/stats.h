// The statistics of the report: mergeable moments, Student t quantiles,
// exact sample quantiles and the half-width of a 95% confidence interval
// (docs/report.md defines each; the tests check them against tables and
// hand-worked examples).
#ifndef SERQ_STATS_STATS_H_
#define SERQ_STATS_STATS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "stats/moments.h"

namespace serq::report {

// The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1.
double RegularizedIncompleteBeta(double a, double b, double x);

// The CDF of Student's t distribution with `dof` > 0 degrees of freedom;
// dof = +inf is the standard normal.
double StudentTCdf(double t, double dof);

// The p-quantile (0 < p < 1) of Student's t with `dof` > 0 degrees of
// freedom (+inf: the standard normal), by bisection of StudentTCdf to
// within a few ulps.
double StudentTQuantile(double p, double dof);

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, not empty) by linear
// interpolation between order statistics, R's type 7 and numpy's default:
// h = (n - 1) q, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
// (Between -inf and inf, which would give NaN, the nearer of the two;
// between an infinity and a finite value, the infinity.)
double SortedQuantile(absl::Span<const double> sorted, double q);

// SortedQuantile of each q in `qs` (in [0, 1]) over `values` (not empty),
// without sorting them: a selection per order statistic needed, O(n) each
// rather than O(n log n) for the sort. Reorders `values`.
std::vector<double> SelectQuantiles(absl::Span<double> values, absl::Span<const double> qs);

inline constexpr int kBatches = 10;               // batch means: this many batches
inline constexpr uint64_t kMinBatchSamples = 100;  // and only from this many samples

// The means of `batches` batches of consecutive samples, each of
// floor(n / batches) samples. The n mod batches earliest samples belong to
// no batch: they are the ones nearest the warmup, so the likeliest to be
// biased by the initial state. Empty when n < batches.
std::vector<double> BatchMeans(absl::Span<const double> samples, int batches);

// The half-width of the 95% confidence interval for the mean of the
// population `means` were drawn from, taking them as independent and
// identically distributed: t(0.975, k - 1) s / sqrt(k), s their sample
// standard deviation. Undefined for k < 2.
std::optional<double> HalfWidth95(absl::Span<const double> means);

}  // namespace serq::report

#endif  // SERQ_STATS_STATS_H_
