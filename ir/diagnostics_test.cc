#include "ir/diagnostics.h"

#include "gtest/gtest.h"

namespace serq {
namespace {

TEST(Diagnostics, LocatedErrorShowsSourceLineAndCaret) {
  Diagnostics d("x.sq", "stage P : delay;\n  run Q (1);\n");
  d.Error(2, 7, "unknown stage 'Q'");
  EXPECT_EQ(d.Render(),
            "x.sq:2:7: error: unknown stage 'Q'\n"
            "  run Q (1);\n"
            "      ^\n");
}

TEST(Diagnostics, CaretKeepsTabs) {
  Diagnostics d("x.sq", "\trun Q (1);\n");
  d.Error(1, 6, "m");
  EXPECT_EQ(d.Render(), "x.sq:1:6: error: m\n\trun Q (1);\n\t    ^\n");
}

TEST(Diagnostics, SortedByPositionThenPathsInReportOrder) {
  Diagnostics d("f", "a\nb\nc\n");
  d.ErrorAtPath("session[0].body[1]", "second path");
  d.Error(3, 1, "line three");
  d.ErrorAtPath("param[0]", "third path");
  d.Error(1, 1, "line one");
  EXPECT_EQ(d.Render(),
            "f:1:1: error: line one\na\n^\n"
            "f:3:1: error: line three\nc\n^\n"
            "f:session[0].body[1]: error: second path\n"
            "f:param[0]: error: third path\n");
}

TEST(Diagnostics, DuplicatesAreDroppedAndFileLevelHasNoPath) {
  Diagnostics d("f");
  d.Error(2, 3, "same");
  d.Error(2, 3, "same");
  d.ErrorInFile("whole file");
  EXPECT_EQ(d.size(), 3u);
  // No source text: no source line, no caret.
  EXPECT_EQ(d.Render(), "f:2:3: error: same\nf: error: whole file\n");
}

TEST(Diagnostics, LocationWinsOverPath) {
  Diagnostics d("f");
  ir::Location loc;
  d.Error(loc, "session[0]", "no location");
  loc.set_line(4);
  loc.set_column(2);
  d.Error(loc, "session[0]", "located");
  EXPECT_EQ(d.Render(), "f:4:2: error: located\nf:session[0]: error: no location\n");
}

// A trace's bad row is reported in the trace's own file and line, with no
// column or source line, after the program's located diagnostics.
TEST(Diagnostics, OtherFileByItsLine) {
  Diagnostics d("x.sq", "a\nb\n");
  d.ErrorInOtherFile("rows.csv", 7, "bad row");
  d.Error(2, 1, "in the program");
  d.ErrorInOtherFile("empty.csv", 0, "empty trace");
  EXPECT_EQ(d.Render(),
            "x.sq:2:1: error: in the program\nb\n^\n"
            "rows.csv:7: error: bad row\n"
            "empty.csv: error: empty trace\n");
}

}  // namespace
}  // namespace serq
