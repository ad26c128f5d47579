// The simulator's clock: integer ticks of one nanosecond (an int64 covers
// 292 years). Event times are ticks, so a sum of durations is exact and
// compares exactly with an arrival (docs/internals.md §The clock): a step
// that ends on the nanosecond a request arrives ends at that arrival's
// tick, whatever the order of the additions that led to either.
//
// The model works in seconds (tau, rates, `now`): a duration becomes ticks
// once, rounded to the nearest nanosecond, where it is scheduled; a tick
// becomes seconds as the double nearest to it (ticks / 1e9, correctly
// rounded), so the same instant is always the same double and a difference
// of two instants rounds back to its exact whole nanoseconds (Seconds).
#ifndef SERQ_SIM_EVENTS_CLOCK_H_
#define SERQ_SIM_EVENTS_CLOCK_H_

#include <cstdint>
#include <limits>

#include "ir/limits.h"

namespace serq::sim {

using Ticks = int64_t;

inline constexpr double kTicksPerSecond = 1e9;
// A time at or beyond the clock's range (~9.2e9 s, or infinite): never.
inline constexpr Ticks kNever = std::numeric_limits<Ticks>::max();
inline constexpr Ticks kMinTicks = std::numeric_limits<Ticks>::min();

// The tick nearest to `seconds` (ties away from zero); kNever at and
// beyond the range, kMinTicks below it. NaN is a bug of the caller.
inline Ticks ToTicks(double seconds) {
  // 2^63 ns: the first double out of range.
  if (seconds >= kClockRangeSeconds) return kNever;
  if (seconds <= -kClockRangeSeconds) return kMinTicks;
  double x = seconds * kTicksPerSecond;
  // A cast truncates; adding a half first rounds to nearest without a
  // libm call (llround is not inlined), and x + 0.5 is exact for the
  // |x| < 2^52 where a half matters.
  return x >= 0 ? static_cast<Ticks>(x + 0.5) : -static_cast<Ticks>(-x + 0.5);
}

// The first tick at or after `seconds`, for a completion of continuous
// work (a ps job, a transfer), whose exact time falls between ticks: it is
// due then and not before, so the work is done when its event runs. An
// excess of under a millionth of a tick over a whole tick is the rounding
// of a whole one (0.034567 * 1e9 is 34567000.000000004), not a later time.
inline Ticks ToTicksUp(double seconds) {
  Ticks t = ToTicks(seconds);
  if (t == kNever || t == kMinTicks) return t;
  return seconds * kTicksPerSecond - static_cast<double>(t) > 1e-6 ? t + 1 : t;
}

// `t` plus `d` ticks, kNever if either is (or the sum is out of range).
inline Ticks AddTicks(Ticks t, Ticks d) {
  if (t == kNever || d == kNever || d > kNever - t) return kNever;
  return t + d;
}

// The double nearest to tick `t`, in seconds (+inf for kNever).
inline double ToSeconds(Ticks t) {
  if (t == kNever) return std::numeric_limits<double>::infinity();
  return static_cast<double>(t) / kTicksPerSecond;
}

// A difference of two instants read as seconds (`now - arrival`), put back
// on the clock: the double nearest to its whole nanoseconds, without the
// representation error of its operands (1.093661 - 1.050609 is
// 0.04305200000000012 in doubles, and 0.043052 here).
inline double OnClock(double seconds) { return ToSeconds(ToTicks(seconds)); }

}  // namespace serq::sim

#endif  // SERQ_SIM_EVENTS_CLOCK_H_
