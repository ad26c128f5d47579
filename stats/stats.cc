#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/quantile_step.h"

namespace serq::report {

namespace {

// The continued fraction of I_x(a, b) by the modified Lentz method
// (Numerical Recipes §6.4); converges quickly for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  // Enough for a + b in the millions (the iterations grow as sqrt(a + b)).
  for (int m = 1; m <= 100000; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                          a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

namespace {

// P(T > t) for t >= 0, computed directly: 1 - CDF would lose the digits of
// a small tail to the rounding of 1.
double UpperTail(double t, double dof) {
  if (std::isinf(dof)) return 0.5 * std::erfc(t / std::sqrt(2.0));
  if (std::isinf(t)) return 0;
  // P(|T| > t) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
  return 0.5 * RegularizedIncompleteBeta(dof / 2, 0.5, dof / (dof + t * t));
}

}  // namespace

double StudentTCdf(double t, double dof) {
  return t >= 0 ? 1 - UpperTail(t, dof) : UpperTail(-t, dof);
}

double StudentTQuantile(double p, double dof) {
  if (p == 0.5) return 0;
  if (p < 0.5) return -StudentTQuantile(1 - p, dof);
  // 1 - p is exact for p in [0.5, 1): solve UpperTail(t) = tail, which
  // keeps the tail's relative precision (the t table's 12.7062 comes out
  // within a few ulps of tan(0.475 pi)).
  double tail = 1 - p;
  double lo = 0, hi = 1;
  while (UpperTail(hi, dof) > tail && hi < 1e300) {
    lo = hi;
    hi *= 2;
  }
  // The tail is decreasing: halve [lo, hi] until no double lies between.
  for (int i = 0; i < 2000; ++i) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (UpperTail(mid, dof) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

namespace {

// Where the q-quantile of n values lies: between order statistics lo and
// lo + 1 (lo + 1 == n: at lo itself), frac of the way.
struct QuantilePosition {
  size_t lo;
  double frac;
};
QuantilePosition PositionOf(size_t n, double q) {
  double h = static_cast<double>(n - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= n) return {n - 1, 0};
  return {lo, h - static_cast<double>(lo)};
}

}  // namespace

double SortedQuantile(absl::Span<const double> sorted, double q) {
  QuantilePosition at = PositionOf(sorted.size(), q);
  if (at.frac == 0) return sorted[at.lo];
  return InterpolateQuantile(sorted[at.lo], sorted[at.lo + 1], at.frac);
}

std::vector<double> SelectQuantiles(absl::Span<double> values, absl::Span<const double> qs) {
  // The order statistics the quantiles need, ascending; each selection
  // leaves everything at and after its position no smaller than what is
  // before it, so the next one searches only the part after it.
  std::vector<QuantilePosition> at;
  std::vector<size_t> ranks;
  for (double q : qs) {
    at.push_back(PositionOf(values.size(), q));
    ranks.push_back(at.back().lo);
    if (at.back().frac != 0) ranks.push_back(at.back().lo + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  size_t from = 0;
  for (size_t r : ranks) {
    std::nth_element(values.begin() + from, values.begin() + r, values.end());
    from = r + 1;
  }
  std::vector<double> out;
  for (const QuantilePosition& p : at) {
    out.push_back(p.frac == 0 ? values[p.lo]
                              : InterpolateQuantile(values[p.lo], values[p.lo + 1], p.frac));
  }
  return out;
}

std::vector<double> BatchMeans(absl::Span<const double> samples, int batches) {
  std::vector<double> means;
  size_t size = samples.size() / static_cast<size_t>(batches);
  if (size == 0) return means;
  size_t first = samples.size() - size * static_cast<size_t>(batches);
  for (int b = 0; b < batches; ++b) {
    Moments m;
    for (size_t i = 0; i < size; ++i) m.Add(samples[first + b * size + i]);
    means.push_back(m.mean());
  }
  return means;
}

std::optional<double> HalfWidth95(absl::Span<const double> means) {
  if (means.size() < 2) return std::nullopt;
  Moments m;
  for (double x : means) m.Add(x);
  double k = static_cast<double>(means.size());
  return StudentTQuantile(0.975, k - 1) * *m.Stddev() / std::sqrt(k);
}

}  // namespace serq::report
