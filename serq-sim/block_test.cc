// KV in blocks (`block G` on a pool): a hold's size is max(amount, content)
// rounded up to whole blocks, as vLLM's KVCacheManager allocates
// cdiv(tokens, block_size) blocks a request and a decode takes a new block
// only when its last is full. Every expected value is derived by hand in the
// comments.
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

// docs/simulation.md §The LLM engine as vLLM runs it: its program with the pool
// in blocks of 4 (BLOCK replaced).
constexpr char kSpec[] = R"(
pool kv { cap 10; BLOCK }
stage E : step(1) { preempt by (-since); }
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

std::string Spec(absl::string_view block) {
  return absl::StrReplaceAll(kSpec, {{"BLOCK", block}});
}

// Blocks of 4 in a cap of 10: two blocks (8 units) can ever be held at
// once, the last 2 units never (a block does not fit in them).
//   t = 0: both prefill 4: one block each, used 8.
//   t = 1: A's first decode token makes its content 5: a second block, 4
//          units, but 2 are free. Victims by (-since): A and B tie; B is
//          later in the batch order. B's block returns; A takes it (used
//          8). B waits as a recompute of c + 1 = 5 tokens, then r - 1 = 3
//          decode tokens. No waiting job joins this step.
//   t = 2, 3, 4: A's content 6, 7, 8: inside its two blocks, nothing
//          taken; B's chunk of 5 needs 2 blocks (8 units), 2 are free.
//   t = 5: A's 4th token ends its run (e2e 5) and frees 8. B recomputes 5
//          tokens in [5, 6) (2 blocks), which makes a token; its 3 decode
// tokens come at 7, 8, 9 (content 6, 7, 8: no new block): e2e 9. Steps: t = 0..4
// and 5..8: 9. One preemption, 5 tokens recomputed; the pool never holds more
// than 8. By tokens the same program preempts at t = 2 (used 10), and B ends at
// 8 (docs/simulation.md §The LLM engine as vLLM runs it): blocks preempt
// earlier.
TEST(BlockTest, SpecInBlocks) {
  SimRun run = RunSource(Spec("block 4;"), CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 9.0));
  // A's tokens at 2, 3, 4, 5 (the first 1 s after its run started at 1);
  // B's at 6 (5 s after its decode run started at 1), 7, 8, 9.
  EXPECT_THAT(Samples(run.results, "itl"), ElementsAre(1.0, 1.0, 1.0, 1.0, 5.0, 1.0, 1.0, 1.0));
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 1u);
  EXPECT_EQ(e.recomputed(), 5u);
  EXPECT_EQ(e.steps(), 9u);
  EXPECT_EQ(Pool(run.results, "kv").max_used(), 8.0);
}

// The same program by tokens, for contrast (the figures of docs/simulation.md
// §The LLM engine as vLLM runs it).
TEST(BlockTest, SpecInTokens) {
  SimRun run = RunSource(Spec(""), CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 8.0));
  EXPECT_EQ(Stage(run.results, "E").recomputed(), 6u);
  EXPECT_EQ(Pool(run.results, "kv").max_used(), 10.0);
}

// A hold's amount is taken in whole blocks too: three holds of 2 in a cap
// of 8 with blocks of 4 take 4 each, so two are admitted at t = 0 (used
// 8) and the third when they end at 1: e = 1, 1, 2. By units all three
// fit (6 of 8): e = 1, 1, 1.
TEST(BlockTest, AmountInWholeBlocks) {
  constexpr char kProgram[] = R"(
pool kv { cap 8; BLOCK }
stage D : delay;
workload { arrive batch(3); }
session { hold kv (2) { run D (1); } observe e = now - arrival; }
run { horizon 100; }
)";
  SimRun blocks = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", "block 4;"}}),
                            CheckingPools());
  ASSERT_TRUE(blocks.ok) << blocks.errors;
  EXPECT_THAT(Samples(blocks.results, "e"), ElementsAre(1.0, 1.0, 2.0));
  EXPECT_EQ(Pool(blocks.results, "kv").max_used(), 8.0);
  SimRun units = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", ""}}), CheckingPools());
  ASSERT_TRUE(units.ok) << units.errors;
  EXPECT_THAT(Samples(units.results, "e"), ElementsAre(1.0, 1.0, 1.0));
  EXPECT_EQ(Pool(units.results, "kv").max_used(), 6.0);
}

// A hold whose whole blocks exceed the cap can never be admitted: 9 units
// are 3 blocks of 4, 12 > 10. A located runtime error, not a wait.
TEST(BlockTest, AmountBeyondCapInBlocks) {
  SimRun run = RunSource(R"(
pool kv { cap 10; block 4; }
stage D : delay;
workload { arrive batch(1); }
session { hold kv (9) { run D (1); } }
run { horizon 100; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("a hold of 9 units of 'kv' is 12 units in whole blocks, "
                                    "larger than its cap 10"));
}

// Growth takes a block when the content passes the end of the last one: a
// prefill of 5 and 4 decode tokens reach content 9, three blocks of 4 = 12
// units. In a cap of 9 that is a runtime error at the 4th decode token
// (formed at t = 4: prefill [0, 1), decodes from 1); by units 9 fits, and
// the run ends at 5.
TEST(BlockTest, DecodeTakesABlockWhenTheLastIsFull) {
  constexpr char kProgram[] = R"(
pool kv { cap 9; BLOCK }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(1); }
session {
  hold kv (0) {
    run E prefill (5) growing kv;
    run E decode (4) growing kv;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)";
  SimRun blocks = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", "block 4;"}}),
                            CheckingPools());
  EXPECT_FALSE(blocks.ok);
  EXPECT_THAT(blocks.errors, HasSubstr("at t=4"));
  EXPECT_THAT(blocks.errors, HasSubstr("the decode run's next token would make its hold on 'kv' "
                                       "12 units, larger than its cap 9"));
  SimRun units = RunSource(absl::StrReplaceAll(kProgram, {{"BLOCK", ""}}), CheckingPools());
  ASSERT_TRUE(units.ok) << units.errors;
  EXPECT_THAT(Samples(units.results, "e2e"), ElementsAre(5.0));
  EXPECT_EQ(Pool(units.results, "kv").max_used(), 9.0);
}

// With 3 decode tokens (content 8, two blocks exactly) it fits: the
// prefill's 5 tokens take 2 blocks at once, and the decodes none.
TEST(BlockTest, ContentAtABlockBoundaryTakesNoMore) {
  SimRun run = RunSource(R"(
pool kv { cap 8; block 4; }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(1); }
session {
  hold kv (0) {
    run E prefill (5) growing kv;
    run E decode (3) growing kv;
    observe e2e = now - arrival;
  }
}
run { horizon 100; }
)",
                         CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(4.0));
  EXPECT_EQ(Pool(run.results, "kv").max_used(), 8.0);
}

}  // namespace
}  // namespace serq
