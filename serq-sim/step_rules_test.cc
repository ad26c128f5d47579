// vLLM's scheduler rules of a step stage (language.md §3.3.1): the options
// `chunk N` (long_prefill_token_threshold), `reserve prompt`
// (scheduler_reserve_full_isl) and `recompute last` (a received prompt's
// last token recomputed, _update_waiting_for_remote_kv), and the waiting
// jobs that hold units going past one that holds none (PR 57841). Every
// expected value is derived by hand in the comments.
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::CheckingPools;
using ::serq::testing::Pool;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

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

// `reserve prompt` and a prompt the pool can never hold: a prefill of 12
// in a kv of 10, budget 4. Its chunk of 4 would fit, but all 12 must: the
// stall says it waits for 12 units with 10 free (not for the chunk's 4,
// which are free: that read as a contradiction).
TEST(StepRulesTest, APromptLargerThanThePoolWaitsForAllOfIt) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage E : step(1) { tokens 4; preempt by (-since); reserve prompt; }
workload { arrive batch(1); }
session {
  hold kv (0) {
    run E prefill (12) growing kv;
    run E decode (2) growing kv;
  }
}
run { horizon 100; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("at t=0, session 0: deadlock: its job at the head of 'E' waits for 12 units "
                                    "of 'kv' since t=0; 'kv' has 10 units free of 10 units"));
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


// `recompute last`: a decode job on received KV makes its first token in
// the unit of the last received token. kv of 8; one session loads 5 units
// (a received prompt) and decodes 3 tokens on a step of `context` seconds
// (the step's tau is the context, so each step's length says the content
// its token saw).
//   With it: token 1 recomputes the 5th unit (context 5, no growth); token
//            2 takes unit 6, token 3 unit 7: steps of 5, 6 and 7, e2e 18
//            (the load is at t = 0), most used 7.
//   Without: tokens take units 6, 7, 8: steps of 6, 7, 8, e2e 21, most
//            used 8.
// On a pool of blocks of 16 (cap 32), a received prompt of 15 and 2
// tokens: with it, contexts 15 and 16, both in the first block: e2e 31,
// most used 16; without, contexts 16 and 17, the second token in a second
// block: e2e 33, most used 32.
TEST(StepRulesTest, RecomputeLastTakesNoUnitForTheFirstToken) {
  constexpr char kProgram[] = R"(
pool kv { POOL }
stage E : step(context) { preempt by (-since); OPTIONS }
workload { arrive batch(1); }
session {
  hold kv (0) { load kv (LOAD); run E decode (TOKENS) growing kv; }
  observe e2e = now - arrival;
}
run { horizon 100; }
)";
  struct Case {
    const char* pool;
    const char* load;
    const char* tokens;
    const char* options;
    double e2e;
    double max_used;
  };
  for (const Case& c : {Case{"cap 8;", "5", "3", "recompute last;", 18, 7},
                        Case{"cap 8;", "5", "3", "", 21, 8},
                        Case{"cap 32; block 16;", "15", "2", "recompute last;", 31, 16},
                        Case{"cap 32; block 16;", "15", "2", "", 33, 32}}) {
    SimRun run = RunSource(absl::StrReplaceAll(kProgram, {{"POOL", c.pool},
                                                          {"LOAD", c.load},
                                                          {"TOKENS", c.tokens},
                                                          {"OPTIONS", c.options}}),
                           CheckingPools());
    ASSERT_TRUE(run.ok) << run.errors;
    EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(c.e2e)) << c.pool << c.options;
    EXPECT_EQ(Pool(run.results, "kv").max_used(), c.max_used) << c.pool << c.options;
    EXPECT_EQ(Stage(run.results, "E").preempted(), 0u);
  }
}

// Only content that a load brought, and nothing computed since, is
// received; tau = context, kv of 20, one session a program.
//   Loaded, then computed: load 4, prefill 2 on E, a link of 1 s (so the
//   decode is a new job, not one continuing the prefill), decode 2: the
//   hold's content (6) is not what the load brought (4), so the first
//   token takes unit 7, as without the option: prefill step context 6,
//   link 1, decode steps 7 and 8: e2e 22.
//   Colocated (no load): prefill 3, then decode 2 at once on E (the job
//   goes on): contexts 3, 4, 5: e2e 12.
TEST(StepRulesTest, RecomputeLastOnlyForReceivedContent) {
  constexpr char kProgram[] = R"(
pool kv { cap 20; }
stage E : step(context) { preempt by (-since); OPTIONS }
stage link : delay;
workload { arrive batch(1); }
session {
  hold kv (0) { BODY }
  observe e2e = now - arrival;
}
run { horizon 100; }
)";
  struct Case {
    const char* body;
    double e2e;
  };
  for (const Case& c :
       {Case{"load kv (4); run E prefill (2) growing kv; run link (1); "
             "run E decode (2) growing kv;",
             22},
        Case{"run E prefill (3) growing kv; run E decode (2) growing kv;", 12}}) {
    for (const char* options : {"recompute last;", ""}) {
      SimRun run = RunSource(
          absl::StrReplaceAll(kProgram, {{"OPTIONS", options}, {"BODY", c.body}}),
          CheckingPools());
      ASSERT_TRUE(run.ok) << run.errors;
      EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(c.e2e)) << c.body << options;
    }
  }
}

// The decoder of testdata/sim/bad-deadlock-decoder.sq without its later
// arrivals, on steps of 0.25 s: two received prompts of 5 units fill a kv
// of 10 at t = 0.5, and each decodes 3 tokens.
//   Without `recompute last` neither first token has a unit and nothing
//   runs: the deadlock that the stall detector reports at t = 0.5.
//   With it (vLLM: the first step recomputes the last prompt token in its
//   allocated block):
//   [0.5, 0.75): A and B (both received) join with no growth: token 1.
//   0.75: A's token 2 needs unit 6, none is free: the victim is B (equal
//         since, later in the batch order), emptied (5 units back), a
//         recompute of 5 + 1 = 6 tokens with 1 decode token after; A takes
//         unit 6 (free 4). [0.75, 1): A's token 2 (no waiting job joins a
//         step that preempted).
//   1:    A takes unit 7 (free 3); B's recompute needs 6: it waits.
//         [1, 1.25): A's token 3: A ends, e2e 1.25, freeing 7.
//   [1.25, 1.5): B's recompute of 6 (its token 2); [1.5, 1.75): unit 7,
//   token 3: e2e 1.75. 5 steps, 1 preemption, 6 tokens recomputed.
TEST(StepRulesTest, RecomputeLastEndsTheReceivedPromptsDeadlock) {
  constexpr char kProgram[] = R"(
pool kv { cap 10; }
stage D : step(0.25) { preempt by (-since); OPTIONS }
stage link : delay;
workload { arrive batch(2); }
session {
  hold kv (0) {
    run link (0.5);
    load kv (5);
    run D decode (3) growing kv;
  }
  observe e2e = now - arrival;
}
run { horizon 100; }
)";
  SimRun with = RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", "recompute last;"}}),
                          CheckingPools());
  ASSERT_TRUE(with.ok) << with.errors;
  EXPECT_THAT(Samples(with.results, "e2e"), ElementsAre(1.25, 1.75));
  EXPECT_EQ(Stage(with.results, "D").steps(), 5u);
  EXPECT_EQ(Stage(with.results, "D").preempted(), 1u);
  EXPECT_EQ(Stage(with.results, "D").recomputed(), 6u);
  SimRun without = RunSource(absl::StrReplaceAll(kProgram, {{"OPTIONS", ""}}), CheckingPools());
  EXPECT_FALSE(without.ok);
  EXPECT_THAT(without.errors, ::testing::HasSubstr("at t=0.5, session 0: deadlock"));
}
}  // namespace
}  // namespace serq
