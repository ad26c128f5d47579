#include "chart/interval_plots.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "stats/format.h"

namespace serq::view {
namespace {

using google::protobuf::RepeatedField;

// Interval k's value v[k] held from time[k-1] to time[k] (k >= 1): a step
// line whose last point repeats the last value at the last time, so the
// last interval is drawn to its end.
std::vector<std::pair<double, double>> IntervalSteps(const RepeatedField<double>& time,
                                                     const std::vector<double>& v) {
  std::vector<std::pair<double, double>> points;
  const int n = std::min<int>(time.size(), static_cast<int>(v.size()));
  for (int k = 1; k < n; ++k) points.push_back({time[k - 1], v[k]});
  if (n >= 2) points.push_back({time[n - 1], v[n - 1]});
  return points;
}

}  // namespace

std::vector<Chart> IntervalPlots(const results::Replication& rep, double dt,
                                 const std::function<bool(absl::string_view)>& is_latency) {
  std::vector<Chart> charts;
  const results::Series& s = rep.series();
  const int n = s.time_size();
  if (!(dt > 0) || n < 2) return charts;
  std::string which = absl::StrCat(" (replication ", rep.index(), ")");

  // Token throughput over every session (as the report's throughput).
  std::vector<double> output(n, 0), total(n, 0);
  bool tokens = false;
  for (const results::SessionSeries& ss : s.session()) {
    if (ss.prefills_size() != n || ss.prefill_tokens_size() != n || ss.decode_tokens_size() != n) {
      continue;
    }
    tokens = true;
    for (int k = 0; k < n; ++k) {
      double out = ss.decode_tokens(k) + ss.prefills(k);
      output[k] += out / dt;
      total[k] += (out + ss.prefill_tokens(k)) / dt;
    }
  }
  if (tokens) {
    Chart c;
    c.title = absl::StrCat("token throughput", which);
    c.x_label = "time (s)";
    c.y_label = "tokens/s";
    c.lines.push_back({"output tokens/s", IntervalSteps(s.time(), output), true});
    c.lines.push_back({"total tokens/s", IntervalSteps(s.time(), total), true});
    charts.push_back(std::move(c));
  }

  Chart preemptions;
  preemptions.title = absl::StrCat("preemptions", which);
  preemptions.x_label = "time (s)";
  preemptions.y_label = "preemptions/s";
  for (const results::StageSeries& st : s.stage()) {
    if (st.preempted_size() != n) continue;
    std::vector<double> rate(n);
    bool any = false;
    for (int k = 0; k < n; ++k) {
      rate[k] = st.preempted(k) / dt;
      any |= st.preempted(k) > 0;
    }
    if (!any) continue;
    preemptions.lines.push_back({report::ElementName(st.name(), st.array(), st.index()),
                                 IntervalSteps(s.time(), rate), true});
  }
  if (!preemptions.lines.empty()) charts.push_back(std::move(preemptions));

  for (const results::ObservationSeries& o : s.observation()) {
    if (o.count_size() != n || o.p50_size() != n || o.p90_size() != n || o.p99_size() != n) {
      continue;
    }
    double top = 0;
    bool any = false;
    for (int k = 1; k < n; ++k) {
      if (o.count(k) == 0) continue;
      any = true;
      top = std::max(top, std::fabs(o.p99(k)));
    }
    if (!any) continue;
    const bool latency = is_latency(o.name());
    const double scale = latency && top < 1 ? 1000 : 1;
    Chart c;
    c.title = absl::StrCat(o.name(), " percentiles of each ", report::FormatShortest(dt),
                           " s interval", which);
    c.x_label = "time (s)";
    c.y_label = latency ? absl::StrCat(o.name(), scale == 1000 ? " (ms)" : " (s)") : o.name();
    // An interval without samples has no percentile: a gap (not drawn).
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    auto line = [&](const char* label, const RepeatedField<double>& q) {
      std::vector<double> v(n);
      for (int k = 0; k < n; ++k) v[k] = o.count(k) > 0 ? q[k] * scale : kNone;
      return ChartLine{label, IntervalSteps(s.time(), v), true};
    };
    c.lines.push_back(line("p50", o.p50()));
    c.lines.push_back(line("p90", o.p90()));
    c.lines.push_back(line("p99", o.p99()));
    charts.push_back(std::move(c));
  }
  return charts;
}

}  // namespace serq::view
