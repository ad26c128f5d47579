// The one rule for a quantile between two order statistics, shared by the
// exact quantiles (stats.h SortedQuantile) and the sketch's, so both treat
// ties and infinities alike.
#ifndef SERQ_STATS_QUANTILE_STEP_H_
#define SERQ_STATS_QUANTILE_STEP_H_

#include <cmath>

namespace serq::report {

// The value frac (in [0, 1)) of the way from order statistic a to the next
// one, b >= a: a + frac (b - a), where that is a number.
inline double InterpolateQuantile(double a, double b, double frac) {
  // Equal neighbours (infinite ones too) need no interpolation, which would
  // turn inf - inf into NaN.
  if (frac == 0 || a == b) return a;
  // -inf next to inf would interpolate to NaN: the nearer one stands. An
  // infinity next to a finite value is where the line is (inf - inf in
  // a + frac (b - a) would make it NaN too).
  if (std::isinf(a) && std::isinf(b)) return frac < 0.5 ? a : b;
  if (std::isinf(a)) return a;
  if (std::isinf(b)) return b;
  return a + frac * (b - a);
}

}  // namespace serq::report

#endif  // SERQ_STATS_QUANTILE_STEP_H_
