#include "ir/diagnostics.h"

#include "absl/strings/str_cat.h"
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

TEST(Diagnostics, LongLineShownAroundTheColumn) {
  // A line of 10,000 bytes, the error at column 5,001: the window is the
  // 200 bytes from byte 4,900 (100 before the column), cut at both ends, so
  // the caret is under "..." and 100 bytes: at offset 103.
  std::string line(10000, 'x');
  line[5000] = '#';
  Diagnostics d("x.sq", line + "\n");
  d.Error(1, 5001, "m");
  std::string shown = absl::StrCat("...", line.substr(4900, 200), "...");
  EXPECT_EQ(d.Render(), absl::StrCat("x.sq:1:5001: error: m\n", shown, "\n",
                                     std::string(103, ' '), "^\n"));
  EXPECT_EQ(shown[103], '#');
  // Near the start: no cut before; the window is the first 200 bytes. A
  // tab before the column stays a tab in the caret line.
  line[2] = '\t';
  Diagnostics start("x.sq", line);
  start.Error(1, 6, "m");
  EXPECT_EQ(start.Render(), absl::StrCat("x.sq:1:6: error: m\n", line.substr(0, 200), "...\n",
                                         "  \t  ^\n"));
  // A cut never splits a UTF-8 character: "é" (two bytes) across byte
  // 4,900 moves the cut back one byte, to its first byte.
  line[4899] = '\xc3';
  line[4900] = '\xa9';
  Diagnostics utf8("x.sq", line);
  utf8.Error(1, 5001, "m");
  EXPECT_EQ(utf8.Render(), absl::StrCat("x.sq:1:5001: error: m\n...", line.substr(4899, 201),
                                        "...\n", std::string(104, ' '), "^\n"));
}

TEST(Diagnostics, ErrorLimit) {
  // Past kMaxErrors (20) errors are counted, not kept, and the count shown
  // last; a reader that stopped says so instead.
  Diagnostics d("x.sq", "");
  for (int i = 1; i <= 25; ++i) d.Error(i, 1, "m");
  EXPECT_TRUE(d.full());
  EXPECT_EQ(d.list().size(), 20u);
  EXPECT_EQ(d.dropped(), 5u);
  EXPECT_EQ(d.size(), 25u);
  EXPECT_EQ(d.TooMany(), "x.sq: error: too many errors: 5 more after the first 20 not shown\n");
  d.StopAtLimit();
  EXPECT_EQ(d.TooMany(), "x.sq: error: too many errors: stopped after the first 20\n");
  Diagnostics few("x.sq", "");
  for (int i = 1; i <= 19; ++i) few.Error(i, 1, "m");
  EXPECT_FALSE(few.full());
  EXPECT_EQ(few.TooMany(), "");
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
