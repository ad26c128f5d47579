// The arrival processes of IR 11 (docs/language.md §3.5): load stages,
// exactly n in T and a trace's time scale. Expected values from the
// processes' definitions, each tolerance five standard errors of the
// estimate it bounds (derived beside it), so a test fails by chance with
// probability below 10^-6.
#include "serq-sim/workload/arrivals.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/random/random.h"

namespace serq::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class NoGaps : public GapSource {
 public:
  bool RenewalGap(uint32_t, uint32_t, double*) override { return false; }
};

// Every arrival time of one replication of `plan`, up to `horizon`.
std::vector<double> Times(const ArrivalPlan& plan, uint64_t seed, double horizon = kInf) {
  Random random(seed);
  NoGaps gaps;
  Arrivals arrivals;
  EXPECT_TRUE(arrivals.Start({&plan}, horizon, &random, &gaps));
  std::vector<double> times;
  double t;
  uint32_t w;
  while (arrivals.Next(&t, &w)) {
    times.push_back(t);
    const double* row;
    EXPECT_TRUE(arrivals.Take(w, &row));
  }
  return times;
}

// stages(10, 100, 0, 50, 20, 100): Poisson at 10/s on [0, 100), none on
// [100, 150), 20/s on [150, 250), then none. A stage's count is Poisson of
// mean rate x duration: 1000 and 2000, variances the same; over R = 200
// replications the mean count's standard error is sqrt(1000 / 200) = 2.24
// and sqrt(2000 / 200) = 3.16, so five of them: 11.2 and 15.8.
TEST(ArrivalsTest, StagesArePiecewisePoisson) {
  ArrivalPlan plan;
  plan.process = ir::Workload::STAGES;
  plan.stages = {{10, 100}, {0, 50}, {20, 100}};
  constexpr int kReplications = 200;
  double first = 0, second = 0, third = 0;
  for (int r = 0; r < kReplications; ++r) {
    std::vector<double> times = Times(plan, StreamSeed(7, r));
    for (size_t i = 0; i < times.size(); ++i) {
      if (i > 0) {
        ASSERT_LE(times[i - 1], times[i]);
      }
      ASSERT_GE(times[i], 0);
      ASSERT_LT(times[i], 250);
      if (times[i] < 100) {
        ++first;
      } else if (times[i] < 150) {
        ++second;
      } else {
        ++third;
      }
    }
  }
  EXPECT_NEAR(first / kReplications, 1000, 11.2);
  EXPECT_EQ(second, 0);
  EXPECT_NEAR(third / kReplications, 2000, 15.8);
}

// Within a stage the gaps are exponential of mean 1 / rate: one stage of
// rate 4 for 10^4 s has ~40,000 gaps of mean 0.25 and standard deviation
// 0.25, a mean's standard error 0.25 / 200 = 0.00125 (five: 0.00625); and a
// horizon inside a stage stops the arrivals there.
TEST(ArrivalsTest, StagesGapsAndHorizon) {
  ArrivalPlan plan;
  plan.process = ir::Workload::STAGES;
  plan.stages = {{4, 1e4}};
  std::vector<double> times = Times(plan, 11);
  ASSERT_GT(times.size(), 1000u);
  EXPECT_NEAR((times.back() - times.front()) / (times.size() - 1), 0.25, 0.00625);
  std::vector<double> cut = Times(plan, 11, 100);
  ASSERT_FALSE(cut.empty());
  EXPECT_LT(cut.back(), 100);
  // The same stream: the first arrivals are the same.
  EXPECT_EQ(cut[0], times[0]);
}

// exactly(5, 10): five arrivals a replication, in order, in [0, 10). The
// k-th of n uniform order statistics on [0, T) has mean k T / (n + 1) and
// variance k (n + 1 - k) T^2 / ((n + 1)^2 (n + 2)): at n = 5, T = 10, means
// 1.667, 3.333, 5, 6.667, 8.333, the largest variance (k = 3) 3.571, so
// over 20,000 replications a mean's standard error is at most
// sqrt(3.571 / 20000) = 0.0134 (five: 0.067).
TEST(ArrivalsTest, ExactlyNInT) {
  ArrivalPlan plan;
  plan.process = ir::Workload::EXACTLY;
  plan.count = 5;
  plan.span = 10;
  constexpr int kReplications = 20000;
  std::vector<double> sums(5, 0);
  for (int r = 0; r < kReplications; ++r) {
    std::vector<double> times = Times(plan, StreamSeed(3, r));
    ASSERT_EQ(times.size(), 5u);
    for (size_t k = 0; k < 5; ++k) {
      ASSERT_GE(times[k], 0);
      ASSERT_LT(times[k], 10);
      if (k > 0) {
        ASSERT_LE(times[k - 1], times[k]);
      }
      sums[k] += times[k];
    }
  }
  for (int k = 1; k <= 5; ++k) {
    EXPECT_NEAR(sums[k - 1] / kReplications, k * 10.0 / 6, 0.067) << "order statistic " << k;
  }
  // n = 0: none; a horizon before T cuts them.
  plan.count = 0;
  EXPECT_TRUE(Times(plan, 1).empty());
  plan.count = 1000;
  std::vector<double> cut = Times(plan, 1, 5);
  EXPECT_LT(cut.size(), 1000u);
  EXPECT_LT(cut.back(), 5);
}

// trace("file", 0.5): every arrival at half its trace time (twice the rate).
TEST(ArrivalsTest, TraceTimeScale) {
  auto trace = std::make_shared<Trace>();
  trace->times = {0, 1, 3, 3};
  ArrivalPlan plan;
  plan.process = ir::Workload::TRACE;
  plan.trace = trace;
  plan.scale = 0.5;
  EXPECT_EQ(Times(plan, 1), (std::vector<double>{0, 0.5, 1.5, 1.5}));
  plan.scale = 2;
  EXPECT_EQ(Times(plan, 1, 6), (std::vector<double>{0, 2}));  // 6 and 6 are at the horizon
}

}  // namespace
}  // namespace serq::sim
