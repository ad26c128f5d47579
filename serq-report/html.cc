#include "serq-report/html.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/diagnostics.h"
#include "stats/format.h"
#include "stats/merge.h"
#include "stats/series.h"
#include "chart/chart.h"
#include "chart/interval_plots.h"
#include "chart/plot.h"
#include "chart/xml.h"
#include "diagram/view.h"
#include "serq-report/html_page.h"
#include "serq-report/html_tables.h"

namespace serq::report {
namespace {

using view::XmlEscape;

std::string Figure(const std::string& caption, const std::string& svg, const std::string& id) {
  return HtmlFigure(caption, svg, id);
}

}  // namespace

absl::StatusOr<std::string> RenderHtml(const std::vector<results::Results>& inputs,
                                       const ReportOptions& options,
                                       const std::vector<std::string>& files,
                                       const ir::Program* program,
                                       const std::vector<HtmlSection>& sections) {
  ReportOptions text_options = options, csv_options = options;
  text_options.format = "text";
  csv_options.format = "csv";
  absl::StatusOr<std::string> text = RenderReport(inputs, text_options, files);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> csv = RenderReport(inputs, csv_options, files);
  if (!csv.ok()) return csv.status();
  const std::vector<ResultsFile> named = NamedResults(inputs, files);
  absl::StatusOr<MergedResults> merged = MergeResults(named);
  if (!merged.ok()) return merged.status();
  // Times by their names or by the program's expressions.
  const IsTimeFn is_time = TimesOf(inputs[0]);

  std::string run_line(absl::string_view(*text).substr(0, text->find('\n')));
  std::string title = inputs[0].program().empty() ? std::string("serq report")
                                                  : absl::StrCat("serq: ", inputs[0].program());
  std::string out = absl::StrCat(HtmlPageStart(title), "<p id=\"run\">", XmlEscape(run_line),
                                 "</p>\n");
  // The headline: the text report's lines between the run line and the
  // first table (the busiest resource, preemptions, stalls).
  std::vector<absl::string_view> text_lines = absl::StrSplit(*text, '\n');
  for (size_t i = 1; i < text_lines.size() && !text_lines[i].empty(); ++i) {
    absl::StrAppend(&out, "<p class=\"headline\">", XmlEscape(text_lines[i]), "</p>\n");
  }
  for (size_t s = 0; s < sections.size(); ++s) {
    absl::StrAppend(&out, TablesHtml(sections[s].csv, is_time));
    if (sections[s].figures.empty()) continue;
    absl::StrAppend(&out, "<h2>", XmlEscape(sections[s].figures_heading), "</h2>\n");
    for (size_t i = 0; i < sections[s].figures.size(); ++i) {
      absl::StrAppend(&out, Figure(sections[s].figures[i].first, sections[s].figures[i].second,
                                   absl::StrCat("section-", s, "-", i)));
    }
  }

  if (program != nullptr) {
    // The overlay reads one Results: every merged replication in one.
    results::Results all = inputs[0];
    all.clear_replication();
    for (const results::Replication* r : merged->replications) *all.add_replication() = *r;
    ViewOptions view_options;
    view_options.results = &all;
    Diagnostics diags(named[0].name);
    absl::StatusOr<std::string> row = RenderView(*program, view_options, &diags);
    if (!row.ok()) {
      return absl::InvalidArgumentError(diags.empty() ? std::string(row.status().message())
                                                      : diags.Render());
    }
    // Inline, without the XML declaration a standalone SVG file begins with
    // (in HTML's body it is a parse error).
    absl::string_view svg = *row;
    absl::ConsumePrefix(&svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    absl::StrAppend(&out, "<h2>Station row</h2>\n",
                    Figure("each station filled by its utilisation (a step stage by its batch fill), each "
                           "pool bar by its occupancy (docs/view.md)",
                           std::string(svg), "row"));
  }

  absl::StrAppend(&out, TablesHtml(*csv, is_time));

  std::vector<std::string> names = view::ObservationNames(merged->replications);
  if (!names.empty()) {
    absl::StrAppend(&out, "<h2>Distributions</h2>\n");
    for (size_t i = 0; i < names.size(); ++i) {
      view::Chart c;
      c.title = absl::StrCat("CDF of ", names[i]);
      c.x_label = names[i];
      c.y_label = "fraction <= x";
      c.y_max = 1;
      view::PooledObservation pooled = view::PoolObservation(merged->replications, names[i]);
      // A latency's axis in the unit its table has: ms when every sample
      // is under a second, else s (docs/report.md §HTML).
      double scale = 1;
      if (is_time(names[i])) {
        double top = pooled.sketch ? pooled.sketch->max() : 0;
        for (double x : pooled.samples) top = std::max(top, std::fabs(x));
        scale = top < 1 ? 1000 : 1;
        c.x_label = absl::StrCat(names[i], scale == 1000 ? " (ms)" : " (s)");
      }
      // Beyond 2^20 samples a replication the CDF is the sketch's, and says so.
      std::string caption =
          pooled.sketch ? absl::StrCat(names[i], ", every replication's samples, from the quantile "
                                       "sketch (each step within ",
                                       FormatShortest(100 * pooled.sketch->alpha()),
                                       "% of the exact value)")
                        : absl::StrCat(names[i], ", every replication's samples");
      c.lines.push_back(view::ObservationCdfLine(names[i], std::move(pooled)));
      if (scale != 1) {
        for (auto& [x, y] : c.lines.back().points) x *= scale;
      }
      // ITL's decode steps and its preemptions' stalls, TTFT's quick and
      // queued prefills: a log axis.
      view::LogAxisIfSpansDecades(&c);
      absl::StrAppend(&out, Figure(caption,
                                   view::ChartDocument({c}, ""), absl::StrCat("cdf-", i)));
    }
  }
  for (const results::Replication* r : merged->replications) {
    if (!r->has_series()) continue;
    // The first replication's series: the others are the same program's.
    // The states at the sample times, then what happened in each interval
    // (throughput, preemptions, percentiles over time).
    std::vector<view::Chart> charts = view::SeriesPlots(*r);
    for (view::Chart& c : view::IntervalPlots(*r, inputs[0].sample(), is_time)) {
      charts.push_back(std::move(c));
    }
    absl::StrAppend(&out, "<h2>Time series</h2>\n",
                    Figure(absl::StrCat("replication ", r->index(), ", sampled every ",
                                        absl::StrFormat("%g", inputs[0].sample()), " s"),
                           view::ChartDocument(charts, ""), "series"));
    break;
  }
  absl::StrAppend(&out, "<h2>Text report</h2>\n<details><summary>as serq-report prints it</summary>\n<pre>",
                  XmlEscape(*text), "</pre>\n</details>\n", HtmlPageEnd());
  return out;
}

absl::StatusOr<std::string> RenderAnyReport(const std::vector<results::Results>& inputs,
                                            const ReportOptions& options,
                                            const std::vector<std::string>& files,
                                            const ir::Program* program) {
  if (options.format == "html") return RenderHtml(inputs, options, files, program);
  return RenderReport(inputs, options, files);
}

}  // namespace serq::report
