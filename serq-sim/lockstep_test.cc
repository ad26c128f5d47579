// A step stage's `lockstep` (stage_step_group.cc): its elements step
// together, an idle element running a dummy step of one decode token, each
// step lasting the longest of the elements' step times; and the state
// functions running(S) and waiting(S) that vLLM's data-parallel balancer
// scores engines by. Every expected value is derived by hand in the
// comments; step times are binary fractions, so the sums are exact.
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
using ::serq::testing::ReadAll;
using ::serq::testing::TempPath;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Two requests at t = 0, request j on E[j]: a prefill of 15 and 7 tokens,
// then 2 and 5 decode tokens; tau = (1 + tokens) / 8 s: a prefill step of
// 15 tokens 2 s, of 7 tokens 1 s, a decode step 0.25 s.
//   Alone, each element at its own pace: E[0] 2 + 2 x 0.25: ttft 2, e2e
//     2.5; E[1] 1 + 5 x 0.25: ttft 1, e2e 2.25.
//   In lockstep the first step lasts the longer, 2 s, on both: ttft 2 and
//     2. Then decode steps of 0.25 on both (E[0]'s dummy steps after its
//     last token take 0.25 too): E[0] e2e 2.5, E[1] 2 + 5 x 0.25 = 3.25.
//   Steps: E[0] 3 (its dummy steps are not steps of its own), E[1] 6.
constexpr char kTwoRequests[] = R"(
stage E[2] : step((1 + TOKENS) / 8) { OPTIONS }
workload { arrive batch(2); }
session {
  set j = serial;
  run E[j] prefill (15 - 8 * j);
  observe ttft = now - arrival;
  run E[j] decode (2 + 3 * j);
  observe e2e = now - arrival;
}
run {}
)";

TEST(LockstepTest, TheStepLastsTheLongestElementsStepTime) {
  std::string tokens = absl::StrReplaceAll(kTwoRequests, {{"TOKENS", "tokens"}});
  SimRun alone = RunWithOptions(tokens, "");
  ASSERT_TRUE(alone.ok) << alone.errors;
  EXPECT_THAT(Samples(alone.results, "ttft"), ElementsAre(1.0, 2.0));
  EXPECT_THAT(Samples(alone.results, "e2e"), ElementsAre(2.25, 2.5));
  SimRun lockstep = RunWithOptions(tokens, "lockstep;");
  ASSERT_TRUE(lockstep.ok) << lockstep.errors;
  EXPECT_THAT(Samples(lockstep.results, "ttft"), ElementsAre(2.0, 2.0));
  EXPECT_THAT(Samples(lockstep.results, "e2e"), ElementsAre(2.5, 3.25));
  EXPECT_EQ(Stage(lockstep.results, "E", 0).steps(), 3u);
  EXPECT_EQ(Stage(lockstep.results, "E", 1).steps(), 6u);
}

// The same with tau = (1 + group_tokens) / 8.
//   Alone group_tokens is the step's own tokens: the figures above.
//   In lockstep the first step's group has 15 + 7 = 22 tokens: 23 / 8 =
//     2.875 s on both, ttft 2.875 and 2.875. Every later step has 2 (a
//     decode token on each, or one and a dummy's): 3 / 8 = 0.375. E[0]:
//     2.875 + 2 x 0.375 = 3.625; E[1]: 2.875 + 5 x 0.375 = 4.75.
TEST(LockstepTest, EveryElementReadsTheGroupsTokens) {
  std::string group = absl::StrReplaceAll(kTwoRequests, {{"TOKENS", "group_tokens"}});
  SimRun alone = RunWithOptions(group, "");
  ASSERT_TRUE(alone.ok) << alone.errors;
  EXPECT_THAT(Samples(alone.results, "ttft"), ElementsAre(1.0, 2.0));
  SimRun lockstep = RunWithOptions(group, "lockstep;");
  ASSERT_TRUE(lockstep.ok) << lockstep.errors;
  EXPECT_THAT(Samples(lockstep.results, "ttft"), ElementsAre(2.875, 2.875));
  EXPECT_THAT(Samples(lockstep.results, "e2e"), ElementsAre(3.625, 4.75));
  // group_tokens_max: the first step's largest is 15: 16 / 8 = 2 on both;
  // then 1: 0.25. E[0] 2.5, E[1] 3.25, as with each element's tokens.
  std::string most = absl::StrReplaceAll(kTwoRequests, {{"TOKENS", "group_tokens_max"}});
  SimRun largest = RunWithOptions(most, "lockstep;");
  ASSERT_TRUE(largest.ok) << largest.errors;
  EXPECT_THAT(Samples(largest.results, "ttft"), ElementsAre(2.0, 2.0));
  EXPECT_THAT(Samples(largest.results, "e2e"), ElementsAre(2.5, 3.25));
}

// The trace's step events carry the group's figures, as every figure a tau
// may read (serq fit-steps fits a tau to them): the first step's group has
// 15 + 7 = 22 tokens, its largest 15; each element's tau its own,
// (1 + 15) / 8 = 2 and (1 + 7) / 8 = 1. Alone, the group is the element:
// 15 and 15.
TEST(LockstepTest, TheTracesStepsCarryTheGroupsTokens) {
  std::string tokens = absl::StrReplaceAll(kTwoRequests, {{"TOKENS", "tokens"}});
  SimOptions options = CheckingPools();
  options.trace_path = TempPath("lockstep.trace");
  SimRun lockstep = RunSource(absl::StrReplaceAll(tokens, {{"OPTIONS", "lockstep;"}}), options);
  ASSERT_TRUE(lockstep.ok) << lockstep.errors;
  std::string trace = ReadAll(options.trace_path);
  EXPECT_THAT(trace, HasSubstr(R"("group_tokens":22,"group_tokens_max":15,"tau":2})"));
  EXPECT_THAT(trace, HasSubstr(R"("group_tokens":22,"group_tokens_max":15,"tau":1})"));
  SimRun alone = RunSource(absl::StrReplaceAll(tokens, {{"OPTIONS", ""}}), options);
  ASSERT_TRUE(alone.ok) << alone.errors;
  trace = ReadAll(options.trace_path);
  EXPECT_THAT(trace, HasSubstr(R"("group_tokens":15,"group_tokens_max":15,"tau":2})"));
  EXPECT_THAT(trace, Not(HasSubstr(R"("group_tokens":22)")));
}

// One request on E[0], a prefill of 7 (1 s alone); an idle element's
// dummy step is one decode token (tokens 1, decode 1, seqs 1, prefill 0,
// decode_kv 0): tau adds 10 s to a step that is exactly that.
//   Alone: ttft 1 (E[1] never steps).
//   In lockstep: E[1]'s dummy step takes 0.25 + 10 s: the first step lasts
//     10.25, ttft 10.25; E[1] has no step of its own.
TEST(LockstepTest, AnIdleElementRunsADummyStepOfOneDecodeToken) {
  constexpr char kProgram[] = R"(
stage E[2] : step((1 + tokens) / 8
                  + 10 * (decode == 1 && prefill == 0 && seqs == 1 && decode_kv_max == 0
                          && decode_context == 1)) { OPTIONS }
workload { arrive batch(1); }
session { run E[0] prefill (7); observe ttft = now - arrival; }
run {}
)";
  SimRun alone = RunWithOptions(kProgram, "");
  ASSERT_TRUE(alone.ok) << alone.errors;
  EXPECT_THAT(Samples(alone.results, "ttft"), ElementsAre(1.0));
  SimRun lockstep = RunWithOptions(kProgram, "lockstep;");
  ASSERT_TRUE(lockstep.ok) << lockstep.errors;
  EXPECT_THAT(Samples(lockstep.results, "ttft"), ElementsAre(10.25));
  EXPECT_EQ(Stage(lockstep.results, "E", 1).steps(), 0u);
}

// A request that arrives at an element during the group's step waits for
// the group's next step, even on an element that runs a dummy step.
//   R0 at t = 0 on E[0], a prefill of 15 (2 s); R1 at t = 1 on E[1], a
//   prefill of 7 (1 s).
//   Alone: R1 starts at once on the idle E[1], and ends at 2 with R0,
//     after it (R0's end was scheduled first): ttft 2, then 1.
//   In lockstep: [0, 2) is R0's step and E[1]'s dummy; R1 joins the next
//     step, [2, 3): ttft(R1) = 3 - 1 = 2.
TEST(LockstepTest, AnArrivalDuringTheGroupsStepWaitsForTheNext) {
  constexpr char kProgram[] = R"(
stage E[2] : step((1 + tokens) / 8) { OPTIONS }
workload { arrive periodic(1); limit 2; }
session {
  set j = serial;
  run E[j] prefill (15 - 8 * j);
  observe ttft = now - arrival;
}
run { horizon 100; }
)";
  SimRun alone = RunWithOptions(kProgram, "");
  ASSERT_TRUE(alone.ok) << alone.errors;
  EXPECT_THAT(Samples(alone.results, "ttft"), ElementsAre(2.0, 1.0));
  SimRun lockstep = RunWithOptions(kProgram, "lockstep;");
  ASSERT_TRUE(lockstep.ok) << lockstep.errors;
  EXPECT_THAT(Samples(lockstep.results, "ttft"), ElementsAre(2.0, 2.0));
}

// running(S) and waiting(S): vLLM's running requests and the rest. E has
// one seat (seqs 1), steps of 1 s; requests at 0, 0.4, 0.8, each a decode
// of 3 tokens, observe both as they arrive (before their own run):
//   t = 0: nothing there: 0 running, 0 waiting.
//   t = 0.4: R0 runs ([0, 1)): 1, 0.
//   t = 0.8: R0 runs, R1 waits for the seat: 1, 1.
// The same with and without `preempt by`.
TEST(LockstepTest, RunningAndWaiting) {
  constexpr char kProgram[] = R"(
stage E : step(1) { seqs 1; OPTIONS }
workload { arrive periodic(0.4); limit 3; }
session {
  observe r = running(E);
  observe w = waiting(E);
  run E decode (3);
}
run { horizon 100; }
)";
  for (const char* options : {"", "preempt by (-since);"}) {
    SimRun run = RunWithOptions(kProgram, options);
    ASSERT_TRUE(run.ok) << run.errors;
    EXPECT_THAT(Samples(run.results, "r"), ElementsAre(0.0, 1.0, 1.0)) << options;
    EXPECT_THAT(Samples(run.results, "w"), ElementsAre(0.0, 0.0, 1.0)) << options;
  }
}

// vLLM's data-parallel balancer sends a request to the engine of least
// 4 waiting + running, ties to the first. Two engines of one seat each,
// steps of 1 s; requests at 0, 0.4, 0.8, 1.2, each 3 decode tokens:
//   t = 0: 0, 0: E[0]. t = 0.4: E[0] runs R0: 1, 0: E[1].
//   t = 0.8: 1, 1: E[0] (R2 waits there). t = 1.2: E[0] 1 + 4 = 5,
//   E[1] 1: E[1].
TEST(LockstepTest, TheDataParallelBalancersChoice) {
  constexpr char kProgram[] = R"(
stage E[2] : step(1) { seqs 1; preempt by (-since); }
workload { arrive periodic(0.4); limit 4; }
session {
  choose i in E by (4 * waiting(E[i]) + running(E[i]));
  observe engine = i;
  run E[i] decode (3);
}
run { horizon 100; }
)";
  SimRun run = RunSource(kProgram, CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "engine"), ElementsAre(0.0, 1.0, 0.0, 1.0));
}

// `queued`: a step stage takes a job in at the end of the step in flight
// (vLLM's engine reads new requests between steps and stamps queued_ts
// then), at once when idle, and a run continuing the session's job keeps
// the job's. Steps of 1 s; A at 0 (a prefill of 1, then 3 decode tokens),
// B at 0.5 (a prefill of 1):
//   A: the stage is idle: queued 0. Its decode run continues its job (it
//     comes at the instant its prefill ended): queued stays 0, e2e 4.
//   B: comes during [0, 1): queued 1. Without async it joins [1, 2):
//     first token at 2, ttft 2 - 1 = 1. With async it joins [2, 3):
//     ttft 3 - 1 = 2.
TEST(LockstepTest, QueuedIsTheEndOfTheStepInFlight) {
  constexpr char kProgram[] = R"(
stage E : step(1) { preempt by (-since); OPTIONS }
workload { arrive periodic(0.5); limit 2; }
session {
  run E prefill (1);
  observe q = queued;
  observe ttft = now - queued;
  if (serial == 0) { run E decode (3); observe e2e = now - queued; }
}
run { horizon 100; }
)";
  SimRun sync = RunWithOptions(kProgram, "");
  ASSERT_TRUE(sync.ok) << sync.errors;
  EXPECT_THAT(Samples(sync.results, "q"), ElementsAre(0.0, 1.0));
  EXPECT_THAT(Samples(sync.results, "ttft"), ElementsAre(1.0, 1.0));
  EXPECT_THAT(Samples(sync.results, "e2e"), ElementsAre(4.0));
  SimRun async = RunWithOptions(kProgram, "async;");
  ASSERT_TRUE(async.ok) << async.errors;
  EXPECT_THAT(Samples(async.results, "q"), ElementsAre(0.0, 1.0));
  EXPECT_THAT(Samples(async.results, "ttft"), ElementsAre(1.0, 2.0));
}

// With lockstep, the step in flight is the group's: a request that comes to
// an element running a dummy step is taken in at the group's step end. R0
// at 0 on E[0] (15 tokens: 2 s), R1 at 1 on E[1]: queued 2 (not 1), its
// step [2, 3): ttft from queued 1. And `queued` is a session's own variable
// where the session sets one: the program's `set queued` reads back 7.
// (Serials count over both workloads: R0 0, the other 1, R1 2.)
TEST(LockstepTest, QueuedInAGroupAndAsAVariable) {
  constexpr char kProgram[] = R"(
stage E[2] : step((1 + tokens) / 8) { lockstep; }
workload { arrive periodic(1); limit 2; }
session {
  set j = min(serial, 1);
  run E[j] prefill (15 - 8 * j);
  observe q = queued;
  observe ttft = now - queued;
}
workload other { arrive batch(1); }
session other { set queued = 7; observe mine = queued; }
run { horizon 100; }
)";
  SimRun run = RunSource(kProgram, CheckingPools());
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "q"), ElementsAre(0.0, 2.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(2.0, 1.0));
  EXPECT_THAT(Samples(run.results, "mine"), ElementsAre(7.0));
}

}  // namespace
}  // namespace serq
