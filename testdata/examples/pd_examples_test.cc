// What can be checked by hand in the reports of examples/pd-disaggregation,
// whose figures are stochastic (their goldens are the reports themselves):
// conservation laws that hold on any sample path, the identities the model's
// structure implies, and the comparisons docs/examples.md draws from them.
// The constants are the programs' params, recomputed here.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::Pool;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;

// The programs' params.
constexpr double kKvBytes = 32 * 8 * 128 * 2 * 2;
constexpr double kParams = 8.03e9;
constexpr double kHbm = 3.35e12;
constexpr double kTauFixed = kParams * 2 / kHbm;
constexpr double kTauToken = 2 * kParams / (989e12 * 0.6);
constexpr double kTauContext = kKvBytes / kHbm;
constexpr double kHop = 0.002;
constexpr double kNotify = 0.00005;
constexpr double kWindow = 330 - 30;  // horizon - warmup
double BwTok(double gbps) { return gbps * 1e9 / 8 / kKvBytes; }

std::string Program(const std::string& name) {
  const char* root = std::getenv("TEST_SRCDIR");
  std::string path = absl::StrCat(root ? root : ".", "/serq/examples/pd-disaggregation/", name);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << path;
  return text.str();
}

SimRun Simulated(const std::string& source, double nic_gbps = 400) {
  SimOptions options;
  if (nic_gbps != 400) options.defines = {{"NicGbps", nic_gbps}};
  SimRun run = RunSource(source, options);
  EXPECT_TRUE(run.ok) << run.errors;
  return run;
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

// Little's law on every stage element: the time-average number present is
// the sum of the times jobs spent there (service + wait) over the window.
// Jobs present at the window's edges are counted by the first and not
// wholly by the second: a difference of at most (jobs present at an edge) x
// (their time there) / window, under 2% here.
void ExpectLittle(const results::Results& r, const std::string& what) {
  for (const results::StageStats& s : r.replication(0).stage()) {
    double present = s.mean_present();
    double sojourn = (s.service_sum() + s.wait_sum()) / kWindow;
    EXPECT_NEAR(present, sojourn, 0.02 * present + 1e-4)
        << what << ": " << s.name() << "[" << s.index() << "]";
  }
}

// A step stage's time in steps is the sum of its steps' tau: steps x fixed
// + tokens x per token + the batches' context x per context token. For a
// prefill stage the context of a step is its tokens (a prompt of at most
// 8192 tokens is done in one chunk, unless a step's budget splits it), so
// busy time = steps x fixed + (per token + per context token) x tokens.
void ExpectPrefillBusyTime(const results::StageStats& p, const std::string& what) {
  double busy = p.utilisation() * kWindow;
  double tau_sum = p.steps() * kTauFixed + (kTauToken + kTauContext) * p.batch_tokens();
  EXPECT_NEAR(busy, tau_sum, 0.01 * busy) << what;
}

// For a decode stage the context of a step is the content of its jobs'
// holds: kvD's loaded units, but for the holds whose job waits for its
// first step. So the busy time left after the fixed and per-token parts,
// divided by the per-context-token cost, is the context summed over the
// steps, and over a step of mean length (busy / steps) the pool's mean
// content is about that sum / steps (to the weighting of steps by their
// length, which varies by some 10%).
void ExpectDecodeContext(const results::StageStats& d, const results::PoolStats& kv,
                         const std::string& what) {
  double busy = d.utilisation() * kWindow;
  double context = (busy - d.steps() * kTauFixed - kTauToken * d.batch_tokens()) / kTauContext;
  double per_step = context / d.steps();
  double loaded = kv.mean_loaded() / d.utilisation();  // content while in a step
  EXPECT_NEAR(per_step, loaded, 0.03 * loaded) << what;
}

TEST(PdExamplesTest, PullLawsAndParts) {
  SimRun pull = Simulated(Program("llmd_nixl_pull.sq"));
  const results::Results& r = pull.results;
  ExpectLittle(r, "pull");
  double egress_util = 0, ingress_util = 0;
  for (int i = 0; i < 2; ++i) {
    results::StageStats p = Stage(r, "P", i);
    ExpectPrefillBusyTime(p, absl::StrCat("pull P[", i, "]"));
    ExpectDecodeContext(Stage(r, "D", i), Pool(r, "kvD", i), absl::StrCat("pull D[", i, "]"));
    // The prefiller's NIC carries the tokens it prefilled (prompt - c),
    // at BwTok a second: its utilisation is their time over the window.
    results::StageStats egress = Stage(r, "egress", i);
    EXPECT_NEAR(egress.utilisation(), p.batch_tokens() / BwTok(400) / kWindow,
                0.01 * egress.utilisation());
    egress_util += egress.utilisation();
    ingress_util += Stage(r, "ingress", i).utilisation();
  }
  // Every flow crosses one egress and one ingress of equal capacity.
  EXPECT_NEAR(egress_util, ingress_util, 1e-3 * egress_util);

  // TTFT's parts. The prefill (wait and service at P), the hop, the
  // read (its flow's time), then the first decode step: the request joins
  // a decoder that is always in a step, so it waits for the current step's
  // end (half a step on average) and takes the next: 1.5 steps of mean
  // length busy / steps. kvD admits at once (its wait is 0).
  double prefill = 0, done = 0;
  for (int i = 0; i < 2; ++i) {
    results::StageStats p = Stage(r, "P", i);
    prefill += p.service_sum() + p.wait_sum();
    done += p.done();
    EXPECT_EQ(Pool(r, "kvD", i).wait_sum(), 0);
  }
  prefill /= done;
  double read = 0, reads = 0, step = 0;
  for (int i = 0; i < 2; ++i) {
    read += Stage(r, "egress", i).service_sum();
    reads += Stage(r, "egress", i).done();
    step += Stage(r, "D", i).utilisation() * kWindow / Stage(r, "D", i).steps() / 2;
  }
  read /= reads;
  double ttft = Mean(Samples(r, "ttft"));
  double first_step = ttft - prefill - kHop - read;
  std::printf("pull: ttft %.5f = prefill %.5f + hop %.5f + read %.5f + first step %.5f "
              "(%.3f steps of %.5f)\n",
              ttft, prefill, kHop, read, first_step, first_step / step, step);
  EXPECT_GT(first_step, 1.3 * step);
  EXPECT_LT(first_step, 1.7 * step);
}

// Push reserves the decoder's blocks before the prefill and writes right
// after it: with kvD never full (its admission wait is 0) the prefill side
// sees the same requests at the same times, so every prefiller figure is
// pull's, bit for bit; and the first token comes Hop - Notify = 1.95 ms
// earlier (the decode leg's hop runs during the prefill; the notification
// takes its place), to the decoders' steps, which differ a little.
TEST(PdExamplesTest, PushHidesTheHop) {
  SimRun pull = Simulated(Program("llmd_nixl_pull.sq"));
  SimRun push = Simulated(Program("llmd_nixl_push.sq"));
  ExpectLittle(push.results, "push");
  for (int i = 0; i < 2; ++i) {
    results::StageStats a = Stage(pull.results, "P", i), b = Stage(push.results, "P", i);
    EXPECT_EQ(a.steps(), b.steps());
    EXPECT_EQ(a.batch_tokens(), b.batch_tokens());
    EXPECT_EQ(a.utilisation(), b.utilisation());
    EXPECT_EQ(a.service_sum(), b.service_sum());
    EXPECT_EQ(Pool(push.results, "kvD", i).wait_sum(), 0);
    // Push holds the decoder's blocks through the prefill: more of kvD used.
    EXPECT_GT(Pool(push.results, "kvD", i).mean_used(), Pool(pull.results, "kvD", i).mean_used());
  }
  double saved = Mean(Samples(pull.results, "ttft")) - Mean(Samples(push.results, "ttft"));
  EXPECT_NEAR(saved, kHop - kNotify, 3e-4);
}

// Colocated against disaggregated, the same requests (the same draws in the
// same order) on the same four GPUs: without the read, the hop and a
// prefill queue of two, the first token comes sooner; with prefill chunks
// in the decode steps, the later tokens come slower.
TEST(PdExamplesTest, ColocatedTradesTpotForTtft) {
  SimRun pull = Simulated(Program("llmd_nixl_pull.sq"));
  SimRun colocated = Simulated(Program("colocated.sq"));
  const results::Results& c = colocated.results;
  ExpectLittle(c, "colocated");
  for (int e = 0; e < 4; ++e) {
    ExpectDecodeContext(Stage(c, "E", e), Pool(c, "kv", e), absl::StrCat("colocated E[", e, "]"));
  }
  EXPECT_LT(Mean(Samples(c, "ttft")), Mean(Samples(pull.results, "ttft")));
  EXPECT_GT(Mean(Samples(c, "tpot")), 1.05 * Mean(Samples(pull.results, "tpot")));
}

// At 25 Gb/s the NICs carry 60-80% of their capacity. maxmin and bottleneck
// carry the same bytes (utilisation: the same tokens over the same
// window), but bottleneck, not work-conserving, leaves capacity unused and
// so keeps reads longer: longer transfers, more of them at once, a later
// first token.
TEST(PdExamplesTest, BottleneckSlowsTheReads) {
  std::string source = Program("llmd_nixl_pull.sq");
  std::string bottleneck = absl::StrReplaceAll(source, {{"share maxmin;", "share bottleneck;"}});
  ASSERT_NE(source, bottleneck);
  SimRun mm = Simulated(source, 25);
  SimRun bn = Simulated(bottleneck, 25);
  ExpectLittle(mm.results, "maxmin 25 Gb/s");
  ExpectLittle(bn.results, "bottleneck 25 Gb/s");
  for (int i = 0; i < 2; ++i) {
    results::StageStats a = Stage(mm.results, "egress", i), b = Stage(bn.results, "egress", i);
    EXPECT_GT(a.utilisation(), 0.5);
    EXPECT_NEAR(a.utilisation(), b.utilisation(), 0.01 * a.utilisation());
    EXPECT_GT(b.service_sum() / b.done(), a.service_sum() / a.done());
    EXPECT_GT(b.mean_present(), a.mean_present());
  }
  EXPECT_GT(Mean(Samples(bn.results, "ttft")), Mean(Samples(mm.results, "ttft")));
}

}  // namespace
}  // namespace serq
