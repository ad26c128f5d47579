// serq fit-steps: coefficients recovered from serq's own --trace of a
// program whose step time is known, and from noisy synthetic steps within
// their standard errors; the errors of the reader and the fit.
#include "serq/calibrate/fit_steps.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "serq/pipeline/commands.h"

namespace serq::fit {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", name);
}

std::vector<StepTerm> Terms(const std::string& text) {
  absl::StatusOr<std::vector<StepTerm>> terms = ParseStepTerms(text);
  EXPECT_TRUE(terms.ok()) << terms.status();
  return terms.ok() ? *terms : std::vector<StepTerm>{};
}

// A vLLM-shaped program whose tau reads five figures, traced: every step
// event carries them (and the others), so the fit of the same five terms
// recovers the coefficients (us) to the rounding of the tau's own
// arithmetic: 1e-9 relative.
TEST(FitSteps, RecoversKnownCoefficientsFromSerqsTrace) {
  const std::string program = TempPath("known.sq");
  std::ofstream(program) << R"(param B0 = 5000; param B1 = 40; param B2 = 0.02; param B3 = 0.001; param B4 = 250;
pool kv { cap inf; }
stage E : step((B0 + B1 * prefill + B2 * decode_context + B3 * attention + B4 * prefill_jobs) * 1e-6)
  { seqs 16; tokens 512; }
workload w { arrive poisson(20); limit 300; }
session w {
  hold kv (0) {
    run E prefill (100 + 900 * uniform(0, 1)) growing kv;
    run E decode (20 + 200 * uniform(0, 1)) growing kv;
  }
}
run { seed 3; }
)";
  DriverOptions options;
  options.sim.trace_path = TempPath("known.jsonl");
  ir::Program linked;
  results::Results results;
  CommandResult failed;
  ASSERT_TRUE(SimulateProgram(program, options, &linked, &results, &failed)) << failed.err;
  std::ifstream in(options.sim.trace_path);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<StepRecords> records = ReadStepRecords(text.str(), "known.jsonl", "E");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_GT(records->rows.size(), 1000u);
  // Every step figure is in the events.
  for (const char* figure : {"seqs", "tokens", "prefill", "decode", "context", "attention",
                             "prefill_jobs", "prefill_kv", "prefill_kv_max", "prefill_context",
                             "prefill_context_max", "decode_kv", "decode_kv_max", "decode_context",
                             "decode_context_max"}) {
    EXPECT_NE(std::find(records->columns.begin(), records->columns.end(), figure),
              records->columns.end())
        << figure;
  }
  std::vector<StepTerm> terms = Terms(
      "B0=1e-6,B1=1e-6*prefill,B2=1e-6*decode_context,B3=1e-6*attention,B4=1e-6*prefill_jobs");
  absl::StatusOr<StepFit> fit = FitStepTerms(*records, terms);
  ASSERT_TRUE(fit.ok()) << fit.status();
  const double truth[] = {5000, 40, 0.02, 0.001, 250};
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_NEAR(fit->coefficients[j], truth[j], 1e-9 * truth[j]) << terms[j].param;
  }
  EXPECT_GT(fit->r2, 1 - 1e-12);
  // The steps come in the three kinds, and the table says so.
  std::string report = RenderStepFit(*records, terms, *fit, "known.jsonl");
  EXPECT_NE(report.find("\nmixed "), std::string::npos) << report;
  EXPECT_NE(report.find("\ndecode "), std::string::npos) << report;
  EXPECT_NE(report.find("param B1 = 40"), std::string::npos) << report;
}

// 4000 synthetic steps, tau = 5000 + 40 prefill + 0.02 context + noise of
// standard deviation 100 (us), prefill uniform on [0, 2048] and context
// on [0, 10^5], from a fixed seed. Least squares is unbiased with
// standard errors sigma sqrt(diag (X^T X)^-1): each coefficient within 4
// of its standard errors of the truth (a 1-in-16,000 miss for a true
// model), the residuals' RMSE within 5% of sigma (its own standard error
// is sigma / sqrt(2 n) = 1.1%), and the intercept's standard error as
// theory gives it for these columns, within 10%.
TEST(FitSteps, NoisySyntheticStepsWithinTheirStandardErrors) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> prefill(0, 2048), context(0, 1e5);
  std::normal_distribution<double> noise(0, 100);
  std::string csv = "prefill,decode_context,duration\n";
  for (int i = 0; i < 4000; ++i) {
    const double p = std::round(prefill(random)), c = std::round(context(random));
    absl::StrAppend(&csv, p, ",", c, ",", 5000 + 40 * p + 0.02 * c + noise(random), "\n");
  }
  absl::StatusOr<StepRecords> records = ReadStepRecords(csv, "synthetic.csv", "");
  ASSERT_TRUE(records.ok()) << records.status();
  absl::StatusOr<StepFit> fit = FitStepTerms(*records, Terms("B0=1,B1=prefill,B2=decode_context"));
  ASSERT_TRUE(fit.ok()) << fit.status();
  const double truth[] = {5000, 40, 0.02};
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_GT(fit->standard_errors[j], 0);
    EXPECT_NEAR(fit->coefficients[j], truth[j], 4 * fit->standard_errors[j]) << j;
  }
  EXPECT_NEAR(fit->rmse, 100, 5);
  // The intercept's standard error for independent uniform columns:
  // sigma / sqrt(n) sqrt(1 + 3 + 3) (each centred uniform adds
  // mean^2 / var = 3), 100 / sqrt(4000) x 2.6458 = 4.18.
  EXPECT_NEAR(fit->standard_errors[0], 4.18, 0.42);
}

TEST(FitSteps, Errors) {
  EXPECT_EQ(ParseStepTerms("B0").status().message(),
            "--terms: 'B0' is not NAME=FACTOR*FACTOR... (e.g. B1=prefill, B0=1)");
  EXPECT_EQ(ParseStepTerms("B0=1,B0=prefill").status().message(), "--terms: 'B0' appears twice");
  EXPECT_EQ(ParseStepTerms("B0=pre-fill").status().message(),
            "--terms: 'pre-fill' in 'B0=pre-fill' is neither a figure nor a number");
  EXPECT_EQ(ReadStepRecords("prefill,tau\n1,2\n3\n", "s.csv", "").status().message(),
            "s.csv:3: error: 1 fields, the header has 2");
  EXPECT_EQ(ReadStepRecords("prefill,tau\n1,x\n", "s.csv", "").status().message(),
            "s.csv:2: error: 'tau' is not a finite number");
  EXPECT_EQ(ReadStepRecords("prefill,decode\n1,2\n", "s.csv", "").status().message(),
            "s.csv:1: error: the header names no duration column ('tau' or 'duration')");
  EXPECT_EQ(ReadStepRecords("prefill,tau\n", "s.csv", "").status().message(),
            "s.csv:1: error: no step records");
  // A name twice was fitted as its first column, silently.
  EXPECT_EQ(ReadStepRecords("prefill,prefill,tau\n1,2,3\n", "s.csv", "").status().message(),
            "s.csv:1: error: column 'prefill' appears twice in the header");
  // A trace's line deeper than 32 levels: refused at its line by the one
  // depth check, before protobuf's parser (minutes at 2·10^5 levels).
  const std::string deep = "{\"event\":\"step\",\"a\":" + std::string(200000, '[') +
                           std::string(200000, ']') + "}";
  EXPECT_EQ(ReadStepRecords("{\"event\":\"arrive\"}\n" + deep + "\n", "t.jsonl", "")
                .status()
                .message(),
            "t.jsonl:2: error: JSON nested more than 32 levels deep");
  StepRecords r = *ReadStepRecords("prefill,tau\n1,2\n2,3\n3,4\n", "s.csv", "");
  EXPECT_EQ(FitStepTerms(r, Terms("A=1,B=2")).status().message(),
            "the terms are collinear on these steps (rank 1 of 2 terms): drop a term that the "
            "others determine");
  EXPECT_EQ(FitStepTerms(r, Terms("A=decode")).status().message(),
            "--terms: 'decode' is not a column of the steps (they have prefill)");
  absl::StatusOr<StepFit> exact = FitStepTerms(r, Terms("A=1,B=prefill"));
  ASSERT_TRUE(exact.ok());
  EXPECT_NEAR(exact->coefficients[0], 1, 1e-12);  // tau = 1 + prefill
  EXPECT_NEAR(exact->coefficients[1], 1, 1e-12);
}

// Bounded at 0. Steps (prefill, tau) (0, 5), (1, 4), (2, 3): least squares
// is tau = 5 - prefill, a negative cost a prefill token. With B >= 0 the
// optimum is B = 0 and A the mean duration, 4: at (4, 0) the residuals are
// (1, 0, -1), and the sum of squares' derivative in B, -2 sum prefill x
// residual = -2 (0 + 0 - 2) = 4, is positive, so no B above 0 does better
// (the Karush-Kuhn-Tucker condition at the bound). Its standard error is
// none (held at the bound); A's is sigma / sqrt(3), sigma^2 = 2 / (3 - 1).
TEST(FitSteps, NonNegativeHoldsACoefficientAtZero) {
  StepRecords r = *ReadStepRecords("prefill,tau\n0,5\n1,4\n2,3\n", "s.csv", "");
  absl::StatusOr<StepFit> free = FitStepTerms(r, Terms("A=1,B=prefill"));
  ASSERT_TRUE(free.ok());
  EXPECT_NEAR(free->coefficients[1], -1, 1e-12);
  absl::StatusOr<StepFit> bounded = FitStepTerms(r, Terms("A=1,B=prefill"), true);
  ASSERT_TRUE(bounded.ok()) << bounded.status();
  EXPECT_NEAR(bounded->coefficients[0], 4, 1e-12);
  EXPECT_EQ(bounded->coefficients[1], 0);
  EXPECT_TRUE(bounded->at_bound[1]);
  EXPECT_FALSE(bounded->at_bound[0]);
  EXPECT_NEAR(bounded->standard_errors[0], 1 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(bounded->standard_errors[1], 0);
  EXPECT_NEAR(bounded->rmse, std::sqrt(2.0 / 3), 1e-12);
  const std::string report = RenderStepFit(r, Terms("A=1,B=prefill"), *bounded, "s.csv");
  EXPECT_NE(report.find("non-negative least squares"), std::string::npos) << report;
  EXPECT_NE(report.find("B  prefill  0  at the bound 0"), std::string::npos) << report;
  // Where least squares is already non-negative, the same answer.
  StepRecords up = *ReadStepRecords("prefill,tau\n1,2\n2,3\n3,4\n", "s.csv", "");
  absl::StatusOr<StepFit> same = FitStepTerms(up, Terms("A=1,B=prefill"), true);
  ASSERT_TRUE(same.ok());
  EXPECT_NEAR(same->coefficients[0], 1, 1e-12);
  EXPECT_NEAR(same->coefficients[1], 1, 1e-12);
}

}  // namespace
}  // namespace serq::fit
