#include "serq-sim/output/trace_chrome.h"

#include <sstream>

#include "gtest/gtest.h"

namespace serq::sim {
namespace {

TEST(ChromeTraceTest, RefusesLinesThatAreNotTheLogs) {
  std::ostringstream out;
  ChromeTrace trace(&out, 10);
  EXPECT_FALSE(trace.Line("not json").ok());
  EXPECT_FALSE(trace.Line(R"({"t":1,"event":"run")").ok());      // unterminated
  EXPECT_FALSE(trace.Line(R"({"t":x,"event":"run"})").ok());     // not a number
  EXPECT_FALSE(trace.Line(R"({"event":"run","session":0})").ok());  // no time
  EXPECT_TRUE(trace.Line(R"({"t":1,"event":"later-version"})").ok());  // left out
}

TEST(ChromeTraceTest, AnEmptyLogIsAnEmptyDocument) {
  std::ostringstream out;
  ChromeTrace trace(&out, 10);
  trace.Finish();
  EXPECT_EQ(out.str(), "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n]}\n");
}

// Through the streambuf, as the engine writes: a step at 0.25 s of 0.5 s
// is a complete slice at 250000 us lasting 500000 us; a session begun and
// never ended is closed at the horizon, 2 s.
TEST(ChromeTraceTest, ConvertsLinesAsTheyAreWritten) {
  std::ostringstream out;
  ChromeTrace trace(&out, 2);
  ChromeTrace::LineBuffer buffer(&trace);
  std::ostream log(&buffer);
  log << "{\"replication\":0}\n"
      << R"({"t":0.25,"event":"step","stage":"E","seqs":2,"tokens":9,"prefill":8,"decode":1,"context":12,"tau":0.5})"
      << "\n"
      << R"({"t":1,"event":"arrive","session":4,"workload":""})" << "\n";
  log.flush();
  ASSERT_TRUE(buffer.status().ok()) << buffer.status();
  trace.Finish();
  const std::string s = out.str();
  EXPECT_NE(s.find(R"({"name":"step","ph":"X","ts":250000,"dur":500000,"pid":1,"tid":1,)"
                   R"("args":{"seqs":2,"tokens":9,"prefill":8,"decode":1,"context":12,"tau":0.5}})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"session","ph":"B","ts":1000000,"pid":2,"tid":5})"), std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"session","ph":"E","ts":2000000,"pid":2,"tid":5})"), std::string::npos)
      << s;
}

// A preemption is an instant on the victim's thread and two counter
// tracks of its stage, cumulative over the replication: preemptions (1,
// then 2) and the content to recompute (5 tokens, then 5 + 3 = 8).
TEST(ChromeTraceTest, PreemptionsAreInstantsAndCounters) {
  std::ostringstream out;
  ChromeTrace trace(&out, 10);
  ASSERT_TRUE(trace.Line("{\"replication\":0}").ok());
  ASSERT_TRUE(trace.Line(R"({"t":2,"event":"preempt","stage":"E","session":0,"by":1,"pool":"kv","content":5})").ok());
  ASSERT_TRUE(trace.Line(R"({"t":3,"event":"preempt","stage":"E","session":2,"by":1,"pool":"kv","content":3})").ok());
  trace.Finish();
  const std::string s = out.str();
  EXPECT_NE(s.find(R"({"name":"preempt E","ph":"i","s":"t","ts":2000000,"pid":2,"tid":1,)"
                   R"("args":{"stage":"E","by":1,"pool":"kv","content":5}})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"E preemptions","ph":"C","ts":3000000,"pid":1,"tid":0,"args":{"preempted":2}})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"E recomputed","ph":"C","ts":3000000,"pid":1,"tid":0,"args":{"content":8}})"),
            std::string::npos)
      << s;
}

TEST(ChromeTraceTest, TheBufferKeepsTheFirstError) {
  std::ostringstream out;
  ChromeTrace trace(&out, 2);
  ChromeTrace::LineBuffer buffer(&trace);
  std::ostream log(&buffer);
  log << "oops\n" << R"({"t":1,"event":"end","session":0})" << "\n";
  EXPECT_FALSE(buffer.status().ok());
  EXPECT_NE(std::string(buffer.status().message()).find("oops"), std::string::npos);
}

}  // namespace
}  // namespace serq::sim
