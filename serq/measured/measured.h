// The runs `serq compare` puts side by side, read into one shape: a
// measured run (vLLM's request records, BLIS's results.json, or serq
// results) or a simulated one (serq results), each as the distributions
// of TTFT, TPOT, ITL and E2E it holds, in seconds. `serq fit` (issue 25)
// reads its measured runs with the same calls, in process.
//
// Metrics, as vLLM defines them (LLMServingSim's bench/core/validate.py):
//   TTFT = first token - arrival (queueing included)
//   TPOT = (last token - first token) / (output tokens - 1), for requests
//          with more than one output token (the others have none)
//   ITL  = each gap between consecutive tokens of a request, all pooled
//   E2E  = last token - arrival
// What each source holds (docs/cli.md §serq compare):
//   vLLM requests.jsonl: TTFT, TPOT, E2E per request (no ITL: only the
//     first and last token times are recorded). The arrival is the field
//     vllm_record.h's ArrivalClock picks (queued_ts for vLLM 0.19.0).
//   BLIS results.json: TTFT (ttft_us), E2E (e2e_us), and TPOT as
//     (e2e_us - ttft_us) / (output_tokens - 1) (no ITL; itl_mean_us, a
//     request's mean gap, which excludes BLIS's post-token overhead, is
//     kept per request but not compared).
//   serq results: the program's observations, by name (ttft, tpot, itl,
//     e2e unless MetricNames says otherwise), every replication pooled.
#ifndef SERQ_SERQ_MEASURED_H_
#define SERQ_SERQ_MEASURED_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/results.pb.h"
#include "stats/sketch.h"

namespace serq::compare {

enum class Metric { kTtft = 0, kTpot = 1, kItl = 2, kE2e = 3 };
inline constexpr int kMetrics = 4;
inline constexpr Metric kAllMetrics[kMetrics] = {Metric::kTtft, Metric::kTpot, Metric::kItl,
                                                 Metric::kE2e};

// "ttft", "tpot", "itl", "e2e": the metric's name and serq's default
// observation name for it.
absl::string_view MetricName(Metric metric);

// One metric's values over a run, in seconds.
struct Distribution {
  uint64_t count = 0;
  double mean = 0;
  // Every value, in no particular order; or, when serq kept only a summary
  // (more than 2^20 samples a replication), empty and `sketch` set: every
  // value in one quantile sketch (quantiles within its alpha).
  std::vector<double> samples;
  std::optional<report::QuantileSketch> sketch;
  // A run's summary figures only (vLLM's benchmark result, inference-perf's
  // summary, BLIS's metrics.json): no values, the percentiles it gives
  // (p50, p90, p95, p99; NaN where it gives none), and `count` 0 where it
  // does not say how many values it summarises.
  std::optional<std::array<double, 4>> percentiles;
};

// One request of a measured run, in seconds (NaN: not known).
struct MeasuredRequest {
  double input_tokens = 0;
  double output_tokens = 0;
  double arrival = 0;  // since the earliest arrival (vLLM); NaN for BLIS (not in results.json)
  double ttft = 0;
  double tpot = 0;      // NaN when output_tokens <= 1
  double e2e = 0;
  double itl_mean = 0;  // BLIS's itl_mean_us / 10^6 when given, else NaN
};

// A run, measured or simulated.
struct Run {
  std::string file;    // as named on the command line
  std::string source;  // "vLLM requests.jsonl", "BLIS results.json", "serq results" or a summary's
  bool summary = false;  // figures only: no requests, no values
  uint32_t replications = 1;  // serq results: pooled in `metrics`
  // vLLM and BLIS: one per usable row, in file order (empty for serq).
  std::vector<MeasuredRequest> requests;
  // Indexed by Metric; absent when the run has no such figure.
  std::array<std::optional<Distribution>, kMetrics> metrics;
  // serq results: the observation each metric is read from (or would be).
  std::array<std::string, kMetrics> observations;
  // Said beside the figures: rows skipped and why.
  std::vector<std::string> notes;
  // vLLM: the rows skipped for want of a token time (a replay of the same
  // file serves them, so a simulated side counts them where this does not).
  uint64_t skipped_rows = 0;
};

// The observation names of serq results that hold each metric.
struct MetricNames {
  std::array<std::string, kMetrics> names = {"ttft", "tpot", "itl", "e2e"};
  // Given on the command line: then a missing observation is an error,
  // not a metric the run lacks.
  std::array<bool, kMetrics> given = {false, false, false, false};
};

// Parses `text` as "ttft=NAME,e2e=NAME" (serq compare --names) into `names`.
absl::Status ParseMetricNames(absl::string_view text, MetricNames* names);

// A measured file is at most this many requests.
inline constexpr size_t kMaxRequests = 10000000;

// vLLM's request records (requests.jsonl), named `file` in errors. Rows
// without first_token_ts or last_token_ts are skipped, as the bench skips
// them (a note says how many); no usable row is an error. Errors:
// InvalidArgument, "file:LINE: error: message".
absl::StatusOr<Run> ParseVllmRequests(absl::string_view text, const std::string& file);

// BLIS's results.json: a JSON array of objects with request_id, ttft_us,
// e2e_us, input_tokens, output_tokens, optional itl_mean_us (other fields
// ignored). Each element is parsed on its own (at most 1 MB), so a file of
// millions of requests takes memory for their figures only.
absl::StatusOr<Run> ParseBlisResults(absl::string_view text, const std::string& file);

// serq results (one or more files of one program, merged as serq-report
// merges them; `files` names them in errors), the metrics read from the
// observations `names` says. Missing ttft or e2e, or a metric whose name
// was given, is an error.
absl::StatusOr<Run> RunFromResults(const std::vector<results::Results>& inputs,
                                   const std::vector<std::string>& files,
                                   const MetricNames& names);

// A summary's figures (`source` one of the three summaries DetectSource
// names), named `file` in errors: InvalidArgument naming the field.
absl::StatusOr<Run> ParseSummary(absl::string_view text, const std::string& file,
                                 absl::string_view source);

// Which `text` is: "vLLM requests.jsonl" (its first non-blank line a JSON
// object with input_toks), "BLIS results.json" (a JSON array), a summary
// ("vLLM benchmark result" with a key "mean_ttft_ms", "inference-perf
// summary" with "successes" and "time_to_first_token", "BLIS metrics.json"
// with "ttft_mean_ms"), else "serq results".
absl::string_view DetectSource(absl::string_view text);

// Reads the file at `path` ("-": stdin) in the format DetectSource says.
// A file that cannot be read is NotFound/FailedPrecondition (misuse);
// one that is not what it should be, InvalidArgument.
absl::StatusOr<Run> ReadRun(const std::string& path, const MetricNames& names);

}  // namespace serq::compare

#endif  // SERQ_SERQ_MEASURED_H_
