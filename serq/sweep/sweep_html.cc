#include "serq/sweep/sweep_html.h"

#include "absl/strings/str_cat.h"
#include "chart/xml.h"
#include "serq-report/html_page.h"
#include "serq-report/html_tables.h"
#include "serq/sweep/sweep_chart.h"
#include "serq/sweep/sweep_report.h"

namespace serq {

absl::StatusOr<std::string> RenderSweepHtml(const SweepTable& table) {
  absl::StatusOr<std::string> text = RenderSweepReport(table, "text");
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> csv = RenderSweepReport(table, "csv");
  if (!csv.ok()) return csv.status();
  std::string first_line = text->substr(0, text->find('\n'));
  std::string out = absl::StrCat(report::HtmlPageStart(absl::StrCat("serq sweep: ", table.plan.program())),
                                 "<p id=\"run\">", view::XmlEscape(first_line), "</p>\n");
  absl::StrAppend(&out, report::TablesHtml(*csv));
  std::string charts, notes;
  for (size_t i = 0; i < table.metrics.size(); ++i) {
    const std::string& label = table.metrics[i].label;
    absl::StatusOr<std::string> svg = SweepChart(table, label, "", "");
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
