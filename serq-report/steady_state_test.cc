// The steady-state verdicts: the rules on hand-made windows
// (testdata/pipeline/steady_state_sim_test.cc has them through the real
// simulator).
#include "serq-report/steady_state.h"

#include <string>

#include "gtest/gtest.h"
#include "ir/io.h"
#include "serq-report/report.h"
#include "stats/merge.h"

namespace serq::report {
namespace {

TEST(SteadyState, GrowingNeedsGrowthShareAndRisingThirds) {
  // 9000 arrivals: 2% is 180.
  QueueWindow q{0, 200, 9000, {10, 50, 150}};
  EXPECT_TRUE(Growing(q));
  q.end = 179;  // less than 2% of the arrivals
  EXPECT_FALSE(Growing(q));
  q = {0, 200, 9000, {10, 150, 50}};  // not rising third by third
  EXPECT_FALSE(Growing(q));
  q = {0, 9, 20, {1, 2, 3}};  // 45% of the arrivals, but fewer than 10
  EXPECT_FALSE(Growing(q));
  q = {0, 10, 20, {1, 2, 3}};
  EXPECT_TRUE(Growing(q));
  q = {0, 200, 9000, {}};  // no thirds recorded: no judgement
  EXPECT_FALSE(Growing(q));
}

TEST(SteadyState, BackloggedIsAShareOfWhatTheWindowSawDrainingOrInExcess) {
  // Started with 30, 970 arrived, 20 left at the end: 980 left the queue;
  // 20 of 1000 is exactly 2%, and the margin max(10, 2% of 1000) = 20.
  // Draining: the first third's average above the last's by >= 20.
  EXPECT_TRUE(Backlogged({30, 20, 970, {45, 30, 25}}));
  EXPECT_FALSE(Backlogged({30, 20, 970, {44, 30, 25}}));  // by 19
  EXPECT_FALSE(Backlogged({30, 19, 971, {45, 30, 25}}));  // 19 of 1000 left
  // In excess: 60 at the horizon of the 1000 seen (940 left), 20 above the
  // window's average of 40; not with an average of 40.33.
  EXPECT_TRUE(Backlogged({30, 60, 970, {40, 40, 40}}));
  EXPECT_FALSE(Backlogged({30, 60, 970, {41, 40, 40}}));
  // Long sessions: 300 in progress all through, ~7% of what the window saw,
  // is their steady state (Little's law), not a backlog.
  EXPECT_FALSE(Backlogged({300, 310, 4000, {298, 305, 301}}));
  EXPECT_FALSE(Backlogged({0, 0, 0, {0, 0, 0}}));
}

TEST(SteadyState, AQueueFillingToItsLevelIsSettlingNotOverloaded) {
  // 931 arrivals over a window of 300 s, average (202 + 280 + 325) / 3 =
  // 269: a stay of 269 / (931 / 300) = 86.7 s (Little's law). It rose by
  // 78, then 45 (below 3/4 of 78, 58.5): slowing. A warm-up of 30 s is shorter than 3 stays (260).
  QueueWindow q{96, 325, 931, {202, 280, 325}};
  EXPECT_TRUE(Growing(q));
  EXPECT_NEAR(Stay(q, 300), 269.0 / (931.0 / 300), 1e-9);
  EXPECT_TRUE(Settling(q, 300, 30));
  EXPECT_FALSE(Settling(q, 300, 261));  // after 3 stays it would have settled
  q.thirds = {202, 260, 310};  // rising by 58, then 50 (above 3/4 of 58, 43.5): not slowing
  EXPECT_FALSE(Settling(q, 300, 30));
}

Report Built(const results::Results& r) {
  absl::StatusOr<MergedResults> merged = MergeResults({{"r", &r}});
  EXPECT_TRUE(merged.ok()) << merged.status();
  Report report;
  *report.mutable_steady_state() = JudgeSteadyState(*merged);
  report.set_replications(r.replication_size());
  return report;
}

TEST(SteadyState, ResultsWithoutThirdsAreNotJudged) {
  results::Results r;
  r.set_version(kIrVersion);
  r.set_horizon(10);
  results::Replication* rep = r.add_replication();
  rep->add_session()->set_in_progress(5);
  EXPECT_EQ(Built(r).steady_state().verdict(), SteadyState::UNASSESSED);
  EXPECT_TRUE(SteadyStateLines(Built(r)).empty());
}

}  // namespace
}  // namespace serq::report
