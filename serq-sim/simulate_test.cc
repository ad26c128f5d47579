// End to end: source -> serq-parse -> serq-link -> Simulate, in-process. Every
// expected value is derived by hand in the comments, or is docs/language.md §1's
// (its first program).
#include "serq-sim/engine/simulate.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::Pool;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ------------------------------------------------------------- docs/language.md §1

constexpr char kBefore[] = R"(
pool kvP { cap 100; }
pool kvD[2] { cap 100; }
stage P : delay;
stage link[2] : ps(1);     // a decoder's NIC
stage D[2] : delay;
workload { arrive batch(2); }
session {
  set j = serial;
  hold kvP (10) { run P (1); } lease kvP (inf);
  hold kvD[j] (10) {
    transfer[j] (1) from kvP to kvD[j] (10);
    observe transferred = now;
    run D[j] (1);
  }
  end;
}
run { horizon 10; }
)";

// The seed's Before: each read alone on its decoder's link, 1 s from t = 1.
TEST(SeedTest, Before) {
  SimRun run = RunSource(kBefore);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "transferred"), ElementsAre(2.0, 2.0));
}

constexpr char kEgress[] = R"(
pool kvP { cap 100; }
pool kvD[2] { cap 100; }
stage P : delay;
stage egress[1] : ps(1);   // the prefiller's NIC
stage ingress[2] : ps(1);  // a decoder's NIC
stage D[2] : delay;
share POLICY;
workload { arrive batch(2); }
session {
  set j = serial;
  hold kvP (10) { run P (1); } lease kvP (inf);
  hold kvD[j] (10) {
    transfer on egress[0], ingress[j] (1) from kvP to kvD[j] (10);
    observe transferred = now;
    run D[j] (1);
  }
  end;
}
run { horizon 10; }
)";

// The Before with the sender's NIC in the run: both reads share the egress
// at 1/2 each from t = 1 and end at 3.0, under both policies.
TEST(SeedTest, EgressBothPolicies) {
  for (const char* policy : {"maxmin", "bottleneck"}) {
    SimRun run = RunSource(absl::StrReplaceAll(kEgress, {{"POLICY", policy}}));
    ASSERT_TRUE(run.ok) << run.errors;
    EXPECT_THAT(Samples(run.results, "transferred"), ElementsAre(3.0, 3.0)) << policy;
    // The egress carries both flows on [1, 3] at its capacity: utilisation
    // 2 / 10, present 2 * 2 / 10; each flow counts once at each stage.
    results::StageStats egress = Stage(run.results, "egress", 0);
    EXPECT_TRUE(egress.shared());
    EXPECT_DOUBLE_EQ(egress.utilisation(), 0.2);
    EXPECT_DOUBLE_EQ(egress.mean_present(), 0.4);
    EXPECT_EQ(egress.done(), 2u);
    EXPECT_DOUBLE_EQ(egress.service_sum(), 4.0);
    EXPECT_EQ(Stage(run.results, "ingress", 1).done(), 1u);
  }
}

constexpr char kThreeFlows[] = R"(
stage A : ps(1);
stage B : ps(2);
share POLICY;
workload { arrive batch(3); }
session {
  if (serial == 0) {
    run A, B (1);
    observe f1 = now;
  } else if (serial == 1) {
    run A (1);
    observe f2 = now;
  } else {
    run B (1);
    observe f3 = now;
  }
}
run { horizon 10; }
)";

// maxmin: A fills at 1/2 each for f1, f2; f3 takes the rest of B, 3/2, and
// ends at 2/3, on the clock's first nanosecond at or after it
// (0.666666667: a transfer's end is due when its work is done, not before);
// f1, f2 end at 2.
TEST(SeedTest, ThreeFlowsMaxmin) {
  SimRun run = RunSource(absl::StrReplaceAll(kThreeFlows, {{"POLICY", "maxmin"}}));
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "f1"), ElementsAre(2.0));
  EXPECT_THAT(Samples(run.results, "f2"), ElementsAre(2.0));
  ASSERT_EQ(Samples(run.results, "f3").size(), 1u);
  EXPECT_EQ(Samples(run.results, "f3")[0], 0.666666667);
}

// bottleneck: f1 = min(1/2, 2/2) = 1/2, f2 = 1/2, f3 = 2/2 = 1: f3 ends at
// 1, f1 and f2 at 2.
TEST(SeedTest, ThreeFlowsBottleneck) {
  SimRun run = RunSource(absl::StrReplaceAll(kThreeFlows, {{"POLICY", "bottleneck"}}));
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "f1"), ElementsAre(2.0));
  EXPECT_THAT(Samples(run.results, "f2"), ElementsAre(2.0));
  EXPECT_THAT(Samples(run.results, "f3"), ElementsAre(1.0));
}

// B's utilisation until t = 2/3: (1/2 + 3/2) / 2 = 1 under maxmin and
// (1/2 + 1) / 2 = 3/4 under bottleneck; present 2 on B all along.
TEST(SeedTest, ThreeFlowsUtilisationUntilTwoThirds) {
  SimOptions options;
  options.horizon = 2.0 / 3;
  for (auto [policy, want] : {std::pair{"maxmin", 1.0}, std::pair{"bottleneck", 0.75}}) {
    SimRun run = RunSource(absl::StrReplaceAll(kThreeFlows, {{"POLICY", policy}}), options);
    ASSERT_TRUE(run.ok) << run.errors;
    results::StageStats b = Stage(run.results, "B");
    EXPECT_NEAR(b.utilisation(), want, 1e-12) << policy;
    EXPECT_NEAR(b.mean_present(), 2.0, 1e-12) << policy;
    // A carries f1 and f2 at 1/2 each: full.
    EXPECT_NEAR(Stage(run.results, "A").utilisation(), 1.0, 1e-12) << policy;
  }
}

// ---------------------------------------------------- ps without also

// A ps stage outside every multi-stage run is served as before shared
// stages existed, even in a program that has some: C = ps(1) with jobs of
// work 1 and 2 at t = 0 gives each 1/2, so the first ends at 2, the second
// (1 left, alone) at 3. Same with and without the shared stages A, B.
TEST(PsTest, UnsharedPsUnchanged) {
  const std::string c = R"(
stage C : ps(1);
workload w { arrive batch(2); }
session w {
  run C (serial + 1);
  observe c = now;
}
)";
  const std::string shared = R"(
stage A : ps(1);
stage B : ps(2);
share maxmin;
workload v { arrive batch(1); }
session v { run A, B (1); }
)";
  for (const std::string& program :
       {c + "run { horizon 10; }", c + shared + "run { horizon 10; }"}) {
    SimRun run = RunSource(program);
    ASSERT_TRUE(run.ok) << run.errors;
    EXPECT_THAT(Samples(run.results, "c"), ElementsAre(2.0, 3.0));
    results::StageStats stats = Stage(run.results, "C");
    EXPECT_FALSE(stats.shared());
    // Present 2 on [0, 2), 1 on [2, 3): 5 / 10; busy 3 / 10.
    EXPECT_DOUBLE_EQ(stats.mean_present(), 0.5);
    EXPECT_DOUBLE_EQ(stats.utilisation(), 0.3);
  }
}

// phi(n) = min(present, 2): two servers' worth. Three jobs of 1 at t = 0
// share 2 (2/3 each) and end at 1.5 together.
TEST(PsTest, PhiReadsPresent) {
  SimRun run = RunSource(R"(
stage cpu : ps(min(present, 2));
workload { arrive batch(3); }
session { run cpu (1); observe t = now; }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(1.5, 1.5, 1.5));
}

// fifo(2) with serve by: session 0 (work 2) starts at once; of the others,
// keys (3 - serial) put session 2 before session 1. Each takes 1 s.
TEST(FifoTest, ServeBy) {
  SimRun run = RunSource(R"(
stage tok : fifo(2) { serve by (3 - serial); }
workload { arrive batch(3); }
session { set k = serial; run tok (2); observe done = 10 * now + k; }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  // Session 0 ends at 1, session 2 at 2, session 1 at 3.
  EXPECT_THAT(Samples(run.results, "done"), ElementsAre(10.0, 22.0, 31.0));
  results::StageStats s = Stage(run.results, "tok");
  EXPECT_EQ(s.waited(), 3u);
  EXPECT_DOUBLE_EQ(s.wait_sum(), 0 + 1 + 2);
}

// 1000 jobs arriving one event each on a ps stage leave ~1000 stale
// completion events far in the future, which the engine drops as the queue
// grows; the 300 live delay completions pending meanwhile must all survive.
// The short job starts at t = 1 among 1001 jobs on ps(1000): it is served
// at 1000/1001 and ends at 1 + 1.001. Each delay job of 1 + k/100 s ends
// on time.
TEST(EngineTest, StaleEventsDropped) {
  SimRun run = RunSource(R"(
stage S : ps(1000);
stage D : delay;
workload long { arrive batch(1000); }
workload short { arrive batch(1); }
workload waits { arrive batch(300); }
session long { run S (1e9); }
session short { run D (1); run S (1); observe short = now; }
session waits {
  set k = serial - 1001;
  run D (1 + k / 100);
  observe late = now - 1 - k / 100;
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  ASSERT_EQ(Samples(run.results, "short").size(), 1u);
  EXPECT_NEAR(Samples(run.results, "short")[0], 2.001, 1e-9);
  std::vector<double> late = Samples(run.results, "late");
  EXPECT_EQ(late.size(), 300u);
  for (double l : late) EXPECT_NEAR(l, 0, 1e-12);
}

// ------------------------------------------------------------- sessions

// A run of work 0 completes at once, without an event, and counts as done
// with a service of 0.
TEST(SessionTest, ZeroWorkRun) {
  SimRun run = RunSource(R"(
stage S : fifo(1);
stage D : delay;
workload { arrive batch(1); }
session { run D (1); run S (0); observe t = now; }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(1.0));
  EXPECT_EQ(Stage(run.results, "S").done(), 1u);
  EXPECT_EQ(Stage(run.results, "S").service_sum(), 0);
  // One arrival, one delay completion: the zero run took no event.
  EXPECT_EQ(run.results.replication(0).events(), 2u);
}

// The same-instant guards (SimLimits): a repeat over statements that take
// no time, and arrivals with no gap, stop at the bound with its error. The
// bounds are lowered to 1,000 here (the defaults, 10^8, take a second).
TEST(SessionTest, SameInstantGuards) {
  SimOptions options;
  options.limits.statements_per_instant = 1000;
  SimRun run = RunSource(R"(
stage P : ps(1);
workload { arrive batch(1); }
session { repeat (1e18) { run P (0); } }
run { horizon 10; }
)",
                         options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("error: at t=0, session 0: the session ran 1000 statements "
                                    "at one instant without waiting"));
  options = {};
  options.limits.events_per_instant = 1000;
  run = RunSource(R"(
stage D : delay;
workload { arrive renewal(0); }
session { run D (0); }
run { horizon 10; }
)",
                  options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("more than 1000 events at one instant"));
}

// An event past the clock's end (2^63 ns, 9.22e9 s) with no horizon before
// it: a service of 1e12 s. It used to end the run at the last event on the
// clock, its sessions in progress, exit 0, as if it had drained; now the
// run fails at the stage. A horizon within the clock's range ends the run
// before the event, as any horizon does; so does a drain run whose events
// all fit (1e9 s).
TEST(LimitTest, PastTheClock) {
  const std::string program = R"(
stage S : fifo(1);
workload { arrive poisson(1); limit 3; }
session { run S (Work); observe t = now - arrival; }
)";
  SimRun run = RunSource("param Work = 1e12;" + program + "run { seed 1; }\n");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("error: at t="));
  EXPECT_THAT(run.errors, HasSubstr("the next event is past the end of the simulated clock"));
  EXPECT_THAT(run.errors, HasSubstr("the latest event: stage 'S'"));
  run = RunSource("param Work = 1e12;" + program + "run { seed 1; horizon 100; }\n");
  EXPECT_TRUE(run.ok) << run.errors;
  run = RunSource("param Work = 1e9;" + program + "run { seed 1; }\n");
  EXPECT_TRUE(run.ok) << run.errors;
  // The same over shared stages, whose events have one target for the
  // group: the message names a flow's end (it was cut off after "a shared
  // stage's").
  run = RunSource(R"(
stage A : ps(1);
stage B : ps(2);
share maxmin;
workload { arrive batch(1); }
session { run A, B (1e12); }
run { seed 1; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("the latest event: a flow ending over the shared stages"));
}

// A step shorter than the clock's tick: 0.4 ns rounds to 0 ticks, so the
// step would end at the instant it began, and the stage would step forever
// there. It is refused at the first step, naming the stage; 0.6 ns rounds
// to one tick and runs (two decode steps of one token: t = 2 ns).
TEST(SessionTest, StepShorterThanATick) {
  SimRun run = RunSource(R"(
stage E : step(0.4e-9) { seqs 4; tokens 4; }
workload { arrive batch(1); }
session { run E decode (2); observe t = now; }
run { horizon 10; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("tau of 'E' is 4e-10"));
  EXPECT_THAT(run.errors, HasSubstr("too small to advance the clock"));
  run = RunSource(R"(
stage E : step(0.6e-9) { seqs 4; tokens 4; }
workload { arrive batch(1); }
session { run E decode (2); observe t = now; }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(2e-9));
}

// if/else, repeat, set, end: 1 + 2 + 3 = 6 by a repeat; the observe after
// `end` never runs.
TEST(SessionTest, ControlFlow) {
  SimRun run = RunSource(R"(
workload { arrive batch(1); }
session {
  set i = 0;
  set sum = 0;
  repeat (3.7) { set i = i + 1; set sum = sum + i; }
  repeat (-1) { set sum = 1000; }
  if (sum > 5) { observe sum = sum; } else { observe sum = -1; }
  end;
  observe never = 1;
}
run { horizon 1; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "sum"), ElementsAre(6.0));
  EXPECT_TRUE(Samples(run.results, "never").empty());
  EXPECT_EQ(run.results.replication(0).session(0).ended(), 1u);
}

// choose picks the index minimising the key, ties to the lowest. Session
// 0 goes to S[1] (set by hand); session 1 chooses among queues 0, 1, 0:
// index 0 (the lowest of the tie); session 2 among 1, 1, 0: index 2.
TEST(SessionTest, ChooseByQueue) {
  SimRun run = RunSource(R"(
stage S[3] : delay;
workload { arrive batch(3); }
session {
  if (serial == 0) { set i = 1; } else { choose i in S by queue(S[i]); }
  observe pick = i;
  run S[i] (1);
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "pick"), ElementsAre(1.0, 0.0, 2.0));
}

// serial numbers arrivals in time order, ties in workload declaration
// order: a at 0, 1; b at 0, 0.5, 1 give a = 0, 3 and b = 1, 2, 4.
TEST(ArrivalTest, SerialTiesInDeclarationOrder) {
  SimRun run = RunSource(R"(
workload a { arrive periodic(1); limit 2; }
workload b { arrive periodic(0.5); limit 3; }
session a { observe a = serial; }
session b { observe b = serial; }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "a"), ElementsAre(0.0, 3.0));
  EXPECT_THAT(Samples(run.results, "b"), ElementsAre(1.0, 2.0, 4.0));
}

// periodic(1) and horizon 3: arrivals at 0, 1, 2; none at the horizon.
// batch(n) all at 0; limit stops a workload.
TEST(ArrivalTest, HorizonAndLimit) {
  SimRun run = RunSource(R"(
workload p { arrive periodic(1); }
workload q { arrive batch(5); limit 3; }
workload r { arrive poisson(100); limit 7; }
session p { observe p = arrival; }
session q { observe q = arrival; }
session r { }
run { horizon 3; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "p"), ElementsAre(0.0, 1.0, 2.0));
  EXPECT_THAT(Samples(run.results, "q"), ElementsAre(0.0, 0.0, 0.0));
  // 7 arrivals at rate 100 come long before t = 3.
  EXPECT_EQ(run.results.replication(0).session(2).arrived(), 7u);
}

// Poisson arrivals come after an exponential gap: none at t = 0, and their
// number over [0, 1000) at rate 2 is near 2000 (sd sqrt(2000) ~ 45).
TEST(ArrivalTest, PoissonAndRenewal) {
  SimRun run = RunSource(R"(
workload p { arrive poisson(2); }
workload r { arrive renewal(uniform(1, 3)); }
session p { observe p = arrival; }
session r { observe r = arrival; }
run { horizon 1000; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  std::vector<double> p = Samples(run.results, "p");
  EXPECT_GT(p.front(), 0.0);
  EXPECT_NEAR(p.size(), 2000, 5 * 45);
  // Renewal gaps of mean 2 (sd 0.577): about 500 arrivals, the first after
  // one gap, between 1 and 3.
  std::vector<double> r = Samples(run.results, "r");
  EXPECT_GE(r.front(), 1.0);
  EXPECT_LE(r.front(), 3.0);
  EXPECT_NEAR(r.size(), 500, 5 * std::sqrt(500 * 0.577 * 0.577 / 4));
}

// Warmup: periodic arrivals at 0, 1, ..., 4, each 0.5 s on a delay. With
// warmup 2.5 the observations at 0.5 and 1.5 are dropped; the stage counts
// the 3 runs ending at or after 2.5 and averages present over [2.5, 5]:
// jobs present on [3, 3.5) and [4, 4.5): 1 / 2.5.
TEST(RunTest, Warmup) {
  SimRun run = RunSource(R"(
stage D : delay;
workload { arrive periodic(1); }
session { run D (0.5); observe t = now; }
run { horizon 5; warmup 2.5; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(2.5, 3.5, 4.5));
  results::StageStats d = Stage(run.results, "D");
  EXPECT_EQ(d.done(), 3u);
  EXPECT_DOUBLE_EQ(d.mean_present(), 0.4);
  EXPECT_EQ(run.results.warmup(), 2.5);
}

// -D overrides a param; the command line overrides the run block.
TEST(RunTest, DefinesAndOverrides) {
  const char* program = R"(
param W = 2;
stage D : delay;
workload { arrive batch(1); }
session { run D (W); observe t = now; }
run { horizon 10; seed 3; replications 2; }
)";
  SimOptions options;
  options.defines = {{"W", 4}};
  options.seed = 9;
  options.replications = 3;
  SimRun run = RunSource(program, options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(4.0));
  EXPECT_EQ(run.results.seed(), 9u);
  EXPECT_EQ(run.results.replications(), 3u);
  EXPECT_EQ(run.results.replication_size(), 3);
}

TEST(RunTest, DefineOfAnArraySizeIsRefused) {
  const char* program = R"(
param N = 2;
stage D[N] : delay;
workload { arrive batch(1); }
session { run D[0] (1); }
run { horizon 10; }
)";
  SimOptions options;
  options.defines = {{"N", 3}};
  SimRun run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("param 'N' sizes array 'D'"));
  EXPECT_THAT(run.errors, HasSubstr("serq-link"));
  // The value it was linked with is accepted (serq run passes -D to both).
  options.defines = {{"N", 2}};
  EXPECT_TRUE(RunSource(program, options).ok);
  options.defines = {{"M", 2}};
  run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("no param 'M'"));
}

// A param's range holds whatever gives its value: the program's, checked
// when linked, and an override at the simulator's -D, which a sweep or a
// fit sets without relinking. An end may read other params, overridden
// too: Ep 4 makes the range [0.25, 1].
TEST(RunTest, DefineOutsideAParamsRangeIsRefused) {
  const char* program = R"(
param Ep = 2;
param B = 1 in [1 / Ep, 1];
stage D : delay;
workload { arrive batch(1); }
session { run D (B); observe t = now; }
run { horizon 10; }
)";
  SimOptions options;
  options.defines = {{"B", 0.5}};
  SimRun run = RunSource(program, options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(0.5));
  options.defines = {{"B", 0.3}};
  run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("3:11: error: -D B=0.3 is outside the param's range [0.5, 1]"));
  options.defines = {{"B", 0.3}, {"Ep", 4}};
  run = RunSource(program, options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(0.3));
  // An end moved past the other leaves nothing in the range; one without a
  // value says whose range it ends (1 / Ep at -D Ep=0).
  options.defines = {{"Ep", 0.5}};
  run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors,
              HasSubstr("3:19: error: the range of param 'B' holds nothing: its low end 2 is not at most its high end 1"));
  options.defines = {{"Ep", 0}};
  run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("3:19: error: the low end of param 'B''s range: division by zero"));
}

// A param refused for its range makes what reads it silent, as the link
// does: B's range [A, 8] at -D A=9 holds nothing, and is not said.
TEST(RunTest, AParamRefusedForItsRangeSilencesItsReaders) {
  const char* program = R"(
param A = 2 in [1, 4];
param B = 3 in [A, 8];
stage D : delay;
workload { arrive batch(1); }
session { run D (B); }
run { horizon 10; }
)";
  SimOptions options;
  options.defines = {{"A", 9}};
  SimRun run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("2:11: error: -D A=9 is outside the param's range [1, 4]"));
  EXPECT_THAT(run.errors, Not(HasSubstr("'B'"))) << run.errors;
  // Either alone is said.
  options.defines = {{"B", 9}};
  run = RunSource(program, options);
  EXPECT_THAT(run.errors, HasSubstr("3:11: error: -D B=9 is outside the param's range [2, 8]"));
}

// An override that leaves another param without a value is said at that
// param's value, as the link says it.
TEST(RunTest, DefineThatBreaksAnotherParamIsSaidThere) {
  const char* program = R"(
param A = 2;
param C = 1 / A;
stage D : delay;
workload { arrive batch(1); }
session { run D (C); }
run { horizon 10; }
)";
  SimOptions options;
  options.defines = {{"A", 0}};
  SimRun run = RunSource(program, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("3:13: error: -D A=0: division by zero"));
}

// ------------------------------------------------------------ step stages
// The station's rules are tested alone in stage_test; these go through the
// engine: state functions, growth of a transferred KV, the errors.

// Three prefills of 2 tokens at 0 on step(1) { seqs 2; }: jobs 0 and 1 run
// [0, 1), job 2 [1, 2). A probe looks at 0.5, 1 and 1.5:
//   0.5: queue 3, busy 2, work 6 (no token done yet), price 0.
//   1:   the step's end (scheduled at 0) has run before the probe's (at
//        0.5): jobs 0 and 1 are done, and the next step starts at the end
//        of the instant, so the probe sees queue 1, busy 0, work 2, price 1
//        (two services of one step).
//   1.5: queue 1, busy 1, work 2, price 1.
TEST(StepTest, StateFunctions) {
  SimRun run = RunSource(R"(
stage E : step(1) { seqs 2; }
stage Z : delay;
workload main { arrive batch(3); }
workload probe { arrive batch(1); }
session main { run E prefill (2); observe done = now; }
session probe {
  repeat (3) {
    run Z (0.5);
    observe q = queue(E);
    observe b = busy(E);
    observe w = work(E);
    observe p = price(E);
  }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "done"), ElementsAre(1.0, 1.0, 2.0));
  EXPECT_THAT(Samples(run.results, "q"), ElementsAre(3, 1, 1));
  EXPECT_THAT(Samples(run.results, "b"), ElementsAre(2, 0, 1));
  EXPECT_THAT(Samples(run.results, "w"), ElementsAre(6, 2, 2));
  EXPECT_THAT(Samples(run.results, "p"), ElementsAre(0, 1, 1));
}

// The KV a transfer loads is the context of the decode run that grows it.
// Prefill 20 on P: tau 1 + 0.01 * 20 = 1.2. The transfer of 20 on ps(10)
// takes 2 s, to 3.2, and loads 19 into kvD (the last token's KV is made by
// the first decode step). Decode 4 tokens growing kvD: the hold of 24 has
// room, so no unit is taken beyond it; contexts 20, 21, 22, 23 give steps
// of 0.70, 0.71, 0.72, 0.73: done at 3.2 + 2.86 = 6.06. kvD's content
// ends at 19 + 4 = 23, its hold at 24 units all along.
TEST(StepTest, DecodeGrowsTheTransferredKV) {
  SimRun run = RunSource(R"(
pool kvP { cap 100; }
pool kvD { cap 100; }
stage P : step(1 + 0.01 * tokens);
stage link : ps(10);
stage D : step(0.5 + 0.01 * context);
workload { arrive batch(1); }
session {
  set prompt = 20;
  hold kvP (prompt) { run P prefill (prompt); } lease kvP (inf);
  hold kvD (prompt + 4) {
    transfer (prompt) from kvP to kvD (prompt - 1);
    observe transferred = now;
    run D decode (4) growing kvD;
    observe done = now;
    observe loaded = held(kvD);
  }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "transferred"), ElementsAre(3.2));
  ASSERT_EQ(Samples(run.results, "done").size(), 1u);
  EXPECT_NEAR(Samples(run.results, "done")[0], 6.06, 1e-12);
  EXPECT_THAT(Samples(run.results, "loaded"), ElementsAre(24));
  results::PoolStats kvd = Pool(run.results, "kvD");
  EXPECT_EQ(kvd.max_used(), 24);
  // Content 19 on [3.2, 3.2 + 0.7), then 20... : mean loaded over [0, 10]
  // is (20 * 0.70 + 21 * 0.71 + 22 * 0.72 + 23 * 0.73) / 10, the context
  // of each step being the content during it.
  EXPECT_NEAR(kvd.mean_loaded(), (20 * 0.70 + 21 * 0.71 + 22 * 0.72 + 23 * 0.73) / 10, 1e-12);
}

// Same program, seed and flags: the same bytes. Another seed: other bytes.
// Replication r does not depend on how many replications run.
TEST(RunTest, Deterministic) {
  const char* program = R"(
stage S : fifo(1);
workload { arrive poisson(0.8); }
session { run S (exponential(1)); observe t = now - arrival; }
run { horizon 200; replications 2; }
)";
  SimRun a = RunSource(program), b = RunSource(program);
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(EncodeMessage(a.results, Format::kJson), EncodeMessage(b.results, Format::kJson));
  EXPECT_EQ(EncodeMessage(a.results, Format::kBinary), EncodeMessage(b.results, Format::kBinary));
  SimOptions other;
  other.seed = 2;
  SimRun c = RunSource(program, other);
  EXPECT_NE(Samples(a.results, "t"), Samples(c.results, "t"));
  EXPECT_NE(Samples(a.results, "t", 0), Samples(a.results, "t", 1));
  SimOptions three;
  three.replications = 3;
  SimRun d = RunSource(program, three);
  EXPECT_EQ(Samples(a.results, "t", 1), Samples(d.results, "t", 1));
}

// ------------------------------------------------------------------ pools

// cap 10: session 0 holds 8 for 2 s; session 1 asks 5 and waits; session 2
// asks 1, which fits, but waits behind session 1 (no overtaking). At t = 2
// both are admitted, 1 then 2.
TEST(PoolTest, AdmissionWithoutOvertaking) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage D : delay;
workload { arrive batch(3); }
session {
  set k = serial;
  set a = 8;
  if (k == 1) { set a = 5; } else if (k == 2) { set a = 1; }
  hold kv (a) { observe admitted = 10 * now + k; run D (2); }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "admitted"), ElementsAre(0.0, 21.0, 22.0));
  results::PoolStats kv = Pool(run.results, "kv");
  EXPECT_EQ(kv.admitted(), 3u);
  EXPECT_DOUBLE_EQ(kv.wait_sum(), 4.0);
  // used: 8 on [0, 2), 6 on [2, 4): 28 / 10.
  EXPECT_DOUBLE_EQ(kv.mean_used(), 2.8);
  EXPECT_EQ(kv.max_used(), 8);
}

// A hold over two pools takes both at once or waits: session 0 holds 8 of
// A for 1 s; session 1 wants 5 of A and 5 of B and takes nothing of B
// meanwhile; session 2 wants 6 of B, which is free, but waits behind
// session 1 in B's line. At t = 1 session 1 gets both (B then has 5 free),
// and session 2 waits for B until session 1 returns it at t = 2.
TEST(PoolTest, MultiPoolHold) {
  SimRun run = RunSource(R"(
pool A { cap 10; }
pool B { cap 10; }
stage D : delay;
workload { arrive batch(3); }
session {
  set k = serial;
  if (k == 0) {
    hold A (8) { run D (1); }
  } else if (k == 1) {
    hold A (5), B (5) { observe got = 10 * now + k; observe freeB = free(B); run D (1); }
  } else {
    hold B (6) { observe got = 10 * now + k; }
  }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "got"), ElementsAre(11.0, 22.0));
  EXPECT_THAT(Samples(run.results, "freeB"), ElementsAre(5.0));
}

// A lease keeps the units for its duration: session 0 holds 6 of 10 for
// 1 s and leases them for 3 s more; session 1 asks 6 and gets them when
// the lease expires at t = 4.
TEST(PoolTest, LeaseExpiry) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage D : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) {
    hold kv (6) { run D (1); } lease kv (3);
    observe held = held(kv);
  } else {
    hold kv (6) { observe got = now; }
  }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "got"), ElementsAre(4.0));
  EXPECT_THAT(Samples(run.results, "held"), ElementsAre(6.0));
  EXPECT_EQ(Pool(run.results, "kv").expired(), 1u);
}

// Eviction in key order: leases of 3 units made at t = 0, 1, 2 by
// sessions with p = 2, 1, 3 fill a pool of cap 9. Session 3 asks 5 at
// t = 3: evict by (p) ends the lease of p = 1 then p = 2 (6 free);
// evict by (since) ends the oldest two, p = 2 then p = 1. Each observes
// whether its lease still stands at t = 4; session 3 observes when it got
// in (at once: eviction makes room without waiting).
TEST(PoolTest, EvictionOrder) {
  const char* program = R"(
pool kv { cap 9; evict by KEY; }
stage D : delay;
workload { arrive periodic(1); limit 4; }
session {
  set k = serial;
  set p = 2;
  if (k == 1) { set p = 1; } else if (k == 2) { set p = 3; }
  if (k < 3) {
    hold kv (3) { } lease kv (inf);
    run D (4 - now);
    observe alive = 10 * k + held(kv) / 3;
  } else {
    hold kv (5) { observe got = now; }
  }
}
run { horizon 10; }
)";
  SimRun by_p = RunSource(absl::StrReplaceAll(program, {{"KEY", "(p)"}}));
  ASSERT_TRUE(by_p.ok) << by_p.errors;
  EXPECT_THAT(Samples(by_p.results, "got"), ElementsAre(3.0));
  // Session 0 (p = 2) and 1 (p = 1) evicted, session 2 (p = 3) stays.
  EXPECT_THAT(Samples(by_p.results, "alive"), ElementsAre(0.0, 10.0, 21.0));
  EXPECT_EQ(Pool(by_p.results, "kv").evicted(), 2u);

  SimRun by_since = RunSource(absl::StrReplaceAll(program, {{"KEY", "(since)"}}));
  ASSERT_TRUE(by_since.ok) << by_since.errors;
  // The two oldest (sessions 0 and 1) go: the same ones here; make the
  // key decide differently: by (-since), the newest go first.
  EXPECT_THAT(Samples(by_since.results, "alive"), ElementsAre(0.0, 10.0, 21.0));
  SimRun newest = RunSource(absl::StrReplaceAll(program, {{"KEY", "(0 - since)"}}));
  ASSERT_TRUE(newest.ok) << newest.errors;
  EXPECT_THAT(Samples(newest.results, "alive"), ElementsAre(1.0, 10.0, 20.0));
  // A tuple: (p > 1, since): p = 1 first, then the oldest of the others.
  SimRun tuple = RunSource(absl::StrReplaceAll(program, {{"KEY", "(p > 1, 0 - since)"}}));
  ASSERT_TRUE(tuple.ok) << tuple.errors;
  // Keys: session 0 (1, 0), session 1 (0, -1), session 2 (1, -2): session 1
  // goes, then session 2 (the smaller second key).
  EXPECT_THAT(Samples(tuple.results, "alive"), ElementsAre(1.0, 10.0, 20.0));
}

// release ends the oldest lease on the pool; inside a hold it returns the
// hold early. Releasing a lease the pool evicted is no error.
TEST(PoolTest, Release) {
  SimRun run = RunSource(R"(
pool kv { cap 10; evict by (since); }
stage D : delay;
workload { arrive batch(1); }
session {
  hold kv (1) { } lease kv (inf);
  run D (1);
  hold kv (2) { } lease kv (inf);
  observe held = held(kv);
  release kv;
  observe held = held(kv);
  hold kv (4) {
    observe held = held(kv);
    release kv;
    observe held = held(kv);
    observe used = used(kv);
  }
  hold kv (9) { }
  release kv;
  observe used = used(kv);
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  // Leases of 1 then 2: 3; the oldest (1) goes: 2; hold 4 more: 6; the
  // hold returned early: 2 again, used 2. The hold of 9 does not fit next
  // to the lease of 2 (cap 10): it evicts it. Releasing the evicted lease
  // is quiet: used 0.
  EXPECT_THAT(Samples(run.results, "held"), ElementsAre(3.0, 2.0, 6.0, 2.0));
  EXPECT_THAT(Samples(run.results, "used"), ElementsAre(2.0, 0.0));
}

// load: a hold's size is max(amount, content); growing it beyond the
// amount takes free units or waits. cap 10: session 0 holds 4 and loads 6
// at t = 1 (size 6); session 1 holds 4 from t = 0 to 3. At t = 1 session 0
// loads 2 more: size 8 needs 2 more units, 0 are free until t = 3.
TEST(PoolTest, LoadGrowthWaits) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage D : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) {
    hold kv (4) {
      run D (1);
      load kv (6);
      observe size = held(kv);
      load kv (2);
      observe grown = now;
      observe size = held(kv);
      run D (7);
    }
  } else {
    hold kv (4) { run D (3); }
  }
}
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "size"), ElementsAre(6.0, 8.0));
  EXPECT_THAT(Samples(run.results, "grown"), ElementsAre(3.0));
  // Content 6 on [1, 3), 8 on [3, 10) (the run of 7 s ends at the
  // horizon): (12 + 56) / 10.
  EXPECT_DOUBLE_EQ(Pool(run.results, "kv").mean_loaded(), 6.8);
}

// Issue 8's bug: a hold that becomes a lease leaves the line blocked. kv
// has 10 units and evicts by since. Session 0 holds 8 from t = 0 and runs
// 5 s; session 1 runs 1 s, then asks 5 at t = 1: 2 free, no lease, so it
// waits. At t = 5 session 0's hold becomes a lease: its 8 units are
// reclaimable, so session 1, first in line, is admitted then by evicting
// it (it used to be a deadlock). Its run of 1 s ends at 6.
TEST(PoolTest, HoldBecomingALeaseAdmitsTheLine) {
  SimRun run = RunSource(R"(
pool kv { cap 10; evict by (since); }
stage S : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) { hold kv (8) { run S (5); } lease kv (inf); }
  else { run S (1); hold kv (5) { observe b_admitted = now; run S (1); observe b_done = now; } }
}
run { horizon 100; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "b_admitted"), ElementsAre(5.0));
  EXPECT_THAT(Samples(run.results, "b_done"), ElementsAre(6.0));
  EXPECT_EQ(Pool(run.results, "kv").evicted(), 1u);
  // Waits 0 (session 0) + 4 (session 1, from 1 to 5).
  EXPECT_DOUBLE_EQ(Pool(run.results, "kv").wait_sum(), 4);
}

// Its relatives: the one waiting is a load's growth, and a decode job's
// stalled growth at a step stage. Session 1 holds 1 with content 0; at
// t = 1 it loads 3 (size 3, 2 more units, 1 free): it waits until the
// lease at t = 5 is evicted. Session 2's decode job holds 1 and grows a
// unit a token at `E : step(1)`: token 1 at t = 0 fills its hold (content
// 1, no unit), token 2 at t = 1 needs a unit; session 1's load (in line
// since t = 1, before the step's start at the end of the instant) goes
// first, so the job stalls. At t = 5 the lease of 8 is evicted: session
// 1's growth takes 2 (used 1 + 3 = 4), the stalled token takes 1; the job
// steps at [5, 6) and [6, 7) for tokens 2 and 3: done at 7.
TEST(PoolTest, HoldBecomingALeaseGrantsGrowths) {
  SimRun run = RunSource(R"(
pool kv { cap 10; evict by (since); }
stage S : delay;
stage E : step(1);
workload { arrive batch(3); }
session {
  if (serial == 0) { hold kv (8) { run S (5); } lease kv (inf); }
  if (serial == 1) { hold kv (1) { run S (1); load kv (3); observe loaded = now; run S (10); } }
  if (serial == 2) { hold kv (1) { run E decode (3) growing kv; observe decoded = now; } }
}
run { horizon 100; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "loaded"), ElementsAre(5.0));
  EXPECT_THAT(Samples(run.results, "decoded"), ElementsAre(7.0));
  EXPECT_EQ(Pool(run.results, "kv").evicted(), 1u);
}

// Ending a session releases its holds, leases stay.
TEST(PoolTest, EndReleasesHoldsNotLeases) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
pool net { cap 1; }
workload a { arrive batch(1); }
workload b { arrive periodic(1); limit 2; }
session a {
  hold kv (2) { } lease kv (inf);
  hold net (1) { hold kv (5) { end; } }
}
session b { observe used = used(kv); observe net = used(net); }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  // At t = 0 session b (serial 1) runs after a ended: kv 2 (the lease),
  // net 0; the same at t = 1.
  EXPECT_THAT(Samples(run.results, "used"), ElementsAre(2.0, 2.0));
  EXPECT_THAT(Samples(run.results, "net"), ElementsAre(0.0, 0.0));
}

// ------------------------------------------------------------------ traces

class TraceTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
    std::ofstream(dir + "/" + name) << text;
    return dir;
  }
};

// One session per row; `time` is the arrival, the other columns set
// variables of their name (extra columns are ignored).
TEST_F(TraceTest, RowsSetVariables) {
  std::string dir = Write("arrivals.csv", "time,prompt,other\n0.5,10,1\n1.5,20,2\r\n1.5,30,3\n");
  SimOptions options;
  options.data_dir = dir;
  SimRun run = RunSource(R"(
workload chat { arrive trace("arrivals.csv"); limit 2; }
session chat { observe p = prompt + 1000 * arrival; }
run { horizon 10; }
)", options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "p"), ElementsAre(510.0, 1520.0));
}

TEST_F(TraceTest, MissingColumnAndBadRows) {
  SimOptions options;
  options.data_dir = Write("nocol.csv", "time,other\n0,1\n");
  const char* program = R"(
workload chat { arrive trace("FILE"); }
session chat { observe p = prompt; }
run { horizon 10; }
)";
  SimRun run = RunSource(absl::StrReplaceAll(program, {{"FILE", "nocol.csv"}}), options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("nocol.csv' has no column 'prompt', which session 'chat' reads"));
  Write("short.csv", "time,prompt\n0,1\n1\n");
  run = RunSource(absl::StrReplaceAll(program, {{"FILE", "short.csv"}}), options);
  EXPECT_THAT(run.errors, HasSubstr("short.csv:3: error: expected 2 fields, found 1"));
  Write("nan.csv", "time,prompt\n0,x\n");
  run = RunSource(absl::StrReplaceAll(program, {{"FILE", "nan.csv"}}), options);
  EXPECT_THAT(run.errors, HasSubstr("nan.csv:2: error: 'x' in column 'prompt' is not a finite number"));
  Write("back.csv", "time,prompt\n2,1\n1,1\n");
  run = RunSource(absl::StrReplaceAll(program, {{"FILE", "back.csv"}}), options);
  EXPECT_THAT(run.errors, HasSubstr("back.csv:3: error: time 1 is before the previous row's 2"));
  run = RunSource(absl::StrReplaceAll(program, {{"FILE", "absent.csv"}}), options);
  EXPECT_THAT(run.errors, HasSubstr("cannot open trace"));
}

}  // namespace
}  // namespace serq

namespace serq::testing {
namespace {

// The window's token counts (docs/report.md §Throughput). Three sessions
// at 0 on step(1): the three prefills of 5 tokens share the step [0, 1),
// then the decodes of 3 tokens the steps [1, 2), [2, 3), [3, 4). Over
// the horizon 10 every run completes: 3 prefill runs, 15 prefill tokens,
// 9 decode tokens. With the horizon 2.5 only the prefills have completed.
// `gpus G` after -D G=4 is 4 in the results.
TEST(ThroughputTest, TokensOfTheRunsCompletedInTheWindow) {
  const char* program = R"(
param G = 2;
stage E : step(1) { seqs 4; }
workload main { arrive batch(3); }
session main { run E prefill (5); run E decode (3); }
run { horizon HORIZON; gpus G; }
)";
  auto run = [&](const std::string& horizon, SimOptions options = {}) {
    return RunSource(absl::StrReplaceAll(program, {{"HORIZON", horizon}}), options);
  };
  SimRun all = run("10");
  ASSERT_TRUE(all.ok) << all.errors;
  const results::SessionStats& s = all.results.replication(0).session(0);
  EXPECT_EQ(s.ended_window(), 3u);
  EXPECT_EQ(s.prefills_window(), 3u);
  EXPECT_EQ(s.prefill_tokens_window(), 15);
  EXPECT_EQ(s.decode_tokens_window(), 9);
  EXPECT_EQ(all.results.gpus(), 2u);

  SimOptions four;
  four.defines = {{"G", 4}};
  SimRun part = run("2.5", four);
  ASSERT_TRUE(part.ok) << part.errors;
  const results::SessionStats& p = part.results.replication(0).session(0);
  EXPECT_EQ(p.ended_window(), 0u);
  EXPECT_EQ(p.prefills_window(), 3u);
  EXPECT_EQ(p.prefill_tokens_window(), 15);
  EXPECT_EQ(p.decode_tokens_window(), 0);
  EXPECT_EQ(part.results.gpus(), 4u);
}

}  // namespace
}  // namespace serq::testing
