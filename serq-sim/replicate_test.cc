// Replications on threads (--jobs) give the same results, byte for byte, as
// one after the other, and running a subset (first_replication) gives the
// very replications the whole run has at those indices.
#include "serq-sim/replicate.h"

#include <string>

#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"
#include "serq-sim/simulate.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::SimRun;

// An M/M/1 queue: enough events per replication that threads interleave.
constexpr char kQueue[] = R"(
stage S : fifo(1);
workload { arrive poisson(0.8); }
session { run S (exponential(1)); observe w = now - arrival; }
run { horizon 2000; replications 7; seed 5; }
)";

TEST(ReplicateTest, ThreadsGiveTheSameBytes) {
  SimOptions one;
  SimRun serial = RunSource(kQueue, one);
  ASSERT_TRUE(serial.ok) << serial.errors;
  ASSERT_EQ(serial.results.replication_size(), 7);
  for (uint32_t jobs : {2u, 3u, 7u, 16u}) {
    SimOptions options;
    options.jobs = jobs;
    SimRun threaded = RunSource(kQueue, options);
    ASSERT_TRUE(threaded.ok) << threaded.errors;
    EXPECT_EQ(threaded.results.SerializeAsString(), serial.results.SerializeAsString())
        << "--jobs " << jobs;
  }
}

TEST(ReplicateTest, FirstReplicationRunsTheSameReplications) {
  SimRun whole = RunSource(kQueue);
  ASSERT_TRUE(whole.ok) << whole.errors;
  for (uint32_t jobs : {1u, 2u}) {
    SimOptions options;
    options.first_replication = 4;
    options.jobs = jobs;
    SimRun tail = RunSource(kQueue, options);
    ASSERT_TRUE(tail.ok) << tail.errors;
    ASSERT_EQ(tail.results.replication_size(), 3);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(tail.results.replication(i).index(), 4u + i);
      EXPECT_EQ(tail.results.replication(i).SerializeAsString(),
                whole.results.replication(4 + i).SerializeAsString());
    }
    EXPECT_EQ(tail.results.replications(), 7u);  // the run's, not the subset's
  }
}

TEST(ReplicateTest, FirstReplicationPastTheEndIsAnError) {
  SimOptions options;
  options.first_replication = 7;
  SimRun run = RunSource(kQueue, options);
  EXPECT_FALSE(run.ok);
  EXPECT_NE(run.errors.find("replication 7 asked for, but the run has 7"), std::string::npos)
      << run.errors;
}

// A run time normal(1, 0.5) is negative with probability P(Z < -2) = 2.3%,
// a runtime error; with ~2 sessions a replication, some replications fail
// and some do not. Run alone (first_replication = r, replications r + 1),
// each replication shows whether it fails; the whole run, serial or on
// threads, must report the lowest failing one's error, as the serial loop
// (which stops there) does.
constexpr char kSometimesNegative[] = R"(
stage S : delay;
workload { arrive poisson(1); }
session { run S (normal(1, 0.5)); }
run { horizon 2; replications 60; seed 3; }
)";

TEST(ReplicateTest, ThreadsReportTheLowestFailingReplication) {
  std::string first_error;
  int failing = 0;
  for (uint32_t r = 0; r < 60; ++r) {
    SimOptions alone;
    alone.first_replication = r;
    alone.replications = r + 1;
    SimRun run = RunSource(kSometimesNegative, alone);
    if (!run.ok) {
      if (failing++ == 0) first_error = run.errors;
    }
  }
  ASSERT_GT(failing, 1) << "the program should fail in several replications";
  ASSERT_LT(failing, 60) << "and not in all";
  for (uint32_t jobs : {1u, 2u, 4u, 60u}) {
    SimOptions options;
    options.jobs = jobs;
    SimRun run = RunSource(kSometimesNegative, options);
    EXPECT_FALSE(run.ok);
    EXPECT_EQ(run.errors, first_error) << "--jobs " << jobs;
  }
}

TEST(ReplicateTest, JobsZeroIsMisuse) {
  SimOptions options;
  options.jobs = 0;
  EXPECT_FALSE(ValidateSimOptions(options).ok());
}

}  // namespace
}  // namespace serq
