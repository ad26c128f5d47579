// vLLM's scheduler rules of a step stage (language.md §3.3.1): the options
// `chunk N` (long_prefill_token_threshold) and `reserve prompt`
// (scheduler_reserve_full_isl), and the waiting jobs that hold units going
// past one that holds none (PR 57841). Every expected value is derived by
// hand in the comments.
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::CheckingPools;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::testing::ElementsAre;

// One prefill of 7 tokens on a step of 1 + prefill seconds.
//   No cap: one step of all 7: ttft 1 + 7 = 8.
//   chunk 3: chunks 3, 3, 1: steps of 4, 4 and 2: ttft 10.
// The same with `preempt by` (the batch formed from running and waiting
// jobs, stage_step_preempt.cc): the cap is the same there.
TEST(StepRulesTest, ChunkCapsOneJobsPrefill) {
  constexpr char kProgram[] = R"(
pool kv { cap 100; }
stage E : step(1 + prefill) { OPTIONS }
workload { arrive batch(1); }
session { hold kv (0) { run E prefill (7) growing kv; observe ttft = now - arrival; } }
run { horizon 100; }
)";
  for (const char* preempt : {"", "preempt by (-since);"}) {
    SCOPED_TRACE(preempt);
    auto run = [&](const std::string& options) {
      return RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", options + preempt}}),
                       CheckingPools());
    };
    SimRun whole = run("");
    ASSERT_TRUE(whole.ok) << whole.errors;
    EXPECT_THAT(Samples(whole.results, "ttft"), ElementsAre(8.0));
    SimRun capped = run("chunk 3;");
    ASSERT_TRUE(capped.ok) << capped.errors;
    EXPECT_THAT(Samples(capped.results, "ttft"), ElementsAre(10.0));
    EXPECT_EQ(Stage(capped.results, "E").steps(), 3u);
  }
}

// The cap is per job, the budget per step: two prefills of 7, tokens 5,
// chunk 3, a step of 1 + prefill.
//   [0, 6): A 3, B min(7, 5 - 3, 3) = 2 (prefill 5).
//   [6, 12): A 3, B 2.
//   [12, 17): A 1 (its 7th: done), B min(3, 4, 3) = 3 (its 7th: done).
// Both ttft 17. Without the cap A takes the budget: [0, 6) A 5; [6, 12)
// A 2 (done, 12), B 3; [12, 17) B 4: ttft 12 and 17.
TEST(StepRulesTest, ChunkIsPerJobBudgetPerStep) {
  constexpr char kProgram[] = R"(
stage E : step(1 + prefill) { tokens 5; OPTIONS }
workload { arrive batch(2); }
session { run E prefill (7); observe ttft = now - arrival; }
run { horizon 100; }
)";
  SimRun capped = RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", "chunk 3;"}}));
  ASSERT_TRUE(capped.ok) << capped.errors;
  EXPECT_THAT(Samples(capped.results, "ttft"), ElementsAre(17.0, 17.0));
  SimRun whole = RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", ""}}));
  ASSERT_TRUE(whole.ok) << whole.errors;
  EXPECT_THAT(Samples(whole.results, "ttft"), ElementsAre(12.0, 17.0));
}

// `reserve prompt`: two sessions (A, B) of a prefill of 6 and 2 decode
// tokens, kv of 10, a budget of 4 a step of 1 s, by (-since).
//
// Without it (a waiting job joins when its chunk fits):
//   t = 0: A joins with 4 (content 4); the budget is spent, B waits.
//   t = 1: A's last 2 (content 6); B joins with 2 (content 2, used 8).
//   t = 2: A decodes (7, used 9); B's chunk of 3 does not fit (1 free):
//          victims A (key -0) and B (key -1, since 1): B, the growing job
//          itself. B's 2 units return; it waits as a recompute of 2 + 4 =
//          6. No waiting job joins.
//   t = 3: A decodes (8); B's chunk of 3 does not fit (2 free).
//   t = 4: A's run ended at 4 (e2e 4) and freed 8; B 4, then 2 at t = 5,
//          decodes in [6, 7) and [7, 8): e2e 8. One preemption.
// With it (a waiting prefill joins only when all of it fits):
//   t = 0: A: 6 fit in 10; joins with 4. B: no budget.
//   t = 1: A 2 (content 6); B needs 6, 4 free: waits.
//   t = 2, 3: A decodes (7, 8); B needs 6, 3 then 2 free: waits.
//   t = 4: A ended (e2e 4); B's 6 fit: 4, 2, then 2 decodes: e2e 8.
// The same times, and no preemption: B never took what it could not keep.
TEST(StepRulesTest, ReservePromptAdmitsOnlyWhatFitsWhole) {
  constexpr char kProgram[] = R"(
pool kv { cap 10; }
stage E : step(1) { tokens 4; preempt by (-since); OPTIONS }
workload { arrive batch(2); }
session {
  hold kv (0) {
    run E prefill (6) growing kv;
    run E decode (2) growing kv;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)";
  SimRun chunked = RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", ""}}), CheckingPools());
  ASSERT_TRUE(chunked.ok) << chunked.errors;
  EXPECT_THAT(Samples(chunked.results, "e2e"), ElementsAre(4.0, 8.0));
  EXPECT_EQ(Stage(chunked.results, "E").preempted(), 1u);
  EXPECT_EQ(Stage(chunked.results, "E").steps(), 8u);
  SimRun reserved =
      RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", "reserve prompt;"}}), CheckingPools());
  ASSERT_TRUE(reserved.ok) << reserved.errors;
  EXPECT_THAT(Samples(reserved.results, "e2e"), ElementsAre(4.0, 8.0));
  EXPECT_EQ(Stage(reserved.results, "E").preempted(), 0u);
  EXPECT_EQ(Stage(reserved.results, "E").steps(), 8u);
}

// `reserve prompt` counts in blocks on a block pool: a prefill of 5 in
// blocks of 4 needs 8 units. kv of 13 (3 whole blocks); A: prefill 8,
// decode 2; B: prefill 5.
//   t = 0: A's 8 fit (2 blocks, used 8); B needs 2 blocks, 8 units, and 5
//          are free: waits.
//   t = 1: A decodes: content 9, a third block (used 12). B waits.
//   t = 2: A decodes (10, inside its blocks): e2e(A) = 3 at the step's end.
//   t = 3: A freed 12; B 5 in [3, 4): e2e(B) = 4. No preemption.
// By units B's 5 fit beside A's 8 at t = 0: B ends at 1 (freeing 5), A
// decodes to 9 and 10: e2e 1 (B) and 3 (A).
TEST(StepRulesTest, ReservePromptInBlocks) {
  constexpr char kProgram[] = R"(
pool kv { cap 13; BLOCK }
stage E : step(1) { tokens 100; preempt by (-since); reserve prompt; }
workload { arrive batch(2); }
session {
  hold kv (0) {
    if (serial == 0) {
      run E prefill (8) growing kv;
      run E decode (2) growing kv;
    } else {
      run E prefill (5) growing kv;
    }
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)";
  SimRun blocks = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", "block 4;"}}),
                            CheckingPools());
  ASSERT_TRUE(blocks.ok) << blocks.errors;
  EXPECT_THAT(Samples(blocks.results, "e2e"), ElementsAre(3.0, 4.0));
  EXPECT_EQ(Stage(blocks.results, "E").preempted(), 0u);
  SimRun units = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", ""}}), CheckingPools());
  ASSERT_TRUE(units.ok) << units.errors;
  EXPECT_THAT(Samples(units.results, "e2e"), ElementsAre(1.0, 3.0));
  EXPECT_EQ(Stage(units.results, "E").preempted(), 0u);
}

// A waiting job holding units is not kept behind one holding none (vLLM
// PR 57841). kv of 6; X (serial 0) holds 0 and decodes 2 tokens; Y (serial
// 1) holds 6, loads 5 (a received prompt, inside its amount), then decodes
// 1 token. Both reach E at t = 0, X first: two waiting decode jobs.
//   t = 0: X's token needs a unit, none is free (Y holds 6), and X holds
//          none: X does not join, and the jobs after it that hold units may
//          still. Y's token takes its content to 6, inside its amount: it
//          joins. Step [0, 1): Y's token; Y ends at 1 (e2e 1), freeing 6.
//   t = 1: X takes its unit; its tokens in [1, 2) and [2, 3): e2e 3.
// Before the rule X stopped the waiting jobs, the batch was empty and no
// event was left: a deadlock, which vLLM had too.
TEST(StepRulesTest, AHolderDoesNotWaitBehindAJobHoldingNothing) {
  SimRun run = RunSource(R"(
pool kv { cap 6; }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(2); }
session {
  if (serial == 0) {
    hold kv (0) { run E decode (2) growing kv; }
  } else {
    hold kv (6) { load kv (5); run E decode (1) growing kv; }
  }
  observe e2e = now - arrival;
}
run { horizon 100; }
)",
                         CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(1.0, 3.0));
  EXPECT_EQ(Stage(run.results, "E").steps(), 3u);
  EXPECT_EQ(Stage(run.results, "E").preempted(), 0u);
}

}  // namespace
}  // namespace serq
