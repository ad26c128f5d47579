// serq compare's pieces alone: the readers of measured runs from strings
// (exact figures, every refusal), serq results as a run, the figures, the
// errors and the comparison's checks. Expected values are derived in the
// comments.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "serq/measured/compare.h"
#include "serq/measured/compare_render.h"
#include "serq/measured/measured.h"
#include "stats/sketch.h"

namespace serq::compare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Distribution& Get(const Run& run, Metric m) { return *run.metrics[static_cast<int>(m)]; }

std::string Error(const absl::StatusOr<Run>& run) {
  return run.ok() ? "" : std::string(run.status().message());
}

// vLLM 0.19.0's clocks: arrival_time on the Unix clock, the rest on the
// engine's; values a double holds exactly.
TEST(VllmRequestsTest, Figures) {
  auto run = ParseVllmRequests(
      "{\"request_id\": \"a\", \"input_toks\": 10, \"output_toks\": 5, \"arrival_time\": 1.7e9, "
      "\"queued_ts\": 100, \"scheduled_ts\": 100.1, \"first_token_ts\": 100.5, "
      "\"last_token_ts\": 101.5}\n"
      "\n"
      "{\"request_id\": \"b\", \"input_toks\": 20, \"output_toks\": 1, \"arrival_time\": 1.7e9, "
      "\"queued_ts\": 99, \"first_token_ts\": 99.25, \"last_token_ts\": 99.25}\n",
      "r.jsonl");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->source, "vLLM requests.jsonl");
  ASSERT_EQ(run->requests.size(), 2u);
  // a: TTFT 100.5 - 100 = 0.5, TPOT (101.5 - 100.5) / (5 - 1) = 0.25,
  // E2E 1.5; arrivals from the earliest (b's 99): a at 1, b at 0.
  const MeasuredRequest& a = run->requests[0];
  EXPECT_EQ(a.ttft, 0.5);
  EXPECT_EQ(a.tpot, 0.25);
  EXPECT_EQ(a.e2e, 1.5);
  EXPECT_EQ(a.arrival, 1.0);
  EXPECT_EQ(a.input_tokens, 10.0);
  EXPECT_EQ(a.output_tokens, 5.0);
  EXPECT_TRUE(std::isnan(a.itl_mean));
  // b: one output token, so no TPOT (and none in the distribution).
  const MeasuredRequest& b = run->requests[1];
  EXPECT_EQ(b.ttft, 0.25);
  EXPECT_TRUE(std::isnan(b.tpot));
  EXPECT_EQ(b.e2e, 0.25);
  EXPECT_EQ(b.arrival, 0.0);
  EXPECT_THAT(Get(*run, Metric::kTtft).samples, ElementsAre(0.5, 0.25));
  EXPECT_EQ(Get(*run, Metric::kTtft).mean, 0.375);
  EXPECT_THAT(Get(*run, Metric::kTpot).samples, ElementsAre(0.25));
  EXPECT_THAT(Get(*run, Metric::kE2e).samples, ElementsAre(1.5, 0.25));
  EXPECT_FALSE(run->metrics[static_cast<int>(Metric::kItl)].has_value());
  EXPECT_TRUE(run->notes.empty());
}

TEST(VllmRequestsTest, SkippedRowsAndRefusals) {
  const std::string good =
      "{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 5, \"first_token_ts\": 6, "
      "\"last_token_ts\": 7}\n";
  auto skipped = ParseVllmRequests(
      good + "{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 8, \"first_token_ts\": 9}\n",
      "r");
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->requests.size(), 1u);
  EXPECT_THAT(skipped->notes, ElementsAre("1 row without first_token_ts or last_token_ts skipped "
                                          "(as LLMServingSim's bench skips them)"));
  auto bad = [&](const std::string& line) { return Error(ParseVllmRequests(good + line, "r")); };
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 5, \"first_token_ts\": 4, "
                "\"last_token_ts\": 7}"),
            "r:2: error: first_token_ts 4 is before the arrival, queued_ts 5");
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 5, \"first_token_ts\": 6, "
                "\"last_token_ts\": 5.5}"),
            "r:2: error: last_token_ts 5.5 is before first_token_ts 6");
  // arrival_time on the token times' clock here, queued_ts in row 1.
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 2, \"arrival_time\": 5, \"queued_ts\": 5, "
                "\"first_token_ts\": 6, \"last_token_ts\": 7}"),
            "r:2: error: the arrival is arrival_time here but queued_ts in the first row with "
            "token times (the field on the clock of first_token_ts and last_token_ts): the rows "
            "mix two clocks; here arrival_time 5 is 1 s and queued_ts 5 is 1 s from first_token_ts 6");
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": -5}"),
            "r:2: error: queued_ts -5 is negative");
  // 1e300 tokens was read, and its TPOT, (7 - 6) / (1e300 - 1) = 1e-300 s,
  // moved the run's mean TPOT from 1 to 0.5: a count is at most 10^9.
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 1e300, \"queued_ts\": 5, "
                "\"first_token_ts\": 6, \"last_token_ts\": 7}"),
            "r:2: error: output_toks 1e+300 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("not json"), "r:2: error: expected a JSON object '{...}' (one request a line)");
  // A last token 1.7e308 s after the arrival: the run's mean E2E was inf.
  EXPECT_EQ(bad("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": 5, \"first_token_ts\": 6, "
                "\"last_token_ts\": 1.7e308}"),
            "r:2: error: last_token_ts 1.7e+308 is, after the arrival, 1.7e+308 s, past the simulated clock's "
            "range (2^63 ns, 9223372036.854776 s): no simulated figure compares with it");
  EXPECT_EQ(Error(ParseVllmRequests("", "r")), "r: error: no usable row: the file has no request");
  EXPECT_EQ(Error(ParseVllmRequests("\n\n", "r")),
            "r: error: no usable row: the file has no request");
}

TEST(BlisResultsTest, Figures) {
  // Pretty-printed as BLIS writes it, with a field holding brackets, a
  // quote and a comma in a string, and an object inside an element.
  auto run = ParseBlisResults(
      "[\n"
      "  {\n"
      "    \"request_id\": 0,\n"
      "    \"ttft_us\": 1500,\n"
      "    \"e2e_us\": 9500,\n"
      "    \"input_tokens\": 512,\n"
      "    \"output_tokens\": 5,\n"
      "    \"itl_mean_us\": 1999.5,\n"
      "    \"model\": \"a]b\\\"},c\",\n"
      "    \"extra\": {\"x\": [1, {\"y\": 2}]}\n"
      "  },\n"
      "  {\"request_id\": 1, \"ttft_us\": 250, \"e2e_us\": 250, \"input_tokens\": 7, "
      "\"output_tokens\": 1}\n"
      "]\n",
      "b.json");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->source, "BLIS results.json");
  ASSERT_EQ(run->requests.size(), 2u);
  // TTFT 1500 us = 0.0015 s (one division, the double nearest); E2E
  // 0.0095; TPOT (9500 - 1500) / (5 - 1) = 2000 us; itl_mean_us kept.
  EXPECT_EQ(run->requests[0].ttft, 1500 / 1e6);
  EXPECT_EQ(run->requests[0].e2e, 9500 / 1e6);
  EXPECT_EQ(run->requests[0].tpot, 2000 / 1e6);
  EXPECT_EQ(run->requests[0].itl_mean, 1999.5 / 1e6);
  EXPECT_TRUE(std::isnan(run->requests[0].arrival));
  EXPECT_TRUE(std::isnan(run->requests[1].tpot));
  EXPECT_TRUE(std::isnan(run->requests[1].itl_mean));
  EXPECT_THAT(Get(*run, Metric::kTtft).samples, ElementsAre(1500 / 1e6, 250 / 1e6));
  EXPECT_THAT(Get(*run, Metric::kTpot).samples, ElementsAre(2000 / 1e6));
  EXPECT_THAT(run->notes, ElementsAre(HasSubstr("itl_mean_us")));
}

TEST(BlisResultsTest, Refusals) {
  const std::string one =
      "{\"request_id\": 0, \"ttft_us\": 1, \"e2e_us\": 2, \"input_tokens\": 1, "
      "\"output_tokens\": 1}";
  auto bad = [](const std::string& text) { return Error(ParseBlisResults(text, "b")); };
  EXPECT_EQ(bad("[]"), "b: error: no usable row: the array is empty");
  EXPECT_EQ(bad(" \n"), "b:2: error: expected a JSON array '[...]' of results");
  EXPECT_EQ(bad("{}"), "b:1: error: expected a JSON array '[...]' of results");
  EXPECT_EQ(bad("[" + one + ",\n]"), "b:2: error: element 1: expected a JSON object '{...}'");
  EXPECT_EQ(bad("[" + one + "] x"), "b:1: error: text after the array's end");
  EXPECT_EQ(bad("[" + one + " " + one + "]"), "b:1: error: expected ',' or ']' after element 0");
  EXPECT_EQ(bad("[" + one), "b:1: error: the array ends without ']'");
  EXPECT_EQ(bad("[{\"request_id\": 0, \"ttft_us\": 1, \"e2e_us\": 1e308, \"input_tokens\": 1, "
                "\"output_tokens\": 1}]"),
            "b:1: error: element 0: e2e_us 1e+308 is 1e+302 s, past the simulated clock's range (2^63 ns, "
            "9223372036.854776 s): no simulated figure compares with it");
  EXPECT_EQ(bad("[{\"a\": \"x]"), "b:1: error: a string runs to the end of the file");
  EXPECT_EQ(bad("[{\"a\": [1}"), "b:1: error: the array ends inside an element");
  EXPECT_EQ(bad("[1]"), "b:1: error: element 0: expected a JSON object '{...}'");
  EXPECT_EQ(bad("[{\"ttft_us\": 1}]"), "b:1: error: element 0: missing field 'e2e_us'");
  EXPECT_EQ(bad("[{\"ttft_us\": \"1\", \"e2e_us\": 2}]"),
            "b:1: error: element 0: field 'ttft_us' is not a number (found a string)");
  EXPECT_EQ(bad("[{\"ttft_us\": -1, \"e2e_us\": 2}]"), "b:1: error: element 0: ttft_us -1 is negative");
  EXPECT_EQ(bad("[{\"ttft_us\": 3, \"e2e_us\": 2, \"input_tokens\": 1, \"output_tokens\": 1}]"),
            "b:1: error: element 0: e2e_us 2 is less than ttft_us 3");
  EXPECT_EQ(bad("[{\"ttft_us\": 1, \"e2e_us\": 2, \"input_tokens\": 1, \"output_tokens\": 1.5}]"),
            "b:1: error: element 0: output_tokens 1.5 is not a whole number of tokens from 0 to "
            "1000000000");
  EXPECT_EQ(bad("[{\"ttft_us\": 1, \"e2e_us\": 2, \"input_tokens\": 1e300, \"output_tokens\": 1}]"),
            "b:1: error: element 0: input_tokens 1e+300 is not a whole number of tokens from 0 "
            "to 1000000000");
  EXPECT_EQ(bad("[{\"ttft_us\": 1, \"ttft_us\": 2}]"),
            "b:1: error: element 0: malformed JSON: (fields[0]) ttft_us: Repeated map key: "
            "'ttft_us' is already set");
  EXPECT_EQ(bad("[{\"ttft_us\": 1,, }]"),
            "b:1: error: element 0: malformed JSON: Expected an object key or }");
  // Nesting: 32 levels are read (and refused as not a result), 33 not.
  EXPECT_EQ(bad("[{\"a\": " + std::string(31, '[') + std::string(31, ']') + "}]"),
            "b:1: error: element 0: missing field 'ttft_us'");
  EXPECT_EQ(bad("[{\"a\": " + std::string(32, '[') + std::string(32, ']') + "}]"),
            "b:1: error: element 0 is nested more than 32 levels deep (a result is flat)");
  EXPECT_EQ(bad("[{\"pad\": \"" + std::string(1 << 20, 'x') + "\"}]"),
            "b:1: error: element 0 is longer than 1 MB (a result is a handful of fields)");
}

// Results of one program, built here: ttft kept in both replications,
// tpot summarised (a sketch) in one and empty in the other, e2e under another name.
results::Results TwoReplications() {
  results::Results r;
  r.set_version(kIrVersion);
  r.set_mark("serq results");
  r.set_horizon(10);
  for (int i = 0; i < 2; ++i) {
    results::Replication* rep = r.add_replication();
    rep->set_index(i);
    rep->set_seed(100 + i);  // a stream of its own
    results::Observation* ttft = rep->add_observation();
    ttft->set_name("ttft");
    ttft->add_sample(i + 1.0);
    ttft->add_sample(i + 2.0);
    results::Observation* latency = rep->add_observation();
    latency->set_name("latency");
    latency->add_sample(10.0 * (i + 1));
  }
  // Replication 0's tpot has no sample (every replication writes every
  // observation); replication 1's, a summary of 3 samples 1, 2, 3 (mean 2,
  // m2 2).
  r.mutable_replication(0)->add_observation()->set_name("tpot");
  results::Observation* tpot = r.mutable_replication(1)->add_observation();
  tpot->set_name("tpot");
  tpot->set_count(3);
  tpot->set_mean(2);
  tpot->set_m2(2);
  tpot->set_sum(6);
  report::QuantileSketch sketch;
  for (double x : {1.0, 2.0, 3.0}) sketch.Add(x);
  sketch.WriteTo(tpot->mutable_sketch());
  return r;
}

TEST(ResultsRunTest, ObservationsPooled) {
  MetricNames names;
  ASSERT_TRUE(ParseMetricNames("e2e=latency", &names).ok());
  auto run = RunFromResults({TwoReplications()}, {"r.json"}, names);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->source, "serq results");
  EXPECT_EQ(run->replications, 2u);
  EXPECT_TRUE(run->requests.empty());
  // ttft: 1, 2 and 2, 3 pooled: mean 2.
  EXPECT_THAT(Get(*run, Metric::kTtft).samples, ElementsAre(1.0, 2.0, 2.0, 3.0));
  EXPECT_EQ(Get(*run, Metric::kTtft).mean, 2.0);
  EXPECT_EQ(Get(*run, Metric::kE2e).count, 2u);
  EXPECT_EQ(Get(*run, Metric::kE2e).mean, 15.0);
  // tpot: the summary's moments and its sketch.
  EXPECT_EQ(Get(*run, Metric::kTpot).count, 3u);
  EXPECT_EQ(Get(*run, Metric::kTpot).mean, 2.0);
  ASSERT_TRUE(Get(*run, Metric::kTpot).sketch.has_value());
  EXPECT_TRUE(Get(*run, Metric::kTpot).samples.empty());
  EXPECT_FALSE(run->metrics[static_cast<int>(Metric::kItl)].has_value());
  EXPECT_EQ(run->observations[static_cast<int>(Metric::kE2e)], "latency");
}

TEST(ResultsRunTest, MissingMetrics) {
  EXPECT_EQ(Error(RunFromResults({TwoReplications()}, {"r.json"}, MetricNames())),
            "r.json: error: no observation 'e2e' for e2e (--names e2e=NAME names the observation "
            "that holds it)");
  MetricNames names;
  ASSERT_TRUE(ParseMetricNames("e2e=latency,itl=gap", &names).ok());
  EXPECT_EQ(Error(RunFromResults({TwoReplications()}, {"r.json"}, names)),
            "r.json: error: no observation 'gap' for itl (--names itl=NAME names the observation "
            "that holds it)");
}

// An infinite sample (JSON's "Infinity", or binary) made the mean inf and
// printed as '-'; NaN was already refused.
TEST(ResultsRunTest, InfiniteSamplesAreRefused) {
  results::Results r = TwoReplications();
  r.mutable_replication(0)->mutable_observation(0)->set_sample(1, std::numeric_limits<double>::infinity());
  MetricNames names;
  ASSERT_TRUE(ParseMetricNames("e2e=latency", &names).ok());
  EXPECT_EQ(Error(RunFromResults({r}, {"r.json"}, names)),
            "r.json: error: observation 'ttft' (ttft) has a sample of inf: a measured duration is finite, within "
            "the simulated clock's range");
}

TEST(MetricNamesTest, Parse) {
  MetricNames names;
  ASSERT_TRUE(ParseMetricNames(" ttft = first , itl=gap", &names).ok());
  EXPECT_THAT(names.names, ElementsAre("first", "tpot", "gap", "e2e"));
  EXPECT_THAT(names.given, ElementsAre(true, false, true, false));
  auto error = [](absl::string_view text) {
    MetricNames n;
    return std::string(ParseMetricNames(text, &n).message());
  };
  EXPECT_EQ(error("latency=x"), "--names: unknown metric 'latency' (expected ttft, tpot, itl or e2e)");
  EXPECT_EQ(error("ttft"), "--names: expected ttft=NAME (an observation of the program)");
  EXPECT_EQ(error("ttft="), "--names: expected ttft=NAME (an observation of the program)");
  EXPECT_EQ(error("ttft=a,ttft=b"), "--names: ttft is named twice");
}

TEST(DetectSourceTest, ByContent) {
  EXPECT_EQ(DetectSource("{\"input_toks\": 1, \"output_toks\": 1}\n"), "vLLM requests.jsonl");
  EXPECT_EQ(DetectSource("  \n[\n]"), "BLIS results.json");
  EXPECT_EQ(DetectSource("{\n  \"version\": 9\n}"), "serq results");
  EXPECT_EQ(DetectSource("{\"version\": 9}"), "serq results");
  EXPECT_EQ(DetectSource("\x08\x09"), "serq results");
  // A first row the parser refuses is still the bench's, so its error is
  // at its line (it was "invalid results JSON" with no line).
  EXPECT_EQ(DetectSource("{\"input_toks\": NaN, \"output_toks\": 1}\n"), "vLLM requests.jsonl");
  EXPECT_EQ(Error(ParseVllmRequests("{\"input_toks\": NaN, \"output_toks\": 1}\n", "r")),
            "r:1: error: malformed JSON: Unexpected token");
}

// 1, 2, 3, 4, 5: mean 3; rank h = p/100 * 4: p50 h 2 -> 3; p90 h 3.6 ->
// 4.6; p95 h 3.8 -> 4.8; p99 h 3.96 -> 4.96.
TEST(FiguresTest, LinearInterpolation) {
  Distribution d;
  d.samples = {5, 3, 1, 4, 2};
  d.count = 5;
  d.mean = 3;
  Figures f = Summarize(d);
  EXPECT_EQ(f.n, 5u);
  EXPECT_EQ(f.values[0], 3);
  EXPECT_EQ(f.values[1], 3);
  EXPECT_DOUBLE_EQ(f.values[2], 4.6);
  EXPECT_DOUBLE_EQ(f.values[3], 4.8);
  EXPECT_DOUBLE_EQ(f.values[4], 4.96);
  // A sketch's percentiles: within its relative accuracy of the exact.
  Distribution s;
  s.sketch = report::QuantileSketch();
  for (double x = 1; x <= 5; ++x) s.sketch->Add(x);
  s.count = 5;
  s.mean = 3;
  Figures g = Summarize(s);
  for (int i = 1; i < kFigures; ++i) {
    EXPECT_NEAR(g.values[i], f.values[i], f.values[i] * s.sketch->alpha() * 1.0001) << i;
  }
}

TEST(FiguresTest, ErrorPercent) {
  EXPECT_EQ(*ErrorPercent(100, 110), (110.0 - 100) / 100 * 100);
  EXPECT_EQ(*ErrorPercent(4, 2), -50.0);
  EXPECT_FALSE(ErrorPercent(0, 1).has_value());
  EXPECT_FALSE(ErrorPercent(1, NAN).has_value());
}

Run Measured(std::vector<double> ttft, std::vector<double> e2e) {
  compare::Run run;
  run.file = "m";
  run.source = "vLLM requests.jsonl";
  for (size_t i = 0; i < ttft.size(); ++i) {
    MeasuredRequest r;
    r.ttft = ttft[i];
    r.e2e = e2e[i];
    r.output_tokens = 1;
    run.requests.push_back(r);
  }
  Distribution t;
  t.samples = ttft;
  t.count = ttft.size();
  t.mean = 0;
  for (double x : ttft) t.mean += x / ttft.size();
  Distribution e = t;
  e.samples = e2e;
  e.mean = 0;
  for (double x : e2e) e.mean += x / e2e.size();
  run.metrics[0] = t;
  run.metrics[3] = e;
  return run;
}

TEST(CompareTest, ErrorsPerFigureAndCounts) {
  compare::Run measured = Measured({1, 2, 3, 4}, {2, 4, 6, 8});
  compare::Run simulated = Measured({1.5, 2.5, 3.5, 4.5}, {2, 4, 6, 8});
  simulated.file = "s";
  simulated.source = "serq results";
  simulated.observations = {"ttft", "tpot", "itl", "e2e"};
  auto c = Compare(measured, simulated, CompareOptions());
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->metrics.size(), 2u);
  // ttft: mean 2.5 -> 3 (+20%); p50 2.5 -> 3 (+20%); p90 (h 2.7) 3.7 ->
  // 4.2 (+13.51%).
  EXPECT_EQ(c->metrics[0].metric, Metric::kTtft);
  EXPECT_DOUBLE_EQ(*c->metrics[0].error_percent[0], 20);
  EXPECT_DOUBLE_EQ(*c->metrics[0].error_percent[2], (4.2 - 3.7) / 3.7 * 100);
  EXPECT_DOUBLE_EQ(*c->metrics[1].error_percent[0], 0);
  // A metric one side holds: shown, not compared, said.
  simulated.metrics[1] = simulated.metrics[0];
  c = Compare(measured, simulated, CompareOptions());
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->metrics.size(), 3u);
  EXPECT_FALSE(c->metrics[1].measured.has_value());
  EXPECT_FALSE(c->metrics[1].error_percent[0].has_value());
  EXPECT_THAT(c->notes, ElementsAre("tpot: not compared, the measured run has none (no request "
                                    "has more than one output token)"));
  // Counts: per replication. 8 over 2 replications is 4 each: compared.
  compare::Run two = Measured({1, 1, 2, 2, 3, 3, 4, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  two.replications = 2;
  EXPECT_TRUE(Compare(measured, two, CompareOptions()).ok());
  compare::Run three = Measured({1, 2, 3}, {1, 2, 3});
  EXPECT_EQ(std::string(Compare(measured, three, CompareOptions()).status().message()),
            "ttft: 4 measured, 3 simulated: the distributions compared must hold the same "
            "requests (did the simulated run finish every request? a replay must run until the "
            "last one is done); --allow-count-mismatch compares them anyway");
  // A measured side that skipped rows says so: its file, replayed, has
  // them.
  compare::Run skipped = measured;
  skipped.skipped_rows = 1;
  compare::Run five = Measured({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(std::string(Compare(skipped, five, CompareOptions()).status().message()),
            "ttft: 4 measured, 5 simulated: the distributions compared must hold the same "
            "requests (did the simulated run finish every request? a replay must run until the "
            "last one is done); the measured run skipped 1 row without first_token_ts or "
            "last_token_ts, which a replay of its file serves; --allow-count-mismatch compares them anyway");
  // Fewer simulated than measured: the rows skipped cannot be why.
  EXPECT_EQ(std::string(Compare(skipped, three, CompareOptions()).status().message()),
            "ttft: 4 measured, 3 simulated: the distributions compared must hold the same "
            "requests (did the simulated run finish every request? a replay must run until the "
            "last one is done); --allow-count-mismatch compares them anyway");
  CompareOptions allow;
  allow.allow_count_mismatch = true;
  c = Compare(measured, three, allow);
  ASSERT_TRUE(c.ok());
  EXPECT_THAT(c->notes, ElementsAre("ttft: counts differ (4 measured, 3 simulated)",
                                    "e2e: counts differ (4 measured, 3 simulated)"));
}


// Summaries: the figures only, each format's fields and units.
TEST(SummaryTest, ThreeFormats) {
  // vLLM's benchmark_serving: ms, the median as median_*, pN_*.
  const std::string vllm = R"({"completed": 4, "mean_ttft_ms": 100, "median_ttft_ms": 90,
      "p99_ttft_ms": 150, "mean_tpot_ms": 20, "mean_itl_ms": 19, "mean_e2el_ms": 1000,
      "p90_e2el_ms": 1200})";
  EXPECT_EQ(DetectSource(vllm), "vLLM benchmark result");
  absl::StatusOr<compare::Run> r = ParseSummary(vllm, "v.json", "vLLM benchmark result");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->summary);
  Figures ttft = Summarize(*r->metrics[static_cast<int>(Metric::kTtft)]);
  EXPECT_EQ(ttft.n, 4u);
  EXPECT_DOUBLE_EQ(ttft.values[0], 0.1);
  EXPECT_DOUBLE_EQ(ttft.values[1], 0.09);
  EXPECT_TRUE(std::isnan(ttft.values[2]));  // no p90 given
  EXPECT_DOUBLE_EQ(ttft.values[4], 0.15);
  // TPOT and ITL: their counts are not given.
  EXPECT_EQ(r->metrics[static_cast<int>(Metric::kTpot)]->count, 0u);
  EXPECT_DOUBLE_EQ(r->metrics[static_cast<int>(Metric::kItl)]->mean, 0.019);
  EXPECT_DOUBLE_EQ(Summarize(*r->metrics[static_cast<int>(Metric::kE2e)]).values[2], 1.2);
  // inference-perf: seconds, under successes.latency.
  const std::string perf = R"({"successes": {"count": 3, "latency": {
      "time_to_first_token": {"mean": 0.5, "median": 0.4, "p90": 0.9, "min": 0.1},
      "request_latency": {"mean": 5, "p99": 8}}}, "failures": {"count": 0}})";
  EXPECT_EQ(DetectSource(perf), "inference-perf summary");
  r = ParseSummary(perf, "p.json", "inference-perf summary");
  ASSERT_TRUE(r.ok()) << r.status();
  ttft = Summarize(*r->metrics[static_cast<int>(Metric::kTtft)]);
  EXPECT_EQ(ttft.n, 3u);
  EXPECT_DOUBLE_EQ(ttft.values[1], 0.4);
  EXPECT_DOUBLE_EQ(ttft.values[2], 0.9);
  EXPECT_FALSE(r->metrics[static_cast<int>(Metric::kTpot)].has_value());
  EXPECT_DOUBLE_EQ(Summarize(*r->metrics[static_cast<int>(Metric::kE2e)]).values[4], 8);
  // The note names it with its article: "an inference-perf summary".
  ASSERT_FALSE(r->notes.empty());
  EXPECT_EQ(r->notes.back().rfind("p.json: an inference-perf summary, its figures only", 0), 0u) << r->notes.back();
  // ... and that its TPOT and ITL are of stream messages (cli.md §serq compare).
  ASSERT_EQ(r->notes.size(), 2u);
  EXPECT_EQ(r->notes[0].rfind("tpot, itl: inference-perf times tokens by the stream messages", 0), 0u) << r->notes[0];
  // BLIS's metrics.json: ms, ttft_pN_ms, no median.
  const std::string blis = R"({"completed_requests": 1000, "ttft_mean_ms": 59.45, "ttft_p90_ms": 77.7,
      "e2e_mean_ms": 2336.1, "e2e_p99_ms": 2613.9, "itl_mean_ms": 17.9})";
  EXPECT_EQ(DetectSource(blis), "BLIS metrics.json");
  r = ParseSummary(blis, "m.json", "BLIS metrics.json");
  ASSERT_TRUE(r.ok()) << r.status();
  ttft = Summarize(*r->metrics[static_cast<int>(Metric::kTtft)]);
  EXPECT_EQ(ttft.n, 1000u);
  EXPECT_DOUBLE_EQ(ttft.values[0], 0.05945);
  EXPECT_TRUE(std::isnan(ttft.values[1]));
  EXPECT_DOUBLE_EQ(ttft.values[2], 0.0777);
  // serq results mentioning such a name as a value are still serq results.
  EXPECT_EQ(DetectSource(R"({"name": "mean_ttft_ms", "x": 1})"), "serq results");
}

TEST(SummaryTest, Refusals) {
  auto bad = [](const std::string& text, absl::string_view source) {
    absl::StatusOr<compare::Run> r = ParseSummary(text, "s.json", source);
    return r.ok() ? "(no error)" : std::string(r.status().message());
  };
  EXPECT_EQ(bad(R"({"mean_ttft_ms": 1, "mean_e2el_ms": 2})", "vLLM benchmark result"),
            "s.json: error: completed: missing: how many requests completed");
  EXPECT_EQ(bad(R"({"completed": 3, "mean_ttft_ms": "x", "mean_e2el_ms": 2})", "vLLM benchmark result"),
            "s.json: error: mean_ttft_ms: expected a number, not \"x\"");
  EXPECT_EQ(bad(R"({"completed": 3, "mean_ttft_ms": 1})", "vLLM benchmark result"),
            "s.json: error: a vLLM benchmark result without a mean TTFT and E2E");
  EXPECT_EQ(bad(R"({"completed_requests": 3, "ttft_mean_ms": -1, "e2e_mean_ms": 2})", "BLIS metrics.json"),
            "s.json: error: ttft_mean_ms: a latency below 0");
  // Each figure at its own field (a negative p90 was blamed on the mean);
  // the percentiles rise with their rank; a summary of no request.
  EXPECT_EQ(bad(R"({"completed": 3, "mean_ttft_ms": 1, "p90_ttft_ms": -1, "mean_e2el_ms": 2})",
                "vLLM benchmark result"),
            "s.json: error: p90_ttft_ms: a latency below 0");
  EXPECT_EQ(bad(R"({"completed": 3, "mean_ttft_ms": 1, "median_ttft_ms": 900, "p90_ttft_ms": 10,
                    "mean_e2el_ms": 2})",
                "vLLM benchmark result"),
            "s.json: error: p90_ttft_ms: 10, below median_ttft_ms's 900: a percentile is at least the one of a "
            "lower rank");
  EXPECT_EQ(bad(R"({"completed": 0, "mean_ttft_ms": 1, "mean_e2el_ms": 2})", "vLLM benchmark result"),
            "s.json: error: completed: expected a whole number from 1 to 1099511627776, not 0");
  EXPECT_EQ(bad(R"({"completed": 3, "mean_ttft_ms": 1e300, "mean_e2el_ms": 2})", "vLLM benchmark result"),
            "s.json: error: mean_ttft_ms: 1e+297 s, past the simulated clock's range (2^63 ns, 9223372036.854776 "
            "s): no simulated figure compares with it");
}

// A summary beside a simulated run: its counts where it gives them, no
// error where it gives no figure.
TEST(SummaryTest, Compared) {
  absl::StatusOr<compare::Run> measured = ParseSummary(
      R"({"completed": 2, "mean_ttft_ms": 100, "p90_ttft_ms": 200, "mean_tpot_ms": 10,
          "mean_e2el_ms": 1000})",
      "s.json", "vLLM benchmark result");
  ASSERT_TRUE(measured.ok()) << measured.status();
  compare::Run simulated;
  simulated.source = "serq results";
  auto dist = [](std::vector<double> v) {
    Distribution d;
    d.count = v.size();
    for (double x : v) d.mean += x / v.size();
    d.samples = v;
    return d;
  };
  simulated.metrics[static_cast<int>(Metric::kTtft)] = dist({0.1, 0.12});
  simulated.metrics[static_cast<int>(Metric::kTpot)] = dist({0.01, 0.01, 0.01});  // count not given: not checked
  simulated.metrics[static_cast<int>(Metric::kE2e)] = dist({1.0, 1.2});
  absl::StatusOr<Comparison> c = Compare(*measured, simulated, {});
  ASSERT_TRUE(c.ok()) << c.status();
  // TTFT: mean 0.11 against 0.1 (+10%); p90 of {0.1, 0.12} = 0.118 against
  // 0.2 (-41%); p50 not given: no error.
  EXPECT_NEAR(*c->metrics[0].error_percent[0], 10, 1e-9);
  EXPECT_NEAR(*c->metrics[0].error_percent[2], -41, 1e-9);
  EXPECT_FALSE(c->metrics[0].error_percent[1].has_value());
  // ITL, which this summary does not give, is said to be the summary's lack
  // (not a lack of requests with more than one token).
  simulated.metrics[static_cast<int>(Metric::kItl)] = dist({0.01, 0.01});
  c = Compare(*measured, simulated, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->notes, ::testing::Contains("itl: not compared, the measured run has none (the vLLM benchmark result "
                                          "gives no itl figures)"));
  // json says what was compared as the text does: the summary's figures.
  absl::StatusOr<std::string> json = RenderComparison(*c, "json");
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"compared\": \"figures\""));
  // A count the summary gives is held to the simulated one.
  simulated.metrics[static_cast<int>(Metric::kE2e)] = dist({1.0, 1.2, 1.4});
  EXPECT_FALSE(Compare(*measured, simulated, {}).ok());
}

}  // namespace
}  // namespace serq::compare
