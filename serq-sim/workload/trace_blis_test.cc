// BLIS's TraceV2: the YAML header's strict reader, the CSV's rows (times as
// BLIS replays them, the variables), and the two files through ReadTrace.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_blis.h"
#include "serq-sim/workload/trace_testing.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::Row;

// The header's error as "LINE: message", or "" when it reads.
std::string HeaderError(const std::string& text, BlisTraceHeader* header = nullptr) {
  BlisTraceHeader h;
  int line = -1;
  absl::Status s = ParseBlisTraceHeader(text, &h, &line);
  if (header != nullptr) *header = h;
  return s.ok() ? "" : absl::StrCat(line, ": ", s.message());
}

TEST(BlisHeaderTest, AsBlisWritesIt) {
  // w1.trace.yaml, byte for byte.
  BlisTraceHeader h;
  EXPECT_EQ(HeaderError("trace_version: 3\ntime_unit: microseconds\nmode: generated\n"
                        "warm_up_requests: 0\nworkload_seed: 42\n",
                        &h),
            "");
  EXPECT_EQ(h.version, 3);
  EXPECT_EQ(h.time_unit, "microseconds");
  EXPECT_EQ(h.mode, "generated");
  EXPECT_EQ(h.warm_up_requests, 0);
  // blis observe's: "us", a created_at, blocks (skipped), comments, a
  // document start, quotes, CRLF.
  EXPECT_EQ(HeaderError("---\r\n# observed\r\ntrace_version: 2\r\ntime_unit: \"us\"  # unit\r\n"
                        "created_at: '2026-04-25T18:47:18Z'\r\nmode: real\r\n"
                        "warm_up_requests: 5\r\nworkload_spec: preset:chatbot\r\n"
                        "server:\r\n    type: vllm\r\n    max_num_seqs: 256\r\n"
                        "network: {}\r\ngoodput_slo_targets:\r\n- x\r\n",
                        &h),
            "");
  EXPECT_EQ(h.version, 2);
  EXPECT_EQ(h.time_unit, "us");
  EXPECT_EQ(h.mode, "real");
  EXPECT_EQ(h.warm_up_requests, 5);
}

TEST(BlisHeaderTest, Refused) {
  const std::string ok = "trace_version: 3\ntime_unit: microseconds\n";
  EXPECT_EQ(HeaderError("trace_version: 3\n"), "0: the header has no time_unit");
  EXPECT_EQ(HeaderError("time_unit: us\n"), "0: the header has no trace_version");
  EXPECT_EQ(HeaderError(""), "0: the header has no trace_version");
  EXPECT_EQ(HeaderError("trace_version: 4\ntime_unit: us\n"),
            "1: trace_version 4: serq reads TraceV2 versions 2 and 3");
  EXPECT_EQ(HeaderError("trace_version: \"3\"\n"), "1: trace_version '3' is not a whole number");
  EXPECT_EQ(HeaderError("trace_version: 3.0\n"), "1: trace_version '3.0' is not a whole number");
  EXPECT_EQ(HeaderError("trace_version: 3\ntime_unit: ms\n"),
            "2: time_unit 'ms': the TraceV2 columns are in microseconds (time_unit "
            "microseconds, or us)");
  EXPECT_EQ(HeaderError(ok + "speed: 3\n").substr(0, 27), "3: unknown field 'speed' (B");
  EXPECT_EQ(HeaderError(ok + "trace_version: 2\n"),
            "3: 'trace_version' appears twice (first on line 1)");
  EXPECT_EQ(HeaderError(ok + "server:\n\ttype: vllm\n"),
            "4: a tab in the indentation (YAML allows spaces only)");
  EXPECT_EQ(HeaderError(ok + "  mode: real\n").substr(0, 35),
            "3: an indented line outside a block");
  EXPECT_EQ(HeaderError(ok + "---\nmode: real\n"),
            "3: a second YAML document ('---'): a TraceV2 header is one");
  EXPECT_EQ(HeaderError(ok + "...\n"),
            "3: '...' (the end of a YAML document): a TraceV2 header is one");
  EXPECT_EQ(HeaderError(ok + "mode\n"), "3: expected 'key: value' (a field of the TraceV2 header)");
  EXPECT_EQ(HeaderError(ok + "mode:real\n"),
            "3: expected 'key: value' (a field of the TraceV2 header)");
  EXPECT_EQ(HeaderError(ok + "mode: &a real\n"),
            "3: mode: '&a real' is a YAML anchor, alias, tag, block scalar or flow collection "
            "(serq reads plain and quoted values only)");
  EXPECT_EQ(HeaderError("trace_version: 3\ntime_unit: *u\n").substr(0, 24),
            "2: time_unit: '*u' is a ");
  EXPECT_EQ(HeaderError(ok + "mode: |\n  real\n").substr(0, 20), "3: mode: '|' is a YA");
  EXPECT_EQ(HeaderError(ok + "mode: [real]\n").substr(0, 23), "3: mode: '[real]' is a ");
  EXPECT_EQ(HeaderError(ok + "mode: \"re\\al\"\n"),
            "3: mode: an escape or a quote inside double quotes (serq reads quoted values "
            "without escapes)");
  EXPECT_EQ(HeaderError(ok + "mode: 'real\n"),
            "3: mode: a quoted value must end with its quote on the same line");
  EXPECT_EQ(HeaderError(ok + "mode: a: b\n"),
            "3: mode: a value with ': ' in it (a mapping inside a value is not read)");
  EXPECT_EQ(HeaderError(ok + "warm_up_requests: -1\n"),
            "3: warm_up_requests '-1' is not a whole number >= 0");
  EXPECT_EQ(HeaderError(ok + "workload_seed: x\n"), "3: workload_seed 'x' is not a whole number");
  EXPECT_EQ(HeaderError(std::string(kMaxBlisHeader + 1, '#')),
            "0: a header of 1048577 bytes: a TraceV2 header is a few lines, at most 1 MB");
}

TEST(BlisHeaderTest, Path) {
  EXPECT_EQ(BlisHeaderPath("data/w1.trace.csv"), "data/w1.trace.yaml");
  EXPECT_EQ(BlisHeaderPath("w1"), "w1.yaml");
}

struct DataRead {
  bool ok = false;
  Trace trace;
  std::string error;  // "LINE: message"
};

DataRead ReadData(const std::string& text) {
  DataRead r;
  std::istringstream in(text);
  TraceLines lines(&in);
  absl::string_view first;
  if (!lines.NextNonBlank(&first)) return r;
  absl::Status s = ReadBlisTraceData(first, &lines, &r.trace);
  r.ok = s.ok();
  if (!s.ok()) r.error = absl::StrCat(lines.number(), ": ", s.message());
  return r;
}

// The columns serq reads, in BLIS's order, and the others left alone.
constexpr char kHeader[] =
    "request_id,client_id,session_id,round_index,prefix_group,prefix_length,streaming,"
    "input_tokens,output_tokens,arrival_time_us,send_time_us,status,error_message\n";

TEST(BlisTraceTest, TimesAndVariables) {
  auto r = ReadData(std::string(kHeader) +
                    "0,c0,,0,,0,false,512,128,50609,50609,ok,\n"
                    "1,c0,s-a,1,\"grp,1\",16,true,100,10,318741,318741,ok,\"said \"\"no\"\"\"\n"
                    "2,c1,s-a,2,grp2,0,true,7,1,318741,0,error,x\n"
                    "3,c1,s-b,0,\"grp,1\",16,true,8,2,400000,500000,ok,\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.trace.columns, ElementsAre("input_tokens", "output_tokens", "prefix_group",
                                           "prefix_length", "session_id", "round_index"));
  // At send_time_us when > 0, else arrival_time_us (row 2), less the first
  // row's 50609: 0, 268132 us, 268132 us, 449391 us (row 3 by its send).
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 0.268132, 0.268132, 0.449391));
  // prefix_group and session_id: 0 for none, then 1, 2, ... by first
  // appearance ("grp,1" is 1 both times; "grp2" 2; "s-a" 1, "s-b" 2).
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(512.0, 128.0, 0.0, 0.0, 0.0, 0.0));
  EXPECT_THAT(Row(r.trace, 1), ElementsAre(100.0, 10.0, 1.0, 16.0, 1.0, 1.0));
  EXPECT_THAT(Row(r.trace, 2), ElementsAre(7.0, 1.0, 2.0, 0.0, 1.0, 2.0));
  EXPECT_THAT(Row(r.trace, 3), ElementsAre(8.0, 2.0, 1.0, 16.0, 2.0, 0.0));
}

TEST(BlisTraceTest, BadRows) {
  const std::string head = std::string(kHeader) + "0,c0,,0,,0,false,512,128,1000,1000,ok,\n";
  auto bad = [&](const std::string& row) { return ReadData(head + row + "\n").error; };
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,999,999,ok,"),
            "3: send_time_us 999 is before the previous row's 1000 (rows must be in time order)");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,-5,0,ok,"), "3: arrival_time_us -5 is negative");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,-1,ok,"), "3: send_time_us -1 is negative");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,1.5,0,ok,"),
            "3: '1.5' in column 'arrival_time_us' is not a whole number");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,NaN,0,ok,"),
            "3: 'NaN' in column 'arrival_time_us' is not a whole number");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,99999999999999999999,0,ok,"),
            "3: '99999999999999999999' in column 'arrival_time_us' is not a whole number");
  EXPECT_EQ(bad("1,c0,,0,,0,false,-512,128,2000,0,ok,"), "3: input_tokens -512 is negative");
  // A whole number, but no request's: at most 10^9 tokens (ir/limits.h).
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,1000000001,2000,0,ok,"),
            "3: output_tokens 1000000001 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("1,c0,,0,,0,false, 512,128,2000,0,ok,"),
            "3: ' 512' in column 'input_tokens' is not a whole number");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,0,ok"), "3: expected 13 fields, found 12");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,0,ok,,"), "3: expected 13 fields, found more");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,0,ok,\"a"),
            "3: field 13: a quoted field runs to the end of the line (a record on several lines "
            "is not read)");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,0,ok,\"a\"b"),
            "3: field 13: a quoted field must end at a comma");
  EXPECT_EQ(bad("1,c0,,0,,0,false,512,128,2000,0,ok,a\"b"),
            "3: field 13: a '\"' inside an unquoted field");
  // blis observe: send_time_us on the Unix clock, arrival_time_us from the
  // run's start. A row with send_time_us 0 would fall back to the other.
  EXPECT_EQ(ReadData(std::string(kHeader) +
                     "0,c0,,0,,0,false,5,1,0,1777142838000000,ok,\n"
                     "1,c0,,0,,0,false,5,1,1000,0,ok,\n")
                .error,
            "3: the rows mix two clocks: some have send_time_us on another clock than "
            "arrival_time_us (more than 10^5 s apart), and some have send_time_us 0, which "
            "falls back to arrival_time_us");
  // All on the Unix clock: seconds from the first send.
  auto unix = ReadData(std::string(kHeader) +
                       "0,c0,,0,,0,false,5,1,0,1777142838000000,ok,\n"
                       "1,c0,,0,,0,false,5,1,1000,1777142838250000,ok,\n");
  ASSERT_TRUE(unix.ok) << unix.error;
  EXPECT_THAT(unix.trace.times, ElementsAre(0.0, 0.25));
}

TEST(BlisTraceTest, BadHeaders) {
  EXPECT_EQ(ReadData("request_id,arrival_time_us,send_time_us,input_tokens,output_tokens\n").error,
            "1: the header has no column 'prefix_group'");
  EXPECT_EQ(ReadData("arrival_time_us,arrival_time_us\n").error,
            "1: column 'arrival_time_us' appears twice in the header");
  EXPECT_EQ(ReadData("arrival_time_us,,x\n").error, "1: column 2 of the header has no name");
  std::string wide = "arrival_time_us";
  for (int i = 0; i < 2000; ++i) wide += absl::StrCat(",c", i);
  EXPECT_EQ(ReadData(wide + "\n").error,
            "1: a header of more than 1000 columns (TraceV2 has 27 to 32)");
}

// The two files through ReadTrace, from the directory of the test.
class BlisFilesTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = absl::StrCat(::testing::TempDir(), "/", name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

TEST_F(BlisFilesTest, ReadTrace) {
  std::string data = Write("ok.trace.csv", std::string(kHeader) +
                                               "0,c0,,0,,0,false,512,128,50609,50609,ok,\n");
  Write("ok.trace.yaml", "trace_version: 3\ntime_unit: microseconds\n");
  Trace trace;
  TraceError error;
  ASSERT_TRUE(ReadTrace(data, &trace, &error)) << error.message;
  EXPECT_EQ(trace.format, "BLIS TraceV2");
  EXPECT_THAT(trace.times, ElementsAre(0.0));
}

TEST_F(BlisFilesTest, HeaderErrorsAreTheHeaders) {
  std::string data = Write("bad.trace.csv", kHeader);
  std::string header = Write("bad.trace.yaml", "trace_version: 3\ntime_unit: s\n");
  Trace trace;
  TraceError error;
  ASSERT_FALSE(ReadTrace(data, &trace, &error));
  EXPECT_TRUE(error.opened);
  EXPECT_EQ(error.file, header);
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.message,
            "time_unit 's': the TraceV2 columns are in microseconds (time_unit microseconds, or "
            "us)");
  // No header beside the data: an error of the data, at its first line.
  std::string lone = Write("lone.csv", kHeader);
  ASSERT_FALSE(ReadTrace(lone, &trace, &error));
  EXPECT_EQ(error.file, "");
  EXPECT_EQ(error.line, 1);
  EXPECT_EQ(error.message,
            absl::StrCat("BLIS TraceV2 data needs its header beside it: cannot open '",
                         BlisHeaderPath(lone), "': No such file or directory"));
}

}  // namespace
}  // namespace serq::sim
