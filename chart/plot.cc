#include "chart/plot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "stats/format.h"
#include "stats/merge.h"
#include "stats/series.h"

namespace serq::view {
namespace {

using report::ElementName;
using report::FormatShortest;

std::vector<std::pair<double, double>> Steps(const google::protobuf::RepeatedField<double>& time,
                                             const google::protobuf::RepeatedField<double>& v) {
  std::vector<std::pair<double, double>> points;
  for (int k = 0; k < time.size() && k < v.size(); ++k) points.push_back({time[k], v[k]});
  return points;
}

}  // namespace

ChartLine CdfLine(const std::string& label, std::vector<double> samples) {
  ChartLine line;
  line.steps = true;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  line.label = absl::StrCat(label, " (n=", n, ")");
  if (n == 0) return line;
  line.points.push_back({samples[0], 0});
  if (n <= kCdfPoints) {
    for (size_t r = 1; r <= n; ++r) {
      // Equal samples make one step.
      if (r < n && samples[r] == samples[r - 1]) continue;
      line.points.push_back({samples[r - 1], static_cast<double>(r) / n});
    }
    return line;
  }
  for (size_t k = 1; k <= kCdfPoints; ++k) {
    // Rank ceil(k n / K), computed exactly in integers.
    size_t r = (k * n + kCdfPoints - 1) / kCdfPoints;
    line.points.push_back({samples[r - 1], static_cast<double>(r) / n});
  }
  return line;
}

ChartLine SketchCdfLine(const std::string& label, const report::QuantileSketch& sketch) {
  ChartLine line;
  line.steps = true;
  const uint64_t n = sketch.count();
  line.label = absl::StrCat(label, " (n=", n, ", sketch)");
  if (n == 0) return line;
  std::vector<report::QuantileSketch::Bucket> buckets = sketch.Buckets();
  auto point = [&](double x, double y) {
    if (std::isfinite(x)) line.points.push_back({x, y});
  };
  point(sketch.min(), 0);
  const bool every = buckets.size() <= kCdfPoints;
  uint64_t seen = 0;
  uint64_t k = 1;  // the next rank ceil(k n / K) to reach
  for (const report::QuantileSketch::Bucket& b : buckets) {
    seen += b.count;
    uint64_t rank = (k * n + kCdfPoints - 1) / kCdfPoints;
    if (!every && seen < rank) continue;
    while (k <= kCdfPoints && (k * n + kCdfPoints - 1) / kCdfPoints <= seen) ++k;
    // The extremes are exact; every other bucket's value is within alpha.
    point(std::clamp(b.value, sketch.min(), sketch.max()), static_cast<double>(seen) / n);
  }
  return line;
}

PooledObservation PoolObservation(const std::vector<const results::Replication*>& replications,
                                  const std::string& name) {
  PooledObservation out;
  for (const results::Replication* r : replications) {
    for (const results::Observation& o : r->observation()) {
      if (o.name() != name) continue;
      out.samples.insert(out.samples.end(), o.sample().begin(), o.sample().end());
      if (o.sample().empty() && o.count() > 0) {
        // A summary (MergeResults checked its sketch).
        report::QuantileSketch s;
        (void)report::QuantileSketch::Read(o.sketch(), &s);
        if (!out.sketch) out.sketch.emplace(s.alpha());
        out.sketch->Merge(s);
      }
    }
  }
  if (out.sketch) {
    for (double x : out.samples) out.sketch->Add(x);
    std::vector<double>().swap(out.samples);
  }
  return out;
}

void LogAxisIfSpansDecades(Chart* chart) {
  chart->x_log = SpansDecades(chart->lines, 1);
  if (chart->x_log) absl::StrAppend(&chart->x_label, " (log scale)");
}

ChartLine ObservationCdfLine(const std::string& label, PooledObservation pooled) {
  if (pooled.sketch) return SketchCdfLine(label, *pooled.sketch);
  return CdfLine(label, std::move(pooled.samples));
}

std::vector<std::string> ObservationNames(
    const std::vector<const results::Replication*>& replications) {
  std::vector<std::string> names;
  for (const results::Replication* r : replications) {
    for (const results::Observation& o : r->observation()) names.push_back(o.name());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The charts of one declaration: a scalar's quantities on one chart; an
// array's one chart per quantity, a line per element (its elements'
// present and batch on one chart would be twice as many lines).
void DeclarationCharts(const std::string& title, const std::string& y_label, bool array,
                       std::vector<std::pair<std::string, std::vector<ChartLine>>> quantities,
                       const ChartLine* reference, std::vector<Chart>* charts) {
  auto chart = [&](const std::string& t) {
    Chart c;
    c.title = t;
    c.x_label = "time (s)";
    c.y_label = y_label;
    return c;
  };
  if (!array) {
    Chart c = chart(title);
    for (auto& [quantity, lines] : quantities) {
      for (ChartLine& l : lines) c.lines.push_back(std::move(l));
    }
    if (reference) c.lines.push_back(*reference);
    charts->push_back(std::move(c));
    return;
  }
  for (auto& [quantity, lines] : quantities) {
    if (lines.empty()) continue;
    Chart c = chart(absl::StrCat(title, ": ", quantity));
    for (ChartLine& l : lines) c.lines.push_back(std::move(l));
    if (reference && quantity == "used") c.lines.push_back(*reference);
    charts->push_back(std::move(c));
  }
}

std::vector<Chart> SeriesPlots(const results::Replication& rep) {
  const results::Series& s = rep.series();
  std::vector<Chart> charts;
  std::string which = absl::StrCat(" (replication ", rep.index(), ")");
  // Elements of one declaration are adjacent (declaration order, then index).
  for (int j = 0; j < s.stage_size();) {
    const results::StageSeries& first = s.stage(j);
    std::vector<ChartLine> present, batch, waiting;
    for (; j < s.stage_size() && s.stage(j).name() == first.name(); ++j) {
      const results::StageSeries& st = s.stage(j);
      std::string element = ElementName(st.name(), st.array(), st.index());
      present.push_back({absl::StrCat(element, " present"), Steps(s.time(), st.present()), true});
      if (!st.batch().empty()) {
        // A step stage's requests running (in the step) and waiting (the
        // rest of those present), as vLLM's scheduler counts them.
        batch.push_back({absl::StrCat(element, " running"), Steps(s.time(), st.batch()), true});
        std::vector<double> rest;
        for (int k = 0; k < st.present_size() && k < st.batch_size(); ++k) {
          rest.push_back(st.present(k) - st.batch(k));
        }
        waiting.push_back(
            {absl::StrCat(element, " waiting"),
             Steps(s.time(), google::protobuf::RepeatedField<double>(rest.begin(), rest.end())),
             true});
      }
    }
    DeclarationCharts(absl::StrCat("stage ", first.name(), " (", first.kind(), ")", which), "jobs",
                      first.array(),
                      {{"present", std::move(present)},
                       {"running", std::move(batch)},
                       {"waiting", std::move(waiting)}},
                      nullptr, &charts);
  }
  for (int j = 0; j < s.pool_size();) {
    const results::PoolSeries& first = s.pool(j);
    const results::PoolStats& stats = rep.pool(j);
    std::vector<ChartLine> used, loaded, evictable;
    for (; j < s.pool_size() && s.pool(j).name() == first.name(); ++j) {
      const results::PoolSeries& p = s.pool(j);
      std::string element = ElementName(p.name(), p.array(), p.index());
      used.push_back({absl::StrCat(element, " used"), Steps(s.time(), p.used()), true});
      loaded.push_back({absl::StrCat(element, " loaded"), Steps(s.time(), p.loaded()), true});
      if (!p.evictable().empty()) {
        evictable.push_back(
            {absl::StrCat(element, " evictable"), Steps(s.time(), p.evictable()), true});
      }
    }
    ChartLine cap;
    bool has_cap = std::isfinite(stats.cap()) && s.time_size() > 0;
    if (has_cap) {
      cap = {"cap", {{s.time(0), stats.cap()}, {s.time(s.time_size() - 1), stats.cap()}}};
      cap.dashed = true;
    }
    DeclarationCharts(
        absl::StrCat("pool ", first.name(), " (cap ", FormatShortest(stats.cap()), ")", which),
        "units", first.array(),
        {{"used", std::move(used)}, {"loaded", std::move(loaded)}, {"evictable", std::move(evictable)}},
        has_cap ? &cap : nullptr, &charts);
  }
  if (s.session_size() > 0) {
    Chart c;
    c.title = absl::StrCat("sessions in progress", which);
    c.x_label = "time (s)";
    c.y_label = "sessions";
    for (const results::SessionSeries& ss : s.session()) {
      c.lines.push_back({ss.name().empty() ? std::string("(unnamed)") : ss.name(),
                         Steps(s.time(), ss.in_progress()), true});
    }
    charts.push_back(std::move(c));
  }
  return charts;
}

absl::StatusOr<std::string> PlotResults(const std::vector<results::Results>& inputs,
                                        const std::vector<std::string>& files,
                                        const PlotOptions& options) {
  const std::vector<report::ResultsFile> named = report::NamedResults(inputs, files);
  const std::string file = named.empty() ? std::string("<results>") : named[0].name;
  if (options.kind == "series") {
    absl::StatusOr<std::vector<report::ReplicationSeries>> series =
        report::CollectSeries(inputs, files);
    if (!series.ok()) return series.status();
    const results::Replication* chosen = nullptr;
    for (const report::ReplicationSeries& r : *series) {
      if (!options.replication || r.index == *options.replication) {
        chosen = r.replication;
        break;
      }
    }
    if (chosen == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ": error: no replication ", *options.replication, " has a time series\n"));
    }
    return ChartDocument(SeriesPlots(*chosen), "");
  }
  absl::StatusOr<report::MergedResults> merged = report::MergeResults(named);
  if (!merged.ok()) return merged.status();
  std::vector<std::string> all = ObservationNames(merged->replications);
  std::vector<std::string> names = options.observations.empty() ? all : options.observations;
  std::string errors;
  for (const std::string& n : names) {
    if (!std::binary_search(all.begin(), all.end(), n)) {
      absl::StrAppend(&errors, file, ": error: no observation '", n, "' in the results",
                      all.empty() ? " (they have none)"
                                  : absl::StrCat(" (they have ", absl::StrJoin(all, ", "), ")"),
                      "\n");
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  std::vector<Chart> charts;
  if (!names.empty()) {
    Chart c;
    c.title = names.size() == 1 ? absl::StrCat("CDF of ", names[0])
                                : absl::StrCat("CDF of ", absl::StrJoin(names, ", "));
    c.x_label = names.size() == 1 ? names[0] : "value";
    c.y_label = "fraction <= x";
    c.y_max = 1;
    for (const std::string& n : names) {
      c.lines.push_back(ObservationCdfLine(n, PoolObservation(merged->replications, n)));
    }
    LogAxisIfSpansDecades(&c);
    charts.push_back(std::move(c));
  }
  return ChartDocument(charts, "the results have no observations");
}

}  // namespace serq::view
