#include "chart/plot.h"

#include <cmath>

#include "gtest/gtest.h"
#include "ir/io.h"
#include "stats/summary.h"
#include "chart/chart.h"

namespace serq::view {
namespace {

using Points = std::vector<std::pair<double, double>>;

// {3, 1, 2, 2}: 1/4 at 1, 3/4 at 2 (two samples, one step), 1 at 3; the
// line starts at (the smallest, 0).
TEST(PlotTest, CdfStepsAtEverySample) {
  ChartLine l = CdfLine("x", {3, 1, 2, 2});
  EXPECT_EQ(l.label, "x (n=4)");
  EXPECT_TRUE(l.steps);
  EXPECT_EQ(l.points, (Points{{1, 0}, {1, 0.25}, {2, 0.75}, {3, 1}}));
  EXPECT_TRUE(CdfLine("none", {}).points.empty());
}

// 2500 samples 1..2500: more than kCdfPoints, so the ranks ceil(k 2500 /
// 1000): 3, 5, 8, ..., 2500, each point (rank, rank / 2500).
TEST(PlotTest, ALargeCdfKeepsEvenlySpacedRanks) {
  std::vector<double> samples;
  for (int i = 2500; i >= 1; --i) samples.push_back(i);
  ChartLine l = CdfLine("big", samples);
  ASSERT_EQ(l.points.size(), kCdfPoints + 1);
  EXPECT_EQ(l.points[0], (std::pair<double, double>{1, 0}));
  EXPECT_EQ(l.points[1], (std::pair<double, double>{3, 3.0 / 2500}));
  EXPECT_EQ(l.points[2], (std::pair<double, double>{5, 5.0 / 2500}));
  EXPECT_EQ(l.points[3], (std::pair<double, double>{8, 8.0 / 2500}));
  EXPECT_EQ(l.points.back(), (std::pair<double, double>{2500, 1}));
}

// A replication's series: a scalar step stage's present and batch on one
// chart; an array pool's used (with its cap) and loaded on a chart each.
TEST(PlotTest, SeriesChartsPerDeclaration) {
  results::Replication rep;
  rep.set_index(2);
  rep.add_pool()->set_cap(10);
  rep.add_pool()->set_cap(10);
  results::Series* s = rep.mutable_series();
  for (double t : {0.0, 1.0}) s->add_time(t);
  results::StageSeries* e = s->add_stage();
  e->set_name("E");
  e->set_kind("step");
  for (double v : {2.0, 1.0}) e->add_present(v);
  for (double v : {1.0, 0.0}) e->add_batch(v);
  for (int i = 0; i < 2; ++i) {
    results::PoolSeries* p = s->add_pool();
    p->set_name("kv");
    p->set_array(true);
    p->set_index(i);
    for (double v : {4.0, 5.0}) p->add_used(v + i);
    for (double v : {1.0, 2.0}) p->add_loaded(v);
  }
  std::vector<Chart> charts = SeriesPlots(rep);
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].title, "stage E (step) (replication 2)");
  // A step stage: present, running (the batch) and waiting (present -
  // batch: 2 - 1 = 1, then 1 - 0 = 1).
  ASSERT_EQ(charts[0].lines.size(), 3u);
  EXPECT_EQ(charts[0].lines[0].label, "E present");
  EXPECT_EQ(charts[0].lines[0].points, (Points{{0, 2}, {1, 1}}));
  EXPECT_EQ(charts[0].lines[1].label, "E running");
  EXPECT_EQ(charts[0].lines[2].label, "E waiting");
  EXPECT_EQ(charts[0].lines[2].points, (Points{{0, 1}, {1, 1}}));
  EXPECT_EQ(charts[1].title, "pool kv (cap 10) (replication 2): used");
  ASSERT_EQ(charts[1].lines.size(), 3u);
  EXPECT_EQ(charts[1].lines[1].label, "kv[1] used");
  EXPECT_EQ(charts[1].lines[1].points, (Points{{0, 5}, {1, 6}}));
  EXPECT_EQ(charts[1].lines[2].label, "cap");
  EXPECT_TRUE(charts[1].lines[2].dashed);
  EXPECT_EQ(charts[2].title, "pool kv (cap 10) (replication 2): loaded");
}

// The samples 1..N in a scrambled order, N = 1.5 * 2^20 = 1572864 > 2^20,
// through serq-sim's recorder: a summary, no kept samples.
results::Replication SummarisedReplication(uint64_t n, const std::string& name) {
  report::ObservationRecorder rec;
  // 7 is prime to N = 3 * 2^19, so i * 7 mod N visits every residue once.
  for (uint64_t i = 0; i < n; ++i) rec.Add(static_cast<double>((i * 7) % n + 1));
  results::Replication rep;
  results::Observation* o = rep.add_observation();
  rec.WriteTo(o);
  o->set_name(name);
  return rep;
}

// The samples 1..N are uniform: the exact CDF is F(x) = floor(x) / N, so
// the r-th smallest is r. Each point (x, r / N) of the sketch's CDF must
// have x within alpha of r (a step at the end of a bucket, whose value is
// within alpha of each sample in it); the first point is (1, 0), the
// last (N, 1) (the extremes are exact), and the points are at most
// kCdfPoints + 1 (there are about ln(N) / ln(gamma) = 7130 buckets).
TEST(PlotTest, ASketchedCdfIsWithinAlphaOfTheExactOne) {
  constexpr uint64_t n = 1572864;
  results::Replication rep = SummarisedReplication(n, "x");
  ASSERT_EQ(rep.observation(0).sample_size(), 0);
  ASSERT_EQ(rep.observation(0).count(), n);
  PooledObservation pooled = PoolObservation({&rep}, "x");
  ASSERT_TRUE(pooled.sketch.has_value());
  EXPECT_GT(pooled.sketch->Buckets().size(), kCdfPoints);
  ChartLine l = ObservationCdfLine("x", std::move(pooled));
  EXPECT_EQ(l.label, "x (n=1572864, sketch)");
  EXPECT_TRUE(l.steps);
  ASSERT_GE(l.points.size(), kCdfPoints / 2);
  ASSERT_LE(l.points.size(), kCdfPoints + 1);
  EXPECT_EQ(l.points.front(), (std::pair<double, double>{1, 0}));
  EXPECT_EQ(l.points.back(), (std::pair<double, double>{static_cast<double>(n), 1}));
  double last_y = 0;
  for (size_t k = 1; k < l.points.size(); ++k) {
    auto [x, y] = l.points[k];
    double r = std::round(y * n);
    EXPECT_LE(std::fabs(x - r), report::kSketchAlpha * r * (1 + 1e-9)) << k << ": " << x << " " << y;
    EXPECT_GT(y, last_y) << k;  // ascending fractions
    last_y = y;
  }
  // The points are spread over the ranks: no gap between two of more than
  // a bucket beyond n / kCdfPoints (a bucket near N holds 2 alpha N = 3146).
  for (size_t k = 1; k < l.points.size(); ++k) {
    EXPECT_LE((l.points[k].second - l.points[k - 1].second) * n, n / kCdfPoints + 2 * 0.001 * n + 2) << k;
  }
}

// A replication that kept its samples and one that kept a summary: the
// kept samples join the summary's sketch (as the report's quantiles do),
// so the CDF covers both: N + 4 samples, the four 0.5s below every other.
TEST(PlotTest, KeptSamplesJoinASummarysSketch) {
  constexpr uint64_t n = 1572864;
  results::Replication summary = SummarisedReplication(n, "x");
  results::Replication kept;
  results::Observation* o = kept.add_observation();
  o->set_name("x");
  for (int i = 0; i < 4; ++i) o->add_sample(0.5);
  ChartLine l = ObservationCdfLine("x", PoolObservation({&kept, &summary}, "x"));
  EXPECT_EQ(l.label, "x (n=1572868, sketch)");
  ASSERT_GE(l.points.size(), 2u);
  EXPECT_EQ(l.points[0], (std::pair<double, double>{0.5, 0}));
  // The first bucket (0.5's) holds 4 samples, fewer than the first rank
  // ceil(N / 1000) = 1573: no point of its own; the first point is the
  // bucket of rank 1573, near x = 1569.
  EXPECT_NEAR(l.points[1].first, std::round(l.points[1].second * (n + 4)) - 4,
              0.001 * l.points[1].first + 1e-9);
  EXPECT_EQ(l.points.back().second, 1);
  // Exact samples only: CdfLine's steps, unchanged.
  EXPECT_EQ(ObservationCdfLine("x", PoolObservation({&kept}, "x")).points,
            (Points{{0.5, 0}, {0.5, 1}}));
}

// Through serq-view --plot cdf: a summarised observation draws a line.
TEST(PlotTest, PlotResultsDrawsASketchedCdf) {
  results::Results r;
  r.set_version(kIrVersion);
  r.set_horizon(10);
  *r.add_replication() = SummarisedReplication(1572864, "x");
  PlotOptions options;
  options.kind = "cdf";
  absl::StatusOr<std::string> svg = PlotResults({r}, {"r"}, options);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_NE(svg->find("<polyline points="), std::string::npos) << *svg;
  EXPECT_NE(svg->find("x (n=1572864, sketch)"), std::string::npos);
}

TEST(PlotTest, TheSameChartIsTheSameBytes) {
  Chart c;
  c.title = "t";
  c.lines.push_back(CdfLine("x", {1, 2, 3}));
  EXPECT_EQ(ChartDocument({c}, ""), ChartDocument({c}, ""));
  EXPECT_NE(ChartDocument({}, "nothing").find(">nothing</text>"), std::string::npos);
}

// A CDF of samples 0.01 .. 1 (a factor of 100) goes on a log axis; of
// 1 .. 5 (a factor of 5) it stays linear; with a sample at 0 (on no log
// axis) too.
TEST(PlotTest, ACdfSpanningAFactorOfTenGoesOnALogAxis) {
  Chart c;
  c.x_label = "x";
  c.lines.push_back({});
  c.lines[0].points = {{0.01, 0.5}, {1, 1}};
  LogAxisIfSpansDecades(&c);
  EXPECT_TRUE(c.x_log);
  EXPECT_EQ(c.x_label, "x (log scale)");
  Chart narrow;
  narrow.x_label = "x";
  narrow.lines.push_back({});
  narrow.lines[0].points = {{1, 0.5}, {5, 1}};
  LogAxisIfSpansDecades(&narrow);
  EXPECT_FALSE(narrow.x_log);
  EXPECT_EQ(narrow.x_label, "x");
  narrow.lines[0].points = {{0, 0.5}, {100, 1}};
  LogAxisIfSpansDecades(&narrow);
  EXPECT_FALSE(narrow.x_log);
}

}  // namespace
}  // namespace serq::view
