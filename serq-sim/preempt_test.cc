// The LLM engine as vLLM runs it (docs/simulation.md §The LLM engine as vLLM
// runs it; attention and interp: docs/language.md §3.3 and §4; one sample a
// token: §5.6), end to end: growing prefill runs, `preempt by`, `attention`,
// `interp`, per-token `observe`. Every expected value is derived by hand in the
// comments (the docs' examples again, and our own).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/random/random.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::Pool;
using ::serq::testing::ReadAll;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::serq::testing::TempPath;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SimOptions Checked() {
  SimOptions o;
  o.check_pools = true;
  return o;
}

// docs/simulation.md §The LLM engine as vLLM runs it: its program: two sessions,
// kv of 10, a step of 1 s.
constexpr char kSpec[] = R"(
pool kv { cap 10; }
stage E : step(1) { preempt by KEY; }
workload { arrive batch(2); }
session {
  hold kv (0) {
    run E prefill (4) growing kv;
    run E decode (4) growing kv observe itl;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)";

std::string Spec(absl::string_view key) {
  return absl::StrReplaceAll(kSpec, {{"KEY", key}});
}

// docs/simulation.md §The LLM engine as vLLM runs it, by (-since). A = serial 0, B = serial 1.
//   t = 0: both never ran; both prefill 4 (content 4 and 4, used 8).
//   t = 1: both prefills complete; each decode continues its job (running
//          at once, since 0): A 5, B 5 (used 10). Tokens at 2: itl 1, 1.
//   t = 2: A's growth does not fit; victims are the running jobs growing
//          kv: A and B, both key -0 and since 0; the tie goes to the one
//          later in the batch order, B (not yet in the batch). B's 5
//          units return, A grows to 6. B waits as a recompute of c + 1 =
//          6 tokens, then r - 1 = 2 decode tokens (it had 3 left). No
//          waiting job joins this step.
//   t = 3, 4: A decodes (7, 8); B's chunk of 6 does not fit (3, 2 free).
//   t = 5: A's 4th token ends its run: e2e(A) = 5; its hold returns 8.
//          B recomputes 6 in [5, 6): that step makes its 2nd token (itl
//          6 - 2 = 4), then decodes at [6, 7) and [7, 8): e2e(B) = 8.
// preempted 1, recomputed 6, steps at t = 0..7: 8.
TEST(PreemptTest, SpecFcfs) {
  SimRun run = RunSource(Spec("(-since)"), Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 8.0));
  // Per-token (docs/language.md §5.6), in time order: A and B at 2, A at 3, 4, 5,
  // B at 6 (4 s after its previous token), 7, 8.
  EXPECT_THAT(Samples(run.results, "itl"), ElementsAre(1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0));
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 1u);
  EXPECT_EQ(e.recomputed(), 6u);
  EXPECT_EQ(e.steps(), 8u);
  EXPECT_EQ(e.done(), 4u);
}

// docs/simulation.md §The LLM engine as vLLM runs it, by (serial): at t = 2 the
// first victim is A (key 0), the growing job itself: A is preempted (content 5:
// recompute 6, then 2 decode tokens), no later running job joins, the batch is
// empty, so it is formed again at once: B grows to 6 in the 5 units free; A's 6
// tokens do not fit in the 4 left. B decodes at [2, 5): e2e(B) = 5; A recomputes
// at [5, 6) and decodes at [6, 8): e2e(A) = 8. Still 8 steps (the empty batch is
// not a step).
TEST(PreemptTest, SpecSelfPreemption) {
  SimRun run = RunSource(Spec("(serial)"), Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 8.0));  // B at 5, A at 8
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 1u);
  EXPECT_EQ(e.recomputed(), 6u);
  EXPECT_EQ(e.steps(), 8u);
}

// docs/simulation.md §The LLM engine as vLLM runs it: without preempt by, holds
// of 4 (the prompt reserved, the output grown): both prefill into their amounts,
// decode to 5 and 5 at t = 1 (used 10), and both stall at t = 2: the deadlock
// error, as before.
TEST(PreemptTest, SpecWithoutPreemptDeadlocks) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage E : step(1);
workload { arrive batch(2); }
session {
  hold kv (4) {
    run E prefill (4) growing kv;
    run E decode (4) growing kv;
  }
}
run { horizon 100; }
)");
  EXPECT_FALSE(run.ok);
  // Both stall at t = 2 (content 5 each, used 10 of 10), each held up by
  // the other; the run stops there.
  EXPECT_THAT(run.errors,
              HasSubstr("at t=2, session 0: deadlock: its next token on 'E' waits for a unit of "
                        "'kv' since t=2; 'kv' has 0 units free of 10 units, held by session 0 (5 "
                        "units, this session); session 1 (5 units; its next token on 'E' waits "
                        "for a unit of 'kv' at 8:5)"));
  EXPECT_THAT(run.errors, HasSubstr("at t=2, session 1: deadlock"));
  EXPECT_THAT(run.errors, HasSubstr("the run stops at t=2"));
}

// A victim already placed in the batch: cap 11, by (serial). As in the
// spec until t = 1 (A 5, B 5, used 10). t = 2: A grows to 6 (used 11) and
// is in the batch; B's growth does not fit; the first victim is A (key 0),
// already in the batch: it leaves it, its unit for this step is given
// back (content 5 when preempted: the trace says so), its hold empties
// (used 5), B grows to 6. A recomputes 5 + 1 = 6, then 2 decode tokens.
// B decodes at [2, 5): e2e(B) = 5; A's 6 do not fit at 3 (4 free) or 4
// (3 free); at 5 it recomputes, then decodes at [6, 8): e2e(A) = 8.
TEST(PreemptTest, VictimAlreadyInTheBatch) {
  SimOptions options = Checked();
  options.trace_path = TempPath("victim.trace");
  SimRun run = RunSource(absl::StrReplaceAll(Spec("(serial)"), {{"cap 10", "cap 11"}}), options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 8.0));
  EXPECT_EQ(Stage(run.results, "E").preempted(), 1u);
  std::string trace = ReadAll(options.trace_path);
  EXPECT_THAT(trace, HasSubstr(R"({"t":2,"event":"preempt","stage":"E","session":0,"by":1,"pool":"kv","content":5})"));
}

// A token budget that chunks a recompute, and a recompute preempted while
// it runs (c + r). cap 10, `tokens 4`, by (-since). A: prefill 2, decode 6;
// B: prefill 4, decode 4.
//   t = 0: new prefills: A 2 (content 2), B 2 (budget left: 2).
//   t = 1: A's prefill done: its decode runs on (since 0): 3. B (running
//          prefill, since 0) chunk 2: 4. Used 7.
//   t = 2: A 4, B's decode runs on (since 0): 5. Used 9; tokens 2.
//   t = 3: A 5 (used 10); B's growth does not fit: victims A, B (key 0,
//          since 0): the later in the batch order, B itself: preempted
//          (c = 5, it had 3 tokens left: recompute 6, then 2).
//   t = 4: A 6; the waiting B takes min(6, 3) = 3 (free 4): content 3,
//          running since 4.
//   t = 5: A 7 (used 10); B's next chunk of 3 does not fit; victims A
//          (key 0) and B (key -4): B, itself: a recompute of c + r =
//          3 + 3 = 6 again (still then 2).
//   t = 6: A 8 (used 8); B's 3 do not fit (2 free).
//   t = 7: A's 6th token: done (e2e 7), 8 units back. B: 3 at [7, 8), 3 at
//          [8, 9) (its token at 9), decodes at [9, 11): e2e(B) = 11.
// preempted 2; recomputed 3 + 3 + 3 = 9; steps t = 0..10: 11.
TEST(PreemptTest, BudgetChunksARecompute) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage E : step(1) { tokens 4; preempt by (-since); }
workload { arrive batch(2); }
session {
  set p = 4 - 2 * (serial == 0);
  set d = 4 + 2 * (serial == 0);
  hold kv (0) {
    run E prefill (p) growing kv;
    run E decode (d) growing kv;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)",
                             Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(7.0, 11.0));
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 2u);
  EXPECT_EQ(e.recomputed(), 9u);
  EXPECT_EQ(e.steps(), 11u);
}

// Three sessions whose since differ (arrivals at 0, 1, 2), by (-since),
// cap 9; prefill 2, decode 5 (A), 3 (B, C).
//   t = 0: A prefill: 2.        t = 1: A 3; B prefill 2 (since 1). Used 5.
//   t = 2: A 4, B 3, C prefill 2 (since 2). Used 9.
//   t = 3: A's growth: victims A (key 0), B (-1), C (-2): C, the most
//          recently started (content 2: recompute 3, then 2). A 5, B 4.
//   t = 4: A's growth: victims A (0), B (-1): B (content 4, 1 token
//          left: recompute 5, then none). A 6. No waiting job joins.
//   t = 5: A 7; waiting: the most recently preempted first, B: 5 do not
//          fit (3 free): admission stops (C not tried).
//   t = 6: A's 5th token: done (e2e 6). B recomputes 5, C 3 (used 8).
//   t = 7: B's recompute makes its last token: done (e2e 7 - 1 = 6). C
//          decodes at [7, 9): done at 9 (e2e 7).
// preempted 2, recomputed 5 + 3 = 8, steps t = 0..8: 9.
TEST(PreemptTest, ThreeSessionsWhoseSinceDiffer) {
  SimRun run = RunSource(R"(
pool kv { cap 9; }
stage E : step(1) { preempt by (-since); }
workload { arrive periodic(1); limit 3; }
session {
  hold kv (0) {
    run E prefill (2) growing kv;
    run E decode (3 + 2 * (serial == 0)) growing kv;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)",
                             Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(6.0, 6.0, 7.0));
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 2u);
  EXPECT_EQ(e.recomputed(), 8u);
  EXPECT_EQ(e.steps(), 9u);
}

// vLLM's priority policy, by (-priority, -arrival): A, B, C at t = 0 with
// priorities 0, 5, 1 (a larger number is a lower priority, as in vLLM);
// prefill 2, decode 3; cap 11.
//   t = 0: 2, 2, 2.   t = 1: 3, 3, 3 (used 9).
//   t = 2: A 4, B 4 (used 11); C's growth does not fit: keys A (0, 0),
//          B (-5, 0), C (-1, 0): B, already in the batch: it leaves it
//          (content 3, 2 tokens left: recompute 4, then 1). C 4 (used 8).
//   t = 3: A 5, C 5 (used 10); B's 4 do not fit (1 free).
//   t = 4: A, C done (e2e 4). B recomputes [4, 5) (a token), decodes
//          [5, 6): e2e 6.
// By (-since) the victim would have been C itself (all since 0, C last).
TEST(PreemptTest, PriorityPolicy) {
  SimRun run = RunSource(R"(
pool kv { cap 11; }
stage E : step(1) { preempt by (-priority, -arrival); }
workload { arrive batch(3); }
session {
  set priority = serial + 4 * (serial == 1);
  hold kv (0) {
    run E prefill (2) growing kv;
    run E decode (3) growing kv;
    observe e2e = now - arrival;
    observe who = serial;
  }
}
run { horizon 100; }
)",
                             Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "who"), ElementsAre(0.0, 2.0, 1.0));
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(4.0, 4.0, 6.0));
  EXPECT_EQ(Stage(run.results, "E").preempted(), 1u);
}

// A run continues its session's job only if it is the same session, not
// a new one that took the ended session's slot at that instant. `seqs 1`:
// A and B (batch at 0) each prefill 1; A takes [0, 1), B waits. Sessions
// of w arrive at 0, 0.5 and 1; the first two end at once (their slots are
// free again), the third, arriving at 1 just after A's step ended and A's
// session with it, takes A's slot and prefills 1 on E. It never ran, so it
// goes after B, which has waited since 0: B [1, 2), it [2, 3).
TEST(PreemptTest, ANewSessionInAnEndedOnesSlotDoesNotContinueItsJob) {
  SimRun run = RunSource(R"(
stage E : step(1) { seqs 1; preempt by (-since); }
workload a { arrive batch(2); }
workload w { arrive periodic(0.5); limit 3; }
session a { run E prefill (1); observe ab_done = now; }
session w { if (serial == 4) { run E prefill (1); observe w_done = now; } }
run { horizon 100; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "ab_done"), ElementsAre(1.0, 2.0));
  EXPECT_THAT(Samples(run.results, "w_done"), ElementsAre(3.0));
}

// A waiting job blocked by memory, admitted when units free; meanwhile it
// does not stand in the pool's line. cap 4: X holds 3 on a delay stage
// until 5. Y's prefill of 2 (growing, 1 free) is blocked at t = 0: the
// stage idles. Z asks a hold of 1 at t = 1 and is admitted at once. At 5
// X's 3 return; the stage starts a step then: Y is done at 6.
TEST(PreemptTest, BlockedWaitingJobStartsWhenUnitsFree) {
  SimRun run = RunSource(R"(
pool kv { cap 4; }
stage E : step(1) { preempt by (-since); }
stage D : delay;
workload x { arrive batch(1); }
workload y { arrive batch(1); }
workload z { arrive periodic(1); limit 2; }
session x { hold kv (3) { run D (5); } }
session y { hold kv (0) { run E prefill (2) growing kv; observe y_done = now; } }
session z { if (serial == 3) { hold kv (1) { observe z_admitted = now; run D (10); } } }
run { horizon 100; }
)",
                             Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "z_admitted"), ElementsAre(1.0));
  EXPECT_THAT(Samples(run.results, "y_done"), ElementsAre(6.0));
  EXPECT_EQ(Stage(run.results, "E").steps(), 1u);
}

// The same on a stage without preempt by (docs/simulation.md §The LLM engine as
// vLLM runs it): Y's chunk stalls in the pool's growth line, which goes before
// holds waiting: Z, asking 1 at t = 1, waits behind it. At 5: Y's 2 granted,
// then Z's 1 (used 3). Y steps [5, 6).
TEST(GrowingPrefillTest, StallsInTheGrowthLine) {
  SimRun run = RunSource(R"(
pool kv { cap 4; }
stage E : step(1);
stage D : delay;
workload x { arrive batch(1); }
workload y { arrive batch(1); }
workload z { arrive periodic(1); limit 2; }
session x { hold kv (3) { run D (5); } }
session y { hold kv (0) { run E prefill (2) growing kv; observe y_done = now; } }
session z { if (serial == 3) { hold kv (1) { observe z_admitted = now; run D (10); } } }
run { horizon 100; }
)",
                             Checked());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "z_admitted"), ElementsAre(5.0));
  EXPECT_THAT(Samples(run.results, "y_done"), ElementsAre(6.0));
}

// A growing prefill's context is its hold's content after the chunk (a
// loaded or cached prefix counts): content 3 loaded, a chunk of 2 reaches
// 5, so tau = context = 5 (a plain prefill's context would be 2). The
// hold's content is then 5: mean loaded (3 on [0, 0), 5 on [0, 5)) 5 over
// [0, 10) is 2.5.
TEST(GrowingPrefillTest, ContextIsTheHoldsContent) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage E : step(context);
workload { arrive batch(1); }
session { hold kv (0) { load kv (3); run E prefill (2) growing kv; observe done = now; } }
run { horizon 10; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "done"), ElementsAre(5.0));
  EXPECT_DOUBLE_EQ(Pool(run.results, "kv").mean_loaded(), 2.5);
}

// A prefill chunk beyond the cap is a runtime error, on every stage.
TEST(GrowingPrefillTest, ChunkBeyondTheCap) {
  SimRun run = RunSource(R"(
pool kv { cap 4; }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(1); }
session { hold kv (0) { run E prefill (6) growing kv; } }
run { horizon 10; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("the prefill run's next chunk of 6 tokens would make its "
                                    "hold on 'kv' 6 units, larger than its cap 4"));
}

// docs/language.md §3.3: attention in tau. One 4-token prefill: 4·4 − 4·3/2 = 10.
// Decode jobs at contexts 5 and 7 (holds loaded with 4 and 6, each token's
// unit taken as it joins): 5 + 7 = 12. A 3-token chunk reaching context 5
// (a growing prefill whose hold had 2) plus a decode at context 4 (loaded
// 3): 3·5 − 3 + 4 = 16. Each as the one step's tau.
TEST(AttentionTest, SpecValues) {
  auto step_time = [](const std::string& session) {
    SimRun run = RunSource(absl::StrCat(R"(
pool kv { cap 100; }
stage E : step(attention);
workload a { arrive batch(1); }
workload b { arrive batch(1); }
)", session, R"(
run { horizon 100; }
)"));
    EXPECT_TRUE(run.ok) << run.errors;
    std::vector<double> d = Samples(run.results, "done");
    return d.empty() ? -1.0 : d.back();
  };
  EXPECT_EQ(step_time("session a { run E prefill (4); observe done = now; } session b { }"), 10);
  EXPECT_EQ(step_time("session a { hold kv (0) { load kv (4); run E decode (1) growing kv; "
                      "observe done = now; } } "
                      "session b { hold kv (0) { load kv (6); run E decode (1) growing kv; "
                      "observe done = now; } }"),
            12);
  EXPECT_EQ(step_time("session a { hold kv (0) { load kv (2); run E prefill (3) growing kv; "
                      "observe done = now; } } "
                      "session b { hold kv (0) { load kv (3); run E decode (1) growing kv; "
                      "observe done = now; } }"),
            16);
}

// docs/language.md §4: interp through (0, 10), (10, 30): 20 at 5, 40 at 15
// (extrapolated), 0 at -5; three points: the middle segment.
TEST(InterpTest, SpecValues) {
  SimRun run = RunSource(R"(
workload { arrive batch(1); }
session {
  observe a = interp(5, 0, 10, 10, 30);
  observe b = interp(15, 0, 10, 10, 30);
  observe c = interp(-5, 0, 10, 10, 30);
  observe d = interp(15, 0, 0, 10, 10, 20, 30);
}
run { horizon 1; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "a"), ElementsAre(20.0));
  EXPECT_THAT(Samples(run.results, "b"), ElementsAre(40.0));
  EXPECT_THAT(Samples(run.results, "c"), ElementsAre(0.0));
  // (10, 10) to (20, 30): 10 + 5 · 2 = 20.
  EXPECT_THAT(Samples(run.results, "d"), ElementsAre(20.0));
}

// docs/language.md §5.6: one sample a token, the first from the run's start. On
// `step(tokens) { tokens 2; }`: b's prefill of 4 arrives at 0, a's decode
// of 3 at 0.5 (after a delay).
//   t = 0: b takes 2: tau 2, [0, 2); a waits.
//   t = 2: a 1 + b 1: [2, 4): a's 1st token at 4, 3.5 after its start.
//   t = 4: a 1 + b 1 (its last): [4, 6): a's 2nd at 6: 2.
//   t = 6: a alone: [6, 7): its 3rd at 7: 1.
TEST(TokenObserveTest, OneSampleAToken) {
  SimRun run = RunSource(R"(
stage E : step(tokens) { tokens 2; }
stage D : delay;
workload a { arrive batch(1); }
workload b { arrive batch(1); }
session a { run D (0.5); run E decode (3) observe itl; }
session b { run E prefill (4); }
run { horizon 100; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "itl"), ElementsAre(3.5, 2.0, 1.0));
}

// The lane (stage_step_lane.cc) steps a preempting stage's leading running
// decode jobs in aggregate; its figures must be the same bits as stepping
// them one at a time (SimOptions.lanes = false). Each program here puts
// one of the lane's edges in the way, and the report is compared whole.
void ExpectSameWithoutLanes(const std::string& source) {
  SimOptions with = Checked();
  SimOptions without = Checked();
  without.lanes = false;
  SimRun a = RunSource(source, with);
  SimRun b = RunSource(source, without);
  // A run that fails (a deadlock) fails the same way, with the same holds.
  EXPECT_EQ(a.ok, b.ok) << source;
  EXPECT_EQ(a.errors, b.errors) << source;
  EXPECT_EQ(a.results.DebugString(), b.results.DebugString()) << source;
}

// A decode engine whose KV binds: jobs join, complete and are preempted
// while others step; `DECODE` is the decode run, `KEY` the preempt key,
// `SEQS` and `TOKENS` the limits.
std::string LaneProgram(absl::string_view decode, absl::string_view key = "(-since)",
                        absl::string_view seqs = "64", absl::string_view tokens = "256") {
  return absl::StrReplaceAll(R"(
pool kv { cap 600; }
stage E : step(0.01 + 0.0001 * context) { seqs SEQS; tokens TOKENS; preempt by KEY; }
workload { arrive poisson(40); limit 400; }
session {
  set priority = floor(uniform(0, 3));
  set prompt = 1 + floor(uniform(0, 40));
  set output = 1 + floor(uniform(0, 60));
  hold kv (0) {
    run E prefill (prompt) growing kv;
    run E decode (1) growing kv observe itl;
    DECODE
    observe e2e = now - arrival;
  }
}
run { horizon 1e4; seed 3; }
)",
                             {{"DECODE", decode}, {"KEY", key}, {"SEQS", seqs}, {"TOKENS", tokens}});
}

// The decode run that most programs have (whole work, one observation),
// and each thing that keeps a job out of the lane or ends it: a second
// observation, no observation, fractional work or content, a decode job
// that does not grow among those that do, a key that puts a job that
// continues ahead of the lane's last, a seqs limit below the running
// jobs, a token budget below them.
TEST(LaneTest, SameBytesAsOneJobAtATime) {
  ExpectSameWithoutLanes(LaneProgram("run E decode (output) growing kv observe itl;"));
  ExpectSameWithoutLanes(LaneProgram(
      "if (serial % 3 == 0) { run E decode (output) growing kv observe other; } "
      "else { run E decode (output) growing kv observe itl; }"));
  ExpectSameWithoutLanes(LaneProgram("run E decode (output) growing kv;"));
  ExpectSameWithoutLanes(LaneProgram(
      "if (serial % 4 == 0) { run E decode (output + 0.5) growing kv observe itl; } "
      "else { run E decode (output) growing kv observe itl; }"));
  ExpectSameWithoutLanes(LaneProgram(
      "if (serial % 5 == 0) { load kv (0.25); } run E decode (output) growing kv observe itl;"));
  ExpectSameWithoutLanes(LaneProgram(
      "if (serial % 4 == 1) { run E decode (output); } "
      "else { run E decode (output) growing kv observe itl; }"));
  ExpectSameWithoutLanes(LaneProgram("run E decode (output) growing kv observe itl;",
                                     "(-priority, -arrival)"));
  ExpectSameWithoutLanes(LaneProgram("run E decode (output) growing kv observe itl;", "(-since)",
                                     "3"));
  ExpectSameWithoutLanes(LaneProgram("run E decode (output) growing kv observe itl;", "(-since)",
                                     "64", "12"));
  // `serve by`: a job that joins the running ones may go ahead of the
  // lane's last.
  std::string served = absl::StrReplaceAll(
      LaneProgram("run E decode (output) growing kv observe itl;"),
      {{"preempt by (-since);", "serve by (output, serial); preempt by (-since);"}});
  ASSERT_THAT(served, HasSubstr("serve by"));
  ExpectSameWithoutLanes(served);
}

// Without `preempt by` the lane is the first decode jobs while every one
// is regular (its growth asked when it joins): decode jobs within their
// reservation (a unit of content a token, none of size), and beyond it
// (a unit of size a token once past the amount: a job that would cross
// its amount in the lane keeps the lane away).
std::string PlainLaneProgram(absl::string_view amount, absl::string_view cap = "50000") {
  return absl::StrReplaceAll(R"(
pool kv { cap CAP; }
stage E : step(0.01 + 0.0001 * context) { seqs 64; tokens 256; }
workload { arrive poisson(40); limit 300; }
session {
  set prompt = 1 + floor(uniform(0, 40));
  set output = 1 + floor(uniform(0, 60));
  hold kv (AMOUNT) {
    run E prefill (prompt) growing kv;
    run E decode (1) growing kv observe itl;
    run E decode (output) growing kv observe itl;
    observe e2e = now - arrival;
  }
}
run { horizon 1e4; seed 5; }
)",
                             {{"AMOUNT", amount}, {"CAP", cap}});
}

// On a block pool (`block G`) a lane counts, each step, its jobs whose
// content is at the end of their last block (each takes a block); the
// same bytes as growing them one at a time, with and without `preempt by`,
// for blocks of 1 (a unit: the pool by units again), 4, 16 and 600 (the
// cap: one request's block fills the pool), and with amounts that round
// up to whole blocks.
TEST(LaneTest, BlockPoolsSameBytesAsOneJobAtATime) {
  for (const char* block : {"block 1;", "block 4;", "block 16;", "block 600;"}) {
    SCOPED_TRACE(block);
    const std::string with_block = absl::StrCat("pool kv { cap 600; ", block, " }");
    std::string preempting = absl::StrReplaceAll(
        LaneProgram("run E decode (output) growing kv observe itl;"),
        {{"pool kv { cap 600; }", with_block}});
    ASSERT_THAT(preempting, HasSubstr(block));
    ExpectSameWithoutLanes(preempting);
    ExpectSameWithoutLanes(absl::StrReplaceAll(
        LaneProgram("run E decode (output) growing kv observe itl;", "(-since)", "64", "12"),
        {{"pool kv { cap 600; }", with_block}}));
  }
  for (const char* amount : {"0", "prompt + 1 + output", "prompt + 1 + floor(output / 2)"}) {
    SCOPED_TRACE(amount);
    std::string plain =
        absl::StrReplaceAll(PlainLaneProgram(amount, "2000"),
                            {{"pool kv { cap 2000; }", "pool kv { cap 2000; block 16; }"}});
    ASSERT_THAT(plain, HasSubstr("block 16;"));
    ExpectSameWithoutLanes(plain);
  }
}

TEST(LaneTest, WithoutPreemptSameBytesAsOneJobAtATime) {
  ExpectSameWithoutLanes(PlainLaneProgram("prompt + 1 + output"));
  ExpectSameWithoutLanes(PlainLaneProgram("prompt + 1 + output", "900"));
  ExpectSameWithoutLanes(PlainLaneProgram("prompt + 1 + floor(output / 2)"));
  ExpectSameWithoutLanes(PlainLaneProgram("0"));
  // `serve by`: an arrival may go ahead of the lane's last.
  std::string served = absl::StrReplaceAll(PlainLaneProgram("prompt + 1 + output"),
                                           {{"tokens 256; }", "tokens 256; serve by (output); }"}});
  ASSERT_THAT(served, HasSubstr("serve by"));
  ExpectSameWithoutLanes(served);
  // Growth past the reservations fills the pool: the deadlock is reported
  // the same, every hold's size the same, with the lane as without.
  SimRun run = RunSource(PlainLaneProgram("prompt + 1 + floor(output / 2)", "5000"));
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("deadlock"));
  ExpectSameWithoutLanes(PlainLaneProgram("prompt + 1 + floor(output / 2)", "5000"));
}

// The pool kv and the preempt-by stage E of a random vLLM-shaped program:
// a cap of 8 to 47 units (rounded up to whole blocks of `block` when > 0),
// random `seqs`, `tokens` and victim key, then `stage_options`; *cap is the
// pool's.
std::string RandomPoolAndEngine(sim::Random& r, int* cap, int block,
                                absl::string_view stage_options) {
  const char* keys[] = {"(-since)", "(serial)", "(-priority, -arrival)", "(since, -serial)"};
  *cap = 8 + static_cast<int>(r.Uniform01() * 40);
  if (block > 0) *cap = (*cap / block + 1) * block;
  int seqs = 1 + static_cast<int>(r.Uniform01() * 6);
  int tokens = 1 + static_cast<int>(r.Uniform01() * *cap);
  std::string key = keys[static_cast<int>(r.Uniform01() * 4)];
  return absl::StrCat(R"(
pool kv { cap )", *cap, block > 0 ? absl::StrCat("; block ", block) : "", R"(; }
stage E : step(0.1 + 0.01 * tokens) { seqs )", seqs, "; tokens ", tokens, "; preempt by ", key,
                      "; ", stage_options, " }\n");
}

// A random small vLLM-shaped program (holds of 0, a prefill then a decode
// growing kv on one preempt-by stage, each growth within the cap) of
// `sessions` sessions, its decode run ending with `decode_tail`; *cap is
// its pool's.
std::string RandomVllmShaped(sim::Random& r, int sessions, int seed,
                             absl::string_view decode_tail, int* cap,
                             absl::string_view stage_options = "") {
  const std::string head = RandomPoolAndEngine(r, cap, 0, stage_options);  // sets *cap
  return absl::StrCat(head, R"(workload { arrive poisson(2); limit )", sessions, R"(; }
session {
  set priority = floor(uniform(0, 3));
  set prompt = 1 + floor(uniform(0, )", *cap / 2, R"());
  set output = 1 + floor(uniform(0, )", *cap - *cap / 2 - 1, R"());
  hold kv (0) {
    run E prefill (prompt) growing kv;
    run E decode (output) growing kv)", decode_tail, R"(;
  }
}
run { horizon 1e6; seed )", seed, R"(; }
)");
}

// Those programs with an observed decode: the same bytes with and without
// the lane.
TEST(LaneTest, RandomProgramsSameBytesAsOneJobAtATime) {
  sim::Random r(11);
  for (int trial = 0; trial < 30; ++trial) {
    int cap;
    ExpectSameWithoutLanes(RandomVllmShaped(r, 12, trial + 1, " observe itl", &cap));
  }
}

// The property test: random small vLLM-shaped programs never deadlock,
// every session ends, and the pools' accounting holds after every event
// (check_pools).
// With `async` (vLLM's async scheduling) too: its withheld units and
// late jobs never leave a job waiting for ever, and the lane changes no
// byte.
TEST(PreemptTest, RandomVllmShapedProgramsNeverDeadlock) {
  for (const char* options : {"", "async;"}) {
  SCOPED_TRACE(options);
  sim::Random r(8);
  int preempting = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int n = 2 + static_cast<int>(r.Uniform01() * 10);
    int cap;
    std::string source = RandomVllmShaped(r, n, trial + 1, "", &cap, options);
    SimRun run = RunSource(source, Checked());
    ASSERT_TRUE(run.ok) << source << run.errors;
    const results::Replication& rep = run.results.replication(0);
    ASSERT_EQ(rep.session(0).arrived(), static_cast<uint64_t>(n)) << source;
    EXPECT_EQ(rep.session(0).ended(), static_cast<uint64_t>(n)) << source;
    EXPECT_EQ(Pool(run.results, "kv").max_used() <= cap, true) << source;
    if (Stage(run.results, "E").preempted() > 0) ++preempting;
  }
  // The programs did exercise preemption.
  EXPECT_GT(preempting, 10);
  }
}

TEST(LaneTest, RandomAsyncProgramsSameBytesAsOneJobAtATime) {
  sim::Random r(13);
  for (int trial = 0; trial < 30; ++trial) {
    int cap;
    ExpectSameWithoutLanes(RandomVllmShaped(r, 12, trial + 1, " observe itl", &cap, "async;"));
  }
}

// A random small disaggregated decoder (vLLM's P/D consumer): each session
// holds 0 of kv, reads its prompt in (a delay, then a load of the whole
// prompt), and decodes on a preempt-by stage with `recompute last`, so its
// first token needs no unit (the content at most prompt + output - 1, within
// the cap). *cap is its pool's; `block` its block, 0 for none.
std::string RandomDecoder(sim::Random& r, int sessions, int seed, int* cap, int block,
                          absl::string_view stage_options) {
  const std::string head = RandomPoolAndEngine(r, cap, block, stage_options);  // sets *cap
  return absl::StrCat(head, R"(stage link : delay;
workload { arrive poisson(4); limit )", sessions, R"(; }
session {
  set priority = floor(uniform(0, 3));
  set prompt = 1 + floor(uniform(0, )", *cap / 2, R"());
  set output = 1 + floor(uniform(0, )", *cap - *cap / 2, R"());
  hold kv (0) {
    run link (uniform(0, 1));
    load kv (prompt);
    run E decode (output) growing kv;
  }
}
run { horizon 1e6; seed )", seed, R"(; }
)");
}

// The property test of `recompute last`: random small decoders full of
// received prompts never deadlock, every session ends, the pools' accounting
// holds after every event; by units and in blocks, with and without
// `async`. With vLLM's default `reserve prompt`: without it a recompute
// joins a chunk at a time, and with a budget of a few tokens it can take
// the whole budget every step, preempt itself at its next chunk (the
// received prompts hold the rest) and start again, for ever, ahead of the
// received prompts that would free the pool (vLLM does the same with
// scheduler_reserve_full_isl off: the preempted request heads its waiting
// queue). Without `recompute last` the same programs (each first token a
// unit beyond the prompt) deadlock now and then: the property is the
// option's.
TEST(PreemptTest, RandomDecodersThatRecomputeTheLastTokenNeverDeadlock) {
  for (const char* options :
       {"reserve prompt; recompute last;", "reserve prompt; recompute last; async;"}) {
    for (int block : {0, 4}) {
      SCOPED_TRACE(absl::StrCat(options, " block ", block));
      sim::Random r(21);
      int preempting = 0;
      for (int trial = 0; trial < 60; ++trial) {
        int n = 2 + static_cast<int>(r.Uniform01() * 10);
        int cap;
        std::string source = RandomDecoder(r, n, trial + 1, &cap, block, options);
        SimRun run = RunSource(source, Checked());
        ASSERT_TRUE(run.ok) << source << run.errors;
        const results::Replication& rep = run.results.replication(0);
        ASSERT_EQ(rep.session(0).arrived(), static_cast<uint64_t>(n)) << source;
        EXPECT_EQ(rep.session(0).ended(), static_cast<uint64_t>(n)) << source;
        EXPECT_LE(Pool(run.results, "kv").max_used(), cap) << source;
        if (Stage(run.results, "E").preempted() > 0) ++preempting;
      }
      EXPECT_GT(preempting, 10);
    }
  }
  sim::Random r(21);
  int deadlocked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int n = 2 + static_cast<int>(r.Uniform01() * 10);
    int cap;
    SimRun run = RunSource(RandomDecoder(r, n, trial + 1, &cap, 0, "reserve prompt;"), Checked());
    if (!run.ok && run.errors.find("deadlock") != std::string::npos) ++deadlocked;
  }
  EXPECT_GT(deadlocked, 0);
}

}  // namespace
}  // namespace serq
