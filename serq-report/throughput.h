// The report's throughputs as vLLM's `bench serve` prints them (requests,
// output tokens and all tokens a second), and each per GPU of the
// deployment (docs/report.md §Throughput).
#ifndef SERQ_REPORT_THROUGHPUT_H_
#define SERQ_REPORT_THROUGHPUT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "proto/report.pb.h"
#include "stats/merge.h"

namespace serq::report {

// Sets report->throughput from the merged replications' window counts
// (sessions ended, prefill and decode runs completed) and the results'
// `gpus`. Needs the sessions already added (their window counts).
void AddThroughput(const MergedResults& merged, Report* report);

// The text and md line: `throughput: 29.6433 requests/s, ...`; empty
// when there is nothing to say (no window counts).
std::string ThroughputLine(const Report& report);

// One throughput as a sweep's figure: `request_throughput`,
// `output_throughput`, `total_token_throughput` (vLLM's JSON keys), each
// also `..._per_gpu`.
enum class ThroughputKind { kRequests, kOutputTokens, kTotalTokens };
struct ThroughputFigure {
  ThroughputKind kind = ThroughputKind::kRequests;
  bool per_gpu = false;
};
// The figure a word names; nullopt when it names none.
std::optional<ThroughputFigure> ParseThroughputFigure(absl::string_view word);
// The words ParseThroughputFigure reads, for messages.
std::string ThroughputFigureWords();
// Its value in each replication (its own window), for the interval across
// them; nullopt when undefined there (no window counts, no token, or per
// GPU without `gpus`).
std::vector<std::optional<double>> ThroughputByReplication(const MergedResults& merged,
                                                           ThroughputFigure figure);
// Its value over every replication, as the report's Throughput has it.
std::optional<double> ThroughputValue(const Report& report, ThroughputFigure figure);

}  // namespace serq::report

#endif  // SERQ_REPORT_THROUGHPUT_H_
