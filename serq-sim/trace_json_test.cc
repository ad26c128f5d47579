// Every --trace number is valid JSON: non-finite values as protobuf's JSON
// mapping writes them (the strings "Infinity", "-Infinity"), finite ones in
// the shortest exact form; checked by protobuf's strict JSON parser, in
// the JSON lines and in the chrome trace made from them.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// `inf` is the language's infinity (1 / 0 is a runtime error, docs/
// language.md §4): one session at t = 0 observes inf, -inf and 0.1, and
// holds 2 units of kv, kept after as a lease of inf (until released).
constexpr char kProgram[] = R"(
pool kv { cap 4; }
workload { arrive periodic(1); }
session { observe x = inf; observe y = -inf; observe z = 0.1; hold kv (2) { } lease kv (inf); }
run { horizon 0.5; }
)";

google::protobuf::Struct ParseJson(const std::string& text) {
  google::protobuf::Struct s;
  auto st = google::protobuf::util::JsonStringToMessage(text, &s);
  EXPECT_TRUE(st.ok()) << st << " in: " << text;
  return s;
}

TEST(TraceJson, InfiniteObservationsAreStrings) {
  SimOptions options;
  options.trace_path = TempPath("inf.trace");
  SimRun run = RunSource(kProgram, options);
  ASSERT_TRUE(run.ok) << run.errors;
  std::string trace = ReadAll(options.trace_path);
  EXPECT_THAT(trace, HasSubstr(R"({"t":0,"event":"observe","session":0,"name":"x","value":"Infinity"})"));
  EXPECT_THAT(trace, HasSubstr(R"({"t":0,"event":"observe","session":0,"name":"y","value":"-Infinity"})"));
  // The shortest exact form: %.17g would write 0.10000000000000001.
  EXPECT_THAT(trace, HasSubstr(R"({"t":0,"event":"observe","session":0,"name":"z","value":0.1})"));
  EXPECT_THAT(trace, Not(HasSubstr("inf,")));
  EXPECT_THAT(trace, Not(HasSubstr("inf}")));
  EXPECT_THAT(trace, Not(HasSubstr("nan")));
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(trace, '\n', absl::SkipEmpty())) {
    ParseJson(std::string(line));
    ++lines;
  }
  EXPECT_GE(lines, 5);  // replication, arrive, 3 observes, lease, ...
}

TEST(TraceJson, TheChromeTraceOfThemIsJson) {
  SimOptions options;
  options.trace_path = TempPath("inf.chrome.json");
  options.trace_format = "chrome";
  SimRun run = RunSource(kProgram, options);
  ASSERT_TRUE(run.ok) << run.errors;
  std::string trace = ReadAll(options.trace_path);
  google::protobuf::Struct doc = ParseJson(trace);
  const google::protobuf::ListValue& events = doc.fields().at("traceEvents").list_value();
  int seen = 0;
  for (const google::protobuf::Value& e : events.values()) {
    const auto& f = e.struct_value().fields();
    if (f.at("name").string_value() != "x" && f.at("name").string_value() != "y") continue;
    // An observe is an instant event with its value in args.
    const google::protobuf::Value& v = f.at("args").struct_value().fields().at("value");
    EXPECT_EQ(v.string_value(), f.at("name").string_value() == "x" ? "Infinity" : "-Infinity");
    ++seen;
  }
  EXPECT_EQ(seen, 2);
}

// A window that starts after the horizon (0.5 s here) would trace nothing:
// refused, naming both; one that starts before it traces.
TEST(TraceJson, AWindowPastTheHorizonIsRefused) {
  SimOptions options;
  options.trace_path = TempPath("late.trace");
  options.trace_window = "2:3";
  SimRun run = RunSource(kProgram, options);
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("--trace-window starts at 2 s, after the run's horizon (0.5 s)"));
  options.trace_window = "0.25:3";
  run = RunSource(kProgram, options);
  EXPECT_TRUE(run.ok) << run.errors;
}

}  // namespace
}  // namespace serq::testing
