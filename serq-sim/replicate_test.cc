// Replications on threads (--jobs) give the same results, byte for byte, as
// one after the other, and running a subset (first_replication) gives the
// very replications the whole run has at those indices.
#include "serq-sim/engine/replicate.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq-sim/sim_testing.h"
#include "serq-sim/engine/simulate.h"

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

// SimulateStreaming on `source` with `sink`; the indices the sink was given.
struct Streamed {
  SimOutcome outcome;
  std::vector<uint32_t> given;
  std::string errors;
  absl::Status write_error;
};
Streamed Stream(absl::string_view source, const SimOptions& options, int fail_at = -1) {
  Streamed out;
  ir::Program program;
  Diagnostics diags("test.sq", std::string(source));
  if (!ParseProgram("test.sq", source, &program, &diags) ||
      !LinkProgram(&program, LinkOptions(), &diags)) {
    ADD_FAILURE() << diags.Render();
    return out;
  }
  results::Results header;
  out.outcome = SimulateStreaming(
      program, options, &header,
      [&](results::Replication* r) {
        out.given.push_back(r->index());
        if (static_cast<int>(r->index()) == fail_at) {
          return absl::ResourceExhaustedError("No space left on device");
        }
        return absl::OkStatus();
      },
      &diags, &out.write_error);
  out.errors = diags.Render();
  return out;
}

// The sink gets replications in index order on threads too, and one that
// fails stops the run there: nothing after it is handed over.
TEST(ReplicateTest, SinkGetsIndexOrderAndAFailureStops) {
  for (uint32_t jobs : {1u, 2u, 3u}) {
    SimOptions options;
    options.jobs = jobs;
    Streamed all = Stream(kQueue, options);
    EXPECT_EQ(all.outcome, SimOutcome::kOk);
    EXPECT_EQ(all.given, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6})) << "--jobs " << jobs;
    Streamed cut = Stream(kQueue, options, /*fail_at=*/2);
    EXPECT_EQ(cut.outcome, SimOutcome::kWriteFailed);
    EXPECT_EQ(cut.given, (std::vector<uint32_t>{0, 1, 2})) << "--jobs " << jobs;
    EXPECT_EQ(cut.write_error.message(), "No space left on device");
  }
}

// A trace that cannot be written stops the run when the replication whose
// trace failed ends, not after the last. Replication 0 of kQueue (about
// 1600 sessions, several trace lines each) writes far more than the trace's
// 64 KB buffer, so its writes to /dev/full fail during replication 0 and no
// replication reaches the sink.
TEST(ReplicateTest, ALostTraceStopsAtTheFirstReplication) {
  SimOptions options;
  options.trace_path = "/dev/full";
  Streamed run = Stream(kQueue, options);
  EXPECT_EQ(run.outcome, SimOutcome::kWriteFailed);
  EXPECT_TRUE(run.given.empty()) << run.given.size() << " replications went to the sink";
  EXPECT_EQ(run.write_error.message(),
            "cannot write output '/dev/full' (--trace): No space left on device");
}

TEST(ReplicateTest, JobsZeroIsMisuse) {
  SimOptions options;
  options.jobs = 0;
  EXPECT_FALSE(ValidateSimOptions(options).ok());
}

}  // namespace
}  // namespace serq
