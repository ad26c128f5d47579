// vLLM's request records (requests.jsonl) as a trace: the arrival on the
// clock of the token times (the bench's rule), seconds since the first row,
// input_toks and output_toks as variables.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_testing.h"
#include "serq-sim/workload/vllm_record.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::ReadText;
using testing::Row;

// vLLM 0.19.0's shape: arrival_time on the Unix clock, the rest on the
// engine's monotonic clock (the first row of the real run, rounded to
// values a double holds exactly).
TEST(VllmTraceTest, QueuedTsWhenArrivalTimeIsOnAnotherClock) {
  auto r = ReadText(
      "{\"request_id\": \"bench-0\", \"input_toks\": 2358, \"output_toks\": 531, "
      "\"arrival_time\": 1777142838.5, \"queued_ts\": 479748.5, \"scheduled_ts\": 479748.5, "
      "\"first_token_ts\": 479748.75, \"last_token_ts\": 479764}\n"
      "{\"request_id\": \"bench-1\", \"input_toks\": 1034, \"output_toks\": 769, "
      "\"arrival_time\": 1777142838.75, \"queued_ts\": 479748.625, "
      "\"first_token_ts\": 479749, \"last_token_ts\": 479772}\n"
      "{\"input_toks\": 1, \"output_toks\": 1, \"arrival_time\": 1777142841, "
      "\"queued_ts\": 479751, \"first_token_ts\": 479751.5, \"last_token_ts\": 479751.5}\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.format, "vLLM requests.jsonl");
  EXPECT_THAT(r.trace.columns, ElementsAre("input_toks", "output_toks"));
  // arrival_time is 1.78e9 s from first_token_ts (more than 10^5 s): the
  // arrival is queued_ts, less the first row's 479748.5:
  // 0, 479748.625 - 479748.5 = 0.125, 479751 - 479748.5 = 2.5.
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 0.125, 2.5));
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(2358.0, 531.0));
  EXPECT_THAT(Row(r.trace, 1), ElementsAre(1034.0, 769.0));
  EXPECT_THAT(Row(r.trace, 2), ElementsAre(1.0, 1.0));
}

// One clock for all (an older vLLM): arrival_time, within 10^5 s of both
// token times, is the arrival; queued_ts is not read.
TEST(VllmTraceTest, ArrivalTimeOnTheSameClock) {
  auto r = ReadText(
      "{\"input_toks\": 10, \"output_toks\": 2, \"arrival_time\": 100.5, \"queued_ts\": 101, "
      "\"first_token_ts\": 102, \"last_token_ts\": 103}\n"
      "{\"input_toks\": 20, \"output_toks\": 3, \"arrival_time\": 101.25, \"queued_ts\": 107, "
      "\"first_token_ts\": 108, \"last_token_ts\": 109}\n");
  ASSERT_TRUE(r.ok) << r.error;
  // 101.25 - 100.5 = 0.75 (queued_ts would give 6).
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 0.75));
}

// A request that never got a token (first_token_ts null) says nothing of
// its clock: it takes the file's, decided by the first row with token
// times, even when it comes before that row.
TEST(VllmTraceTest, RowsWithoutTokenTimesTakeTheFilesClock) {
  auto r = ReadText(
      "{\"input_toks\": 5, \"output_toks\": 1, \"arrival_time\": 1700000000, "
      "\"queued_ts\": 100, \"first_token_ts\": null, \"last_token_ts\": null}\n"
      "{\"input_toks\": 6, \"output_toks\": 2, \"arrival_time\": 1700000000.5, "
      "\"queued_ts\": 100.5, \"first_token_ts\": 101, \"last_token_ts\": 102}\n"
      "{\"input_toks\": 7, \"output_toks\": 3, \"arrival_time\": 1700000001, "
      "\"queued_ts\": 101.25}\n");
  ASSERT_TRUE(r.ok) << r.error;
  // queued_ts (row 2 decides: its arrival_time is 1.7e9 s from its token
  // times), less row 1's 100: 0, 0.5, 1.25.
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 0.5, 1.25));
  EXPECT_THAT(r.trace.values, ElementsAre(5.0, 1.0, 6.0, 2.0, 7.0, 3.0));
  // No row with token times: arrival_time, the bench's default.
  auto none = ReadText(
      "{\"input_toks\": 5, \"output_toks\": 1, \"arrival_time\": 7, \"queued_ts\": 100}\n"
      "{\"input_toks\": 5, \"output_toks\": 1, \"arrival_time\": 8.5, \"queued_ts\": 90}\n");
  ASSERT_TRUE(none.ok) << none.error;
  EXPECT_THAT(none.trace.times, ElementsAre(0.0, 1.5));
  // A waiting row's error is at its own line (1), not where the clock was
  // decided (3).
  EXPECT_EQ(ReadText("{\"input_toks\": 5, \"output_toks\": 1, \"arrival_time\": 7}\n"
                     "\n"
                     "{\"input_toks\": 5, \"output_toks\": 1, \"arrival_time\": 1700000000, "
                     "\"queued_ts\": 100, \"first_token_ts\": 101}\n")
                .error,
            "t:1: no queued_ts, the arrival in this file (the field on the clock of the token "
            "times)");
}

// ArrivalClock, each branch of the bench's _bench_arrival_ts.
TEST(VllmTraceTest, ArrivalClockRule) {
  VllmRecord r;
  EXPECT_EQ(ArrivalClock(r), std::nullopt);
  r.arrival_time = 5;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kArrivalTime);  // no queued_ts
  r = VllmRecord();
  r.queued_ts = 5;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kQueuedTs);  // no arrival_time
  // Both, no token times: arrival_time (nothing says it is on another clock).
  r.arrival_time = 1e9;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kArrivalTime);
  // arrival_time within 10^5 s of first_token_ts but not of last_token_ts:
  // not the same clock as both; queued_ts is within 10^5 s of first.
  r = VllmRecord();
  r.arrival_time = 5;
  r.queued_ts = 5.25;
  r.first_token_ts = 6;
  r.last_token_ts = 200000;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kQueuedTs);
  // Neither within 10^5 s of a token time: arrival_time.
  r.queued_ts = 3e5;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kArrivalTime);
  // 10^5 s apart exactly is another clock (the test is strict: < 10^5).
  r = VllmRecord();
  r.arrival_time = 0;
  r.queued_ts = 1e5;
  r.first_token_ts = 1e5;
  r.last_token_ts = 1e5;
  EXPECT_EQ(ArrivalClock(r), VllmClock::kQueuedTs);
}

// A data-parallel run's records are in request order, each engine stamping
// queued_ts as it takes the request: a row may arrive before the one above
// it. The rows are replayed in arrival order, ties in file order; times
// count from the earliest (99.5): 100 - 99.5, 0, 101 - 99.5, 0.5 again.
TEST(VllmTraceTest, RowsAreReplayedInArrivalOrder) {
  auto r = ReadText(
      "{\"input_toks\": 1, \"output_toks\": 1, \"queued_ts\": 100}\n"
      "{\"input_toks\": 2, \"output_toks\": 1, \"queued_ts\": 99.5}\n"
      "{\"input_toks\": 3, \"output_toks\": 1, \"queued_ts\": 101}\n"
      "{\"input_toks\": 4, \"output_toks\": 1, \"queued_ts\": 100}\n");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 0.5, 0.5, 1.5));
  EXPECT_THAT(r.trace.values, ElementsAre(2, 1, 1, 1, 4, 1, 3, 1));
}

TEST(VllmTraceTest, BadRows) {
  const std::string first =
      "{\"input_toks\": 10, \"output_toks\": 1, \"arrival_time\": 1700000000, "
      "\"queued_ts\": 100, \"first_token_ts\": 101, \"last_token_ts\": 102}\n";
  auto bad = [&](const std::string& line) { return ReadText(first + line + "\n").error; };
  // A row whose arrival is on the other clock: its arrival_time is within
  // 10^5 s of its token times, where the first row's was not.
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"arrival_time\": 100, "
                "\"queued_ts\": 100, \"first_token_ts\": 101, \"last_token_ts\": 102}"),
            "t:2: the arrival is arrival_time here but queued_ts in the first row with token "
            "times (the field on the clock of first_token_ts and last_token_ts): the rows mix "
            "two clocks; here arrival_time 100 is 1 s and queued_ts 100 is 1 s from first_token_ts 101");
  // One field off by itself (a queued_ts shifted by 10^7 s): the row has no
  // field on the token times' clock, and the message shows which is off
  // (1700000001 - 102 = 1.7e9 s; 10000101 - 102 = 9999999, 1e7 s).
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"arrival_time\": 1700000001, "
                "\"queued_ts\": 10000101, \"first_token_ts\": 102, \"last_token_ts\": 103}"),
            "t:2: the arrival is arrival_time here but queued_ts in the first row with token "
            "times (the field on the clock of first_token_ts and last_token_ts): the rows mix "
            "two clocks; here arrival_time 1700000001 is 1.7e+09 s and queued_ts 10000101 is 1e+07 s from "
            "first_token_ts 102");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"queued_ts\": -1}"),
            "t:2: queued_ts -1 is negative");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"queued_ts\": \"NaN\"}"),
            "t:2: field 'queued_ts' is not a number (found a string)");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1}"),
            "t:2: no arrival: the row has neither 'queued_ts' nor 'arrival_time'");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"arrival_time\": 1700000001}"),
            "t:2: no queued_ts, the arrival in this file (the field on the clock of the token "
            "times)");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"queued_ts\": null, "
                "\"arrival_time\": null}"),
            "t:2: no arrival: the row has neither 'queued_ts' nor 'arrival_time'");
  EXPECT_EQ(bad("{\"output_toks\": 1, \"queued_ts\": 200}"), "t:2: missing field 'input_toks'");
  EXPECT_EQ(bad("{\"input_toks\": 10.5, \"output_toks\": 1, \"queued_ts\": 200}"),
            "t:2: input_toks 10.5 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": -2, \"queued_ts\": 200}"),
            "t:2: output_toks -2 is not a whole number of tokens from 0 to 1000000000");
  // vLLM makes at least one token a request: a row of 0 is refused at its
  // line (a replay would run a decode of -1 tokens, and fail at the program).
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 0, \"queued_ts\": 200}"),
            "t:2: output_toks 0: a vLLM request makes at least one token");
  // Nor is a request without a prompt (vLLM refuses an empty one).
  EXPECT_EQ(bad("{\"input_toks\": 0, \"output_toks\": 3, \"queued_ts\": 200}"),
            "t:2: input_toks 0: vLLM refuses an empty prompt");
  // A whole number, but no request's (ir/limits.h: kMaxTokens, 10^9).
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1e300, \"queued_ts\": 200}"),
            "t:2: output_toks 1e+300 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("{\"input_toks\": 1000000001, \"output_toks\": 1, \"queued_ts\": 200}"),
            "t:2: input_toks 1000000001 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("{\"input_toks\": 10, \"output_toks\": 1, \"queued_ts\": 200"),
            "t:2: malformed JSON: Unexpected end of string. Expected , or } after key:value pair");
  EXPECT_EQ(bad("[1]"), "t:2: expected a JSON object '{...}' (one request a line)");
  // 32 levels (the object and 31 lists, a bracket in a string not
  // counted) are parsed; 33 are refused before protobuf's parser sees them.
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 1, \"queued_ts\": 200, \"s\": \"[\\\"[\", "
                "\"a\": " + std::string(31, '[') + std::string(31, ']') + "}"),
            "");
  EXPECT_EQ(bad("{\"input_toks\": 1, \"a\": " + std::string(32, '[') + std::string(32, ']') + "}"),
            "t:2: JSON nested more than 32 levels deep");
  EXPECT_EQ(bad(std::string("{\"input_toks\": 1, \"pad\": \"") + std::string(kMaxVllmLine, 'x') +
                "\"}"),
            "t:2: a line of 1048604 bytes: a vLLM record is one request's few hundred, at most "
            "1 MB");
}

// The format is picked by the field input_toks; other JSON objects stay
// Mooncake's; a first line too long to parse is still judged a vLLM record
// when it names input_toks, and refused as too long (not parsed).
TEST(VllmTraceTest, Recognized) {
  EXPECT_TRUE(LooksLikeVllmRecord("{\"input_toks\": 1, \"output_toks\": 1, \"queued_ts\": 0}"));
  EXPECT_FALSE(LooksLikeVllmRecord("{\"timestamp\": 0, \"input_length\": 1}"));
  EXPECT_FALSE(LooksLikeVllmRecord("{\"input_toks\": 1"));  // not JSON: Mooncake's error
  EXPECT_EQ(ReadText("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n")
                .trace.format,
            "Mooncake JSON lines");
  EXPECT_EQ(ReadText("{\"input_toks\": 1\n").error,
            "t:1: malformed JSON: Unexpected end of string. Expected , or } after key:value pair");
  std::string wide = "{\"input_toks\": 1";
  for (int i = 0; i < 200000; ++i) wide += ", \"c\": 1";
  wide += "}\n";
  EXPECT_EQ(ReadText(wide).error,
            "t:1: a line of 1600017 bytes: a vLLM record is one request's few hundred, at most "
            "1 MB");
}

}  // namespace
}  // namespace serq::sim
