#include "serq/measured/measured.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "ir/limits.h"
#include "ir/utf8.h"
#include "serq-sim/workload/vllm_record.h"
#include "serq/models/json_file.h"
#include "stats/merge.h"
#include "stats/moments.h"
#include "text/json_row.h"

namespace serq::compare {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A BLIS result is a handful of fields: an element of the array longer
// than this is not one (and is not parsed).
constexpr size_t kMaxElement = 1 << 20;

absl::Status At(const std::string& file, int line, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": error: ", message));
}

absl::Status InFile(const std::string& file, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(file, ": error: ", message));
}

using sim::PastTheClock;

// The distribution of `values` (not empty), its mean as serq's report
// computes one (Welford's, runs of equal values at once).
Distribution Of(std::vector<double> values) {
  Distribution d;
  report::Moments m;
  m.AddSamples(values);
  d.count = m.count();
  d.mean = m.mean();
  d.samples = std::move(values);
  return d;
}

// The metrics of measured requests: TTFT and E2E of each, TPOT of those
// with more than one output token.
void SetMetrics(Run* run) {
  std::vector<double> ttft, tpot, e2e;
  for (const MeasuredRequest& r : run->requests) {
    ttft.push_back(r.ttft);
    e2e.push_back(r.e2e);
    if (r.output_tokens > 1) tpot.push_back(r.tpot);
  }
  run->metrics[static_cast<int>(Metric::kTtft)] = Of(std::move(ttft));
  run->metrics[static_cast<int>(Metric::kE2e)] = Of(std::move(e2e));
  if (!tpot.empty()) run->metrics[static_cast<int>(Metric::kTpot)] = Of(std::move(tpot));
}

// A required number >= 0 of a BLIS result.
absl::Status Field(const Struct& row, const char* name, bool required, double* out) {
  auto it = row.fields().find(name);
  if (it == row.fields().end() || it->second.kind_case() == Value::kNullValue) {
    if (!required) {
      *out = kNaN;
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat("missing field '", name, "'"));
  }
  if (it->second.kind_case() != Value::kNumberValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", name, "' is not a number (found ", text::JsonKind(it->second), ")"));
  }
  double v = it->second.number_value();
  if (!std::isfinite(v) || v < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " ", text::ShortestText(v), std::isfinite(v) ? " is negative" : " is not finite"));
  }
  *out = v;
  return absl::OkStatus();
}

// The elements of a JSON array, each as its text and the line it starts
// on, without parsing the array whole: a scan that knows strings (and
// their escapes) and brackets, nothing more; each element is then parsed
// by protobuf's parser. Refuses what is not `[ value, value, ... ]`.
class ArrayElements {
 public:
  explicit ArrayElements(absl::string_view text) : text_(text) {}

  // The next element: false at the array's end (then `status()` says
  // whether the array was whole).
  bool Next(absl::string_view* element, int* line) {
    if (!status_.ok() || done_) return false;
    Skip();
    if (index_ == 0 && first_) {
      first_ = false;
      if (pos_ >= text_.size() || text_[pos_] != '[') {
        return Fail("expected a JSON array '[...]' of results");
      }
      ++pos_;
      Skip();
      if (pos_ < text_.size() && text_[pos_] == ']') return End();
    } else {
      if (pos_ >= text_.size()) return Fail("the array ends without ']'");
      if (text_[pos_] == ']') return End();
      if (pos_ >= text_.size() || text_[pos_] != ',') {
        return Fail(absl::StrCat("expected ',' or ']' after element ", index_ - 1));
      }
      ++pos_;
      Skip();
    }
    *line = line_;
    size_t start = pos_;
    if (!Value()) return false;
    *element = text_.substr(start, pos_ - start);
    ++index_;
    return true;
  }
  const absl::Status& status() const { return status_; }
  int line() const { return line_; }
  size_t index() const { return index_; }

 private:
  void Skip() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }
  bool Fail(absl::string_view message) {
    status_ = absl::InvalidArgumentError(message);
    return false;
  }
  bool End() {
    ++pos_;
    Skip();
    if (pos_ < text_.size()) return Fail("text after the array's end");
    done_ = true;
    return false;
  }
  // One value: an object or array (brackets counted, strings skipped), a
  // string, or a scalar up to the next ',', ']', '}' or space.
  bool Value() {
    if (pos_ >= text_.size()) return Fail("the array ends without ']'");
    if (absl::string_view("{[\"").find(text_[pos_]) == absl::string_view::npos) {
      while (pos_ < text_.size() && !absl::ascii_isspace(text_[pos_]) &&
             absl::string_view(",]}").find(text_[pos_]) == absl::string_view::npos) {
        ++pos_;
      }
      return true;
    }
    int depth = 0;
    size_t start = pos_;
    do {
      if (pos_ >= text_.size()) return Fail("the array ends inside an element");
      if (pos_ - start > kMaxElement) {
        return Fail(absl::StrCat("element ", index_, " is longer than ", kMaxElement >> 20,
                                 " MB (a result is a handful of fields)"));
      }
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '"') {
          if (text_[pos_] == '\\') ++pos_;
          if (pos_ < text_.size() && text_[pos_] == '\n') ++line_;
          ++pos_;
        }
        if (pos_ >= text_.size()) return Fail("a string runs to the end of the file");
        ++pos_;
      } else if (c == '{' || c == '[') {
        if (++depth > kMaxDataJsonDepth) {
          return Fail(absl::StrCat("element ", index_, " is nested more than ",
                                   kMaxDataJsonDepth, " levels deep (a result is flat)"));
        }
        ++pos_;
      } else if (c == '}' || c == ']') {
        --depth;
        ++pos_;
      } else {
        if (c == '\n') ++line_;
        ++pos_;
      }
    } while (depth > 0);
    return true;
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t index_ = 0;
  bool first_ = true;
  bool done_ = false;
  absl::Status status_;
};

}  // namespace

absl::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kTtft: return "ttft";
    case Metric::kTpot: return "tpot";
    case Metric::kItl: return "itl";
    case Metric::kE2e: return "e2e";
  }
  return "";
}

absl::Status ParseMetricNames(absl::string_view text, MetricNames* names) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    absl::string_view metric = absl::StripAsciiWhitespace(kv.first);
    absl::string_view name = absl::StripAsciiWhitespace(kv.second);
    int index = -1;
    for (Metric m : kAllMetrics) {
      if (MetricName(m) == metric) index = static_cast<int>(m);
    }
    if (index < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--names: unknown metric '", metric, "' (expected ttft, tpot, itl or e2e)"));
    }
    if (name.empty() || !absl::StrContains(item, '=')) {
      return absl::InvalidArgumentError(
          absl::StrCat("--names: expected ", metric, "=NAME (an observation of the program)"));
    }
    if (names->given[index]) {
      return absl::InvalidArgumentError(absl::StrCat("--names: ", metric, " is named twice"));
    }
    names->names[index] = std::string(name);
    names->given[index] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<Run> ParseVllmRequests(absl::string_view text, const std::string& file) {
  Run run;
  run.file = file;
  run.source = "vLLM requests.jsonl";
  SkipByteOrderMark(&text);
  std::optional<sim::VllmClock> clock;
  size_t skipped = 0;
  double earliest = std::numeric_limits<double>::infinity();
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    sim::VllmRecord record;
    if (absl::Status s = sim::ParseVllmRecord(line, &record); !s.ok()) {
      return At(file, number, s.message());
    }
    if (!record.first_token_ts || !record.last_token_ts) {
      ++skipped;  // as the bench: a request without both token times has no figures
      continue;
    }
    std::optional<sim::VllmClock> mine = sim::ArrivalClock(record);
    if (!mine) return At(file, number, "no arrival: the row has neither 'queued_ts' nor 'arrival_time'");
    if (!clock) {
      clock = mine;
    } else if (*mine != *clock) {
      return At(file, number, sim::MixedClocks(record, *mine, *clock));
    }
    if (run.requests.size() == kMaxRequests) {
      return At(file, number, absl::StrCat("more than ", kMaxRequests, " requests"));
    }
    const double arrival = sim::ArrivalIn(record, *mine);
    const double first = *record.first_token_ts, last = *record.last_token_ts;
    if (const std::string wrong = sim::TokenTimesOutOfOrder(record, *mine); !wrong.empty()) {
      return At(file, number, wrong);
    }
    MeasuredRequest r;
    r.input_tokens = record.input_toks;
    r.output_tokens = record.output_toks;
    r.arrival = arrival;
    r.ttft = first - arrival;
    r.e2e = last - arrival;
    r.tpot = record.output_toks > 1 ? (last - first) / (record.output_toks - 1) : kNaN;
    r.itl_mean = kNaN;
    earliest = std::min(earliest, arrival);
    run.requests.push_back(r);
  }
  if (run.requests.empty()) {
    return InFile(file, skipped > 0
                            ? absl::StrCat("no usable row: each of the ", skipped,
                                           " rows lacks first_token_ts or last_token_ts")
                            : std::string("no usable row: the file has no request"));
  }
  for (MeasuredRequest& r : run.requests) r.arrival -= earliest;
  run.skipped_rows = skipped;
  if (skipped > 0) {
    run.notes.push_back(absl::StrCat(skipped, " row", skipped == 1 ? "" : "s",
                                     " without first_token_ts or last_token_ts skipped (as "
                                     "LLMServingSim's bench skips them)"));
  }
  SetMetrics(&run);
  return run;
}

absl::StatusOr<Run> ParseBlisResults(absl::string_view text, const std::string& file) {
  Run run;
  run.file = file;
  run.source = "BLIS results.json";
  SkipByteOrderMark(&text);
  ArrayElements elements(text);
  absl::string_view element;
  int line = 0;
  bool itl_mean = false;
  while (elements.Next(&element, &line)) {
    const size_t index = elements.index() - 1;
    auto fail = [&](absl::string_view message) {
      return At(file, line, absl::StrCat("element ", index, ": ", message));
    };
    if (element.empty() || element.front() != '{') return fail("expected a JSON object '{...}'");
    Struct row;
    if (absl::Status s = text::ParseJsonRow(element, &row); !s.ok()) return fail(s.message());
    if (run.requests.size() == kMaxRequests) {
      return fail(absl::StrCat("more than ", kMaxRequests, " requests"));
    }
    MeasuredRequest r;
    double ttft_us, e2e_us, itl_us;
    for (auto [name, out, required] :
         {std::tuple{"ttft_us", &ttft_us, true}, std::tuple{"e2e_us", &e2e_us, true},
          std::tuple{"input_tokens", &r.input_tokens, true},
          std::tuple{"output_tokens", &r.output_tokens, true},
          std::tuple{"itl_mean_us", &itl_us, false}}) {
      if (absl::Status s = Field(row, name, required, out); !s.ok()) return fail(s.message());
    }
    for (auto [name, count] : {std::pair{"input_tokens", r.input_tokens},
                               std::pair{"output_tokens", r.output_tokens}}) {
      if (!IsTokenCount(count)) {
        return fail(absl::StrCat(name, " ", text::ShortestText(count),
                                 " is not a whole number of tokens from 0 to ",
                                 kMaxTokens));
      }
    }
    if (e2e_us < ttft_us) {
      return fail(absl::StrCat("e2e_us ", text::ShortestText(e2e_us), " is less than ttft_us ",
                               text::ShortestText(ttft_us)));
    }
    if (const std::string past = PastTheClock(e2e_us / 1e6); !past.empty()) {
      return fail(absl::StrCat("e2e_us ", text::ShortestText(e2e_us), " is ", past));
    }
    r.arrival = kNaN;
    r.ttft = ttft_us / 1e6;
    r.e2e = e2e_us / 1e6;
    // E2E - TTFT is the last token less the first (both from the arrival).
    r.tpot = r.output_tokens > 1 ? (e2e_us - ttft_us) / (r.output_tokens - 1) / 1e6 : kNaN;
    r.itl_mean = std::isnan(itl_us) ? kNaN : itl_us / 1e6;
    itl_mean = itl_mean || !std::isnan(itl_us);
    run.requests.push_back(r);
  }
  if (!elements.status().ok()) {
    return At(file, elements.line(), elements.status().message());
  }
  if (run.requests.empty()) return InFile(file, "no usable row: the array is empty");
  if (itl_mean) {
    run.notes.push_back(
        "itl_mean_us (BLIS's mean gap between a request's tokens) is read but not compared: "
        "ITL is every gap, pooled; TPOT is compared instead");
  }
  SetMetrics(&run);
  return run;
}

absl::StatusOr<Run> RunFromResults(const std::vector<results::Results>& inputs,
                                   const std::vector<std::string>& files,
                                   const MetricNames& names) {
  const std::vector<report::ResultsFile> named = report::NamedResults(inputs, files);
  absl::StatusOr<report::MergedResults> merged = report::MergeResults(named);
  if (!merged.ok()) return merged.status();
  Run run;
  run.file = named.empty() ? "" : named[0].name;
  run.source = "serq results";
  run.replications = static_cast<uint32_t>(merged->replications.size());
  for (Metric metric : kAllMetrics) {
    const int m = static_cast<int>(metric);
    const std::string& name = names.names[m];
    run.observations[m] = name;
    bool present = false;
    report::Moments moments;
    std::vector<double> samples;
    std::optional<report::QuantileSketch> sketch;
    for (const results::Replication* rep : merged->replications) {
      for (const results::Observation& obs : rep->observation()) {
        if (obs.name() != name) continue;
        present = true;
        if (!obs.sample().empty()) {
          for (double x : obs.sample()) {
            if (!std::isfinite(x) || x >= kClockRangeSeconds) {
              return InFile(run.file, absl::StrCat("observation '", name, "' (", MetricName(metric),
                                                   ") has a sample of ", text::ShortestText(x),
                                                   ": a measured duration is finite, within the simulated "
                                                   "clock's range"));
            }
          }
          report::Moments own;
          own.AddSamples(obs.sample());
          moments.Merge(own);
          samples.insert(samples.end(), obs.sample().begin(), obs.sample().end());
        } else if (obs.count() > 0) {
          moments.Merge(report::Moments::FromParts(obs.count(), obs.mean(), obs.m2()));
          report::QuantileSketch own;
          (void)report::QuantileSketch::Read(obs.sketch(), &own);  // checked by MergeResults
          if (!sketch) sketch = report::QuantileSketch(own.alpha());
          sketch->Merge(own);
        }
      }
    }
    if (!present || moments.count() == 0) {
      if (metric == Metric::kTtft || metric == Metric::kE2e || names.given[m]) {
        return InFile(run.file,
                      absl::StrCat(present ? "observation '" : "no observation '", name,
                                   present ? "' has no sample" : "'", " for ", MetricName(metric),
                                   " (--names ", MetricName(metric),
                                   "=NAME names the observation that holds it)"));
      }
      continue;
    }
    Distribution d;
    d.count = moments.count();
    d.mean = moments.mean();
    if (sketch) {
      // The kept samples join the summaries' sketch, as the report's
      // quantiles are made.
      for (double x : samples) sketch->Add(x);
      d.sketch = std::move(sketch);
    } else {
      d.samples = std::move(samples);
    }
    run.metrics[m] = std::move(d);
  }
  return run;
}

namespace {

// A key of a JSON object in `text`: the quoted name followed by a colon.
bool HasKey(absl::string_view text, absl::string_view key) {
  const std::string quoted = absl::StrCat("\"", key, "\"");
  for (size_t at = text.find(quoted); at != absl::string_view::npos;
       at = text.find(quoted, at + 1)) {
    absl::string_view after = absl::StripLeadingAsciiWhitespace(text.substr(at + quoted.size()));
    if (!after.empty() && after.front() == ':') return true;
  }
  return false;
}

constexpr absl::string_view kVllmBench = "vLLM benchmark result";
constexpr absl::string_view kInferencePerf = "inference-perf summary";
constexpr absl::string_view kBlisMetrics = "BLIS metrics.json";

}  // namespace

absl::string_view DetectSource(absl::string_view text) {
  SkipByteOrderMark(&text);
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(text);
  if (!rest.empty() && rest.front() == '[') return "BLIS results.json";
  if (!rest.empty() && rest.front() == '{') {
    absl::string_view first = rest.substr(0, rest.find('\n'));
    if (sim::LooksLikeVllmRecord(first)) return "vLLM requests.jsonl";
    if (HasKey(rest, "mean_ttft_ms")) return kVllmBench;
    if (HasKey(rest, "successes") && HasKey(rest, "time_to_first_token")) return kInferencePerf;
    if (HasKey(rest, "ttft_mean_ms")) return kBlisMetrics;
  }
  return "serq results";
}

absl::StatusOr<Run> ParseSummary(absl::string_view text, const std::string& file,
                                 absl::string_view source) {
  absl::StatusOr<models::JsonFile> json = models::JsonFile::Parse(text, file);
  if (!json.ok()) return json.status();
  Run run;
  run.file = file;
  run.source = std::string(source);
  run.summary = true;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // One metric's figures: `path(figure)` names each field ("mean", "p50",
  // ...), `scale` converts to seconds. Absent mean: the metric is absent.
  auto metric = [&](Metric m, uint64_t count, double scale,
                    const std::function<std::string(absl::string_view)>& path) -> absl::Status {
    absl::StatusOr<std::optional<double>> mean = json->Number(path("mean"));
    if (!mean.ok()) return mean.status();
    if (!mean->has_value()) return absl::OkStatus();
    Distribution d;
    d.count = count;
    d.mean = **mean * scale;
    std::array<double, 4> p = {nan, nan, nan, nan};
    const char* names[4] = {"p50", "p90", "p95", "p99"};
    for (int i = 0; i < 4; ++i) {
      absl::StatusOr<std::optional<double>> v = json->Number(path(names[i]));
      if (!v.ok()) return v.status();
      if (v->has_value()) p[i] = **v * scale;
    }
    // Each figure at its own field: at least 0, within the clock; the
    // percentiles given rise with their rank (a median above the p90 is a
    // file whose fields were swapped or mistyped).
    const char* field_names[5] = {"mean", "p50", "p90", "p95", "p99"};
    const double figures[5] = {d.mean, p[0], p[1], p[2], p[3]};
    int below = -1;  // the last percentile given
    for (int i = 0; i < 5; ++i) {
      const double x = figures[i];
      if (std::isnan(x)) continue;
      if (x < 0) return json->Error(path(field_names[i]), "a latency below 0");
      if (const std::string past = PastTheClock(x); !past.empty()) return json->Error(path(field_names[i]), past);
      if (i == 0) continue;
      if (below > 0 && x < figures[below]) {
        return json->Error(path(field_names[i]),
                           absl::StrCat(text::ShortestText(x / scale), ", below ", path(field_names[below]),
                                        "'s ", text::ShortestText(figures[below] / scale),
                                        ": a percentile is at least the one of a lower rank"));
      }
      below = i;
    }
    d.percentiles = p;
    run.metrics[static_cast<int>(m)] = std::move(d);
    return absl::OkStatus();
  };
  auto count = [&](const char* key) -> absl::StatusOr<uint64_t> {
    // At least one: a summary of no completed request has no figures.
    absl::StatusOr<std::optional<int64_t>> n = json->Whole(key, 1, int64_t{1} << 40);
    if (!n.ok()) return n.status();
    if (!n->has_value()) return json->Error(key, "missing: how many requests completed");
    return static_cast<uint64_t>(**n);
  };
  if (source == kVllmBench) {
    // vLLM's benchmark_serving (vllm bench serve --save-result): ms, the
    // median as median_*, the percentiles as pN_* (--metric-percentiles).
    absl::StatusOr<uint64_t> n = count("completed");
    if (!n.ok()) return n.status();
    for (auto [m, key, known] : {std::tuple{Metric::kTtft, "ttft", true}, std::tuple{Metric::kTpot, "tpot", false},
                                 std::tuple{Metric::kItl, "itl", false}, std::tuple{Metric::kE2e, "e2el", true}}) {
      const std::string k = key;
      absl::Status s = metric(m, known ? *n : 0, 1e-3, [&](absl::string_view f) {
        if (f == "p50") return absl::StrCat("median_", k, "_ms");
        return absl::StrCat(f, "_", k, "_ms");
      });
      if (!s.ok()) return s;
    }
  } else if (source == kInferencePerf) {
    // inference-perf's summary_lifecycle_metrics.json: seconds, under
    // successes.latency, the median as median.
    absl::StatusOr<uint64_t> n = count("successes.count");
    if (!n.ok()) return n.status();
    for (auto [m, key, known] : {std::tuple{Metric::kTtft, "time_to_first_token", true},
                                 std::tuple{Metric::kTpot, "time_per_output_token", false},
                                 std::tuple{Metric::kItl, "inter_token_latency", false},
                                 std::tuple{Metric::kE2e, "request_latency", true}}) {
      const std::string k = key;
      absl::Status s = metric(m, known ? *n : 0, 1, [&](absl::string_view f) {
        return absl::StrCat("successes.latency.", k, ".", f == "p50" ? "median" : f);
      });
      if (!s.ok()) return s;
    }
    // Its TPOT and ITL are of stream messages, which the figures cannot
    // show: said beside them.
    run.notes.push_back(
        "tpot, itl: inference-perf times tokens by the stream messages that carry them and counts a "
        "message's tokens by re-tokenising its text; where that gives a message two tokens, its TPOT is "
        "about half of vLLM's (docs/cli.md §serq compare); ttft and e2e do not depend on it");
  } else {
    // BLIS's metrics.json: ms, ttft_mean_ms and ttft_pN_ms (no median).
    absl::StatusOr<uint64_t> n = count("completed_requests");
    if (!n.ok()) return n.status();
    for (auto [m, key, known] : {std::tuple{Metric::kTtft, "ttft", true}, std::tuple{Metric::kItl, "itl", false},
                                 std::tuple{Metric::kE2e, "e2e", true}}) {
      const std::string k = key;
      absl::Status s = metric(m, known ? *n : 0, 1e-3,
                              [&](absl::string_view f) { return absl::StrCat(k, "_", f, "_ms"); });
      if (!s.ok()) return s;
    }
  }
  // "an inference-perf summary", "a vLLM benchmark result".
  const char* article =
      !source.empty() && absl::string_view("aeiou").find(source[0]) != absl::string_view::npos ? "an " : "a ";
  if (!run.metrics[static_cast<int>(Metric::kTtft)] || !run.metrics[static_cast<int>(Metric::kE2e)]) {
    return json->Error("", absl::StrCat(article, source, " without a mean TTFT and E2E"));
  }
  run.notes.push_back(absl::StrCat(file, ": ", article, source, ", its figures only: counts not given are "
                                   "not compared, a percentile it does not give has no error"));
  return run;
}

absl::StatusOr<Run> ReadRun(const std::string& path, const MetricNames& names) {
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) return absl::FailedPreconditionError(text.status().message());
  const std::string file = InputName(path);
  absl::string_view source = DetectSource(*text);
  if (source == "vLLM requests.jsonl") return ParseVllmRequests(*text, file);
  if (source == "BLIS results.json") return ParseBlisResults(*text, file);
  if (source == kVllmBench || source == kInferencePerf || source == kBlisMetrics) {
    return ParseSummary(*text, file, source);
  }
  std::vector<results::Results> inputs(1);
  Diagnostics diags(file);
  if (!ReadResults(*text, &inputs[0], &diags)) {
    return absl::InvalidArgumentError(absl::StrCat(
        diags.Render(), file,
        ": note: expected a measured run: vLLM requests.jsonl (a JSON object with "
        "'input_toks' a line), BLIS results.json (a JSON array), a summary (vLLM's benchmark "
        "result, inference-perf's summary_lifecycle_metrics.json, BLIS's metrics.json) or serq "
        "results\n"));
  }
  text->clear();
  return RunFromResults(inputs, {file}, names);
}

}  // namespace serq::compare
