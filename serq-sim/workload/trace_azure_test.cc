// The Azure LLM inference trace: TIMESTAMP as a date-time, arrival = seconds
// since the first row's; the other columns are session variables.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_testing.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::ReadText;
using testing::Row;

constexpr char kHeader[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

std::vector<double> Times(const std::string& rows) {
  auto r = ReadText(kHeader + rows);
  EXPECT_TRUE(r.ok) << r.error;
  return r.trace.times;
}

TEST(AzureTraceTest, TimesAndVariables) {
  auto r = ReadText(std::string(kHeader) +
                    "2023-11-16 18:15:45.0000000,4808,10\n"
                    "2023-11-16 18:15:46.6805900,3180,8\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.format, "Azure LLM inference CSV");
  EXPECT_THAT(r.trace.columns, ElementsAre("ContextTokens", "GeneratedTokens"));
  // 46.6805900 - 45.0000000 = 1.68059 s exactly in decimal; the reader
  // divides 168059 by 10^5 once, so it is the double nearest 1.68059,
  // which is also what the literal 1.68059 is.
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 1.68059));
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(4808.0, 10.0));
  EXPECT_THAT(Row(r.trace, 1), ElementsAre(3180.0, 8.0));
}

TEST(AzureTraceTest, SubMicrosecondDigitsAreKept) {
  // 100 ns apart, and 9 decimals: the double nearest each decimal.
  EXPECT_THAT(Times("2023-11-16 18:15:45.0000000,1,1\n2023-11-16 18:15:45.0000001,1,1\n"
                    "2023-11-16 18:15:45.123456789,1,1\n"),
              ElementsAre(0.0, 1e-7, 0.123456789));
  // The first row's fraction is subtracted exactly: 46.6805900 - 45.6805899
  // = 1.0000001.
  EXPECT_THAT(Times("2023-11-16 18:15:45.6805899,1,1\n2023-11-16 18:15:46.6805900,1,1\n"),
              ElementsAre(0.0, 1.0000001));
}

TEST(AzureTraceTest, CalendarArithmetic) {
  // Across midnight: 23:59:59.9999999 -> 00:00:00.0000001 is 2e-7 s.
  EXPECT_THAT(Times("2023-11-16 23:59:59.9999999,1,1\n2023-11-17 00:00:00.0000001,1,1\n"),
              ElementsAre(0.0, 2e-7));
  // Across a year, and across 2024's 29 February (two days, 172800 s).
  EXPECT_THAT(Times("2023-12-31 23:59:59,1,1\n2024-01-01 00:00:00,1,1\n"
                    "2024-01-01 00:00:00,1,1\n"),
              ElementsAre(0.0, 1.0, 1.0));
  EXPECT_THAT(Times("2024-02-28 12:00:00,1,1\n2024-03-01 12:00:00,1,1\n"),
              ElementsAre(0.0, 172800.0));
  // One week (the 2024 traces span one): 7 * 86400 + 0.5.
  EXPECT_THAT(Times("2024-05-10 00:00:00,1,1\n2024-05-17 00:00:00.5,1,1\n"),
              ElementsAre(0.0, 604800.5));
}

TEST(AzureTraceTest, UtcOffsetsAndT) {
  // 6 decimals and +00:00 (as pandas writes), 'T' and 'Z', and +02:00:
  // 02:00:01.5+02:00 is 00:00:01.5 UTC, 1.5 - 0.00993 = 1.49007 s after the
  // first row.
  EXPECT_THAT(Times("2024-05-10 00:00:00.009930+00:00,1,1\n"
                    "2024-05-10T00:00:01Z,1,1\n"
                    "2024-05-10 02:00:01.5+02:00,1,1\n"
                    "2024-05-09 23:00:02-01:00,1,1\n"),
              ElementsAre(0.0, 0.99007, 1.49007, 1.99007));
}

TEST(AzureTraceTest, ExtraColumnsAreVariables) {
  auto r = ReadText("TIMESTAMP,ContextTokens,GeneratedTokens,Images\n"
                    "2023-11-16 18:15:45,10,2,1\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.trace.columns, ElementsAre("ContextTokens", "GeneratedTokens", "Images"));
  EXPECT_THAT(r.trace.values, ElementsAre(10.0, 2.0, 1.0));
}

TEST(AzureTraceTest, BadRows) {
  const std::string first = std::string(kHeader) + "2023-11-16 18:15:46.6805900,4808,10\n";
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:45.0000000,3180,8\n").error,
            "t:3: TIMESTAMP 2023-11-16 18:15:45.0000000 is before the previous row's "
            "2023-11-16 18:15:46.6805900 (rows must be in time order)");
  const char shape[] =
      "is not a date-time: expected YYYY-MM-DD HH:MM:SS with up to 9 decimals and an optional "
      "Z or +HH:MM, e.g. 2023-11-16 18:15:46.6805900";
  EXPECT_EQ(ReadText(first + "2023/11/16 18:15:47,1,1\n").error,
            std::string("t:3: TIMESTAMP '2023/11/16 18:15:47' ") + shape);
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15,1,1\n").error,
            std::string("t:3: TIMESTAMP '2023-11-16 18:15' ") + shape);
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:47.,1,1\n").error,
            std::string("t:3: TIMESTAMP '2023-11-16 18:15:47.' ") + shape);
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:47+2:00,1,1\n").error,
            std::string("t:3: TIMESTAMP '2023-11-16 18:15:47+2:00' ") + shape);
  EXPECT_EQ(ReadText(first + "1700158547,1,1\n").error,
            std::string("t:3: TIMESTAMP '1700158547' ") + shape);
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:47.0123456789,1,1\n").error,
            "t:3: TIMESTAMP '2023-11-16 18:15:47.0123456789' is not a date-time: more than 9 "
            "decimals of a second");
  EXPECT_EQ(ReadText(first + "2023-02-29 00:00:00,1,1\n").error,
            "t:3: TIMESTAMP '2023-02-29 00:00:00' is not a date-time: 2023-02-29 is not a date");
  EXPECT_EQ(ReadText(first + "2023-11-16 24:00:00,1,1\n").error,
            "t:3: TIMESTAMP '2023-11-16 24:00:00' is not a date-time: 24:00:00 is not a time of "
            "day");
  EXPECT_EQ(ReadText(first + "2323-11-16 18:15:47,1,1\n").error,
            "t:3: TIMESTAMP '2323-11-16 18:15:47' is more than 285 years from the first row's");
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:47,x,1\n").error,
            "t:3: 'x' in column 'ContextTokens' is not a finite number");
  EXPECT_EQ(ReadText(first + "2023-11-16 18:15:47,1\n").error,
            "t:3: expected 3 fields, found 2");
  EXPECT_EQ(ReadText(first + ",1,1\n").error,
            std::string("t:3: TIMESTAMP '' ") + shape);
}

}  // namespace
}  // namespace serq::sim
