// A step stage's `async` (vLLM's async scheduling, stage_step.h): vLLM forms
// step N+1 while step N runs, from what it knew when N started. Each case
// is run with and without the option, on a step of 1 s (step(1)) with
// `preempt by (-since)`, and every expected value is derived by hand in
// the comments, step by step, as vLLM's AsyncScheduler would schedule it
// (async_scheduler.py, scheduler.py's placeholder test
// `num_computed_tokens + 2 - num_output_placeholders >= num_prompt_tokens
// + max_tokens`).
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::CheckingPools;
using ::serq::testing::RunSource;
using ::serq::testing::RunWithOptions;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::testing::ElementsAre;

// A (t = 0): a prefill of 1, then 3 decode tokens; B (t = 0.5): a prefill
// of 1.
//   Both: [0, 1) A's prefill on an idle engine, formed at once: ttft(A) 1.
//   Without async: at t = 1 A's decode (its session goes on at once) and
//     B join [1, 2): ttft(B) = 2 - 0.5 = 1.5.
//   With async: vLLM formed [1, 2) at t = 0, when [0, 1) started: A's
//     first decode (its sampled token fed on the GPU: a placeholder), not
//     B, which came at 0.5. [1, 2) = {A}; [2, 3), formed at t = 1, takes
//     B: ttft(B) = 3 - 0.5 = 2.5.
//   A decodes in [1, 2), [2, 3), [3, 4): e2e(A) = 4 either way; 4 steps.
TEST(AsyncTest, AnArrivalDuringABusyStepWaitsOneStepMore) {
  constexpr char kProgram[] = R"(
stage E : step(1) { preempt by (-since); OPTIONS }
workload { arrive periodic(0.5); limit 2; }
session {
  run E prefill (1);
  observe ttft = now - arrival;
  if (serial == 0) { run E decode (3); observe e2e = now - arrival; }
}
run { horizon 100; }
)";
  SimRun sync = RunWithOptions(kProgram, "");
  ASSERT_TRUE(sync.ok) << sync.errors;
  EXPECT_THAT(Samples(sync.results, "ttft"), ElementsAre(1.0, 1.5));
  EXPECT_THAT(Samples(sync.results, "e2e"), ElementsAre(4.0));
  EXPECT_EQ(Stage(sync.results, "E").steps(), 4u);
  SimRun async = RunWithOptions(kProgram, "async;");
  ASSERT_TRUE(async.ok) << async.errors;
  EXPECT_THAT(Samples(async.results, "ttft"), ElementsAre(1.0, 2.5));
  EXPECT_THAT(Samples(async.results, "e2e"), ElementsAre(4.0));
  EXPECT_EQ(Stage(async.results, "E").steps(), 4u);
}

// The same arrivals, each a prefill of 1 only (one output token), and a
// third, C, at t = 10 on an idle engine.
//   With async, vLLM forms the step after [0, 1) at t = 0: A's last token
//   is made in [0, 1) (computed 1 + 2 - 1 placeholder >= 1 + 1), so it is
//   skipped, and B has not come: the step is empty and takes no time. The
//   next is formed at t = 1 knowing B: [1, 2), ttft(B) = 1.5, as without
//   async. C starts at once at 10: ttft 1. Both ways: 1, 1.5, 1; 3 steps.
TEST(AsyncTest, AnIdleEngineStartsAtOnce) {
  constexpr char kProgram[] = R"(
stage E : step(1) { preempt by (-since); OPTIONS }
workload early { arrive periodic(0.5); limit 2; }
workload late { arrive periodic(10); limit 2; }
session early { run E prefill (1); observe ttft = now - arrival; }
session late { if (arrival > 0) { run E prefill (1); observe ttft = now - arrival; } }
run { horizon 100; }
)";
  for (const char* options : {"", "async;"}) {
    SCOPED_TRACE(options);
    SimRun run = RunWithOptions(kProgram, options);
    ASSERT_TRUE(run.ok) << run.errors;
    EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(1.0, 1.5, 1.0));
    EXPECT_EQ(Stage(run.results, "E").steps(), 3u);
  }
}

// A job whose last token is made in step N still takes its seat while
// vLLM forms N + 1: seqs 3, all four at t = 0 in serial order. A, B: a
// prefill of 1 and 1 decode token; D: a prefill of 1 and 5 decode tokens;
// C: a prefill of 1.
//   [0, 1): A, B, D's prefills (3 seats); C waits.
//   [1, 2): A, B, D decode (C: no seat), both ways.
//   Without async: A and B end at 2; [2, 3) = D, C: ttft(C) = 3.
//   With async: [2, 3) was formed at t = 1: A and B, whose last tokens
//     [1, 2) makes, are skipped (computed 2 + 2 - 1 >= 1 + 2) but still
//     in `running`: len(running) = 3 = max_num_seqs, C is not admitted.
//     [2, 3) = {D}; [3, 4) = D, C: ttft(C) = 4.
//   D's 5 decodes end at 6 either way; 6 steps.
TEST(AsyncTest, FinishingJobsAreNotScheduledButKeepTheirSeats) {
  constexpr char kProgram[] = R"(
stage E : step(1) { seqs 3; preempt by (-since); OPTIONS }
workload { arrive batch(4); }
session {
  run E prefill (1);
  observe ttft = now - arrival;
  if (serial < 2) { run E decode (1); }
  if (serial == 2) { run E decode (5); observe e2e = now - arrival; }
}
run { horizon 100; }
)";
  SimRun sync = RunWithOptions(kProgram, "");
  ASSERT_TRUE(sync.ok) << sync.errors;
  EXPECT_THAT(Samples(sync.results, "ttft"), ElementsAre(1.0, 1.0, 1.0, 3.0));
  EXPECT_THAT(Samples(sync.results, "e2e"), ElementsAre(6.0));
  SimRun async = RunWithOptions(kProgram, "async;");
  ASSERT_TRUE(async.ok) << async.errors;
  EXPECT_THAT(Samples(async.results, "ttft"), ElementsAre(1.0, 1.0, 1.0, 4.0));
  EXPECT_THAT(Samples(async.results, "e2e"), ElementsAre(6.0));
  EXPECT_EQ(Stage(async.results, "E").steps(), 6u);
}

// Three sessions on a kv of 10, all at t = 0 in serial order: A (a
// prefill of 4, 1 decode token) and D (a prefill of 1, 5 decode tokens)
// on E, and a third whose statements are THIRD.
constexpr char kThreeOnKv[] = R"(
pool kv { cap 10; }
stage E : step(1) { preempt by (-since); OPTIONS }
stage W : delay;
workload { arrive batch(3); }
session {
  hold kv (0) {
    if (serial == 0) { run E prefill (4) growing kv; run E decode (1) growing kv; }
    if (serial == 1) {
      run E prefill (1) growing kv;
      run E decode (5) growing kv;
      observe e2e = now - arrival;
    }
    if (serial == 2) { THIRD }
  }
}
run { horizon 100; }
)";

// KV a finishing job gives back is free one step later: kv of 10, all at
// t = 0 in serial order. A: a prefill of 4 and 1 decode token; D: a
// prefill of 1 and 5 decode tokens; C: a prefill of 6. Each grows kv.
//   [0, 1): A 4, D 1 (used 5); C's 6 do not fit in 5: it waits.
//   [1, 2): A 5, D 2 (used 7); C: 3 free.
//   Without async: A ends at 2 and frees 5 (used 2). [2, 3): D 3, C 6
//     (used 9): ttft(C) = 3.
//   With async: vLLM formed [2, 3) at t = 1, A's 5 still allocated (its
//     last token in flight): D 3 (used 10 - 2), C: 2 free, not admitted.
//     [2, 3) = {D}. At t = 2 A's blocks are free: [3, 4) = D 4, C 6 (used
//     10): ttft(C) = 4.
//   At t = 3 vLLM formed [4, 5): D's 5th unit does not fit (used 10), and
//     FCFS preemption pops the tail of `running`, C (running since 3),
//     whose last (only) token [3, 4) makes: its 6 units free at once, D
//     grows, and C still finishes at 4. serq: C completed at 4, its units
//     withheld, is that victim (counted as a preemption; nothing recomputes).
//   D ends at 6 either way; no preemption without async.
TEST(AsyncTest, FreedUnitsServeTheStepAfterTheNext) {
  const std::string program = absl::StrReplaceAll(
      kThreeOnKv, {{"THIRD", "run E prefill (6) growing kv; observe ttft = now - arrival;"}});
  SimRun sync = RunWithOptions(program, "");
  ASSERT_TRUE(sync.ok) << sync.errors;
  EXPECT_THAT(Samples(sync.results, "ttft"), ElementsAre(3.0));
  EXPECT_THAT(Samples(sync.results, "e2e"), ElementsAre(6.0));
  EXPECT_EQ(Stage(sync.results, "E").preempted(), 0u);
  SimRun async = RunWithOptions(program, "async;");
  ASSERT_TRUE(async.ok) << async.errors;
  EXPECT_THAT(Samples(async.results, "ttft"), ElementsAre(4.0));
  EXPECT_THAT(Samples(async.results, "e2e"), ElementsAre(6.0));
  EXPECT_EQ(Stage(async.results, "E").preempted(), 1u);
  EXPECT_EQ(Stage(async.results, "E").recomputed(), 0u);
}

// The withheld units are not free to a pool's lines either, until the
// formation after the next has had them: kv of 10, all at t = 0. A: a
// prefill of 4 and 1 decode token; D: a prefill of 1 and 5 decode tokens;
// L: after 0.5 s on a delay stage, `load kv (6)` into its hold (as a
// transfer into a decoder's KV does), which waits in the pool's line, then
// ends its hold.
//   [0, 1): A 4, D 1 (used 5): at 0.5 L's 6 wait. [1, 2): A 5, D 2 (used 7).
//   Without async: A ends at 2 and gives back 5 (used 2); L's 6 fit at
//     once (got = 2) and go back; [2, 3) D 3.
//   With async: A's 5 are withheld from t = 2 (L: 10 - 5 - 2 = 3 free, it
//     waits); [2, 3) = D 3; then L sees 10 - 5 - 3 = 2. At t = 3 the
//     formation of [3, 4) has them first (D 4, used 4), then the line: L's
//     6 fit (got = 3).
//   D's 5 decode tokens end at 6 either way, no preemption.
TEST(AsyncTest, WithheldUnitsGoToTheFormationBeforeThePoolsLines) {
  const std::string program = absl::StrReplaceAll(
      kThreeOnKv, {{"THIRD", "run W (0.5); load kv (6); observe got = now;"}});
  SimRun sync = RunWithOptions(program, "");
  ASSERT_TRUE(sync.ok) << sync.errors;
  EXPECT_THAT(Samples(sync.results, "got"), ElementsAre(2.0));
  EXPECT_THAT(Samples(sync.results, "e2e"), ElementsAre(6.0));
  SimRun async = RunWithOptions(program, "async;");
  ASSERT_TRUE(async.ok) << async.errors;
  EXPECT_THAT(Samples(async.results, "got"), ElementsAre(3.0));
  EXPECT_THAT(Samples(async.results, "e2e"), ElementsAre(6.0));
  EXPECT_EQ(Stage(async.results, "E").preempted(), 0u);
}

}  // namespace
}  // namespace serq
