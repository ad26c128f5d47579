#include "serq/sweep/sweep_html.h"

#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "serq/sweep/search_html.h"
#include "serq/sweep/sweep_report.h"

namespace serq {
namespace {

// A sweep's page with no points: the frame, the first line and no chart
// (no point to draw), never a script or an outside reference. The full
// page, with its table and charts, is testdata/html's sweep golden, which
// the browser test opens.
TEST(SweepHtml, AnEmptySweepIsAPageOfItsOwn) {
  SweepTable table;
  table.plan.set_program("mm1.sq");
  absl::StatusOr<std::string> page = RenderSweepHtml(table);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_NE(page->find("<h1>serq sweep: mm1.sq</h1>"), std::string::npos) << *page;
  EXPECT_NE(page->find("<p id=\"run\">"), std::string::npos) << *page;
  EXPECT_EQ(page->find("<script"), std::string::npos);
  EXPECT_NE(page->find("</html>\n"), std::string::npos);
}

// The page's table rounds each figure as the text table does, to two
// significant digits of its half-width (metrics.h FigureCells): a p50 of
// 1.873456 s with a 95% half-width of 9.876543 s (two replications:
// Student's t of 12.71) is "1.9" and "9.9", never the csv's 1.873456; a
// half-width of 0.0123 keeps three decimals, 0.512 ± 0.0123 is "0.512" and
// "0.012".
TEST(SweepHtml, TheTableRoundsEachFigureToItsInterval) {
  SweepTable table;
  table.plan.set_program("mm1.sq");
  sweep::Axis* axis = table.plan.add_axis();
  axis->set_name("Rate");
  Metric m;
  m.kind = Metric::kQuantile;
  m.percent = 50;
  m.observation = "ttft";
  m.label = "p50(ttft)";
  table.metrics = {m};
  for (auto [rate, value, half_width] : {std::tuple{1.0, 1.873456, 9.876543}, std::tuple{2.0, 0.512345, 0.0123}}) {
    SweepPoint p;
    sweep::Setting s;
    s.set_name("Rate");
    s.set_value(rate);
    p.settings = {s};
    p.replications = 2;
    Figure f;
    f.defined = true;
    f.value = value;
    f.half_width = half_width;
    p.figures = {f};
    table.points.push_back(p);
  }
  absl::StatusOr<std::string> page = RenderSweepHtml(table);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_NE(page->find(">1.9<"), std::string::npos) << *page;
  EXPECT_NE(page->find(">9.9<"), std::string::npos) << *page;
  EXPECT_NE(page->find(">0.512<"), std::string::npos) << *page;
  EXPECT_NE(page->find(">0.012<"), std::string::npos) << *page;
  EXPECT_EQ(page->find("1.873456"), std::string::npos) << *page;
  EXPECT_EQ(page->find("9.876543"), std::string::npos) << *page;
  // --format=csv keeps every digit, for a program to read.
  absl::StatusOr<std::string> csv = RenderSweepReport(table, "csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_NE(csv->find("1.873456,9.876543"), std::string::npos) << *csv;
}

// The search's page: the same rounding in its table of points tried.
TEST(SearchHtml, TheTableRoundsEachFigureToItsInterval) {
  SearchSpec spec;
  spec.program = "mm1.sq";
  spec.param = "Rate";
  Metric m;
  m.kind = Metric::kQuantile;
  m.percent = 99;
  m.observation = "ttft";
  m.label = "p99(ttft)";
  spec.condition.metrics = {m};
  SearchOutcome o;
  SearchPoint x;
  x.value = 4;
  x.replications = 2;
  Figure f;
  f.defined = true;
  f.value = 1.873456;
  f.half_width = 9.876543;
  x.figures = {f};
  o.tried = {x};
  const std::string csv = SearchCsv(spec, o);
  EXPECT_NE(csv.find(",1.9,9.9,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("1.873456"), std::string::npos) << csv;
}

}  // namespace
}  // namespace serq
