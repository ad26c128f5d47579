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

// The bounded optimum is the exact one, not where SLSQP stops: on the Llama
// run's profile (its 19,364 attention rows), `1, prefill_chunk, kv_decode,
// n_decode` under the bound. SLSQP alone stopped at 3.4e-4 and 2.2e-7 for
// the first two and so solved the wrong active set (kv_decode 0.172944,
// n_decode 28.42999). The expected figures are those of every one of the
// 16 active sets solved exactly on the normal equations, the best of those
// whose coefficients are all at least 0 (an independent method: it
// searches what Lawson and Hanson's walks): the first two at 0, kv_decode
// 0.17289743536287, n_decode 28.435530600184, RMSE 2348.7446704214.
// And the optimum's conditions (Karush-Kuhn-Tucker) hold: the residual is
// orthogonal to the free terms' columns, and no held term's column points
// along it.
TEST(FitSteps, NonNegativeIsTheExactOptimum) {
  std::ifstream in("examples/vllm/runs/rtxpro6000-llama-3.1-8b/profile/tp1/attention.csv");
  ASSERT_TRUE(in) << "the Llama run's profile";
  std::stringstream text;
  text << in.rdbuf();
  std::string csv = text.str();
  ASSERT_EQ(csv.rfind("prefill_chunk,kv_prefill,n_decode,kv_decode,time_us", 0), 0u);  // CRLF lines
  csv.replace(csv.find("time_us"), 7, "duration");
  absl::StatusOr<StepRecords> r = ReadStepRecords(csv, "attention.csv", "");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 19364u);
  const std::vector<StepTerm> terms = Terms("B0=1,B1=prefill_chunk,B2=kv_decode,B3=n_decode");
  absl::StatusOr<StepFit> fit = FitStepTerms(*r, terms, true);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_EQ(fit->coefficients[0], 0);
  EXPECT_EQ(fit->coefficients[1], 0);
  EXPECT_TRUE(fit->at_bound[0] && fit->at_bound[1]);
  EXPECT_NEAR(fit->coefficients[2], 0.17289743536287, 1e-11);
  EXPECT_NEAR(fit->coefficients[3], 28.435530600184, 1e-9);
  EXPECT_NEAR(fit->rmse, 2348.7446704214, 1e-6);
  // The conditions, on the columns as given: x_j . (y - fitted) is 0 for a
  // free term and at most 0 for a held one (to rounding, relative to the
  // column's and the durations' sizes).
  for (size_t j = 0; j < terms.size(); ++j) {
    double dot = 0, column = 0, duration = 0;
    for (size_t i = 0; i < r->rows.size(); ++i) {
      const std::vector<double>& row = r->rows[i];
      const double xj = j == 0 ? 1 : j == 1 ? row[0] : j == 2 ? row[3] : row[2];
      dot += xj * (r->duration[i] - fit->fitted[i]);
      column += xj * xj;
      duration += r->duration[i] * r->duration[i];
    }
    const double tolerance = 1e-9 * std::sqrt(column * duration);
    if (fit->at_bound[j]) {
      EXPECT_LE(dot, tolerance) << j;
    } else {
      EXPECT_NEAR(dot, 0, tolerance) << j;
    }
  }
}

// What the reader refuses or reads that it once took otherwise: a step of
// other figures than the first (it crashed), `"event": "step"` spaced as
// Python writes it (it was skipped), a negative duration, --step-stage on a
// CSV, a byte order mark.
TEST(FitSteps, StepsAsTheFirstAndAsWritten) {
  EXPECT_EQ(ReadStepRecords("{\"event\":\"step\",\"tau\":1}\n{\"event\":\"step\",\"prefill\":5,\"tau\":2}\n",
                            "t.jsonl", "")
                .status()
                .message(),
            "t.jsonl:2: error: the step has a figure 'prefill', which the first step (line 1) has not");
  EXPECT_EQ(ReadStepRecords("{\"event\":\"step\",\"prefill\":5,\"tau\":1}\n{\"event\":\"step\",\"tau\":2}\n",
                            "t.jsonl", "")
                .status()
                .message(),
            "t.jsonl:2: error: the step has no figure 'prefill', which the first step (line 1) has");
  absl::StatusOr<StepRecords> spaced = ReadStepRecords(
      "{\"event\": \"step\", \"prefill\": 5, \"tau\": 1}\n{\"event\":\"step\",\"prefill\":6,\"tau\":2}\n"
      "{\"event\": \"arrive\", \"step\": 3}\n",
      "t.jsonl", "");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->rows.size(), 2u);
  EXPECT_EQ(ReadStepRecords("{\"event\":\"step\",\"prefill\":5,\"tau\":-1}\n", "t.jsonl", "").status().message(),
            "t.jsonl:1: error: 'tau' is -1: a step's duration is at least 0");
  EXPECT_EQ(ReadStepRecords("prefill,duration\n1,2\n3,-0.5\n", "s.csv", "").status().message(),
            "s.csv:3: error: 'duration' is -0.5: a step's duration is at least 0");
  EXPECT_EQ(ReadStepRecords("prefill,tau\n1,2\n", "s.csv", "E").status().message(),
            "s.csv:1: error: --step-stage E selects a stage's steps of serq's --trace; a CSV of step records has "
            "no stage column to select by");
  absl::StatusOr<StepRecords> bom = ReadStepRecords("\xEF\xBB\xBFprefill,tau\n1,2\n", "s.csv", "");
  ASSERT_TRUE(bom.ok()) << bom.status();
  EXPECT_EQ(bom->columns, std::vector<std::string>{"prefill"});
  EXPECT_EQ(ParseStepTerms("B0=1,B1=nan").status().message(), "--terms: 'nan' in 'B1=nan' is not a finite number");
  EXPECT_EQ(ParseStepTerms("B0=1e400").status().message(), "--terms: '1e400' in 'B0=1e400' is not a finite number");
}

// Figures whose squares leave a double's range are fitted: the columns'
// lengths are taken without squaring them whole (they were 0, "is 0 on
// every step", and inf, "collinear"). tau = 1 + 2e200 x prefill and
// 1 + 2e-200 x prefill exactly on prefill 1e-200, 2e-200, 3e-200 (1e200, ...).
TEST(FitSteps, FiguresFarFromOne) {
  for (const char* csv : {"prefill,tau\n1e-200,3\n2e-200,5\n3e-200,7\n", "prefill,tau\n1e200,3\n2e200,5\n3e200,7\n"}) {
    StepRecords r = *ReadStepRecords(csv, "s.csv", "");
    absl::StatusOr<StepFit> fit = FitStepTerms(r, Terms("A=1,B=prefill"));
    ASSERT_TRUE(fit.ok()) << fit.status();
    EXPECT_NEAR(fit->coefficients[0], 1, 1e-9) << csv;
    EXPECT_NEAR(fit->coefficients[1] * r.rows[0][0], 2, 1e-9) << csv;
  }
  StepRecords r = *ReadStepRecords("prefill,tau\n1e200,3\n2e200,5\n", "s.csv", "");
  EXPECT_EQ(FitStepTerms(r, Terms("A=1,B=prefill*prefill")).status().message(),
            "--terms: 'B=prefill*prefill' is past a double's range on step 1 of the records: scale a factor down");
}

// Figures a fit cannot give: R^2 where every duration is the same (0 / 0),
// a standard error with as many steps as terms (no degree of freedom).
TEST(FitSteps, UndefinedFiguresAreSaid) {
  StepRecords same = *ReadStepRecords("prefill,tau\n1,2\n2,2\n3,2\n", "s.csv", "");
  absl::StatusOr<StepFit> a = FitStepTerms(same, Terms("B=prefill"));
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(std::isnan(a->r2));
  EXPECT_NE(RenderStepFit(same, Terms("B=prefill"), *a, "s.csv")
                .find("R^2 undefined (every step's duration is the same)"),
            std::string::npos);
  // Two steps, two terms: through both points exactly, 1 + 1 x prefill.
  StepRecords two = *ReadStepRecords("prefill,tau\n1,2\n2,3\n", "s.csv", "");
  absl::StatusOr<StepFit> b = FitStepTerms(two, Terms("A=1,B=prefill"));
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->coefficients[0], 1, 1e-12);
  EXPECT_NEAR(b->coefficients[1], 1, 1e-12);
  EXPECT_TRUE(std::isnan(b->standard_errors[0]) && std::isnan(b->standard_errors[1]));
  const std::string report = RenderStepFit(two, Terms("A=1,B=prefill"), *b, "s.csv");
  EXPECT_NE(report.find("B  prefill  1  undefined (as many steps as free terms)"), std::string::npos) << report;
}

}  // namespace
}  // namespace serq::fit
