// A step time written from profile tables, in parts (let), reading the
// prefill and the decode jobs apart and summing over a step's jobs
// (docs/language.md §3.3, its let, and §3.8): end to end, source to results, with
// every expected value derived by hand in the comments.
#include <cmath>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::TempPath;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Writes `text` to a file of the test's temporary directory; the programs
// below name it relative to that directory (SimOptions.data_dir).
void WriteFile(const std::string& name, const std::string& text) {
  std::ofstream(TempPath(name)) << text;
}

SimOptions InTemp() {
  SimOptions options;
  options.data_dir = TempPath("");
  return options;
}

TEST(StepTime, TauLooksAStepUpInATable) {
  // Microseconds by tokens: 100 at 1 token, 164 at 65, a slope of 1 a
  // token. Two prompts of 10 share the first step: 20 tokens, 119 us. Then
  // each decodes 2 tokens: two steps of 2 tokens, 101 us each, so e2e is
  // 119 + 2 * 101 = 321 us for both.
  WriteFile("dense.csv", "layer,tokens,time_us\nmlp,1,100\nmlp,65,164\nnorm,1,1\n");
  SimRun run = RunSource(R"(
    table mlp = "dense.csv" { where layer = "mlp"; key tokens; value time_us; }
    stage E : step(mlp(tokens) * 1e-6);
    workload { arrive batch(2); }
    session {
      run E prefill (10);
      observe ttft = now - arrival;
      run E decode (2);
      observe e2e = now - arrival;
    }
    run { horizon 1; }
  )",
                         InTemp());
  ASSERT_TRUE(run.ok) << run.errors;
  // tau is mlp(tokens) * 1e-6, and ttft is tau (arrival 0) on the clock's
  // nanoseconds: the double nearest to 119 us, 0.000119 (119 * 1e-6 is an
  // ulp off it).
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(0.000119, 0.000119));
  for (double e2e : Samples(run.results, "e2e")) EXPECT_NEAR(e2e, 321e-6, 1e-15);
}

TEST(StepTime, FiguresOfThePrefillAndDecodeJobsAndSumsOverThem) {
  // tau (ms) = 1 + 10 prefill_jobs + sum of the prefill jobs' kv (the
  // context before their chunk) + the largest prefill context after the
  // chunk + the sum of the decode jobs' contexts + 100 x the largest
  // decode kv. A budget of 8 tokens; prompts of 10 (serial 0, A) and 6 (B);
  // then 2 decode tokens each, a run of its own (not growing: a decode
  // job's context is the tokens it made, this one included).
  //   step 1 at 0: A takes 8 (kv 0, context 8), B none: 1 + 10 + 0 + 8 =
  //     19 ms.
  //   step 2 at 0.019: A takes 2 (kv 8, context 10), B 6 (kv 0, context
  //     6): 1 + 20 + 8 + 10 = 39 ms; both prompts are done at 0.058.
  //   step 3 at 0.058: A and B decode (context 1, kv 0 each): 1 + 2 = 3 ms.
  //   step 4 at 0.061: context 2 each, kv 1: 1 + 4 + 100 = 105 ms, to 0.166.
  SimRun run = RunSource(R"(
    stage E : step(ms * 1e-3) {
      let prefills = 10 * prefill_jobs + sum_prefill(prefill_kv) + prefill_context_max;
      let decodes = sum_decode(decode_context) + 100 * decode_kv_max;
      let ms = 1 + prefills + decodes;
      tokens 8;
    }
    workload { arrive batch(2); }
    session {
      set prompt = 10;
      if (serial == 1) { set prompt = 6; }
      run E prefill (prompt);
      observe ttft = now - arrival;
      run E decode (2);
      observe e2e = now - arrival;
    }
    run { horizon 1; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  for (double t : Samples(run.results, "ttft")) EXPECT_NEAR(t, 0.058, 1e-15);
  for (double t : Samples(run.results, "e2e")) EXPECT_NEAR(t, 0.166, 1e-15);
  EXPECT_EQ(Samples(run.results, "e2e").size(), 2u);
}

TEST(StepTime, TheSmallestOfEachKind) {
  // tau (ms) = 1 + prefill_kv_min + prefill_context_min + 100 x
  // decode_kv_min + 1000 x decode_context_min; 0 for a kind with no job.
  // Prompts of 10 (A) and 6 (B) and a budget of 8 tokens, then 2 decode
  // tokens each (not growing: a decode's context is the tokens it made).
  //   step 1 at 0: A takes 8 (kv 0, context 8); no decode: 1 + 0 + 8 = 9 ms.
  //   step 2 at 0.009: A takes 2 (kv 8, context 10), B 6 (kv 0, context 6):
  //     minima kv 0, context 6: 1 + 0 + 6 = 7 ms; prompts done at 0.016.
  //   step 3 at 0.016: two decodes, context 1, kv 0: 1 + 0 + 1000 = 1001 ms.
  //   step 4 at 1.017: context 2, kv 1: 1 + 100 + 2000 = 2101 ms, to 3.118.
  // A maximum in place of a minimum would give step 2 1 + 8 + 10 = 19 ms.
  SimRun run = RunSource(R"(
    stage E : step(ms * 1e-3) {
      let ms = 1 + prefill_kv_min + prefill_context_min + 100 * decode_kv_min
             + 1000 * decode_context_min;
      tokens 8;
    }
    workload { arrive batch(2); }
    session {
      set prompt = 10;
      if (serial == 1) { set prompt = 6; }
      run E prefill (prompt);
      observe ttft = now - arrival;
      run E decode (2);
      observe e2e = now - arrival;
    }
    run { horizon 10; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  for (double t : Samples(run.results, "ttft")) EXPECT_NEAR(t, 0.016, 1e-15);
  for (double t : Samples(run.results, "e2e")) EXPECT_NEAR(t, 3.118, 1e-12);
  EXPECT_EQ(Samples(run.results, "e2e").size(), 2u);
}

TEST(StepTime, ASumIsOverEachJobAsIfAlone) {
  // sum_jobs(attention): a job alone has attention t c - t (t - 1) / 2. A
  // prompt of 4 alone: 4 * 4 - 6 = 10, the same as the step's own
  // attention. sum_jobs(seqs) counts the jobs (each alone is 1 job), and
  // sum_prefill(decode) is 0. So with two prompts of 4 in one step tau is
  // (2 * 10 + 2 + 0) ms = 22 ms, the step's attention 20 (ms) plus 2.
  SimRun run = RunSource(R"(
    stage E : step((sum_jobs(attention) + sum_jobs(seqs) + sum_prefill(decode)) * 1e-3);
    workload { arrive batch(2); }
    session { run E prefill (4); observe ttft = now - arrival; }
    run { horizon 1; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(22 * 1e-3, 22 * 1e-3));
}

TEST(StepTime, LetsOfAPsStagesPhi) {
  // phi = 2 * base with base = 1 + present: one job alone, phi = 4, so a
  // run of 8 takes 2 s.
  SimRun run = RunSource(R"(
    stage S : ps(phi) { let base = 1 + present; let phi = 2 * base; }
    workload { arrive batch(1); }
    session { run S (8); observe t = now; }
    run { horizon 10; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "t"), ElementsAre(2));
}

TEST(StepTime, BeyondTheGridByTheTablesRules) {
  // Rows at 1 and 3 tokens (10 and 20 us). A step of 5 tokens: above,
  // extrapolated, 20 + 2 * 5 = 30 us; clamped, 20 us; `above error`, a
  // runtime error that names the table, the key, the grid and the rule.
  WriteFile("small.csv", "tokens,time_us\n1,10\n3,20\n");
  auto ttft = [](const char* above) {
    SimRun run = RunSource(absl::StrCat(R"(
      table t = "small.csv" { key tokens; value time_us; )", above, R"( }
      stage E : step(t(tokens) * 1e-6);
      workload { arrive batch(1); }
      session { run E prefill (5); observe ttft = now - arrival; }
      run { horizon 1; }
    )"),
                           InTemp());
    return run;
  };
  SimRun extrapolated = ttft("");
  ASSERT_TRUE(extrapolated.ok) << extrapolated.errors;
  EXPECT_NEAR(Samples(extrapolated.results, "ttft")[0], 30e-6, 1e-18);
  SimRun clamped = ttft("above clamp;");
  ASSERT_TRUE(clamped.ok) << clamped.errors;
  // tau as written, us * 1e-6, on the clock: the double nearest to 20 us.
  EXPECT_EQ(Samples(clamped.results, "ttft")[0], 20e-6);
  SimRun refused = ttft("above error;");
  EXPECT_FALSE(refused.ok);
  EXPECT_THAT(refused.errors, HasSubstr("table 't': tokens 5 is above its grid (1 to 3) and the "
                                        "table's 'above' is error"));
}

}  // namespace
}  // namespace serq
