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

TEST(SteadyState, BackloggedIsAShareOfWhatTheWindowSaw) {
  // Started with 5, 95 arrived, 2 left at the end: 98 left the queue; 2 of
  // 100 is exactly 2%.
  EXPECT_TRUE(Backlogged({5, 2, 95, {1, 1, 1}}));
  EXPECT_FALSE(Backlogged({5, 1, 95, {1, 1, 1}}));  // 1 of 100
  EXPECT_FALSE(Backlogged({0, 0, 0, {0, 0, 0}}));
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
