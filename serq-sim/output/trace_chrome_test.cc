#include "serq-sim/output/trace_chrome.h"

#include <cmath>
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
// never ended is an async slice (id its serial) closed at the horizon, 2 s.
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
  EXPECT_NE(s.find(R"({"name":"session","cat":"session","ph":"b","ts":1000000,"pid":2,"tid":0,)"
                   R"("id":4,"args":{"serial":4}})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"session","cat":"session","ph":"e","ts":2000000,"pid":2,"tid":0,"id":4})"),
            std::string::npos)
      << s;
  // No thread of its own.
  EXPECT_EQ(s.find("thread_name\",\"ph\":\"M\",\"pid\":2"), std::string::npos) << s;
}

// A preemption is an instant of the victim's session and two counter
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
  EXPECT_NE(s.find(R"({"name":"preempt E","cat":"session","ph":"n","ts":2000000,"pid":2,"tid":0,)"
                   R"("id":0,"args":{"stage":"E","by":1,"pool":"kv","content":5}})"),
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

// A counter changes once an instant: two pool lines at 1 s (a step's
// growths) are one counter event, the last values (used 7).
TEST(ChromeTraceTest, ACounterChangesOnceAnInstant) {
  std::ostringstream out;
  ChromeTrace trace(&out, 10);
  ASSERT_TRUE(trace.Line("{\"replication\":0}").ok());
  ASSERT_TRUE(trace.Line(R"({"t":1,"event":"pool","pool":"kv","used":5,"loaded":5})").ok());
  ASSERT_TRUE(trace.Line(R"({"t":1,"event":"pool","pool":"kv","used":7,"loaded":7})").ok());
  ASSERT_TRUE(trace.Line(R"({"t":2,"event":"pool","pool":"kv","used":3,"loaded":3})").ok());
  trace.Finish();
  const std::string s = out.str();
  EXPECT_EQ(s.find(R"("used":5)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"({"name":"kv","ph":"C","ts":1000000,"pid":3,"tid":0,"args":{"used":7,"loaded":7}})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"kv","ph":"C","ts":2000000,"pid":3,"tid":0,"args":{"used":3,"loaded":3}})"),
            std::string::npos)
      << s;
}

// --trace-window 1.5:3: a step [1, 2) is clipped to [1.5, 2); a step [3.5,
// 4) is left out; a session arrived at 1 with a run from 1.2 shows both
// slices from 1.5 once an event of it is in the window (its observation at
// 2.5), and they end at 3 (the window's end), the run's done at 4 and the
// end at 5 being beyond it; the pool's value set at 1 (used 4) is carried
// to 1.5, then 5 at 2; the one at 3.5 is left out.
TEST(ChromeTraceTest, TheWindowClipsSlicesAndCarriesCounters) {
  std::ostringstream out;
  absl::StatusOr<TraceSelect> window = ParseTraceSelect("1.5:3", "");
  ASSERT_TRUE(window.ok());
  ChromeTrace trace(&out, 10, *window);
  for (const char* line : {
           "{\"replication\":0}",
           R"({"t":1,"event":"arrive","session":0,"workload":"w"})",
           R"({"t":1,"event":"pool","pool":"kv","used":4,"loaded":4})",
           R"({"t":1,"event":"step","stage":"E","seqs":1,"tokens":1,"prefill":0,"decode":1,"context":1,"tau":1})",
           R"({"t":1.2,"event":"run","session":0,"stage":"E","work":3})",
           R"({"t":2,"event":"pool","pool":"kv","used":5,"loaded":5})",
           R"({"t":2.5,"event":"observe","session":0,"name":"x","value":1})",
           R"({"t":3.5,"event":"step","stage":"E","seqs":1,"tokens":1,"prefill":0,"decode":1,"context":1,"tau":0.5})",
           R"({"t":3.5,"event":"pool","pool":"kv","used":6,"loaded":6})",
           R"({"t":4,"event":"done","session":0,"stage":"E"})",
           R"({"t":5,"event":"end","session":0})"}) {
    ASSERT_TRUE(trace.Line(line).ok()) << line;
  }
  trace.Finish();
  const std::string s = out.str();
  EXPECT_NE(s.find(R"({"name":"step","ph":"X","ts":1500000,"dur":500000,)"), std::string::npos) << s;
  EXPECT_EQ(s.find(R"("ts":3500000)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"({"name":"w","cat":"session","ph":"b","ts":1500000,"pid":2,"tid":0,"id":0,)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"E","cat":"session","ph":"b","ts":1500000,"pid":2,"tid":0,"id":0,)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"E","cat":"session","ph":"e","ts":3000000,"pid":2,"tid":0,"id":0})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"w","cat":"session","ph":"e","ts":3000000,"pid":2,"tid":0,"id":0})"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"({"name":"kv","ph":"C","ts":2000000,"pid":3,"tid":0,"args":{"used":5,"loaded":5}})"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find(R"("used":6)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"({"name":"kv","ph":"C","ts":1500000,"pid":3,"tid":0,"args":{"used":4,"loaded":4}})"),
            std::string::npos)
      << s;
}

// --trace-select steps: no session, pool or counter in the document.
TEST(ChromeTraceTest, OnlyTheKindsSelected) {
  std::ostringstream out;
  absl::StatusOr<TraceSelect> steps = ParseTraceSelect("", "steps");
  ASSERT_TRUE(steps.ok());
  ChromeTrace trace(&out, 10, *steps);
  for (const char* line : {
           "{\"replication\":0}",
           R"({"t":1,"event":"arrive","session":0,"workload":"w"})",
           R"({"t":1,"event":"run","session":0,"stage":"E","work":1})",
           R"({"t":1,"event":"pool","pool":"kv","used":4,"loaded":4})",
           R"({"t":1,"event":"step","stage":"E","seqs":1,"tokens":1,"prefill":0,"decode":1,"context":1,"tau":1})"}) {
    ASSERT_TRUE(trace.Line(line).ok()) << line;
  }
  trace.Finish();
  const std::string s = out.str();
  EXPECT_NE(s.find(R"("name":"step")"), std::string::npos) << s;
  EXPECT_EQ(s.find(R"("cat":"session")"), std::string::npos) << s;
  EXPECT_EQ(s.find(R"("ph":"C")"), std::string::npos) << s;
}

TEST(TraceSelectTest, ParsesAndRefuses) {
  absl::StatusOr<TraceSelect> all = ParseTraceSelect("", "");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->everything());
  absl::StatusOr<TraceSelect> open = ParseTraceSelect("10:", "pools,counters");
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->from, 10);
  EXPECT_TRUE(std::isinf(open->to));
  EXPECT_FALSE(open->steps);
  EXPECT_TRUE(open->pools);
  for (const char* bad : {"3:2", "x:2", "-1:2", "1", "1:2:3", "2:2"}) {
    EXPECT_FALSE(ParseTraceSelect(bad, "").ok()) << bad;
  }
  absl::StatusOr<TraceSelect> kind = ParseTraceSelect("", "steps,flows");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(),
            "--trace-select: unknown kind 'flows' (expected steps, sessions, pools or counters)");
}

// The JSON lines, narrowed: steps and pools in [1, 2], the replication's line.
TEST(TraceSelectTest, TheJsonLinesFilter) {
  std::ostringstream out;
  absl::StatusOr<TraceSelect> select = ParseTraceSelect("1:2", "steps,pools");
  ASSERT_TRUE(select.ok());
  TraceFilter filter(&out, *select);
  std::ostream log(&filter);
  log << "{\"replication\":0}\n"
      << R"({"t":0.5,"event":"step","stage":"E","tau":1})" << "\n"
      << R"({"t":1,"event":"step","stage":"E","tau":1})" << "\n"
      << R"({"t":1.5,"event":"pool","pool":"kv","used":1})" << "\n"
      << R"({"t":1.5,"event":"arrive","session":0,"workload":""})" << "\n"
      << R"({"t":2.5,"event":"pool","pool":"kv","used":2})" << "\n";
  log.flush();
  EXPECT_EQ(out.str(),
            "{\"replication\":0}\n"
            R"({"t":1,"event":"step","stage":"E","tau":1})" "\n"
            R"({"t":1.5,"event":"pool","pool":"kv","used":1})" "\n");
}

}  // namespace
}  // namespace serq::sim
