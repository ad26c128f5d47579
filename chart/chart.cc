#include "chart/chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "chart/xml.h"

namespace serq::view {
namespace {

constexpr char kFont[] = "DejaVu Sans Mono, Menlo, Consolas, monospace";
constexpr char kInk[] = "#222222";
constexpr char kGrid[] = "#e2e2e2";
// A bound's rule: the red of the not-steady ring, darker.
constexpr char kRule[] = "#b22222";
// Ten colours told apart in print and by most colour-blind readers
// (Tableau 10).
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kFontSize = 12;

// The plot area inside a chart.
constexpr int kLeft = 70;
constexpr int kTop = 34;
constexpr int kLegendWidth = 190;
constexpr int kBottom = 44;

std::string Fixed1(double v) {
  std::string s = absl::StrFormat("%.1f", v);
  if (s == "-0.0") s = "0.0";
  return s;
}

void Label(int x, int y, const std::string& text, const char* anchor, std::string* out,
          const char* extra = "") {
  absl::StrAppend(out, "<text x=\"", x, "\" y=\"", y, "\" font-family=\"", kFont,
                  "\" font-size=\"", kFontSize, "\" text-anchor=\"", anchor, "\" fill=\"", kInk,
                  "\"", extra, ">", XmlEscape(text), "</text>\n");
}

// A label cut to `width` pixels, with an ellipsis.
std::string Fit(const std::string& s, int width) {
  size_t chars = static_cast<size_t>(width / (0.61 * kFontSize));
  if (s.size() <= chars || chars < 2) return s;
  return s.substr(0, chars - 1) + "~";
}

// A legend entry's label in lines of at most `width` pixels, broken at a
// space where one is, else inside a word: a legend is never cut, since the
// label is what tells the lines apart (`itl (n=3070322, sketch)`).
std::vector<std::string> Wrap(const std::string& s, int width) {
  size_t chars = std::max<size_t>(2, static_cast<size_t>(width / (0.61 * kFontSize)));
  std::vector<std::string> lines;
  size_t at = 0;
  while (s.size() - at > chars) {
    size_t cut = s.rfind(' ', at + chars);
    if (cut == std::string::npos || cut <= at) {
      lines.push_back(s.substr(at, chars));
      at += chars;
    } else {
      lines.push_back(s.substr(at, cut - at));
      at = cut + 1;
    }
  }
  lines.push_back(s.substr(at));
  return lines;
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target, double min_step) {
  if (!(hi > lo)) hi = lo + 1;
  double raw = std::max((hi - lo) / std::max(1, target), min_step);
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  double first = std::floor(lo / step + 1e-9);
  double last = std::ceil(hi / step - 1e-9);
  for (double k = first; k <= last; k += 1) ticks.push_back(k * step);
  return ticks;
}

std::string TickLabel(double value, double step) {
  if (value == 0) return "0";
  double a = std::fabs(value);
  if (a >= 1e7 || a < 1e-5) return absl::StrFormat("%g", value);
  for (int d = 0; d <= 6; ++d) {
    double scale = std::pow(10.0, d);
    if (std::fabs(std::round(step * scale) - step * scale) < 1e-6 * std::max(1.0, step * scale)) {
      return absl::StrFormat("%.*f", d, value);
    }
  }
  return absl::StrFormat("%g", value);
}

std::string ChartGroup(const Chart& chart, int x0, int y0) {
  std::string out;
  const int plot_w = kChartWidth - kLeft - kLegendWidth - 16;
  const int plot_h = kChartHeight - kTop - kBottom;
  const int px = x0 + kLeft, py = y0 + kTop;

  double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = -INFINITY;
  bool whole = true;  // counts: no tick between two whole numbers
  // Points all >= 0 (a latency, a rate): a bar does not take the axis
  // below 0; it is cut at the axis.
  bool nonnegative = true;
  for (const ChartLine& l : chart.lines) {
    for (const auto& [x, y] : l.points) nonnegative &= !(std::isfinite(y) && y < 0);
  }
  for (const ChartLine& l : chart.lines) {
    for (size_t k = 0; k < l.points.size(); ++k) {
      const auto& [x, y] = l.points[k];
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if (y != std::floor(y)) whole = false;
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
      // A bar is inside the axes too.
      double h = l.marks && k < l.bars.size() && std::isfinite(l.bars[k]) ? l.bars[k] : 0;
      if (!nonnegative) ylo = std::min(ylo, y - h);
      yhi = std::max(yhi, y + h);
    }
  }
  if (chart.x_log) {
    // Over the positive x only; the axis from the power of ten at or below
    // the least to the one at or above the greatest.
    xlo = INFINITY, xhi = -INFINITY;
    for (const ChartLine& l : chart.lines) {
      for (const auto& [x, y] : l.points) {
        if (!std::isfinite(x) || !std::isfinite(y) || !(x > 0)) continue;
        xlo = std::min(xlo, x);
        xhi = std::max(xhi, x);
      }
    }
    if (!(xhi >= xlo)) xlo = 1, xhi = 10;
  }
  if (chart.y_log) {
    // Over the positive y (and bars' tops) only, as the x axis above.
    ylo = INFINITY, yhi = -INFINITY;
    for (const ChartLine& l : chart.lines) {
      for (size_t k = 0; k < l.points.size(); ++k) {
        const auto& [x, y] = l.points[k];
        if (!std::isfinite(x) || !std::isfinite(y) || !(y > 0)) continue;
        double h = l.marks && k < l.bars.size() && std::isfinite(l.bars[k]) ? l.bars[k] : 0;
        ylo = std::min(ylo, y);
        yhi = std::max(yhi, y + h);
      }
    }
    if (!(yhi >= ylo)) ylo = 1, yhi = 10;
  }
  // A rule is inside the y axis too (on a log axis, one above 0).
  for (const ChartRule& r : chart.rules) {
    if (!std::isfinite(r.y) || (chart.y_log && !(r.y > 0))) continue;
    ylo = std::min(ylo, r.y);
    yhi = std::max(yhi, r.y);
  }
  if (!(xhi >= xlo)) xlo = 0, xhi = 1;
  if (!(yhi > ylo)) yhi = ylo + 1;
  if (chart.y_max > 0) yhi = chart.y_max;
  std::vector<double> xt;
  if (chart.x_log) {
    int first = static_cast<int>(std::floor(std::log10(xlo) + 1e-9));
    int last = static_cast<int>(std::ceil(std::log10(xhi) - 1e-9));
    if (last == first) ++last;
    for (int k = first; k <= last; ++k) xt.push_back(std::pow(10.0, k));
  } else {
    xt = NiceTicks(xlo, xhi, 6);
  }
  std::vector<double> yt;
  if (chart.y_log) {
    int first = static_cast<int>(std::floor(std::log10(ylo) + 1e-9));
    int last = static_cast<int>(std::ceil(std::log10(yhi) - 1e-9));
    if (last == first) ++last;
    for (int k = first; k <= last; ++k) yt.push_back(std::pow(10.0, k));
  } else {
    yt = NiceTicks(ylo, yhi, 5, whole && chart.y_max == 0 ? 1 : 0);
  }
  // The axes span the ticks, so every line is inside.
  xlo = xt.front(), xhi = xt.back();
  ylo = yt.front(), yhi = yt.back();
  // The axes' ends sit kPad inside the frame, so that a line along an end
  // (a pool full to its cap, a state from time 0) is not hidden by it.
  constexpr int kPad = 6;
  auto X = [&](double x) {
    double f = chart.x_log ? (std::log10(x) - std::log10(xlo)) / (std::log10(xhi) - std::log10(xlo))
                           : (x - xlo) / (xhi - xlo);
    return px + kPad + f * (plot_w - 2 * kPad);
  };
  // Off a log axis: x <= 0.
  auto off = [&](double x) { return chart.x_log && !(x > 0); };
  auto off_y = [&](double y) { return chart.y_log && !(y > 0); };
  auto Y = [&](double y) {
    double f = chart.y_log ? (std::log10(y) - std::log10(ylo)) / (std::log10(yhi) - std::log10(ylo))
                           : (y - ylo) / (yhi - ylo);
    return py + plot_h - kPad - f * (plot_h - 2 * kPad);
  };

  absl::StrAppend(&out, "<g>\n");
  Label(x0 + kLeft, y0 + 20, Fit(chart.title, kChartWidth - kLeft), "start", &out,
       " font-weight=\"bold\"");
  // Grid and ticks.
  double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : xt) {
    int x = static_cast<int>(std::lround(X(t)));
    absl::StrAppend(&out, "<line x1=\"", x, "\" y1=\"", py, "\" x2=\"", x, "\" y2=\"",
                    py + plot_h, "\" stroke=\"", kGrid, "\" stroke-width=\"1\"/>\n");
    Label(x, py + plot_h + 16, TickLabel(t, chart.x_log ? t : xstep), "middle", &out);
  }
  for (double t : yt) {
    int y = static_cast<int>(std::lround(Y(t)));
    absl::StrAppend(&out, "<line x1=\"", px, "\" y1=\"", y, "\" x2=\"", px + plot_w, "\" y2=\"", y,
                    "\" stroke=\"", kGrid, "\" stroke-width=\"1\"/>\n");
    Label(px - 6, y + 4, TickLabel(t, chart.y_log ? t : ystep), "end", &out);
  }
  absl::StrAppend(&out, "<rect x=\"", px, "\" y=\"", py, "\" width=\"", plot_w, "\" height=\"",
                  plot_h, "\" fill=\"none\" stroke=\"", kInk, "\" stroke-width=\"1\"/>\n");
  Label(px + plot_w / 2, py + plot_h + 34, chart.x_label, "middle", &out);
  int ly = py + plot_h / 2;
  Label(x0 + 16, ly, chart.y_label, "middle", &out,
       absl::StrCat(" transform=\"rotate(-90 ", x0 + 16, " ", ly, ")\"").c_str());

  // The rules, under the lines: a dashed red line, its label above its
  // right end, inside the plot.
  for (const ChartRule& r : chart.rules) {
    if (!std::isfinite(r.y) || off_y(r.y) || r.y < ylo || r.y > yhi) continue;
    std::string ry = Fixed1(Y(r.y));
    absl::StrAppend(&out, "<line x1=\"", px, "\" y1=\"", ry, "\" x2=\"", px + plot_w, "\" y2=\"", ry,
                    "\" stroke=\"", kRule, "\" stroke-width=\"1.5\" stroke-dasharray=\"8 4\"/>\n");
    // Above the line, or under it when the line is at the plot's top.
    const int ty = static_cast<int>(std::lround(Y(r.y))) + (Y(r.y) - py < 16 ? 14 : -5);
    absl::StrAppend(&out, "<text x=\"", px + plot_w - 6, "\" y=\"", ty, "\" font-family=\"", kFont,
                    "\" font-size=\"", kFontSize, "\" text-anchor=\"end\" fill=\"", kRule, "\">",
                    XmlEscape(Fit(r.label, plot_w - 12)), "</text>\n");
  }

  // Lines, in order, the palette cycling; then the legend.
  for (size_t i = 0; i < chart.lines.size(); ++i) {
    const ChartLine& l = chart.lines[i];
    const char* colour = kPalette[i % std::size(kPalette)];
    std::string pts, last;
    auto add = [&](double x, double y) {
      std::string p = absl::StrCat(Fixed1(X(x)), ",", Fixed1(Y(y)));
      if (p == last) return;  // a step that does not move
      absl::StrAppend(&pts, pts.empty() ? "" : " ", p);
      last = std::move(p);
    };
    bool drawn = false;  // a point before this one (a step holds its y)
    double held = 0;
    for (const auto& [x, y] : l.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || off(x) || off_y(y)) continue;  // off every axis
      if (l.steps && drawn) add(x, held);
      add(x, y);
      drawn = true;
      held = y;
    }
    if (pts.empty()) continue;
    absl::StrAppend(&out, "<polyline points=\"", pts, "\" fill=\"none\" stroke=\"", colour,
                    "\" stroke-width=\"", l.dashed ? "1.5" : "2", "\"",
                    l.dashed ? " stroke-dasharray=\"6 4\"" : "", " stroke-linejoin=\"round\"/>\n");
    if (!l.marks) continue;
    // Each point's bar (its interval, capped), then its dot over it.
    for (size_t k = 0; k < l.points.size(); ++k) {
      const auto& [x, y] = l.points[k];
      if (!std::isfinite(x) || !std::isfinite(y) || off(x) || off_y(y)) continue;
      double h = k < l.bars.size() ? l.bars[k] : 0;
      std::string cx = Fixed1(X(x));
      if (std::isfinite(h) && h > 0) {
        // Cut at the axis's ends; a cut end has no cap.
        const double low = std::max(y - h, ylo), high = std::min(y + h, yhi);
        std::string lo = Fixed1(Y(low)), hi = Fixed1(Y(high));
        std::string left = Fixed1(X(x) - 4), right = Fixed1(X(x) + 4);
        absl::StrAppend(&out, "<path d=\"M", cx, " ", lo, "V", hi);
        if (low == y - h) absl::StrAppend(&out, "M", left, " ", lo, "H", right);
        if (high == y + h) absl::StrAppend(&out, "M", left, " ", hi, "H", right);
        absl::StrAppend(&out, "\" fill=\"none\" stroke=\"", colour, "\" stroke-width=\"1.5\"/>\n");
      }
      absl::StrAppend(&out, "<circle cx=\"", cx, "\" cy=\"", Fixed1(Y(y)), "\" r=\"3.5\" fill=\"",
                      std::isfinite(h) ? colour : "#ffffff", "\" stroke=\"", colour,
                      "\" stroke-width=\"1.5\"/>\n");
      if (k < l.ringed.size() && l.ringed[k]) {
        absl::StrAppend(&out, "<circle cx=\"", cx, "\" cy=\"", Fixed1(Y(y)),
                        "\" r=\"7.5\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n");
      }
    }
  }
  int lx = px + plot_w + 16;
  int y = py + 8 - 18;  // the entry before the first
  for (size_t i = 0; i < chart.lines.size(); ++i) {
    const ChartLine& l = chart.lines[i];
    if (l.label.empty()) continue;
    const char* colour = kPalette[i % std::size(kPalette)];
    std::vector<std::string> label = Wrap(l.label, kLegendWidth - 26);
    y += 18;
    absl::StrAppend(&out, "<line x1=\"", lx, "\" y1=\"", y, "\" x2=\"", lx + 20, "\" y2=\"", y,
                    "\" stroke=\"", colour, "\" stroke-width=\"", l.dashed ? "1.5" : "3", "\"",
                    l.dashed ? " stroke-dasharray=\"6 4\"" : "", "/>\n");
    if (l.marks) {
      absl::StrAppend(&out, "<circle cx=\"", lx + 10, "\" cy=\"", y, "\" r=\"3.5\" fill=\"", colour,
                      "\"/>\n");
    }
    for (size_t k = 0; k < label.size(); ++k) {
      Label(lx + 26, y + 4 + static_cast<int>(k) * 14, label[k], "start", &out);
    }
    y += static_cast<int>(label.size() - 1) * 14;
  }
  absl::StrAppend(&out, "</g>\n");
  return out;
}

bool SpansDecades(const std::vector<ChartLine>& lines, double decades) {
  double lo = INFINITY, hi = -INFINITY;
  for (const ChartLine& l : lines) {
    for (const auto& [x, y] : l.points) {
      if (!std::isfinite(x)) continue;
      if (!(x > 0)) return false;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  return hi >= lo && hi / lo >= std::pow(10.0, decades);
}

bool SpansDecadesY(const std::vector<ChartLine>& lines, double decades) {
  double lo = INFINITY, hi = -INFINITY;
  for (const ChartLine& l : lines) {
    for (const auto& [x, y] : l.points) {
      if (!std::isfinite(y)) continue;
      if (!(y > 0)) return false;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
  }
  return hi >= lo && hi / lo >= std::pow(10.0, decades);
}

std::string ChartDocument(const std::vector<Chart>& charts, const std::string& empty) {
  int height = charts.empty() ? 60 : kChartHeight * static_cast<int>(charts.size());
  std::string out = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", kChartWidth, "\" height=\"", height,
      "\" viewBox=\"0 0 ", kChartWidth, " ", height, "\">\n",
      "<rect x=\"0\" y=\"0\" width=\"", kChartWidth, "\" height=\"", height,
      "\" fill=\"#ffffff\"/>\n");
  if (charts.empty()) Label(kLeft, 34, empty, "start", &out);
  for (size_t i = 0; i < charts.size(); ++i) {
    absl::StrAppend(&out, ChartGroup(charts[i], 0, kChartHeight * static_cast<int>(i)));
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace serq::view
