// serq's one SVG chart library: line charts with axes of round ticks, a
// grid, lines (straight or as steps, solid or dashed), marks with the bars
// of their intervals, a legend and a title. What serq-view --plot and the
// html report draw (the CDF of observations, time series: plot.h) and what
// serq sweep --chart draws (a figure against a parameter with its 95%
// intervals: serq/sweep/sweep_chart.h). As the station row: whole-pixel axes,
// coordinates with one decimal, attributes only (no CSS), a monospace font
// whose widths are estimated from the count of characters, so the same
// chart is the same bytes and renders alike in browsers and librsvg.
// docs/view.md §Charts.
#ifndef SERQ_CHART_CHART_H_
#define SERQ_CHART_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace serq::view {

struct ChartLine {
  std::string label;  // in the legend ("": no entry, as for a chart's one line)
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending; non-finite ones not drawn
  bool steps = false;   // hold each y until the next x (a sampled state, an empirical CDF)
  bool dashed = false;  // a reference line (a pool's cap)
  bool marks = false;   // a dot at each point
  // With marks, one per point (or none): the half-width of the point's
  // interval, drawn as a bar over y ± h with caps; +inf: no bar and a
  // hollow dot (the interval is unbounded); 0: no bar.
  std::vector<double> bars;
  // With marks, one per point (or none): true draws a red ring around the
  // point (a sweep's point that is not in a steady state).
  std::vector<bool> ringed;
};

// A labelled horizontal line across the plot at `y`: a bound the figure
// is held to (an SLO such as `p99(ttft) <= 2`), drawn dashed in red with
// its label at the right end, over the grid and under the lines.
struct ChartRule {
  double y = 0;
  std::string label;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartLine> lines;
  // The y axis starts at 0 unless the data (or a bar's low end) go below;
  // with `y_max` > 0 it ends there (a CDF's 1).
  double y_max = 0;
  // A logarithmic x axis, ticks at the powers of ten around the data (a
  // latency spanning decades); points with x <= 0 are off it, not drawn.
  bool x_log = false;
  // A logarithmic y axis likewise (a sweep's figure where one overloaded
  // point is ten times the others): points with y <= 0 are off it, and a
  // bar's low end below the axis is cut there.
  bool y_log = false;
  // Bounds drawn across the plot; the y axis reaches each (on a log axis,
  // each above 0). None: the chart is as it was without them.
  std::vector<ChartRule> rules;
};

// Whether the finite x of `lines` are all > 0 and span at least
// `decades` powers of ten (max / min >= 10^decades): then a log x axis
// shows them where a linear one squeezes all but the largest to its left.
bool SpansDecades(const std::vector<ChartLine>& lines, double decades = 2);
// The same of the finite y.
bool SpansDecadesY(const std::vector<ChartLine>& lines, double decades = 1);

// The size of one chart.
// At least 900 px: a page 1320 px wide shows its plots at a width a
// time axis of hundreds of samples needs.
inline constexpr int kChartWidth = 960;
inline constexpr int kChartHeight = 280;

// One chart as an SVG group at (x, y), kChartWidth by kChartHeight.
std::string ChartGroup(const Chart& chart, int x, int y);

// A whole SVG document of `charts` one under the other (an empty list: a
// document that says there is nothing to draw, `empty`).
std::string ChartDocument(const std::vector<Chart>& charts, const std::string& empty);

// Round ticks covering [lo, hi]: 1, 2 or 5 times a power of ten apart,
// about `target` of them and at least `min_step` apart; the first at or
// below lo, the last at or above hi.
std::vector<double> NiceTicks(double lo, double hi, int target, double min_step = 0);

// A tick's label: the shortest of %.{0..6}f that shows the step between
// ticks (so 0.25, 0.5, 0.75 and 1000, 2000 read as such), or %g for very
// large or small values.
std::string TickLabel(double value, double step);

}  // namespace serq::view

#endif  // SERQ_CHART_CHART_H_
