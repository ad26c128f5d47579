// serq's chart library (chart.h): ticks, tick labels, and the marks and
// bars that serq sweep --chart draws. The lines and steps are held to the
// plot goldens (testdata/plot) byte for byte.
#include "chart/chart.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"

namespace serq::view {
namespace {

// 6.5 / 6 = 1.08 is between 1 and 2: ticks 2 apart, from 0 to 8.
TEST(ChartTest, NiceTicksAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(NiceTicks(0, 6.5, 6), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_EQ(NiceTicks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(NiceTicks(0, 396270, 5), (std::vector<double>{0, 100000, 200000, 300000, 400000}));
  // Counts: never a tick between two whole numbers.
  EXPECT_EQ(NiceTicks(0, 1, 5, 1), (std::vector<double>{0, 1}));
  EXPECT_EQ(NiceTicks(3, 3, 5), (std::vector<double>{3, 3.2, 3.4000000000000004, 3.6, 3.8000000000000003, 4}));
}

TEST(ChartTest, TickLabelsShowTheStep) {
  EXPECT_EQ(TickLabel(0.25, 0.25), "0.25");
  EXPECT_EQ(TickLabel(0.6000000000000001, 0.2), "0.6");
  EXPECT_EQ(TickLabel(200000, 100000), "200000");
  EXPECT_EQ(TickLabel(0, 0.5), "0");
  EXPECT_EQ(TickLabel(3e7, 1e7), "3e+07");
}

// Marks with bars, in the pixels of chart.cc (plot area x 70..754, y
// 34..236, the axes' ends 6 px inside): points (1, 2 ± 1) and (3, 4 ± inf)
// on one line. The bars count in the y range: 0 to 4 (2 + 1 = 3 and 4),
// ticks 1 apart (whole numbers, min step 1: 4 / 5 = 0.8 rounds up to 1);
// x 1 to 3, ticks 0.5 apart. So x = 76 + (v - 1) / 2 * 672 and
// y = 230 - v / 4 * 190: (1, 2) at (76.0, 135.0), its bar from y(1) =
// 182.5 to y(3) = 87.5 with caps 4 px either side; (3, 4) at (748.0, 40.0),
// hollow (white fill), no bar. The one line has no label: no legend.
// A bound's rule, on MarksWithIntervalBars's chart (y 0 to 4, y(v) = 230 -
// v / 4 * 190): at 2, inside the axis, it changes no tick and is drawn at
// y(2) = 135.0 across the plot (x 70 to 70 + 684 = 754), its label right-
// aligned 6 px inside (748) and 5 px above (130). At 6, above the data, the
// axis reaches it: 0 to 6, ticks 2 apart (1.2 rounds up to 2), y(6) = 40.0,
// and its label, 6 px under the plot's top, goes under it (40 + 14 = 54).
TEST(ChartTest, RulesAreDrawnAndInsideTheAxis) {
  Chart c;
  ChartLine l;
  l.points = {{1, 2}, {3, 4}};
  l.marks = true;
  l.bars = {1, INFINITY};
  c.lines.push_back(l);
  const std::string without = ChartGroup(c, 0, 0);
  c.rules.push_back({2, "p99(ttft) <= 2"});
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("<line x1=\"70\" y1=\"135.0\" x2=\"754\" y2=\"135.0\" stroke=\"#b22222\" "
                     "stroke-width=\"1.5\" stroke-dasharray=\"8 4\"/>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<text x=\"748\" y=\"130\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(">p99(ttft) &lt;= 2</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);
  // The rule is the only difference: the rest is the chart without it.
  EXPECT_EQ(svg.size() - without.size(), svg.find("<polyline") - without.find("<polyline"));
  c.rules = {{6, "six"}};
  svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("y1=\"40.0\" x2=\"754\" y2=\"40.0\" stroke=\"#b22222\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(">6</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">5</text>"), std::string::npos) << svg;  // ticks 2 apart
  EXPECT_NE(svg.find("<text x=\"748\" y=\"54\""), std::string::npos) << svg;
  // On a log axis a rule at or below 0 is off it: not drawn.
  c.y_log = true;
  c.rules = {{0, "zero"}};
  EXPECT_EQ(ChartGroup(c, 0, 0).find("#b22222"), std::string::npos);
}

TEST(ChartTest, MarksWithIntervalBars) {
  Chart c;
  c.title = "t";
  ChartLine l;
  l.points = {{1, 2}, {3, 4}};
  l.marks = true;
  l.bars = {1, INFINITY};
  c.lines.push_back(l);
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("<polyline points=\"76.0,135.0 748.0,40.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<path d=\"M76.0 182.5V87.5M72.0 182.5H80.0M72.0 87.5H80.0\" fill=\"none\" "
                     "stroke=\"#1f77b4\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<circle cx=\"76.0\" cy=\"135.0\" r=\"3.5\" fill=\"#1f77b4\""),
            std::string::npos);
  EXPECT_NE(svg.find("<circle cx=\"748.0\" cy=\"40.0\" r=\"3.5\" fill=\"#ffffff\""),
            std::string::npos);
  EXPECT_EQ(svg.find("<path d=\"M748.0"), std::string::npos);  // no bar for the unbounded one
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);           // the axis reaches 2 + 1 ... 4
  EXPECT_EQ(svg.find("<line x1=\"770\""), std::string::npos);   // no legend entry
  // With a label, the legend has the line and a dot.
  c.lines[0].label = "a";
  svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("<circle cx=\"780\" cy=\"42\" r=\"3.5\" fill=\"#1f77b4\"/>"), std::string::npos) << svg;
}

// A bar reaching below 0 while every point is >= 0 (a latency's wide
// interval) does not pull the axis below 0 (issue 26: a sweep's chart ran
// to -20): the axis starts at 0 and the bar is cut there, without its
// lower cap. Points (1, 1 ± 3), (3, 4): the y axis runs 0 to 4 as above,
// y = 230 - v / 4 * 190; the bar from y(0) = 230.0 up to y(4) = 40.0, with
// only its upper cap.
TEST(ChartTest, BarsAreClippedAtZeroWhenThePointsAreNotNegative) {
  Chart c;
  ChartLine l;
  l.points = {{1, 1}, {3, 4}};
  l.marks = true;
  l.bars = {3, 0};
  c.lines.push_back(l);
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_EQ(svg.find(">-"), std::string::npos) << svg;  // no negative tick
  EXPECT_NE(svg.find("<path d=\"M76.0 230.0V40.0M72.0 40.0H80.0\" fill=\"none\""), std::string::npos) << svg;
}

// Points off every axis (an infinite sample, a CDF's step at inf) are not
// drawn: no "inf" in the SVG; the others are.
TEST(ChartTest, NonFinitePointsAreLeftOut) {
  Chart c;
  ChartLine l;
  l.steps = true;
  l.points = {{1, 0}, {2, 0.5}, {INFINITY, 1}};
  c.lines.push_back(l);
  std::string svg = ChartDocument({c}, "");
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<polyline points="), std::string::npos);
}

// A log x axis: the plot area is 960 - 70 - 190 - 16 = 684 px wide from
// x = 70, its ends 6 px in, so x runs over [76, 748]; the data 0.001 ..
// 10 give ticks at the powers of ten 0.001 .. 10, four decades: 0.1 is
// half way, 76 + 672 / 2 = 412. The plot is 280 - 34 - 44 = 202 px high
// from y = 34: y 0 at 34 + 202 - 6 = 230, y 1 (y_max) at 40, 0.5 at 135.
// The step at x = 0 is off a log axis: not drawn.
TEST(ChartTest, ALogAxisPlacesPowersOfTenEvenly) {
  Chart c;
  c.x_log = true;
  c.y_max = 1;
  ChartLine l;
  l.steps = true;
  l.points = {{0, 0}, {0.001, 0}, {0.1, 0.5}, {10, 1}};
  c.lines.push_back(l);
  EXPECT_FALSE(SpansDecades(c.lines));  // 0 is on no log axis
  c.lines[0].points.erase(c.lines[0].points.begin());
  EXPECT_TRUE(SpansDecades(c.lines));  // 10 / 0.001 = 10^4
  EXPECT_FALSE(SpansDecades(c.lines, 5));
  c.lines[0].points.insert(c.lines[0].points.begin(), {0, 0});
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("<polyline points=\"76.0,230.0 412.0,230.0 412.0,135.0 748.0,135.0 "
                     "748.0,40.0\""),
            std::string::npos)
      << svg;
  for (const char* tick : {">0.001<", ">0.01<", ">0.1<", ">1<", ">10<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find(">100<"), std::string::npos);
}

}  // namespace
}  // namespace serq::view

namespace serq::view {
namespace {

// A legend is never cut: the legend's text column is 190 - 26 = 164 px,
// 22 characters of 0.61 * 12 px, so the 23 of "itl (n=3070322, sketch)"
// wrap at the last space within them, the second line 14 px under the
// first; the next entry starts 18 px under that.
TEST(ChartTest, LongLegendLabelsWrapWhole) {
  Chart c;
  c.lines.push_back({"itl (n=3070322, sketch)", {{1, 1}, {2, 2}}});
  c.lines.push_back({"tpot", {{1, 1}, {2, 3}}});
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_EQ(svg.find('~'), std::string::npos) << svg;
  EXPECT_NE(svg.find("y=\"46\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
                     "font-size=\"12\" text-anchor=\"start\" fill=\"#222222\">itl (n=3070322,</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("y=\"60\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
                     "font-size=\"12\" text-anchor=\"start\" fill=\"#222222\">sketch)</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("y=\"78\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
                     "font-size=\"12\" text-anchor=\"start\" fill=\"#222222\">tpot</text>"),
            std::string::npos)
      << svg;
}

}  // namespace
}  // namespace serq::view

namespace serq::view {
namespace {

// A log y axis (a sweep's figure spanning ten times): y 1, 10, 100 give
// ticks at 1, 10 and 100, evenly spaced over the 202 - 12 = 190 px from
// y = 230 up to 40, so 10 is half way, at 135; x 1 .. 3 over [76, 748]
// as in ChartTest.MarksWithIntervalBars. SpansDecadesY says when.
TEST(ChartTest, ALogYAxisPlacesPowersOfTenEvenly) {
  Chart c;
  c.lines.push_back({"", {{1, 1}, {2, 10}, {3, 100}}});
  EXPECT_TRUE(SpansDecadesY(c.lines, 1));
  EXPECT_FALSE(SpansDecadesY({{"", {{1, 1}, {2, 9.99}}}}, 1));
  EXPECT_FALSE(SpansDecadesY({{"", {{1, 0}, {2, 100}}}}, 1));
  c.y_log = true;
  std::string svg = ChartGroup(c, 0, 0);
  EXPECT_NE(svg.find("<polyline points=\"76.0,230.0 412.0,135.0 748.0,40.0\""), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("text-anchor=\"end\" fill=\"#222222\">100</text>"), std::string::npos) << svg;
}

}  // namespace
}  // namespace serq::view
