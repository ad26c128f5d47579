// The figures a sweep reports and a search decides by: `mean(x)`, `pNN(x)`
// (a quantile, NN in percent) and `rate(x)` (samples a second) of an
// observation x, each with the half-width of its 95% confidence interval,
// computed from merged results (serq-report's MergeResults and BuildReport,
// so a mean and a quantile are the very figures `serq-report` prints).
//
// The intervals (docs/cli.md §Figures):
// - mean: serq-report's (Student t over the replication means; one
//   replication with >= 100 samples: 10 batch means; else infinite).
// - pNN: the estimate is the quantile of every sample pooled, as in the
//   report; the interval serq-report's (Student t over the replications'
//   own quantiles), and with one replication of >= 100 samples, which
//   serq-report gives none, the same over 10 batches' quantiles, computed
//   here (else infinite).
// - rate: serq-report's samples a second of the measured window (n over
//   R (horizon - warmup)); its interval, which serq-report has not,
//   Student t over the replications' rates, computed here (one
//   replication: infinite).
// - goodput: serq-report's sum/s, the sum of the samples a second of the
//   window; of a 0/1 observation that says whether a session met its SLO
//   (`observe ok = ttft <= 0.2 && tpot <= 0.05;`), the sessions a second
//   that completed within it, as vLLM's benchmark defines goodput. Its
//   interval as rate's, over the replications' sums a second.
// - request_throughput, output_throughput, total_token_throughput (and
//   each _per_gpu): serq-report's Throughput (docs/report.md
//   §Throughput); the interval as rate's, over the replications' own.
#ifndef SERQ_SERQ_METRICS_H_
#define SERQ_SERQ_METRICS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/ir.pb.h"
#include "proto/report.pb.h"
#include "serq-report/throughput.h"
#include "stats/merge.h"

namespace serq {

struct Metric {
  enum Kind { kMean, kQuantile, kRate, kGoodput, kThroughput };
  Kind kind = kMean;
  // kThroughput (of no observation: `observation` is empty): which one.
  report::ThroughputFigure throughput;
  double percent = 0;       // kQuantile: 0 < percent < 100
  std::string observation;  // the observation's name
  std::string label;        // as the user writes it: "p99(ttft)"
};

// One metric: "mean(ttft)", "p99(ttft)", "p99.9(ttft)", "rate(e2e)",
// "goodput(ok)".
absl::StatusOr<Metric> ParseMetric(absl::string_view text);
// A comma-separated list of metrics; none twice.
absl::StatusOr<std::vector<Metric>> ParseMetrics(absl::string_view list);

// The observations a linked program records, sorted, each once: every
// `observe NAME;` and every decode run's per-token `observe NAME`, as
// serq-sim compiles them (serq-sim/model), which writes each of them into
// every replication's results, whether it got a sample or not. So a
// figure can be checked against the program before anything runs.
std::vector<std::string> ProgramObservations(const ir::Program& program);

// OK when every metric's observation is one of `observations`; else
// InvalidArgument naming the first that is not and the ones there are:
// "the program observes no 'ttf' (it observes 'e2e', 'ttft')".
absl::Status CheckObserved(const std::vector<Metric>& metrics,
                           const std::vector<std::string>& observations);

// A metric's value at one point. Undefined (no sample) when !defined.
struct Figure {
  bool defined = false;
  double value = 0;
  double half_width = 0;  // may be +inf
};

// A figure and its half-width as a table prints them, each to the decimal
// its interval supports: the half-width's two leading digits, and the
// figure to the same place (1.87 ± 9.88 prints "1.9" and "9.9"), never more
// than 4 decimals. A half-width of 0 (every replication agreed) or an
// infinite one says nothing of the digits: 4 decimals. {"-", "-"} when
// the figure is undefined.
std::pair<std::string, std::string> FigureCells(const Figure& f);
// The decimals of such a cell: two significant digits of `half_width`
// (from 0 to 4), or `otherwise` where it says nothing (0, inf, NaN).
int FigureDecimals(double half_width, int otherwise);

// Every metric of `metrics` at the point `merged` holds. An observation that
// no replication has is an error (NotFound) naming the ones there are.
absl::StatusOr<std::vector<Figure>> ComputeFigures(const report::MergedResults& merged,
                                                   const std::vector<Metric>& metrics);

// Whether a point's runs settled, which every verdict of a sweep or a
// search takes into account (docs/cli.md §Overload): serq-report's
// steady-state verdict over its replications, and the share of the
// sessions the window saw that were still in progress at its end.
struct Health {
  report::SteadyState::Verdict verdict = report::SteadyState::UNASSESSED;
  double in_progress_share = 0;  // in progress at the horizon / (ended in the window + those)
  uint64_t in_progress = 0;      // summed over the replications
  uint64_t seen = 0;
  uint32_t replications = 0;  // judged
  uint32_t flagged = 0;       // of them judged BACKLOGGED or OVERLOADED
};
Health ComputeHealth(const report::MergedResults& merged);
// "STABLE", "BACKLOGGED", "OVERLOADED", "UNSETTLED", "UNASSESSED".
std::string VerdictWord(report::SteadyState::Verdict verdict);
// Not judged unsettled: STABLE, or UNASSESSED (results that cannot say).
bool Settled(report::SteadyState::Verdict verdict);

// The default metrics: mean and p99 of every observation, in name order,
// then vLLM's throughputs that the results give (and per GPU).
std::vector<Metric> DefaultMetrics(const report::MergedResults& merged);

}  // namespace serq

#endif  // SERQ_SERQ_METRICS_H_
