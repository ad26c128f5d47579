#include "serq/measured/compare_render.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chart/plot.h"
#include "ir/json.h"
#include "stats/format.h"

namespace serq::compare {
namespace {

constexpr double kMs = 1000;

std::string Describe(const std::string& file, const std::string& source, uint32_t replications,
                     size_t requests) {
  std::string out = absl::StrCat(file, ": ", source);
  if (requests > 0) absl::StrAppend(&out, ", ", requests, " requests");
  if (source == "serq results" || source == "serq run") {
    absl::StrAppend(&out, ", ", replications, replications == 1 ? " replication" : " replications");
  }
  return out;
}

constexpr char kCompared[] =
    "distributions (serq's observations carry no request ids: requests are not paired)";
constexpr char kComparedSummary[] = "figures (a summary gives its figures, not its requests' samples)";

// The rows of the table: metric, side, n, mean, p50, p90, p95, p99 (ms;
// the error row in percent). `shortest`: csv's exact figures, else the
// text table's fixed decimals.
std::vector<std::vector<std::string>> Rows(const Comparison& c, bool shortest) {
  std::vector<std::vector<std::string>> rows;
  auto ms = [&](double x) {
    if (std::isnan(x)) return std::string("-");  // a summary's percentile it does not give
    return shortest ? report::FormatShortest(x * kMs) : report::FormatFixed(x * kMs, 3);
  };
  for (const MetricComparison& m : c.metrics) {
    const std::string metric(MetricName(m.metric));
    for (const auto* side : {&m.measured, &m.simulated}) {
      std::vector<std::string> row = {metric, side == &m.measured ? "measured" : "simulated"};
      if (*side) {
        row.push_back((*side)->n == 0 ? std::string("-") : absl::StrCat((*side)->n));
        for (double v : (*side)->values) row.push_back(ms(v));
      } else {
        row.push_back("-");
        for (int f = 0; f < kFigures; ++f) row.push_back("-");
      }
      rows.push_back(std::move(row));
    }
    if (m.measured && m.simulated) {
      std::vector<std::string> row = {metric, shortest ? "error_pct" : "error %", ""};
      for (const std::optional<double>& e : m.error_percent) {
        row.push_back(!e ? "-" : shortest ? report::FormatShortest(*e) : report::FormatFixed(*e, 2));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

const std::vector<std::string>& Header() {
  static const std::vector<std::string> header = {"metric", "side",   "n",      "mean_ms",
                                                  "p50_ms", "p90_ms", "p95_ms", "p99_ms"};
  return header;
}

std::string Text(const Comparison& c) {
  std::string out = absl::StrCat(
      "measured   ", Describe(c.measured_file, c.measured_source, c.measured_replications,
                              c.measured_requests),
      "\nsimulated  ", Describe(c.simulated_file, c.simulated_source, c.simulated_replications, 0),
      "\ncompared   ", c.summary ? kComparedSummary : kCompared, "\n\n");
  std::vector<std::vector<std::string>> rows = Rows(c, false);
  rows.insert(rows.begin(), Header());
  std::vector<size_t> width(Header().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      std::string pad(width[i] - row[i].size(), ' ');
      // The two words left, the figures right (their header too).
      line += i < 2 ? row[i] + pad : pad + row[i];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  if (!c.notes.empty()) {
    absl::StrAppend(&out, "\nnotes\n");
    for (const std::string& note : c.notes) absl::StrAppend(&out, "  ", note, "\n");
  }
  return out;
}

// A csv cell: quoted when it holds a comma, a quote or a line end.
std::string Cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string Csv(const Comparison& c) {
  std::string out = "compared,file,source,replications,requests\n";
  absl::StrAppend(&out, "measured,", Cell(c.measured_file), ",", Cell(c.measured_source), ",",
                  c.measured_replications, ",",
                  c.measured_requests > 0 ? absl::StrCat(c.measured_requests) : "", "\n");
  absl::StrAppend(&out, "simulated,", Cell(c.simulated_file), ",", Cell(c.simulated_source), ",",
                  c.simulated_replications, ",\n\n");
  std::vector<std::string> header = Header();
  header[0] = "comparison";
  absl::StrAppend(&out, absl::StrJoin(header, ","), "\n");
  for (const auto& row : Rows(c, true)) {
    std::vector<std::string> cells;
    for (const std::string& cell : row) cells.push_back(Cell(cell == "-" ? "" : cell));
    absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  }
  if (!c.notes.empty()) {
    absl::StrAppend(&out, "\nnote\n");
    for (const std::string& note : c.notes) absl::StrAppend(&out, Cell(note), "\n");
  }
  return out;
}

std::string JsonFigures(const Figures& f) {
  std::string out = absl::StrCat("{\"n\": ", f.n);
  for (int i = 0; i < kFigures; ++i) {
    absl::StrAppend(&out, ", ", JsonString(FigureName(i)), ": ",
                    std::isnan(f.values[i]) ? std::string("null") : JsonNumber(f.values[i] * kMs));
  }
  return out + "}";
}

std::string Json(const Comparison& c) {
  std::string out = absl::StrCat(
      "{\n  \"measured\": {\"file\": ", JsonString(c.measured_file),
      ", \"source\": ", JsonString(c.measured_source),
      ", \"replications\": ", c.measured_replications);
  if (c.measured_requests > 0) absl::StrAppend(&out, ", \"requests\": ", c.measured_requests);
  absl::StrAppend(&out, "},\n  \"simulated\": {\"file\": ", JsonString(c.simulated_file),
                  ", \"source\": ", JsonString(c.simulated_source),
                  ", \"replications\": ", c.simulated_replications,
                  "},\n  \"compared\": \"", c.summary ? "figures" : "distributions",
                  "\",\n  \"unit\": \"ms\",\n  \"metrics\": [");
  for (size_t k = 0; k < c.metrics.size(); ++k) {
    const MetricComparison& m = c.metrics[k];
    absl::StrAppend(&out, k > 0 ? "," : "", "\n    {\"metric\": ", JsonString(MetricName(m.metric)),
                    ",\n     \"measured\": ", m.measured ? JsonFigures(*m.measured) : "null",
                    ",\n     \"simulated\": ", m.simulated ? JsonFigures(*m.simulated) : "null",
                    ",\n     \"error_pct\": ");
    if (m.measured && m.simulated) {
      out += "{";
      for (int i = 0; i < kFigures; ++i) {
        absl::StrAppend(&out, i > 0 ? ", " : "", JsonString(FigureName(i)), ": ",
                        m.error_percent[i] ? JsonNumber(*m.error_percent[i]) : "null");
      }
      out += "}}";
    } else {
      out += "null}";
    }
  }
  absl::StrAppend(&out, "\n  ],\n  \"notes\": [");
  for (size_t k = 0; k < c.notes.size(); ++k) {
    absl::StrAppend(&out, k > 0 ? ", " : "", JsonString(c.notes[k]));
  }
  return out + "]\n}\n";
}

// The CDF of one side in ms.
view::ChartLine Line(const std::string& label, const Distribution& d) {
  if (d.sketch) {
    view::ChartLine line = view::SketchCdfLine(label, *d.sketch);
    for (auto& point : line.points) point.first *= kMs;
    return line;
  }
  std::vector<double> ms;
  ms.reserve(d.samples.size());
  for (double x : d.samples) ms.push_back(x * kMs);
  return view::CdfLine(label, std::move(ms));
}

}  // namespace

absl::StatusOr<std::string> RenderComparison(const Comparison& comparison,
                                             absl::string_view format) {
  if (format == "text") return Text(comparison);
  if (format == "csv") return Csv(comparison);
  if (format == "json") return Json(comparison);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format '", format, "' (expected text, csv, json or html)"));
}

std::vector<view::Chart> CdfCharts(const Run& measured, const Run& simulated) {
  std::vector<view::Chart> charts;
  for (Metric metric : kAllMetrics) {
    const int m = static_cast<int>(metric);
    if (!measured.metrics[m] && !simulated.metrics[m]) continue;
    view::Chart chart;
    chart.title = absl::StrCat("CDF of ", MetricName(metric), ", measured and simulated");
    chart.x_label = absl::StrCat(MetricName(metric), " (ms)");
    chart.y_label = "fraction <= x";
    chart.y_max = 1;
    // A summary has no values to draw, on either side (a summary as the
    // simulated run drew an empty "simulated (n=0)").
    if (measured.metrics[m] && !measured.metrics[m]->percentiles) {
      chart.lines.push_back(Line("measured", *measured.metrics[m]));
    }
    if (simulated.metrics[m] && !simulated.metrics[m]->percentiles) {
      view::ChartLine line = Line("simulated", *simulated.metrics[m]);
      line.dashed = true;  // told apart in print too
      chart.lines.push_back(std::move(line));
    }
    if (!chart.lines.empty()) charts.push_back(std::move(chart));
  }
  return charts;
}

std::string CdfSvg(const Run& measured, const Run& simulated) {
  return view::ChartDocument(CdfCharts(measured, simulated), "nothing to compare");
}

}  // namespace serq::compare
