#include "serq/sweep/search_html.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "chart/chart.h"
#include "chart/xml.h"
#include "serq-report/html_page.h"
#include "serq-report/html_tables.h"
#include "serq-report/render.h"
#include "serq/sweep/metrics.h"
#include "serq/sweep/sweep_chart.h"
#include "stats/format.h"

namespace serq {
namespace {

using report::CsvField;
using report::FormatShortest;

}  // namespace

std::string SearchCsv(const SearchSpec& spec, const SearchOutcome& o) {
  std::vector<std::string> header = {CsvField(spec.param), "verdict", "replications"};
  for (const Metric& m : spec.condition.metrics) {
    header.push_back(CsvField(m.label));
    header.push_back(CsvField(absl::StrCat(m.label, " hw95")));
  }
  header.push_back("steady state");
  header.push_back("in progress share");
  header.push_back("why not");
  std::string out = absl::StrCat(absl::StrJoin(header, ","), "\n");
  for (const SearchPoint& x : o.tried) {
    std::vector<std::string> row = {FormatShortest(x.value), std::string(VerdictWord(x.verdict)),
                                    absl::StrCat(x.replications)};
    // Rounded to what the ± supports, as the text table prints them.
    for (const Figure& f : x.figures) {
      auto [value, half_width] = f.defined ? FigureCells(f) : std::pair<std::string, std::string>();
      row.push_back(std::move(value));
      row.push_back(std::move(half_width));
    }
    row.push_back(std::string(VerdictWord(x.health.verdict)));
    row.push_back(FormatShortest(x.health.in_progress_share));
    row.push_back(CsvField(x.why));
    absl::StrAppend(&out, absl::StrJoin(row, ","), "\n");
  }
  return out;
}

std::string SearchChart(const SearchSpec& spec, const SearchOutcome& o, size_t m,
                        std::optional<bool> log_y) {
  const Metric& metric = spec.condition.metrics[m];
  // The points in the param's order (the bisection tries them out of it).
  std::vector<const SearchPoint*> points;
  for (const SearchPoint& x : o.tried) {
    if (m < x.figures.size() && x.figures[m].defined) points.push_back(&x);
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const SearchPoint* a, const SearchPoint* b) { return a->value < b->value; });
  double top = 0;
  for (const SearchPoint* x : points) top = std::max(top, std::fabs(x->figures[m].value));
  const ChartUnit unit = MetricUnit(metric, top, o.times);
  view::Chart chart;
  chart.title = absl::StrCat(metric.label, " against ", spec.param, ", ", spec.program,
                             " (red ring: did not pass)");
  chart.x_label = spec.param;
  chart.y_label = absl::StrCat(WithChartUnit(metric.label, unit), " (bars: 95% interval)");
  view::ChartLine line;
  line.marks = true;
  for (const SearchPoint* x : points) {
    const Figure& f = x->figures[m];
    line.points.push_back({x->value, f.value * unit.scale});
    line.bars.push_back(std::isnan(f.half_width) ? INFINITY : f.half_width * unit.scale);
    line.ringed.push_back(x->verdict != Verdict::kPass);
  }
  chart.lines.push_back(std::move(line));
  chart.rules = BoundRules(spec.condition.comparisons, metric, unit);
  if (log_y.value_or(view::SpansDecadesY(chart.lines, 1))) {
    chart.y_log = true;
    absl::StrAppend(&chart.y_label, " (log scale)");
  }
  return view::ChartDocument({chart}, "");
}

std::string RenderSearchHtml(const SearchSpec& spec, const SearchOutcome& o, std::optional<bool> log_y) {
  const std::string text = RenderSearch(spec, o);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string out = absl::StrCat(report::HtmlPageStart(absl::StrCat("serq search: ", spec.program)),
                                 "<p id=\"run\">", view::XmlEscape(lines[0]), "</p>\n");
  for (const std::string& line : lines) {
    if (absl::StartsWith(line, "answer: ")) {
      absl::StrAppend(&out, "<p class=\"headline\" id=\"answer\">", view::XmlEscape(line), "</p>\n");
    }
  }
  // The table's heading says what its rows are (TablesHtml heads a
  // table by its first column, the param).
  std::string tables = report::TablesHtml(SearchCsv(spec, o));
  if (size_t end = tables.find("</h2>\n"); absl::StartsWith(tables, "<h2>") && end != std::string::npos) {
    tables = absl::StrCat("<h2>Points tried, in order</h2>\n", tables.substr(end + 6));
  }
  absl::StrAppend(&out, tables);
  absl::StrAppend(&out, "<h2>Charts</h2>\n");
  for (size_t m = 0; m < spec.condition.metrics.size(); ++m) {
    const std::string& label = spec.condition.metrics[m].label;
    absl::StrAppend(&out, report::HtmlFigure(absl::StrCat(label, " at each value tried, with its 95% interval"),
                                             SearchChart(spec, o, m, log_y), absl::StrCat("chart-", m)));
  }
  absl::StrAppend(&out, "<h2>Text report</h2>\n<details><summary>as serq search prints it</summary>\n<pre>",
                  view::XmlEscape(text), "</pre>\n</details>\n", report::HtmlPageEnd());
  return out;
}

}  // namespace serq
