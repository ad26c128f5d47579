// The steady-state verdicts through the real simulator: a backlog derived
// by hand, and the calibration on M/M/1 that docs/report.md §steady state
// promises: over 20 independent streams, never flagged at rho <= 0.9 with
// a horizon of 10^4 mean service times, always OVERLOADED at rho >= 1.1.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "serq-report/report.h"
#include "serq-report/steady_state.h"
#include "serq-sim/sim_testing.h"
#include "stats/merge.h"

namespace serq::report {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::SimRun;

Report Built(const results::Results& r) {
  absl::StatusOr<MergedResults> merged = MergeResults({{"r", &r}});
  EXPECT_TRUE(merged.ok()) << merged.status();
  Report report;
  *report.mutable_steady_state() = JudgeSteadyState(*merged);
  report.set_replications(r.replication_size());
  return report;
}

TEST(SteadyState, ABatchThatHasNotDrainedIsBacklogged) {
  // 100 sessions at t = 0 through fifo(1), one unit of work each: one
  // ends at each t = 1 .. 49 (the one due at 50 is at the horizon, not
  // before it), so 49 ended and 51 are in progress; in progress is
  // 100 - floor(t), falling: not growing. 51 of the 100 the window saw are
  // left: BACKLOGGED. The thirds are the averages of 100 - floor(t) over
  // [0, 50/3], [50/3, 100/3], [100/3, 50]: (sum of 100 - k for k = 0..15,
  // 1480, + 2/3 * 84) / (50/3) = 1536 * 3 / 50 = 92.16; (84 / 3 + 1208 +
  // 67 / 3) * 3 / 50 = 75.5; (2/3 * 67 + 936) * 3 / 50 = 58.84.
  SimRun run = RunSource(R"(
    stage S : fifo(1);
    workload { arrive batch(100); }
    session { run S (1); }
    run { horizon 50; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::SessionStats& s = run.results.replication(0).session(0);
  EXPECT_EQ(s.arrived_window(), 100);
  EXPECT_EQ(s.ended_window(), 49);
  EXPECT_EQ(s.in_progress(), 51);
  auto average = [](double a, double b) {  // of 100 - floor(t) over [a, b]
    double sum = 0, t = a;
    while (t < b) {
      double next = std::min(b, std::floor(t) + 1);
      sum += (100 - std::floor(t)) * (next - t);
      t = next;
    }
    return sum / (b - a);
  };
  ASSERT_EQ(s.in_progress_third_size(), 3);
  EXPECT_NEAR(s.in_progress_third(0), average(0, 50.0 / 3), 1e-9);
  EXPECT_NEAR(s.in_progress_third(1), average(50.0 / 3, 100.0 / 3), 1e-9);
  EXPECT_NEAR(s.in_progress_third(2), average(100.0 / 3, 50), 1e-9);
  EXPECT_NEAR(s.in_progress_third(0), 92.16, 1e-9);
  EXPECT_NEAR(s.in_progress_third(1), 75.5, 1e-9);
  EXPECT_NEAR(s.in_progress_third(2), 58.84, 1e-9);
  const results::StageStats& st = run.results.replication(0).stage(0);
  EXPECT_EQ(st.present_start(), 0);
  EXPECT_EQ(st.present_end(), 51);

  Report report = Built(run.results);
  EXPECT_EQ(report.steady_state().verdict(), SteadyState::BACKLOGGED);
  ASSERT_EQ(report.steady_state().backlog_size(), 1);  // the stage did not grow
  EXPECT_EQ(report.steady_state().backlog(0).end(), 51);
  std::vector<std::string> lines = SteadyStateLines(report);
  ASSERT_EQ(lines.size(), 3);
  EXPECT_EQ(lines[0],
            "not in a steady state: BACKLOGGED in 1 of 1 replication; the figures cover "
            "completed work only (quantiles: completed sessions)");
  EXPECT_EQ(lines[1],
            "  session (unnamed): in progress 0 at warmup, 51 at the horizon (51 of 100 not "
            "ended); average over the window's thirds 92.2, 75.5, 58.8; stay 37.8 s (Little's law)");
  // Little's law: the window's average count, (92.16 + 75.5 + 58.84) / 3 =
  // 75.5, over its arrivals a second, 100 / 50: a stay of 37.75 s.
  EXPECT_EQ(lines[2],
            "  left with a backlog at the horizon (a burst not yet drained): lengthen the horizon, "
            "or replicate to see how often");
}

TEST(SteadyState, SessionsAreCountedInTheWindow) {
  // Arrivals at 0, 1, ..., 9, each 3 s at a delay stage; window [2, 10].
  // Arrived 10, in the window 8 (t = 2..9); ended at 3..9 (arrivals
  // 0..6): 7, all in the window; in progress at the horizon 3 (arrivals 7,
  // 8, 9), at warmup 2 (arrivals 0 and 1): 2 + 8 - 7 = 3.
  SimRun run = RunSource(R"(
    stage D : delay;
    workload { arrive periodic(1); }
    session { run D (3); }
    run { horizon 10; warmup 2; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::SessionStats& s = run.results.replication(0).session(0);
  EXPECT_EQ(s.arrived(), 10);
  EXPECT_EQ(s.arrived_window(), 8);
  EXPECT_EQ(s.ended(), 7);
  EXPECT_EQ(s.ended_window(), 7);
  EXPECT_EQ(s.in_progress(), 3);
  QueueWindow q = SessionWindow(s);
  EXPECT_EQ(q.start, 2);
  EXPECT_EQ(q.end, 3);
  EXPECT_EQ(q.arrived, 8);
  ReportOptions csv;
  csv.format = "csv";
  absl::StatusOr<std::string> text = RenderReport({run.results}, csv);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("session,arrived,ended,in_progress,arrived_window,ended_window\n"
                       ",10,7,3,8,7\n"),
            std::string::npos)
      << *text;
}

// M/M/1 with mean service time 1 and arrival rate rho, horizon 10^4,
// 20 replications (20 independent streams).
SteadyState MM1(double rho, double warmup) {
  SimRun run = RunSource(absl::StrCat(R"(
    stage S : fifo(1);
    workload { arrive poisson()", rho, R"(); }
    session { run S (exponential(1)); observe w = now - arrival; }
    run { horizon 10000; warmup )", warmup, R"(; replications 20; seed 11; }
  )"));
  EXPECT_TRUE(run.ok) << run.errors;
  return Built(run.results).steady_state();
}

TEST(SteadyState, CalibratedOnMM1) {
  // Stable: at rho = 0.9 the number in system has mean rho / (1 - rho) = 9
  // and standard deviation sqrt(rho) / (1 - rho) = 9.5, so the ~9000
  // arrivals' 2% (180) is some 19 standard deviations away; from empty
  // (warmup 0) and after a warmup alike.
  for (double rho : {0.5, 0.8, 0.9}) {
    for (double warmup : {0.0, 1000.0}) {
      SteadyState s = MM1(rho, warmup);
      EXPECT_EQ(s.verdict(), SteadyState::STABLE) << "rho " << rho << " warmup " << warmup;
      EXPECT_EQ(s.replications_flagged(), 0) << "rho " << rho << " warmup " << warmup;
    }
  }
  // Overloaded: at rho = 1.1 the queue gains 0.1 a second, some 1000 over
  // the window (9% of the arrivals), a ramp whose thirds' averages are
  // about 1/6, 1/2 and 5/6 of that.
  for (double rho : {1.1, 1.2, 2.0}) {
    for (double warmup : {0.0, 1000.0}) {
      SteadyState s = MM1(rho, warmup);
      EXPECT_EQ(s.verdict(), SteadyState::OVERLOADED) << "rho " << rho << " warmup " << warmup;
      EXPECT_EQ(s.replications_flagged(), 20) << "rho " << rho << " warmup " << warmup;
      ASSERT_EQ(s.backlog_size(), 2);  // the sessions and the stage
      EXPECT_TRUE(s.backlog(0).growing());
      EXPECT_EQ(s.backlog(1).stage(), "S");
    }
  }
}

TEST(SteadyState, HeavyTrafficAndJustOverloaded) {
  // rho = 0.95: stable, though the number in system has mean 19 and
  // standard deviation sqrt(0.95) / 0.05 = 19.5 and relaxes over some
  // 1 / (1 - sqrt(0.95))^2 = 1560 mean service times: its growth over the
  // window is a difference of two lengths, far below 2% of ~9500 arrivals
  // (190). rho = 1.05: the queue gains 0.05 a second, ~500 over the window
  // (4.8% of the arrivals): never STABLE.
  for (double warmup : {0.0, 1000.0}) {
    EXPECT_EQ(MM1(0.5, warmup).verdict(), SteadyState::STABLE) << "warmup " << warmup;
    EXPECT_EQ(MM1(0.95, warmup).verdict(), SteadyState::STABLE) << "warmup " << warmup;
    // Each replication's thirds rise by ~167 each with a noise of some
    // sqrt(2 * 3333) / 2 = 41 (a random walk's, averaged over a third), so
    // a replication may now and then miss a strict rise: the verdict is
    // the worst of 20, and most are flagged.
    SteadyState over = MM1(1.05, warmup);
    EXPECT_NE(over.verdict(), SteadyState::STABLE) << "warmup " << warmup;
    EXPECT_GE(over.replications_flagged(), 15) << "warmup " << warmup;
  }
}

// examples/prefix-cache/chat.sq with its `run` line replaced.
SteadyState Chat(absl::string_view run_line, std::vector<std::string>* lines) {
  std::ifstream in(absl::StrCat(std::getenv("TEST_SRCDIR"), "/serq/examples/prefix-cache/chat.sq"));
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  const std::string shipped = "run { horizon 330; warmup 30; seed 1; }";
  size_t at = source.find(shipped);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) source.replace(at, shipped.size(), std::string(run_line));
  SimRun run = RunSource(source);
  EXPECT_TRUE(run.ok) << run.errors;
  Report report = Built(run.results);
  *lines = SteadyStateLines(report);
  return report.steady_state();
}

TEST(SteadyState, LongSessionsAreNotABacklog) {
  // The multi-turn chat: 3 conversations a second of 3 to 5 turns with a
  // think time of mean 20 s between them, on an engine some 2% full. A
  // conversation lasts ~100 s, so ~300 are in progress in the steady state
  // (Little's law): at any horizon ~300 are left in progress, 7% of the
  // ~4000 a 1300 s window sees. That is the steady state, not a backlog.
  std::vector<std::string> lines;
  SteadyState s = Chat("run { horizon 1600; warmup 300; seed 1; }", &lines);
  EXPECT_EQ(s.verdict(), SteadyState::STABLE) << absl::StrJoin(lines, "\n");
  // As shipped, the warm-up (30 s) is shorter than a conversation: the
  // count is still rising, and slowing, through the window. Not
  // OVERLOADED: UNSETTLED, and the advice names the warm-up to give.
  s = Chat("run { horizon 330; warmup 30; seed 1; }", &lines);
  EXPECT_EQ(s.verdict(), SteadyState::UNSETTLED) << absl::StrJoin(lines, "\n");
  std::string all = absl::StrJoin(lines, "\n");
  EXPECT_NE(all.find("Little's law"), std::string::npos) << all;
  EXPECT_NE(all.find("a warm-up of at least"), std::string::npos) << all;
}

}  // namespace
}  // namespace serq::report
