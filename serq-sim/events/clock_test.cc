#include "serq-sim/events/clock.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace serq::sim {
namespace {

// Seconds to ticks: the nearest nanosecond; a decimal time in microseconds
// (as a trace gives it, 50609 us) lands on its exact tick although
// 0.050609 is not a double.
TEST(ClockTest, NearestTick) {
  EXPECT_EQ(ToTicks(0), 0);
  EXPECT_EQ(ToTicks(1), 1000000000);
  EXPECT_EQ(ToTicks(50609 * 1e-6), 50609000);
  EXPECT_EQ(ToTicks(0.050609), 50609000);
  EXPECT_EQ(ToTicks(1.4e-9), 1);
  EXPECT_EQ(ToTicks(1.6e-9), 2);
  EXPECT_EQ(ToTicks(-1.6e-9), -2);
  EXPECT_EQ(ToTicks(std::numeric_limits<double>::infinity()), kNever);
  EXPECT_EQ(ToTicks(1e300), kNever);
  EXPECT_EQ(ToTicks(-1e300), kMinTicks);
  EXPECT_EQ(ToSeconds(kNever), std::numeric_limits<double>::infinity());
}

// Up: the first tick at or after, but a whole tick's rounding noise is
// that tick (0.034567 * 1e9 = 34567000.000000004 in doubles).
TEST(ClockTest, TickUp) {
  EXPECT_EQ(ToTicksUp(0.034567), 34567000);
  EXPECT_EQ(ToTicksUp(1.0 / 3), 333333334);  // 333333333.33...
  EXPECT_EQ(ToTicksUp(2.0 / 3), 666666667);  // 666666666.67: up is nearest
  EXPECT_EQ(ToTicksUp(1e-10), 1);
  EXPECT_EQ(ToTicksUp(0), 0);
}

// A tick reads as the double nearest to it, and back to itself.
TEST(ClockTest, RoundTrip) {
  for (Ticks t : {Ticks{0}, Ticks{1}, Ticks{43052000}, Ticks{1093661000}, Ticks{3300000000000},
                  Ticks{123456789012345}}) {
    EXPECT_EQ(ToTicks(ToSeconds(t)), t) << t;
  }
  EXPECT_EQ(ToSeconds(43052000), 0.043052);
  EXPECT_EQ(AddTicks(kNever, 5), kNever);
  EXPECT_EQ(AddTicks(kNever - 3, 5), kNever);
  EXPECT_EQ(AddTicks(7, 5), 12);
}

// The difference of two instants in seconds has the representation error
// of both (1.093661 - 1.050609 = 0.04305200000000012 in doubles); OnClock
// gives the double nearest to its whole nanoseconds.
TEST(ClockTest, DifferenceOnClock) {
  const double now = ToSeconds(1093661000), arrival = ToSeconds(1050609000);
  EXPECT_NE(now - arrival, 0.043052);
  EXPECT_EQ(OnClock(now - arrival), 0.043052);
}

// What the clock is for: 100,000 steps of 34,567 us added one by one in
// seconds drift from the arrival at 3456.7 s (the sum is 3456.6999999997
// or so); as ticks they meet it exactly.
TEST(ClockTest, SumOfStepsMeetsArrival) {
  double seconds = 0;
  Ticks ticks = 0;
  for (int i = 0; i < 100000; ++i) {
    seconds += 0.034567;
    ticks = AddTicks(ticks, ToTicks(0.034567));
  }
  const double arrival = 3456.7;
  EXPECT_NE(seconds, arrival);
  EXPECT_EQ(ticks, ToTicks(arrival));
  EXPECT_EQ(ToSeconds(ticks), arrival);
}

}  // namespace
}  // namespace serq::sim
