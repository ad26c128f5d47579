// The vLLM-shaped variants of examples/pd-disaggregation (NAME_vllm.sq):
// their reports are goldens beside them; what can be checked on any
// sample path is checked here: Little's law on every stage, the pools'
// invariants after every event (SimOptions.check_pools: used is what the
// holds and leases make, never above the cap), sessions conserved, and
// that the engines preempt, as docs/examples.md says they do, with every
// preemption recomputing at least a token.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::SimRun;

constexpr double kWindow = 330 - 30;  // horizon - warmup

std::string Program(const std::string& name) {
  const char* root = std::getenv("TEST_SRCDIR");
  std::string path = absl::StrCat(root ? root : ".", "/serq/examples/pd-disaggregation/", name);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << path;
  return text.str();
}

// Checks one variant; `engine` is the step stage that preempts.
void Check(const std::string& name, const std::string& engine) {
  SimOptions options;
  options.check_pools = true;
  SimRun run = RunSource(Program(name), options);
  ASSERT_TRUE(run.ok) << name << ": " << run.errors;
  const results::Replication& rep = run.results.replication(0);
  // Little's law: the time-average present is the jobs' time there over
  // the window, up to the jobs present at the window's edges (< 2%).
  for (const results::StageStats& s : rep.stage()) {
    double present = s.mean_present();
    double sojourn = (s.service_sum() + s.wait_sum()) / kWindow;
    EXPECT_NEAR(present, sojourn, 0.02 * present + 1e-4)
        << name << ": " << s.name() << "[" << s.index() << "]";
  }
  for (const results::PoolStats& p : rep.pool()) {
    EXPECT_LE(p.max_used(), p.cap()) << name << ": " << p.name();
    EXPECT_LE(p.mean_loaded(), p.mean_used() + 1e-9) << name << ": " << p.name();
  }
  for (const results::SessionStats& s : rep.session()) {
    EXPECT_EQ(s.arrived(), s.ended() + s.in_progress()) << name;
  }
  uint64_t preempted = 0, recomputed = 0;
  for (const results::StageStats& s : rep.stage()) {
    if (s.name() != engine) continue;
    preempted += s.preempted();
    recomputed += s.recomputed();
  }
  EXPECT_GE(preempted, 1u) << name;
  EXPECT_GE(recomputed, preempted) << name;
}

TEST(VllmExamples, ColocatedPreempts) { Check("colocated_vllm.sq", "E"); }
TEST(VllmExamples, PullPreempts) { Check("llmd_nixl_pull_vllm.sq", "D"); }
TEST(VllmExamples, PushPreempts) { Check("llmd_nixl_push_vllm.sq", "D"); }

// Their engines step their running decode jobs as a lane (serq-sim/
// stage_step_lane.cc); one at a time gives the same report, to the bit,
// also where KV binds hard (colocated at 12,000 tokens preempts thousands
// of times an hour).
void ExpectSameWithoutLanes(const std::string& name,
                            std::vector<std::pair<std::string, double>> defines) {
  SimOptions with;
  with.defines = defines;
  with.horizon = 120;
  SimOptions without = with;
  without.lanes = false;
  SimRun a = RunSource(Program(name), with);
  SimRun b = RunSource(Program(name), without);
  ASSERT_TRUE(a.ok) << name << ": " << a.errors;
  ASSERT_TRUE(b.ok) << name << ": " << b.errors;
  EXPECT_EQ(a.results.DebugString(), b.results.DebugString()) << name;
}

TEST(VllmExamples, LanesGiveTheSameReport) {
  ExpectSameWithoutLanes("colocated_vllm.sq", {{"KvCap", 12000}});
  ExpectSameWithoutLanes("llmd_nixl_pull_vllm.sq", {});
  ExpectSameWithoutLanes("llmd_nixl_push_vllm.sq", {{"KvCapD", 56000}});
}

}  // namespace
}  // namespace serq
