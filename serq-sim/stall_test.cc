// Deadlocks found while events still come (engine_stall.cc), end to end:
// the time they are dated at, the figures up to then, and what is not one.
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/engine/simulate.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::testing::HasSubstr;
using ::testing::Not;

// testdata/sim/bad-deadlock-cycle.sq with a horizon of 10^6 s and a late
// arrival every 1/8 s: session 0 holds a from 0 and asks for b at 2,
// session 1 holds b from 1 and asks for a at 3. The check every 65536
// events finds it (near t = 8192) long before the horizon, and the run
// stops at t = 3: the late arrivals 0, 1/8, ..., 3 are 25 samples of x.
constexpr char kCycle[] = R"(
pool a { cap 1; }
pool b { cap 1; }
stage S : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) {
    hold a (1) { run S (2); hold b (1) { } }
  } else {
    run S (1);
    hold b (1) { run S (2); hold a (1) { } }
  }
}
workload late { arrive periodic(0.125); }
session late {
  observe x = now;
  hold a (1) { }
}
run { horizon 1e6; replications 3; }
)";

TEST(StallTest, FoundLongBeforeTheHorizonAndDatedWhenItBegan) {
  SimRun run = RunSource(kCycle);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("at t=3, session 1: deadlock: its hold waits for 1 unit of "
                                    "'a' since t=3; 'a' has 0 units free of 1 unit, held by "
                                    "session 0 (1 unit; its hold waits for 1 unit of 'b' at 8:29)"));
  EXPECT_THAT(run.errors, HasSubstr("the run stops at t=3 (the figures are up to then)"));
  // The stalled replication alone, over [0, 3].
  EXPECT_EQ(run.results.horizon(), 3);
  EXPECT_EQ(run.results.replications(), 1u);
  ASSERT_EQ(run.results.replication_size(), 1);
  EXPECT_EQ(run.results.replication(0).index(), 0u);
  EXPECT_EQ(Samples(run.results, "x").size(), 25u);
}

TEST(StallTest, OnThreadsTheFirstReplicationsFigures) {
  SimOptions options;
  options.jobs = 2;
  SimRun run = RunSource(kCycle, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("the run stops at t=3"));
  ASSERT_EQ(run.results.replication_size(), 1);
  EXPECT_EQ(Samples(run.results, "x").size(), 25u);
}

// Not deadlocks: units that an event will free. Session 0 leases a for
// 50 s and ends; session 1 then holds b and waits for a until the lease
// expires at 52; the late ones queue for a behind it. With the lease for
// ever it is one, dated t = 3 (session 1 asks then, everything else
// already waits or holds for good).
constexpr char kLease[] = R"(
pool a { cap 1; }
pool b { cap 1; }
stage S : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) {
    run S (2);
    hold a (1) { } lease a (DURATION);
  } else {
    run S (1);
    hold b (1) { run S (2); hold a (1) { } }
  }
}
workload late { arrive periodic(0.125); }
session late { hold b (1) { run S (0.01); } }
run { horizon 200; }
)";

TEST(StallTest, ALeaseThatExpiresIsNone) {
  SimRun run = RunSource(absl::StrReplaceAll(kLease, {{"DURATION", "50"}}));
  EXPECT_TRUE(run.ok) << run.errors;
}

TEST(StallTest, ALeaseForEverOfAnEndedSessionIsOne) {
  SimRun run = RunSource(absl::StrReplaceAll(kLease, {{"DURATION", "inf"}}));
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("at t=3, session 1: deadlock: its hold waits for 1 unit of 'a' "
                                    "since t=3; 'a' has 0 units free of 1 unit, held by session 0 "
                                    "(1 unit, a lease, its session ended, without an expiry)"));
}

// testdata/sim/bad-deadlock.sq with a late arrival every 0.5 s asking for
// a unit of kv: at t = 2 session 1 holds 3 and asks for 6 more with 1
// free (session 0's lease of 6 is for ever); the late ones queue behind
// it for the free unit. It began at t = 2, the later arrivals change
// nothing, and no event is left only at the horizon.
TEST(StallTest, WaitersThatCameLaterDoNotMoveTheDate) {
  SimRun run = RunSource(R"(
pool kv { cap 10; }
stage S : delay;
workload { arrive batch(2); }
session {
  if (serial == 0) {
    hold kv (6) { run S (1); } lease kv (inf);
  } else {
    run S (2);
    hold kv (3) { hold kv (6) { } }
  }
}
workload late { arrive periodic(0.5); }
session late { hold kv (1) { } }
run { horizon 100; }
)");
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("at t=2, session 1: deadlock: its hold waits for 6 units of "
                                    "'kv' since t=2; 'kv' has 1 unit free of 10 units, held by "
                                    "session 0 (6 units, a lease, its session ended, without an "
                                    "expiry); session 1 (3 units, this session)"));
  EXPECT_EQ(run.results.horizon(), 2);
}

// A holder that is still running (a long delay) is no deadlock, however
// long: session 0 holds a for 150 s while the others queue.
TEST(StallTest, AHolderInARunIsNone) {
  SimRun run = RunSource(R"(
pool a { cap 1; }
stage S : delay;
workload { arrive batch(1); }
session { hold a (1) { run S (150); } }
workload late { arrive periodic(0.125); }
session late { hold a (1) { } }
run { horizon 200; }
)");
  EXPECT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(run.errors, Not(HasSubstr("deadlock")));
}

}  // namespace
}  // namespace serq
