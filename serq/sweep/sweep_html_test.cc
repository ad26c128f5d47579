#include "serq/sweep/sweep_html.h"

#include <string>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace serq
