// serq's CSV trace: column `time` in seconds, every other column a session
// variable.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_testing.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::ReadText;
using testing::Row;

TEST(SerqCsvTest, TimesAndVariables) {
  // `time` anywhere in the header; the other columns in file order.
  auto r = ReadText("prompt,time,output\n100,0.5,10\n200,1.25,20\n300,1.25,30\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.format, "serq CSV");
  EXPECT_EQ(r.trace.path, "t");
  EXPECT_THAT(r.trace.columns, ElementsAre("prompt", "output"));
  // Seconds as written: the double nearest each decimal.
  EXPECT_THAT(r.trace.times, ElementsAre(0.5, 1.25, 1.25));
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(100.0, 10.0));
  EXPECT_THAT(Row(r.trace, 2), ElementsAre(300.0, 30.0));
}

TEST(SerqCsvTest, QuotesSpacesAndBlankLines) {
  auto r = ReadText(" \"time\" , \"prompt\" \n\n 0.1 , \"2e3\" \n\n\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.trace.columns, ElementsAre("prompt"));
  EXPECT_THAT(r.trace.times, ElementsAre(0.1));
  EXPECT_THAT(r.trace.values, ElementsAre(2000.0));
}

TEST(SerqCsvTest, HeaderOnlyHasNoRows) {
  auto r = ReadText("time,prompt\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.trace.times.empty());
  EXPECT_THAT(r.trace.columns, ElementsAre("prompt"));
}

TEST(SerqCsvTest, BadHeaders) {
  EXPECT_EQ(ReadText("time,prompt,prompt\n").error,
            "t:1: column 'prompt' appears twice in the header");
  EXPECT_EQ(ReadText("time,,prompt\n").error, "t:1: column 2 of the header has no name");
}

// A header is counted before it is split: one column past text::kMaxColumns
// (10,000) is refused at line 1, for serq's CSV and Azure's alike; 10,000
// columns are read.
TEST(SerqCsvTest, HeadersWiderThanTheBoundAreRefused) {
  std::string header = "time";
  for (int c = 1; c < 10000; ++c) header += ",c" + std::to_string(c);
  auto r = ReadText(header + "\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.columns.size(), 9999u);
  EXPECT_EQ(ReadText(header + ",c10000\n").error,
            "t:1: the header has 10001 columns; serq reads at most 10000");
  EXPECT_EQ(ReadText("TIMESTAMP" + header.substr(4) + ",c10000\n").error,
            "t:1: the header has 10001 columns; serq reads at most 10000");
}

TEST(SerqCsvTest, BadRows) {
  const std::string header = "time,prompt\n0,1\n";
  EXPECT_EQ(ReadText(header + "1\n").error, "t:3: expected 2 fields, found 1");
  EXPECT_EQ(ReadText(header + "1,2,3\n").error, "t:3: expected 2 fields, found 3");
  // Counted, not split: a row of 10^6 commas.
  EXPECT_EQ(ReadText(header + std::string(1000000, ',') + "\n").error,
            "t:3: expected 2 fields, found 1000001");
  EXPECT_EQ(ReadText(header + "1,x\n").error,
            "t:3: 'x' in column 'prompt' is not a finite number");
  EXPECT_EQ(ReadText(header + "1,inf\n").error,
            "t:3: 'inf' in column 'prompt' is not a finite number");
  EXPECT_EQ(ReadText(header + "1,\n").error, "t:3: column 'prompt' is empty");
  EXPECT_EQ(ReadText(header + ",1\n").error, "t:3: column 'time' is empty");
  EXPECT_EQ(ReadText(header + "soon,1\n").error,
            "t:3: 'soon' in column 'time' is not a finite number of seconds");
  EXPECT_EQ(ReadText("time,prompt\n-0.5,1\n").error, "t:2: time -0.5 is negative");
  EXPECT_EQ(ReadText("time,prompt\n2,1\n1.50,1\n").error,
            "t:3: time 1.50 is before the previous row's 2 (rows must be in time order)");
}

}  // namespace
}  // namespace serq::sim
