#include "serq/sweep/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chart/chart.h"
#include "serq-report/html_tables.h"
#include "serq/sweep/grid.h"
#include "stats/format.h"

namespace serq {
namespace {

int AxisSize(const sweep::Axis& a) { return a.word_size() > 0 ? a.word_size() : a.value_size(); }

absl::string_view OpText(Comparison::Op op) {
  switch (op) {
    case Comparison::kLe: return "<=";
    case Comparison::kLt: return "<";
    case Comparison::kGe: return ">=";
    case Comparison::kGt: return ">";
  }
  return "?";
}

}  // namespace

ChartUnit MetricUnit(const Metric& m, double top, const std::set<std::string>& times) {
  switch (m.kind) {
    case Metric::kMean:
    case Metric::kQuantile:
      if (!report::IsLatency(m.observation) && !times.count(m.observation)) return {};
      return top < 1 ? ChartUnit{1000, "ms"} : ChartUnit{1, "s"};
    case Metric::kRate:
    case Metric::kGoodput: return {1, "/s"};
    case Metric::kThroughput: {
      std::string unit = m.throughput.kind == report::ThroughputKind::kRequests ? "requests/s" : "tokens/s";
      if (m.throughput.per_gpu) absl::StrAppend(&unit, " per GPU");
      return {1, unit};
    }
  }
  return {};
}

std::string WithChartUnit(const std::string& label, const ChartUnit& unit) {
  return unit.unit.empty() ? label : absl::StrCat(label, " (", unit.unit, ")");
}

std::vector<view::ChartRule> BoundRules(const std::vector<Comparison>& bounds, const Metric& metric,
                                        const ChartUnit& unit) {
  std::vector<view::ChartRule> rules;
  for (const Comparison& c : bounds) {
    if (c.metric.label != metric.label) continue;
    std::string label = absl::StrCat(c.metric.label, " ", OpText(c.op), " ", report::FormatShortest(c.bound));
    if (unit.scale != 1) {
      absl::StrAppend(&label, " (", report::FormatShortest(c.bound * unit.scale), " ", unit.unit, ")");
    }
    rules.push_back({c.bound * unit.scale, label});
  }
  return rules;
}

absl::StatusOr<ChartAxisChoice> ChartAxes(const sweep::Plan& plan, const std::string& x, const std::string& lines) {
  const auto& axes = plan.axis();
  // An infinite value (`-D Cap=1,inf`) has no place on an x axis; as a
  // line's value it is a label like any other.
  auto placeable = [](const sweep::Axis& a) {
    return std::all_of(a.value().begin(), a.value().end(), [](double v) { return std::isfinite(v); });
  };
  auto find = [&](const std::string& name) {
    for (int i = 0; i < axes.size(); ++i) {
      if (axes[i].name() == name) return i;
    }
    return -1;
  };
  int xi = -1, li = -1;
  if (!x.empty()) {
    xi = find(x);
    if (xi < 0) return absl::InvalidArgumentError(absl::StrCat("--chart-x: the sweep has no parameter '", x, "'"));
    if (axes[xi].word_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat("--chart-x: '", x, "' is not a number: give it to --chart-lines"));
    }
  } else {
    for (int i = 0; i < axes.size() && xi < 0; ++i) {
      if (axes[i].word_size() == 0 && AxisSize(axes[i]) > 1 && axes[i].name() != lines && placeable(axes[i])) {
        xi = i;
      }
    }
    if (xi < 0) {
      const bool unplaced = std::any_of(axes.begin(), axes.end(), [&](const sweep::Axis& a) { return !placeable(a); });
      return absl::InvalidArgumentError(absl::StrCat("--chart: the sweep has no numeric parameter of several values",
                                                     unplaced ? " that an x axis places (one of infinite values does not)"
                                                              : ""));
    }
  }
  if (!lines.empty()) {
    li = find(lines);
    if (li < 0) return absl::InvalidArgumentError(absl::StrCat("--chart-lines: the sweep has no parameter '", lines, "'"));
    if (li == xi) return absl::InvalidArgumentError("--chart-lines: the same parameter as --chart-x");
  } else {
    for (int i = 0; i < axes.size() && li < 0; ++i) {
      if (i != xi && AxisSize(axes[i]) > 1) li = i;
    }
  }
  if (!placeable(axes[xi])) {
    return absl::InvalidArgumentError(absl::StrCat("--chart-x: '", axes[xi].name(), "' has an infinite value, which "
                                                   "no x axis places: chart it by its lines (--chart-lines) or sweep it "
                                                   "without"));
  }
  for (int i = 0; i < axes.size(); ++i) {
    if (i != xi && i != li && AxisSize(axes[i]) > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--chart: '", axes[i].name(), "' has several values too; a chart has one line per value of "
          "one parameter (--chart-lines), so sweep the others at one value"));
    }
  }
  return ChartAxisChoice{xi, li};
}

absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const std::string& x, const std::string& lines) {
  SweepChartOptions options;
  options.x = x;
  options.lines = lines;
  return SweepChart(table, metric, options);
}

absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const SweepChartOptions& options) {
  const std::string& x = options.x;
  const std::string& lines = options.lines;
  const auto& axes = table.plan.axis();
  int m = -1;
  for (size_t i = 0; i < table.metrics.size(); ++i) {
    if (table.metrics[i].label == metric) m = static_cast<int>(i);
  }
  if (m < 0) return absl::InvalidArgumentError(absl::StrCat("--chart: '", metric, "' is not among the figures"));
  absl::StatusOr<ChartAxisChoice> chosen = ChartAxes(table.plan, x, lines);
  if (!chosen.ok()) return chosen.status();
  const int xi = chosen->x, li = chosen->lines;
  view::Chart chart;
  chart.title = absl::StrCat(metric, " against ", axes[xi].name(), ", ", PlanPrograms(table.plan));
  chart.x_label = axes[xi].name();
  // Lines in the axis's order (each program's in turn, in a sweep of
  // several), points in x's (the plan's order); each point a dot with its
  // interval's bar.
  const int per_program = li < 0 ? 1 : AxisSize(axes[li]);
  const int programs = std::max(1, table.plan.programs_size());
  const int nlines = per_program * programs;
  struct Point {
    double x, y, half_width;
    bool unsettled;
  };
  bool any_unsettled = false;
  std::vector<std::vector<Point>> points(nlines);
  std::vector<bool> across(nlines, false);  // a program without the x param: one level across
  chart.lines.resize(nlines);
  // Each program by its file's name in the legend (`colocated.sq`), or
  // its path as given when two share a name.
  std::map<std::string, int> program_index;
  std::map<std::string, std::string> program_label;
  std::map<std::string, int> name_count;
  for (int p = 0; p < table.plan.programs_size(); ++p) {
    const std::string& path = table.plan.programs(p).path();
    program_index[path] = p;
    ++name_count[std::filesystem::path(path).filename().string()];
  }
  for (const auto& [path, p] : program_index) {
    std::string name = std::filesystem::path(path).filename().string();
    program_label[path] = name_count[name] == 1 ? name : path;
  }
  for (const SweepPoint& p : table.points) {
    int line = 0;
    std::string label;
    if (!p.program.empty()) {
      line = program_index[p.program] * per_program;
      label = program_label[p.program];
    }
    if (li >= 0 && !p.settings[li].lacked()) {
      const sweep::Axis& a = axes[li];
      for (int k = 0; k < AxisSize(a); ++k) {
        bool same = a.word_size() > 0 ? a.word(k) == p.settings[li].word() : a.value(k) == p.settings[li].value();
        if (same) line += k;
      }
      absl::StrAppend(&label, label.empty() ? "" : ", ", a.name(), "=", SettingText(p.settings[li]));
    }
    if (p.settings[xi].lacked()) {
      across[line] = true;
      absl::StrAppend(&label, " (no ", axes[xi].name(), ")");
    }
    chart.lines[line].label = label;
    if (p.status != SweepPoint::kMerged) continue;  // failed or missing: no figure
    const Figure& f = p.figures[m];
    if (!f.defined) continue;
    const bool unsettled = !Settled(p.health.verdict);
    any_unsettled |= unsettled;
    points[line].push_back({p.settings[xi].lacked() ? 0 : p.settings[xi].value(), f.value, f.half_width, unsettled});
  }
  // The unit, from the largest value drawn.
  double top = 0;
  for (const auto& line : points) {
    for (const Point& p : line) top = std::max(top, std::fabs(p.y));
  }
  const ChartUnit unit = MetricUnit(table.metrics[m], top, table.times);
  chart.y_label = absl::StrCat(WithChartUnit(metric, unit), " (bars: 95% interval)");
  // The x range of the points that have x: a program without it spans it.
  double xlo = INFINITY, xhi = -INFINITY;
  for (int k = 0; k < nlines; ++k) {
    if (across[k]) continue;
    for (const Point& p : points[k]) xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
  }
  for (int k = 0; k < nlines; ++k) {
    std::stable_sort(points[k].begin(), points[k].end(),
                     [](const Point& a, const Point& b) { return a.x < b.x; });
    view::ChartLine& l = chart.lines[k];
    if (across[k]) {
      // One figure, the same at every x: a dashed level over the others'
      // range, no marks.
      l.dashed = true;
      if (!points[k].empty() && xhi >= xlo) {
        const double y = points[k][0].y * unit.scale;
        l.points = {{xlo, y}, {xhi, y}};
      }
      continue;
    }
    l.marks = true;
    for (const Point& p : points[k]) {
      l.points.push_back({p.x, p.y * unit.scale});
      // An undefined interval (NaN) is drawn as an unbounded one.
      l.bars.push_back(std::isnan(p.half_width) ? INFINITY : p.half_width * unit.scale);
      l.ringed.push_back(p.unsettled);
    }
  }
  if (table.plan.programs_size() > 0) {
    // Several programs: a program's lines for values it never had go.
    std::vector<view::ChartLine> kept;
    for (view::ChartLine& l : chart.lines) {
      if (!l.label.empty()) kept.push_back(std::move(l));
    }
    chart.lines = std::move(kept);
  }
  chart.rules = BoundRules(options.bounds, table.metrics[m], unit);
  // One overloaded point ten times the others would squash them to the
  // axis: a log y axis, which the label says (docs/cli.md §Charts), unless
  // --log-y says otherwise.
  if (options.log_y.value_or(view::SpansDecadesY(chart.lines, 1))) {
    chart.y_log = true;
    absl::StrAppend(&chart.y_label, " (log scale)");
  }
  // Its figures are of completed work only: say so where it is drawn.
  if (any_unsettled) absl::StrAppend(&chart.title, " (red ring: not in a steady state)");
  return view::ChartDocument({chart}, "");
}

}  // namespace serq
