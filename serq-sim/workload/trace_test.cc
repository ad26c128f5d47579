// Picking a trace's format by its first non-blank line, and the lines every
// format shares (byte order mark, CRLF, blank lines, line numbers).
#include "serq-sim/workload/trace.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace_testing.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::ReadText;

constexpr char kAccepted[] =
    "expected Mooncake JSON lines (a JSON object '{...}' a line), vLLM requests.jsonl (a JSON "
    "object with a field 'input_toks' a line), Azure LLM inference CSV (a header with a column "
    "'TIMESTAMP'), BLIS TraceV2 (a header with a column 'arrival_time_us') or serq CSV (a "
    "header with a column 'time')";

TEST(TraceFormatTest, PickedByTheFirstNonBlankLine) {
  EXPECT_EQ(ReadText("\n  \n{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 2}\n")
                .trace.format,
            "Mooncake JSON lines");
  EXPECT_EQ(ReadText("TIMESTAMP,ContextTokens,GeneratedTokens\n").trace.format,
            "Azure LLM inference CSV");
  EXPECT_EQ(ReadText("prompt,time\n").trace.format, "serq CSV");
  EXPECT_EQ(ReadText("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 0}\n").trace.format,
            "vLLM requests.jsonl");
  // BLIS's TraceV2 is picked by its data's header; the YAML beside "t"
  // (t.yaml) is missing here, which is its error.
  EXPECT_EQ(ReadText("request_id,arrival_time_us\n").error,
            "t:1: BLIS TraceV2 data needs its header beside it: cannot open 't.yaml': No such "
            "file or directory");
}

TEST(TraceFormatTest, NoneOrBoth) {
  EXPECT_EQ(ReadText("").error, std::string("t: empty trace: ") + kAccepted);
  EXPECT_EQ(ReadText("\n \r\n").error, std::string("t: empty trace: ") + kAccepted);
  // Line 3: the blank lines before it are counted.
  EXPECT_EQ(ReadText("\n\nt,prompt\n0,1\n").error,
            std::string("t:3: not a trace serq reads: ") + kAccepted);
  EXPECT_EQ(ReadText("[{\"timestamp\": 0}]\n").error,
            std::string("t:1: not a trace serq reads: ") + kAccepted);
  EXPECT_EQ(ReadText("time,TIMESTAMP\n").error,
            "t:1: the first line fits both Azure LLM inference CSV (a header with a column "
            "'TIMESTAMP') and serq CSV (a header with a column 'time'): keep one");
  EXPECT_EQ(ReadText("time,arrival_time_us\n").error,
            "t:1: the first line fits both BLIS TraceV2 (a header with a column "
            "'arrival_time_us') and serq CSV (a header with a column 'time'): keep one");
}

// A byte order mark (Excel writes one) and CRLF line ends, in every format.
TEST(TraceFormatTest, ByteOrderMarkAndCrlf) {
  auto csv = ReadText("\xEF\xBB\xBFtime,prompt\r\n0.5,10\r\n\r\n1,20\r\n");
  ASSERT_TRUE(csv.ok) << csv.error;
  EXPECT_THAT(csv.trace.columns, ElementsAre("prompt"));
  EXPECT_THAT(csv.trace.times, ElementsAre(0.5, 1.0));
  EXPECT_THAT(csv.trace.values, ElementsAre(10.0, 20.0));

  auto azure = ReadText(
      "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
      "2023-11-16 18:15:45.0000000,100,5\r\n2023-11-16 18:15:46.0000000,200,6\r\n");
  ASSERT_TRUE(azure.ok) << azure.error;
  EXPECT_THAT(azure.trace.times, ElementsAre(0.0, 1.0));
  EXPECT_THAT(azure.trace.values, ElementsAre(100.0, 5.0, 200.0, 6.0));

  auto mooncake = ReadText(
      "\xEF\xBB\xBF{\"timestamp\": 0, \"input_length\": 7, \"output_length\": 3}\r\n"
      "{\"timestamp\": 1500, \"input_length\": 8, \"output_length\": 4}\r\n");
  ASSERT_TRUE(mooncake.ok) << mooncake.error;
  EXPECT_THAT(mooncake.trace.times, ElementsAre(0.0, 1.5));
  EXPECT_THAT(mooncake.trace.values, ElementsAre(7.0, 3.0, 8.0, 4.0));
}

// A bad row is reported at its line of the file, blank lines counted.
TEST(TraceFormatTest, ErrorsNameTheLine) {
  EXPECT_EQ(ReadText("time,prompt\n\n0,1\n\n\n1,x\n").error,
            "t:6: 'x' in column 'prompt' is not a finite number");
}

TEST(TraceFormatTest, FileThatCannotBeOpened) {
  Trace trace;
  TraceError error;
  EXPECT_FALSE(ReadTrace("/nonexistent/rows.csv", &trace, &error));
  EXPECT_FALSE(error.opened);
  EXPECT_EQ(error.message, "cannot open trace '/nonexistent/rows.csv': No such file or directory");
}

}  // namespace
}  // namespace serq::sim
