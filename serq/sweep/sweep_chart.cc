#include "serq/sweep/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chart/chart.h"
#include "serq/sweep/grid.h"

namespace serq {
namespace {

int AxisSize(const sweep::Axis& a) { return a.word_size() > 0 ? a.word_size() : a.value_size(); }

}  // namespace

absl::StatusOr<std::string> SweepChart(const SweepTable& table, const std::string& metric,
                                       const std::string& x, const std::string& lines) {
  const auto& axes = table.plan.axis();
  int m = -1;
  for (size_t i = 0; i < table.metrics.size(); ++i) {
    if (table.metrics[i].label == metric) m = static_cast<int>(i);
  }
  if (m < 0) return absl::InvalidArgumentError(absl::StrCat("--chart: '", metric, "' is not among the figures"));
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
      if (axes[i].word_size() == 0 && AxisSize(axes[i]) > 1 && axes[i].name() != lines) xi = i;
    }
    if (xi < 0) return absl::InvalidArgumentError("--chart: the sweep has no numeric parameter of several values");
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
  for (int i = 0; i < axes.size(); ++i) {
    if (i != xi && i != li && AxisSize(axes[i]) > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--chart: '", axes[i].name(), "' has several values too; a chart has one line per value of "
          "one parameter (--chart-lines), so sweep the others at one value"));
    }
  }
  view::Chart chart;
  chart.title = absl::StrCat(metric, " against ", axes[xi].name(), ", ", table.plan.program());
  chart.x_label = axes[xi].name();
  chart.y_label = absl::StrCat(metric, " (bars: 95% interval)");
  // Lines in the axis's order, points in x's (the plan's order); each
  // point a dot with its interval's bar.
  int nlines = li < 0 ? 1 : AxisSize(axes[li]);
  struct Point {
    double x, y, half_width;
    bool unsettled;
  };
  bool any_unsettled = false;
  std::vector<std::vector<Point>> points(nlines);
  chart.lines.resize(nlines);
  for (const SweepPoint& p : table.points) {
    int line = 0;
    if (li >= 0) {
      const sweep::Axis& a = axes[li];
      for (int k = 0; k < AxisSize(a); ++k) {
        bool same = a.word_size() > 0 ? a.word(k) == p.settings[li].word() : a.value(k) == p.settings[li].value();
        if (same) line = k;
      }
      chart.lines[line].label = absl::StrCat(a.name(), "=", SettingText(p.settings[li]));
    }
    if (p.status != SweepPoint::kMerged) continue;  // failed or missing: no figure
    const Figure& f = p.figures[m];
    if (!f.defined) continue;
    const bool unsettled = !Settled(p.health.verdict);
    any_unsettled |= unsettled;
    points[line].push_back({p.settings[xi].value(), f.value, f.half_width, unsettled});
  }
  for (int k = 0; k < nlines; ++k) {
    std::stable_sort(points[k].begin(), points[k].end(),
                     [](const Point& a, const Point& b) { return a.x < b.x; });
    view::ChartLine& l = chart.lines[k];
    l.marks = true;
    for (const Point& p : points[k]) {
      l.points.push_back({p.x, p.y});
      // An undefined interval (NaN) is drawn as an unbounded one.
      l.bars.push_back(std::isnan(p.half_width) ? INFINITY : p.half_width);
      l.ringed.push_back(p.unsettled);
    }
  }
  // One overloaded point ten times the others would squash them to the
  // axis: a log y axis, which the label says (docs/cli.md §Charts).
  if (view::SpansDecadesY(chart.lines, 1)) {
    chart.y_log = true;
    absl::StrAppend(&chart.y_label, " (log scale)");
  }
  // Its figures are of completed work only: say so where it is drawn.
  if (any_unsettled) absl::StrAppend(&chart.title, " (red ring: not in a steady state)");
  return view::ChartDocument({chart}, "");
}

}  // namespace serq
