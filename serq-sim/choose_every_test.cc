// `choose … every DT` (IR 11, choose_copy.cc): the key reads a copy of the
// deployment taken at the latest multiple of DT (of the state the events
// before that instant left), plus one waiting job on the chosen element
// for each choice made since; the next multiple replaces the copy. Every
// expected value is derived by hand in the comments.
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunWithOptions;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::testing::ElementsAre;

// Five requests at 0, 0.04, 0.08, 0.12 and 0.16 s, each 0.1 s at a delay
// stage (a job there is in service: queue counts it), on the element of
// least queue; `pick` is 10 x serial + the element chosen.
//   The state of the instant: 0 -> E[0] (0, 0: a tie); 0.04 -> E[1]
//     (1, 0); 0.08 -> E[0] (1, 1); 0.12: E[0]'s first job ended at 0.1,
//     (1, 1) -> E[0]; 0.16: E[1]'s job ended at 0.14, (2, 0) -> E[1].
//   `every 0.1`: the copy of 0 is (0, 0); with each choice counted in it:
//     0 -> E[0] (then 1, 0), 0.04 -> E[1] (1, 1), 0.08 -> E[0] (2, 1).
//     The copy of 0.1 is taken before the first job's end at 0.1: (2, 1),
//     so 0.12 -> E[1] (then 2, 2), and 0.16 -> E[0] (a tie in the copy,
//     though E[1] is then empty and E[0] holds two jobs).
//   `every 1`: one copy, of 0, for the five, so only the choices count:
//     E[0], E[1], E[0], E[1], E[0].
constexpr char kFive[] = R"(
stage E[2] : delay;
workload { arrive periodic(0.04); limit 5; }
session {
  choose i in E by queue(E[i]) OPTIONS;
  observe pick = 10 * serial + i;
  run E[i] (0.1);
}
run {}
)";

TEST(ChooseEveryTest, TheKeyReadsTheCopyPlusTheChoicesSinceIt) {
  SimRun live = RunWithOptions(kFive, "");
  ASSERT_TRUE(live.ok) << live.errors;
  EXPECT_THAT(Samples(live.results, "pick"), ElementsAre(0, 11, 20, 30, 41));
  SimRun tenth = RunWithOptions(kFive, "every 0.1");
  ASSERT_TRUE(tenth.ok) << tenth.errors;
  EXPECT_THAT(Samples(tenth.results, "pick"), ElementsAre(0, 11, 20, 31, 40));
  SimRun second = RunWithOptions(kFive, "every 1");
  ASSERT_TRUE(second.ok) << second.errors;
  EXPECT_THAT(Samples(second.results, "pick"), ElementsAre(0, 11, 20, 31, 40));
}

// The copy adds nothing to the run's end: a run without a horizon ends at
// its last event (0.16 + 0.1), with or without `every`.
TEST(ChooseEveryTest, TheCopyIsNoEvent) {
  SimRun live = RunWithOptions(kFive, "");
  SimRun tenth = RunWithOptions(kFive, "every 0.1");
  ASSERT_TRUE(live.ok && tenth.ok) << live.errors << tenth.errors;
  EXPECT_EQ(live.results.replication(0).end(), tenth.results.replication(0).end());
  EXPECT_EQ(live.results.replication(0).events(), tenth.results.replication(0).events());
}

// vLLM's balancer on two step engines: waiting jobs weigh 4, running 1.
// Three requests at 0, 0.01 and 0.02 s of 100 prefill tokens, a step 1 s:
// the first starts on E[0] at once (running 1). Live, the second sees
// E[0] 1, E[1] 0 -> E[1]; the third (1, 1) -> E[0], where it waits.
// `every 0.1`: the copy of 0 is empty; the first choice makes E[0] score 4
// (counted waiting), so the second goes to E[1] (then 4, 4) and the third
// to E[0] (a tie): the same here, as a copy this fresh should.
constexpr char kBalancer[] = R"(
stage E[2] : step(1) { preempt by (-since); }
workload { arrive periodic(0.01); limit 3; }
session {
  choose i in E by (4 * waiting(E[i]) + running(E[i])) OPTIONS;
  observe pick = 10 * serial + i;
  run E[i] prefill (100);
}
run {}
)";

TEST(ChooseEveryTest, VllmBalancerOnAFreshCopy) {
  for (const char* options : {"", "every 0.1"}) {
    SimRun r = RunWithOptions(kBalancer, options);
    ASSERT_TRUE(r.ok) << r.errors;
    EXPECT_THAT(Samples(r.results, "pick"), ElementsAre(0, 11, 20)) << options;
  }
}

}  // namespace
}  // namespace serq
