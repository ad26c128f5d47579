#include "serq/sweep/sweep_html.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chart/xml.h"
#include "serq-report/html_page.h"
#include "serq-report/html_tables.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/sweep_chart.h"
#include "serq/sweep/sweep_report.h"

namespace serq {

absl::StatusOr<std::string> RenderSweepHtml(const SweepTable& table, const SweepChartOptions& options) {
  absl::StatusOr<std::string> text = RenderSweepReport(table, "text");
  if (!text.ok()) return text.status();
  std::string first_line = text->substr(0, text->find('\n'));
  std::string out = absl::StrCat(report::HtmlPageStart(absl::StrCat("serq sweep: ", PlanPrograms(table.plan))),
                                 "<p id=\"run\">", view::XmlEscape(first_line), "</p>\n");
  // A sweep of several programs: the params each lacks ("-" in its rows).
  for (const sweep::SweptProgram& p : table.plan.programs()) {
    if (p.lacks().empty()) continue;
    std::vector<std::string> names(p.lacks().begin(), p.lacks().end());
    absl::StrAppend(&out, "<p class=\"note\">", view::XmlEscape(p.path()), " has no param ",
                    view::XmlEscape(absl::StrJoin(names, ", ")),
                    ": its rows leave it empty, and its points are over the others</p>\n");
  }
  // The table's heading says what its rows are (TablesHtml heads a
  // table by its first column: a param, or `program`).
  // Figures rounded to what their ± supports, as the text table prints them.
  std::string tables = report::TablesHtml(RoundedSweepCsv(table));
  if (size_t end = tables.find("</h2>\n"); absl::StartsWith(tables, "<h2>") && end != std::string::npos) {
    tables = absl::StrCat("<h2>Points</h2>\n", tables.substr(end + 6));
  }
  absl::StrAppend(&out, tables);
  std::string charts, notes;
  for (size_t i = 0; i < table.metrics.size(); ++i) {
    const std::string& label = table.metrics[i].label;
    absl::StatusOr<std::string> svg = SweepChart(table, label, options);
    if (!svg.ok()) {
      absl::StrAppend(&notes, "<p class=\"note\">", view::XmlEscape(label), ": no chart (",
                      view::XmlEscape(std::string(svg.status().message())), ")</p>\n");
      continue;
    }
    absl::StrAppend(&charts, report::HtmlFigure(absl::StrCat(label, " at each point, with its 95% interval"),
                                                *svg, absl::StrCat("chart-", i)));
  }
  if (!charts.empty() || !notes.empty()) absl::StrAppend(&out, "<h2>Charts</h2>\n", notes, charts);
  absl::StrAppend(&out, "<h2>Text report</h2>\n<details><summary>as serq sweep prints it</summary>\n<pre>",
                  view::XmlEscape(*text), "</pre>\n</details>\n", report::HtmlPageEnd());
  return out;
}

}  // namespace serq
