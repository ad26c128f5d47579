#include "serq-report/table.h"

#include "gtest/gtest.h"

namespace serq::report {
namespace {

// The observe table's columns with the minimum widths of docs/report.md §observe's example.
Table ObserveTable() {
  return Table({{"observe", Align::kLeft, 7},
                {"n", Align::kRight, 5},
                {"mean", Align::kRight, 6},
                {"±95%", Align::kRight, 6},
                {"std", Align::kRight, 5},
                {"p99", Align::kRight, 6}});
}

TEST(Table, SeedRowByteForByte) {
  Table t = ObserveTable();
  t.AddRow({"transferred", "2", "2.0000", "±inf", "0.000", "2.0000"});
  EXPECT_EQ(t.RenderText(),
            "observe          n    mean    ±95%    std     p99\n"
            "transferred      2  2.0000    ±inf  0.000  2.0000\n");
}

TEST(Table, MinimumWidthsHoldWithShortCells) {
  // A one-letter name still gets the width of "observe".
  Table t = ObserveTable();
  t.AddRow({"x", "2", "2.0000", "±inf", "0.000", "2.0000"});
  EXPECT_EQ(t.RenderText(),
            "observe      n    mean    ±95%    std     p99\n"
            "x            2  2.0000    ±inf  0.000  2.0000\n");
}

TEST(Table, AWiderNameWidensItsColumnOnly) {
  Table t = ObserveTable();
  t.AddRow({"transferred", "2", "2.0000", "±inf", "0.000", "2.0000"});
  t.AddRow({"time_to_first_token", "2", "2.0000", "±inf", "0.000", "2.0000"});
  EXPECT_EQ(t.RenderText(),
            "observe                  n    mean    ±95%    std     p99\n"
            "transferred              2  2.0000    ±inf  0.000  2.0000\n"
            "time_to_first_token      2  2.0000    ±inf  0.000  2.0000\n");
}

TEST(Table, AWiderNumberWidensItsColumnOnly) {
  Table t = ObserveTable();
  t.AddRow({"transferred", "123456", "12345.0000", "±inf", "0.000", "2.0000"});
  EXPECT_EQ(t.RenderText(),
            "observe           n        mean    ±95%    std     p99\n"
            "transferred  123456  12345.0000    ±inf  0.000  2.0000\n");
}

TEST(Table, PlusMinusCountsAsOneCharacter) {
  // "±12.3456" is 8 characters (9 bytes): the column is 8 wide, so the
  // header "±95%" (4 characters) gets 4 spaces, not 5 or 3.
  EXPECT_EQ(DisplayWidth("±12.3456"), 8u);
  EXPECT_EQ(DisplayWidth("±95%"), 4u);
  Table t = ObserveTable();
  t.AddRow({"transferred", "2", "2.0000", "±12.3456", "0.000", "2.0000"});
  EXPECT_EQ(t.RenderText(),
            "observe          n    mean      ±95%    std     p99\n"
            "transferred      2  2.0000  ±12.3456  0.000  2.0000\n");
}

TEST(Table, NoTrailingSpacesAfterALeftAlignedLastColumn) {
  Table t({{"stage", Align::kLeft}, {"kind", Align::kLeft}});
  t.AddRow({"P", "delay"});
  t.AddRow({"link", "ps"});
  EXPECT_EQ(t.RenderText(),
            "stage  kind\n"
            "P      delay\n"
            "link   ps\n");
}

TEST(Table, Markdown) {
  Table t({{"observe", Align::kLeft, 7}, {"±95%", Align::kRight, 6}});
  t.AddRow({"x", "±inf"});
  EXPECT_EQ(t.RenderMarkdown(),
            "| observe |   ±95% |\n"
            "|:--------|-------:|\n"
            "| x       |   ±inf |\n");
}

TEST(Table, MarkdownEscapes) {
  EXPECT_EQ(EscapeMarkdown("ps*"), "ps\\*");
  EXPECT_EQ(EscapeMarkdown("a|b_c"), "a\\|b\\_c");
}

}  // namespace
}  // namespace serq::report
