#include "serq-view/plot.h"

#include "gtest/gtest.h"
#include "serq-view/plot_svg.h"

namespace serq::view {
namespace {

using Points = std::vector<std::pair<double, double>>;

// 6.5 / 6 = 1.08 is between 1 and 2: ticks 2 apart, from 0 to 8.
TEST(PlotSvgTest, NiceTicksAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(NiceTicks(0, 6.5, 6), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_EQ(NiceTicks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(NiceTicks(0, 396270, 5), (std::vector<double>{0, 100000, 200000, 300000, 400000}));
  // Counts: never a tick between two whole numbers.
  EXPECT_EQ(NiceTicks(0, 1, 5, 1), (std::vector<double>{0, 1}));
  EXPECT_EQ(NiceTicks(3, 3, 5), (std::vector<double>{3, 3.2, 3.4000000000000004, 3.6, 3.8000000000000003, 4}));
}

TEST(PlotSvgTest, TickLabelsShowTheStep) {
  EXPECT_EQ(TickLabel(0.25, 0.25), "0.25");
  EXPECT_EQ(TickLabel(0.6000000000000001, 0.2), "0.6");
  EXPECT_EQ(TickLabel(200000, 100000), "200000");
  EXPECT_EQ(TickLabel(0, 0.5), "0");
  EXPECT_EQ(TickLabel(3e7, 1e7), "3e+07");
}

// {3, 1, 2, 2}: 1/4 at 1, 3/4 at 2 (two samples, one step), 1 at 3; the
// line starts at (the smallest, 0).
TEST(PlotTest, CdfStepsAtEverySample) {
  PlotLine l = CdfLine("x", {3, 1, 2, 2});
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
  PlotLine l = CdfLine("big", samples);
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
  std::vector<Plot> charts = SeriesPlots(rep);
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].title, "stage E (step) (replication 2)");
  ASSERT_EQ(charts[0].lines.size(), 2u);
  EXPECT_EQ(charts[0].lines[0].label, "E present");
  EXPECT_EQ(charts[0].lines[0].points, (Points{{0, 2}, {1, 1}}));
  EXPECT_EQ(charts[0].lines[1].label, "E batch");
  EXPECT_EQ(charts[1].title, "pool kv (cap 10) (replication 2): used");
  ASSERT_EQ(charts[1].lines.size(), 3u);
  EXPECT_EQ(charts[1].lines[1].label, "kv[1] used");
  EXPECT_EQ(charts[1].lines[1].points, (Points{{0, 5}, {1, 6}}));
  EXPECT_EQ(charts[1].lines[2].label, "cap");
  EXPECT_TRUE(charts[1].lines[2].dashed);
  EXPECT_EQ(charts[2].title, "pool kv (cap 10) (replication 2): loaded");
}

TEST(PlotTest, TheSameChartIsTheSameBytes) {
  Plot c;
  c.title = "t";
  c.lines.push_back(CdfLine("x", {1, 2, 3}));
  EXPECT_EQ(PlotDocument({c}, ""), PlotDocument({c}, ""));
  EXPECT_NE(PlotDocument({}, "nothing").find(">nothing</text>"), std::string::npos);
}

}  // namespace
}  // namespace serq::view
