// The simulator against queueing theory. Each figure is estimated from 10
// independent replications (after a warmup): the estimate is the mean of
// the replication means, and its 99% confidence interval is the Student t
// interval across them (t(0.995, 9) = 3.2498). Each test checks that the
// theoretical value lies inside the estimate's interval and that the
// estimate is within 3% of it.
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;

struct Estimate {
  double mean = 0;
  double half_width = 0;
};

// The per-replication statistic `of` over the replications of `r`.
Estimate Across(const results::Results& r,
                const std::function<double(int replication)>& of) {
  std::vector<double> x;
  for (int i = 0; i < r.replication_size(); ++i) x.push_back(of(i));
  double n = x.size();
  double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  constexpr double kT99With9Df = 3.2498;
  return {mean, kT99With9Df * std::sqrt(ss / (n - 1) / n)};
}

double MeanOf(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

// The mean of observation `name` per replication.
Estimate Observed(const results::Results& r, const std::string& name) {
  return Across(r, [&](int i) { return MeanOf(Samples(r, name, i)); });
}

void ExpectMatches(const Estimate& e, double theory, const std::string& what) {
  std::printf("%-34s theory %.6f  estimate %.6f +- %.6f (%.2f%%)\n", what.c_str(), theory, e.mean,
              e.half_width, 100 * (e.mean - theory) / theory);
  EXPECT_NEAR(e.mean, theory, e.half_width)
      << what << ": theory " << theory << " outside the 99% interval " << e.mean << " +- "
      << e.half_width;
  EXPECT_NEAR(e.mean, theory, 0.03 * theory) << what << ": more than 3% from theory";
  EXPECT_GT(e.half_width, 0) << what;
}

// M/M/1, FIFO: lambda = 0.5, mu = 1, rho = 0.5. Mean sojourn
// 1 / (mu - lambda) = 2; mean number present (Little) lambda * 2 = 1; the
// server is busy a fraction rho = 0.5 of the time.
TEST(QueueingTest, MM1Fifo) {
  SimRun run = RunSource(R"(
stage S : fifo(1);
workload { arrive poisson(0.5); }
session { run S (exponential(1)); observe sojourn = now - arrival; }
run { horizon 100000; warmup 1000; replications 10; seed 11; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Results& r = run.results;
  ExpectMatches(Observed(r, "sojourn"), 2.0, "M/M/1 mean sojourn");
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).stage(0).mean_present(); }), 1.0,
                "M/M/1 mean present");
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).stage(0).utilisation(); }), 0.5,
                "M/M/1 utilisation");
}

// M/D/1, FIFO: lambda = 0.5, service 1, rho = 0.5. Pollaczek-Khinchine:
// Wq = lambda E[S^2] / (2 (1 - rho)) = 0.5 * 1 / (2 * 0.5) = 0.5; sojourn
// 1.5. The stage's own wait (arrival to start of service) is Wq.
// periodic(inf): one arrival, at 0 (language.md §11; the linker took it and
// the simulator refused it): the k-th arrival at k x inf.
TEST(QueueingTest, PeriodicOfAnInfinitePeriodIsOneArrival) {
  SimRun run = RunSource(R"(
workload { arrive periodic(inf); }
session { observe t = now; }
run { horizon 5; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_EQ(Samples(run.results, "t"), std::vector<double>{0});
}

TEST(QueueingTest, MD1Fifo) {
  SimRun run = RunSource(R"(
stage S : fifo(2);
workload { arrive poisson(0.5); }
session { run S (2); observe sojourn = now - arrival; }
run { horizon 100000; warmup 1000; replications 10; seed 12; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Results& r = run.results;
  ExpectMatches(Observed(r, "sojourn"), 1.5, "M/D/1 mean sojourn");
  ExpectMatches(Across(r,
                       [&](int i) {
                         const results::StageStats& s = r.replication(i).stage(0);
                         return s.wait_sum() / s.waited();
                       }),
                0.5, "M/D/1 mean wait");
  // The stage's service runs from the start of service to the end: every
  // job is served for exactly 2 / 2 = 1 s, however long it waited.
  for (const results::Replication& rep : r.replication()) {
    EXPECT_NEAR(rep.stage(0).service_sum() / rep.stage(0).done(), 1.0, 1e-9);
  }
}

// M/G/1 processor sharing: the mean sojourn of a job of size x is
// x / (1 - rho) whatever the size distribution. Sizes 0.5 (probability
// 2/3) or 2 (1/3): mean 1; lambda = 0.5, rho = 0.5: small jobs 1.0, big
// jobs 4.0.
TEST(QueueingTest, MG1ProcessorSharing) {
  SimRun run = RunSource(R"(
stage S : ps(1);
workload { arrive poisson(0.5); }
session {
  set x = 0.5 + 1.5 * bernoulli(1 / 3);
  run S (x);
  if (x < 1) { observe small = now - arrival; } else { observe big = now - arrival; }
}
run { horizon 100000; warmup 1000; replications 10; seed 13; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  ExpectMatches(Observed(run.results, "small"), 1.0, "M/G/1-PS sojourn of size 0.5");
  ExpectMatches(Observed(run.results, "big"), 4.0, "M/G/1-PS sojourn of size 2");
}

// M/M/c through a pool of c units: c = 2, lambda = 1, mu = 1, offered load
// a = 1. Erlang C: P(wait) = (a^c / c! * c / (c - a)) / (sum_{k<c} a^k / k!
// + a^c / c! * c / (c - a)) = 1 / (1 + 1 + 1) = 1/3; Wq = P(wait) / (c mu -
// lambda) = 1/3; sojourn 4/3. The pool's mean used is the mean number of
// busy servers, a = 1, and its admission wait is Wq.
TEST(QueueingTest, MMcThroughAPool) {
  SimRun run = RunSource(R"(
pool servers { cap 2; }
stage S : delay;
workload { arrive poisson(1); }
session {
  hold servers (1) {
    observe waited = now > arrival;
    run S (exponential(1));
  }
  observe sojourn = now - arrival;
}
run { horizon 100000; warmup 1000; replications 10; seed 14; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Results& r = run.results;
  ExpectMatches(Observed(r, "waited"), 1.0 / 3, "M/M/2 probability of waiting");
  ExpectMatches(Observed(r, "sojourn"), 4.0 / 3, "M/M/2 mean sojourn");
  ExpectMatches(Across(r,
                       [&](int i) {
                         const results::PoolStats& p = r.replication(i).pool(0);
                         return p.wait_sum() / p.admitted();
                       }),
                1.0 / 3, "M/M/2 mean wait");
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).pool(0).mean_used(); }), 1.0,
                "M/M/2 busy servers");
}

// M/G/infinity: a delay stage with Poisson arrivals at 5 per second and
// services uniform on [1, 3] (mean 2). By Little, the mean number present
// is lambda E[S] = 10 (Poisson with that mean, in fact).
TEST(QueueingTest, MGInfinity) {
  SimRun run = RunSource(R"(
stage D : delay;
workload { arrive poisson(5); }
session { run D (uniform(1, 3)); }
run { horizon 20000; warmup 100; replications 10; seed 15; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Results& r = run.results;
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).stage(0).mean_present(); }), 10.0,
                "M/G/inf mean present");
}


// A step stage with a fixed tau and seqs 1 is a fifo server with
// deterministic service: step(1) { seqs 1; } under poisson(0.5) is the M/D/1
// above (sojourn 1.5, wait 0.5), and with the same seed it gives the fifo
// stage's sojourns exactly, session by session (the only draws are the
// arrival gaps, so both see the same arrivals; a step ends at now + 1 as a
// fifo service of 2 at rate 2 does).
TEST(QueueingTest, StepWithSeqsOneIsMD1) {
  const char* kStep = R"(
stage E : step(1) { seqs 1; }
workload { arrive poisson(0.5); }
session { run E prefill (7); observe sojourn = now - arrival; }
run { horizon 100000; warmup 1000; replications 10; seed 12; }
)";
  SimRun step = RunSource(kStep);
  ASSERT_TRUE(step.ok) << step.errors;
  const results::Results& r = step.results;
  ExpectMatches(Observed(r, "sojourn"), 1.5, "step seqs 1 (M/D/1) mean sojourn");
  ExpectMatches(Across(r,
                       [&](int i) {
                         const results::StageStats& s = r.replication(i).stage(0);
                         return s.wait_sum() / s.waited();
                       }),
                0.5, "step seqs 1 (M/D/1) mean wait");
  SimRun fifo = RunSource(R"(
stage S : fifo(2);
workload { arrive poisson(0.5); }
session { run S (2); observe sojourn = now - arrival; }
run { horizon 100000; warmup 1000; replications 10; seed 12; }
)");
  ASSERT_TRUE(fifo.ok) << fifo.errors;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Samples(r, "sojourn", i), Samples(fifo.results, "sojourn", i)) << i;
  }
}

// A gated batch server: step(1) with no limits serves every job present in
// one step. Poisson(1) arrivals. A step follows a step iff a job arrived
// during it (probability 1 - e^-1), so a busy period has a geometric number
// of steps of mean e, and an idle period lasts 1 on average: utilisation
// U = e / (e + 1) = 0.731059. A job that finds the stage idle is served at
// once (sojourn 1); one that arrives during a step (probability U, PASTA)
// waits for its end, 1/2 on average, then takes the next: sojourn 1 + U/2
// = 1.365529, and by Little as many present. Steps take 1 s, so there are
// U steps a second for 1 job a second: 1 / U = 1.367879 jobs a step.
TEST(QueueingTest, StepIsAGatedBatchServer) {
  SimRun run = RunSource(R"(
stage E : step(1);
workload { arrive poisson(1); }
session { run E prefill (100); observe sojourn = now - arrival; }
run { horizon 100000; warmup 1000; replications 10; seed 16; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  const results::Results& r = run.results;
  const double u = std::exp(1.0) / (std::exp(1.0) + 1);
  ExpectMatches(Observed(r, "sojourn"), 1 + u / 2, "gated batch server mean sojourn");
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).stage(0).utilisation(); }), u,
                "gated batch server utilisation");
  ExpectMatches(Across(r, [&](int i) { return r.replication(i).stage(0).mean_present(); }),
                1 + u / 2, "gated batch server mean present");
  ExpectMatches(Across(r,
                       [&](int i) {
                         const results::StageStats& s = r.replication(i).stage(0);
                         return static_cast<double>(s.batch_jobs()) / s.steps();
                       }),
                1 / u, "gated batch server jobs a step");
}

}  // namespace
}  // namespace serq
