// The bounded-memory path end to end: serq-sim summarises an observation
// of more than kExactSamples samples, and the report's figures from the
// summary are the exact ones (n, mean, std, sum, rate) or within the
// sketch's stated error (the quantiles).
#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "proto/report.pb.h"
#include "serq-report/model.h"
#include "serq-report/report.h"
#include "serq-sim/sim_testing.h"
#include "stats/merge.h"
#include "stats/sketch.h"

namespace serq::report {
namespace {

TEST(Summary, ReportFromASummaryOfMoreSamplesThanKept) {
  // One session a second at t = 0 .. 1199999: 1.2 million samples each of
  // s = serial + 1 (1 .. n) and inv = 1 / s, n = 1200000 > 2^20. Exact
  // figures: s has mean (n + 1) / 2 = 600000.5, sum n (n + 1) / 2 =
  // 720000600000, std sqrt(n (n + 1) / 12) = 346410.3058; its q-quantile
  // (type 7 over 1 .. n) is 1 + (n - 1) q; inv's is the same of 1 / s.
  constexpr double n = 1200000;
  testing::SimRun run = testing::RunSource(R"(
    workload { arrive periodic(1); }
    session { observe s = serial + 1; observe inv = 1 / (serial + 1); }
    run { horizon 1200000; }
  )");
  ASSERT_TRUE(run.ok) << run.errors;
  ASSERT_EQ(run.results.replication(0).observation(0).name(), "inv");
  const results::Observation& s = run.results.replication(0).observation(1);
  ASSERT_EQ(s.name(), "s");
  EXPECT_EQ(s.sample_size(), 0);  // summarised
  EXPECT_EQ(s.count(), n);
  EXPECT_EQ(s.sum(), 720000600000);
  EXPECT_LT(run.results.ByteSizeLong(), 200000);  // not 1.2M doubles twice (19 MB)

  ReportOptions options;
  options.quantiles = {1, 50, 90, 99, 99.9};
  absl::StatusOr<MergedResults> merged = MergeResults({{"r", &run.results}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  Report report = BuildReport(*merged, options.quantiles);
  const Observation& rs = report.observation(1);
  const Observation& ri = report.observation(0);
  EXPECT_EQ(rs.n(), n);
  EXPECT_EQ(rs.mean(), 600000.5);
  EXPECT_NEAR(rs.std(), std::sqrt(n * (n + 1) / 12), 1e-6);
  EXPECT_EQ(rs.sum(), 720000600000);
  EXPECT_EQ(rs.rate(), 1);
  EXPECT_EQ(rs.quantile_relative_error(), kSketchAlpha);
  EXPECT_EQ(rs.interval(), Observation::BATCH_MEANS);  // from the batch sums
  for (int k = 0; k < options.quantiles.size(); ++k) {
    double q = options.quantiles[k] / 100;
    double exact = 1 + (n - 1) * q;
    EXPECT_LE(std::fabs(rs.quantile(k) - exact) / exact, kSketchAlpha) << q;
    // inv sorted ascending is 1/n, 1/(n - 1), ..., 1: its h-th order
    // statistic is 1 / (n - h), interpolated.
    double h = (n - 1) * q, lo = std::floor(h);
    double exact_inv = 1 / (n - lo) + (h - lo) * (1 / (n - lo - 1) - 1 / (n - lo));
    EXPECT_LE(std::fabs(ri.quantile(k) - exact_inv) / exact_inv, kSketchAlpha) << q;
  }
  absl::StatusOr<std::string> text = RenderReport({run.results}, options);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("quantiles of inv, s: from a sketch, within 0.1% of the exact ones\n"),
            std::string::npos)
      << *text;

  // Two such replications merge exactly in n, mean and sum; their
  // sketches merge bucket by bucket.
  results::Results two = run.results;
  *two.add_replication() = run.results.replication(0);
  two.mutable_replication(1)->set_index(1);
  two.mutable_replication(1)->set_seed(99);
  merged = MergeResults({{"two", &two}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  Report r2 = BuildReport(*merged, {50});
  EXPECT_EQ(r2.observation(1).n(), 2 * n);
  EXPECT_EQ(r2.observation(1).mean(), 600000.5);
  EXPECT_EQ(r2.observation(1).sum(), 2 * 720000600000.0);
  EXPECT_EQ(r2.observation(1).quantile(0), rs.quantile(1));  // the same distribution twice
  EXPECT_EQ(r2.observation(1).quantile_half_width(0), 0);    // identical replications
}

}  // namespace
}  // namespace serq::report
