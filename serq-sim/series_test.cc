// The time series' interval counts (results.proto Series: preemptions,
// prefill runs and tokens, observations' counts and percentiles of each
// interval; docs/report.md §Time series), on a program whose every event is
// derived by hand: docs/simulation.md §The LLM engine as vLLM runs it, as
// preempt_test.cc's SpecFcfs.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::SimRun;
using ::testing::ElementsAreArray;

constexpr char kProgram[] = R"(
pool kv { cap 10; }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(2); }
session {
  hold kv (0) {
    run E prefill (4) growing kv;
    run E decode (4) growing kv observe itl;
    observe e2e = now - arrival;
  }
}
run { horizon 10; }
)";

template <typename T>
std::vector<double> First(const T& values, int n) {
  return std::vector<double>(values.begin(), values.begin() + n);
}

// The events (preempt_test.cc SpecFcfs): t = 0 both prefills of 4 start;
// t = 1 both complete (2 prefills, 8 prompt tokens); t = 2 A's and B's
// first decode tokens (itl 1, 1) and B preempted; t = 3, 4 A's tokens
// (itl 1); t = 5 A's 4th token (itl 1) ends its decode run of 4 tokens,
// e2e 5; t = 6 B's recompute step makes its 2nd token, itl 6 - 2 = 4;
// t = 7 itl 1; t = 8 B's last token (itl 1) ends its run of 4, e2e 8.
// Sample k (every 1 s) counts the events of (k - 1, k]; sample 0 those of
// the instant 0. Every interval's samples are equal, so every percentile is
// that value exactly (the sketch's quantile is clamped to [min, max]).
TEST(SeriesTest, IntervalCountsByHand) {
  SimOptions options;
  options.sample = 1;
  options.check_pools = true;
  SimRun run = RunSource(kProgram, options);
  ASSERT_TRUE(run.ok) << run.errors;
  ASSERT_EQ(run.results.replication_size(), 1);
  const results::Series& s = run.results.replication(0).series();
  ASSERT_EQ(s.time_size(), 11);  // 0, 1, ..., 10 (the horizon)
  EXPECT_EQ(s.time(10), 10);
  ASSERT_EQ(s.stage_size(), 1);
  EXPECT_THAT(First(s.stage(0).preempted(), 11),
              ElementsAreArray({0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
  ASSERT_EQ(s.session_size(), 1);
  const results::SessionSeries& ss = s.session(0);
  EXPECT_THAT(First(ss.prefills(), 11), ElementsAreArray({0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_THAT(First(ss.prefill_tokens(), 11),
              ElementsAreArray({0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_THAT(First(ss.decode_tokens(), 11),
              ElementsAreArray({0, 0, 0, 0, 0, 4, 0, 0, 4, 0, 0}));
  // Observations sorted by name: e2e, itl.
  ASSERT_EQ(s.observation_size(), 2);
  const results::ObservationSeries& e2e = s.observation(0);
  const results::ObservationSeries& itl = s.observation(1);
  EXPECT_EQ(e2e.name(), "e2e");
  EXPECT_EQ(itl.name(), "itl");
  EXPECT_THAT(First(e2e.count(), 11), ElementsAreArray({0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}));
  EXPECT_THAT(First(e2e.p50(), 11), ElementsAreArray({0, 0, 0, 0, 0, 5, 0, 0, 8, 0, 0}));
  EXPECT_THAT(First(e2e.p99(), 11), ElementsAreArray({0, 0, 0, 0, 0, 5, 0, 0, 8, 0, 0}));
  EXPECT_THAT(First(itl.count(), 11), ElementsAreArray({0, 0, 2, 1, 1, 1, 1, 1, 1, 0, 0}));
  EXPECT_THAT(First(itl.p50(), 11), ElementsAreArray({0, 0, 1, 1, 1, 1, 4, 1, 1, 0, 0}));
  EXPECT_THAT(First(itl.p90(), 11), ElementsAreArray({0, 0, 1, 1, 1, 1, 4, 1, 1, 0, 0}));
  EXPECT_THAT(First(itl.p99(), 11), ElementsAreArray({0, 0, 1, 1, 1, 1, 4, 1, 1, 0, 0}));
  // The intervals add up to the window's figures (warmup 0).
  const results::Replication& rep = run.results.replication(0);
  EXPECT_EQ(rep.stage(0).preempted(), 1u);
  EXPECT_EQ(rep.session(0).prefills_window(), 2u);
  EXPECT_EQ(rep.session(0).decode_tokens_window(), 8);
}

// An interval with samples of different values: the percentiles are the
// sketch's, within its 0.1% of SortedQuantile's. periodic(0.5): serial j
// (from 0) arrives at 0.5 j and observes x = j, so interval (k-1, k] holds
// j = 2k-1 and 2k; with n = 2, h = (n-1) q interpolates between them:
// p50 = 2k - 0.5, p99 = 2k - 1 + 0.99 = 2k - 0.01.
TEST(SeriesTest, PercentilesOfAnInterval) {
  SimOptions options;
  options.sample = 1;
  SimRun run = RunSource(R"(
workload { arrive periodic(0.5); }
session { observe x = serial; }
run { horizon 4; }
)",
                         options);
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Series& s = run.results.replication(0).series();
  ASSERT_EQ(s.observation_size(), 1);
  const results::ObservationSeries& x = s.observation(0);
  ASSERT_EQ(x.count_size(), 5);
  // Sample 0: serial 0 at t = 0.
  EXPECT_EQ(x.count(0), 1);
  EXPECT_EQ(x.p50(0), 0);
  for (int k = 1; k <= 3; ++k) {
    EXPECT_EQ(x.count(k), 2) << k;
    EXPECT_NEAR(x.p50(k), 2 * k - 0.5, 0.001 * (2 * k)) << k;
    EXPECT_NEAR(x.p99(k), 2 * k - 0.01, 0.001 * (2 * k)) << k;
  }
  // At the horizon 4 the arrival due then is not simulated: serial 7 only.
  EXPECT_EQ(x.count(4), 1);
  EXPECT_EQ(x.p50(4), 7);
  // A program without prefill or decode runs has no token counts.
  EXPECT_TRUE(s.session(0).prefills().empty());
}

}  // namespace
}  // namespace serq
