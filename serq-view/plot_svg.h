// Line plots as SVG, for the pictures of results (serq-view --plot, the
// html report): axes with round ticks, lines (straight or as steps), a
// legend, a title. As the station row: whole-pixel axes, coordinates with
// one decimal, attributes only (no CSS), a monospace font whose widths are
// estimated from the count of characters, so the same chart is the same
// bytes and renders alike in browsers and librsvg. docs/view.md §Plots.
#ifndef SERQ_VIEW_PLOT_SVG_H_
#define SERQ_VIEW_PLOT_SVG_H_

#include <string>
#include <utility>
#include <vector>

namespace serq::view {

struct PlotLine {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
  bool steps = false;   // hold each y until the next x (a sampled state, an empirical CDF)
  bool dashed = false;  // a reference line (a pool's cap)
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<PlotLine> lines;
  // The y axis starts at 0 unless the data go below; with `y_max` > 0 it
  // ends there (a CDF's 1).
  double y_max = 0;
};

// The size of one chart.
inline constexpr int kPlotWidth = 760;
inline constexpr int kPlotHeight = 280;

// One chart as an SVG group at (x, y), kPlotWidth by kPlotHeight.
std::string PlotGroup(const Plot& chart, int x, int y);

// A whole SVG document of `charts` one under the other (an empty list: a
// document that says there is nothing to draw, `empty`).
std::string PlotDocument(const std::vector<Plot>& charts, const std::string& empty);

// Round ticks covering [lo, hi]: 1, 2 or 5 times a power of ten apart,
// about `target` of them and at least `min_step` apart; the first at or
// below lo, the last at or above hi.
std::vector<double> NiceTicks(double lo, double hi, int target, double min_step = 0);

// A tick's label: the shortest of %.{0..6}f that shows the step between
// ticks (so 0.25, 0.5, 0.75 and 1000, 2000 read as such), or %g for very
// large or small values.
std::string TickLabel(double value, double step);

}  // namespace serq::view

#endif  // SERQ_VIEW_PLOT_SVG_H_
