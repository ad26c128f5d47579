#include "serq-view/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace serq::view {
namespace {

constexpr double kWidth = 640, kHeight = 400;
constexpr double kLeft = 72, kRight = 160, kTop = 40, kBottom = 56;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
// Colours told apart also by people with the common colour blindnesses
// (Okabe and Ito's palette), in order.
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  return s == "-0.00" ? "0.00" : s;
}

// A tick label: the shortest of %g up to 6 digits.
std::string Label(double x) {
  if (std::fabs(x) < 1e-12) x = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A step of 1, 2 or 5 times a power of ten near span / 5.
double NiceStep(double span) {
  if (!(span > 0)) return 1;
  double raw = span / 5;
  double p = std::pow(10, std::floor(std::log10(raw)));
  double m = raw / p;
  double nice = m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10;
  return nice * p;
}

struct Axis {
  double lo, hi, step;
  double Map(double v, double length) const { return (v - lo) / (hi - lo) * length; }
};

Axis MakeAxis(double lo, double hi, bool from_zero) {
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  double step = NiceStep(hi - lo);
  Axis a{std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, step};
  if (a.hi <= a.lo) a.hi = a.lo + step;
  return a;
}

}  // namespace

std::string DrawChart(const Chart& chart) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const ChartSeries& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      xlo = std::min(xlo, p.x);
      xhi = std::max(xhi, p.x);
      double h = std::isfinite(p.half_width) ? p.half_width : 0;
      ylo = std::min(ylo, p.y - h);
      yhi = std::max(yhi, p.y + h);
    }
  }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  Axis ax = MakeAxis(xlo, xhi, false);
  if (xhi == xlo) ax = Axis{xlo - 1, xhi + 1, 1};
  Axis ay = MakeAxis(ylo, yhi, true);
  auto X = [&](double v) { return kLeft + ax.Map(v, kPlotW); };
  auto Y = [&](double v) { return kTop + kPlotH - ay.Map(v, kPlotH); };

  std::string out = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", kWidth, "\" height=\"", kHeight,
      "\" viewBox=\"0 0 ", kWidth, " ", kHeight, "\" font-family=\"sans-serif\" font-size=\"12\">\n",
      "<rect width=\"", kWidth, "\" height=\"", kHeight, "\" fill=\"white\"/>\n",
      "<text x=\"", Num(kWidth / 2), "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">",
      Escape(chart.title), "</text>\n");
  // Grid and ticks.
  for (double v = ay.lo; v <= ay.hi + ay.step * 1e-9; v += ay.step) {
    absl::StrAppend(&out, "<line x1=\"", Num(kLeft), "\" y1=\"", Num(Y(v)), "\" x2=\"",
                    Num(kLeft + kPlotW), "\" y2=\"", Num(Y(v)), "\" stroke=\"#e0e0e0\"/>\n",
                    "<text x=\"", Num(kLeft - 6), "\" y=\"", Num(Y(v) + 4),
                    "\" text-anchor=\"end\">", Label(v), "</text>\n");
  }
  for (double v = ax.lo; v <= ax.hi + ax.step * 1e-9; v += ax.step) {
    absl::StrAppend(&out, "<line x1=\"", Num(X(v)), "\" y1=\"", Num(kTop + kPlotH), "\" x2=\"",
                    Num(X(v)), "\" y2=\"", Num(kTop + kPlotH + 5), "\" stroke=\"black\"/>\n",
                    "<text x=\"", Num(X(v)), "\" y=\"", Num(kTop + kPlotH + 18),
                    "\" text-anchor=\"middle\">", Label(v), "</text>\n");
  }
  absl::StrAppend(&out, "<rect x=\"", Num(kLeft), "\" y=\"", Num(kTop), "\" width=\"", Num(kPlotW),
                  "\" height=\"", Num(kPlotH), "\" fill=\"none\" stroke=\"black\"/>\n",
                  "<text x=\"", Num(kLeft + kPlotW / 2), "\" y=\"", Num(kHeight - 14),
                  "\" text-anchor=\"middle\">", Escape(chart.x_label), "</text>\n",
                  "<text x=\"16\" y=\"", Num(kTop + kPlotH / 2), "\" text-anchor=\"middle\" "
                  "transform=\"rotate(-90 16 ",
                  Num(kTop + kPlotH / 2), ")\">", Escape(chart.y_label), "</text>\n");
  // Series: the line, then each point's bar and mark.
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const char* colour = kColours[i % (sizeof kColours / sizeof kColours[0])];
    std::string points;
    for (const ChartPoint& p : s.points) {
      absl::StrAppend(&points, points.empty() ? "" : " ", Num(X(p.x)), ",", Num(Y(p.y)));
    }
    absl::StrAppend(&out, "<g stroke=\"", colour, "\" fill=\"", colour, "\">\n",
                    "<polyline points=\"", points, "\" fill=\"none\" stroke-width=\"2\"/>\n");
    for (const ChartPoint& p : s.points) {
      bool bar = std::isfinite(p.half_width);
      if (bar && p.half_width > 0) {
        double x = X(p.x), y1 = Y(p.y - p.half_width), y2 = Y(p.y + p.half_width);
        absl::StrAppend(&out, "<path d=\"M", Num(x), " ", Num(y1), "V", Num(y2), "M", Num(x - 4), " ",
                        Num(y1), "H", Num(x + 4), "M", Num(x - 4), " ", Num(y2), "H", Num(x + 4),
                        "\" fill=\"none\"/>\n");
      }
      absl::StrAppend(&out, "<circle cx=\"", Num(X(p.x)), "\" cy=\"", Num(Y(p.y)), "\" r=\"3.5\"",
                      bar ? "" : " fill=\"white\"", "/>\n");
    }
    absl::StrAppend(&out, "</g>\n");
    if (!s.label.empty()) {
      double y = kTop + 10 + 20 * static_cast<double>(i);
      double x = kLeft + kPlotW + 14;
      absl::StrAppend(&out, "<line x1=\"", Num(x), "\" y1=\"", Num(y), "\" x2=\"", Num(x + 24), "\" y2=\"",
                      Num(y), "\" stroke=\"", colour, "\" stroke-width=\"2\"/>\n", "<text x=\"",
                      Num(x + 30), "\" y=\"", Num(y + 4), "\">", Escape(s.label), "</text>\n");
    }
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace serq::view
