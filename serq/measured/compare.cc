#include "serq/measured/compare.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "stats/stats.h"

namespace serq::compare {
namespace {

// What a source lacks, said once per metric that only the other side has.
std::string Lacks(const Run& run, Metric metric) {
  if (run.source == "vLLM requests.jsonl" && metric == Metric::kItl) {
    return "vLLM's request records hold the first and last token times only";
  }
  if (run.source == "BLIS results.json" && metric == Metric::kItl) {
    return "BLIS's results.json holds a mean gap per request, not the gaps";
  }
  // A summary gives the figures it gives: none of this metric.
  if (run.summary) return absl::StrCat("the ", run.source, " gives no ", MetricName(metric), " figures");
  const std::string& observation = run.observations[static_cast<int>(metric)];
  if (!observation.empty()) return absl::StrCat("no observation '", observation, "'");
  if (metric == Metric::kTpot) return "no request has more than one output token";
  return absl::StrCat("no ", MetricName(metric));
}

}  // namespace

absl::string_view FigureName(int figure) {
  static constexpr absl::string_view kNames[kFigures] = {"mean", "p50", "p90", "p95", "p99"};
  return kNames[figure];
}

Figures Summarize(const Distribution& d) {
  Figures f;
  f.n = d.count;
  f.values[0] = d.mean;
  if (d.percentiles) {
    for (int i = 0; i < kFigures - 1; ++i) f.values[i + 1] = (*d.percentiles)[i];
    return f;
  }
  if (d.sketch) {
    for (int i = 0; i < kFigures - 1; ++i) f.values[i + 1] = d.sketch->Quantile(kPercentiles[i] / 100);
    return f;
  }
  std::vector<double> samples = d.samples;
  std::vector<double> qs;
  for (double p : kPercentiles) qs.push_back(p / 100);
  std::vector<double> got = report::SelectQuantiles(absl::MakeSpan(samples), qs);
  for (int i = 0; i < kFigures - 1; ++i) f.values[i + 1] = got[i];
  return f;
}

std::optional<double> ErrorPercent(double measured, double simulated) {
  if (measured == 0 || !std::isfinite(measured) || !std::isfinite(simulated)) return std::nullopt;
  return (simulated - measured) / measured * 100;
}

absl::StatusOr<Comparison> Compare(const Run& measured, const Run& simulated,
                                   const CompareOptions& options) {
  Comparison c;
  c.measured_file = measured.file;
  c.measured_source = measured.source;
  c.simulated_file = simulated.file;
  c.simulated_source = simulated.source;
  c.measured_replications = measured.replications;
  c.simulated_replications = simulated.replications;
  c.measured_requests = measured.requests.size();
  c.summary = measured.summary || simulated.summary;
  c.notes = measured.notes;
  c.notes.insert(c.notes.end(), simulated.notes.begin(), simulated.notes.end());
  for (Metric metric : kAllMetrics) {
    const int m = static_cast<int>(metric);
    const std::optional<Distribution>& a = measured.metrics[m];
    const std::optional<Distribution>& b = simulated.metrics[m];
    if (!a && !b) continue;
    MetricComparison row;
    row.metric = metric;
    if (a) row.measured = Summarize(*a);
    if (b) row.simulated = Summarize(*b);
    if (a && b) {
      // Per replication: n_a / R_a against n_b / R_b, in integers (a
      // summary that does not say its count is not checked).
      const bool unknown = (a->percentiles && a->count == 0) || (b->percentiles && b->count == 0);
      if (!unknown && a->count * simulated.replications != b->count * measured.replications) {
        std::string counts = absl::StrCat(
            a->count, measured.replications > 1 ? absl::StrCat(" over ", measured.replications,
                                                               " replications")
                                                : std::string(),
            " measured, ", b->count,
            simulated.replications > 1 ? absl::StrCat(" over ", simulated.replications,
                                                      " replications")
                                       : std::string(),
            " simulated");
        if (!options.allow_count_mismatch) {
          // A measured side that skipped rows (requests with no token
          // time) says so where the simulated side counts more: a replay
          // of its file serves them.
          std::string skipped;
          if (measured.skipped_rows > 0 && b->count * measured.replications > a->count * simulated.replications) {
            skipped = absl::StrCat("; the measured run skipped ", measured.skipped_rows, " row",
                                   measured.skipped_rows == 1 ? "" : "s",
                                   " without first_token_ts or last_token_ts, which a replay of its file serves");
          }
          return absl::InvalidArgumentError(absl::StrCat(
              MetricName(metric), ": ", counts,
              ": the distributions compared must hold the same requests (did the simulated run "
              "finish every request? a replay must run until the last one is done)", skipped, "; ",
              options.count_mismatch_hint));
        }
        c.notes.push_back(absl::StrCat(MetricName(metric), ": counts differ (", counts, ")"));
      }
      for (int f = 0; f < kFigures; ++f) {
        row.error_percent[f] = ErrorPercent(row.measured->values[f], row.simulated->values[f]);
      }
    } else {
      const Run& without = a ? simulated : measured;
      c.notes.push_back(absl::StrCat(MetricName(metric), ": not compared, the ",
                                     a ? "simulated" : "measured", " run has none (",
                                     Lacks(without, metric), ")"));
    }
    for (const Run* run : {&measured, &simulated}) {
      if (run->metrics[m] && run->metrics[m]->sketch) {
        c.notes.push_back(absl::StrCat(
            MetricName(metric), ": the ", run == &measured ? "measured" : "simulated",
            " percentiles are from a quantile sketch (within ",
            run->metrics[m]->sketch->alpha() * 100, "% of the exact values)"));
      }
    }
    c.metrics.push_back(std::move(row));
  }
  return c;
}

}  // namespace serq::compare
