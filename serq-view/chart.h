// A chart of a figure against a parameter, one line per value of a second
// parameter, each point with the bar of its 95% confidence interval: what
// `serq sweep --chart` draws (docs/view.md §Sweep charts). It knows series
// of (x, y, half-width) only, not sweeps, so it can serve any tool.
#ifndef SERQ_VIEW_CHART_H_
#define SERQ_VIEW_CHART_H_

#include <string>
#include <vector>

namespace serq::view {

struct ChartPoint {
  double x = 0;
  double y = 0;
  double half_width = 0;  // +inf: no bar (the interval is unbounded), the mark hollow
};

struct ChartSeries {
  std::string label;  // in the legend, e.g. "share=maxmin"; "" when there is one series
  std::vector<ChartPoint> points;  // ascending x
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
};

// The chart as a standalone SVG document, the same bytes for the same
// chart. The y axis starts at 0 unless a value (or the low end of a bar)
// is negative; both axes end at a round number above the data, with 5 or
// so ticks of 1, 2 or 5 times a power of ten.
std::string DrawChart(const Chart& chart);

}  // namespace serq::view

#endif  // SERQ_VIEW_CHART_H_
