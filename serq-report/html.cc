#include "serq-report/html.h"

#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ir/diagnostics.h"
#include "stats/format.h"
#include "stats/merge.h"
#include "stats/series.h"
#include "chart/chart.h"
#include "chart/plot.h"
#include "chart/xml.h"
#include "diagram/view.h"

namespace serq::report {
namespace {

using view::XmlEscape;

constexpr char kStyle[] = R"(
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; color: #222; margin: 24px auto;
       max-width: 1000px; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-family: DejaVu Sans Mono, Menlo, Consolas, monospace;
        font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
th { background: #f2f2f2; text-align: left; }
td.n { text-align: right; }
figure, div.wide { margin: 12px 0; overflow-x: auto; }
figcaption { font-size: 13px; color: #555; margin-bottom: 4px; }
pre { font-size: 12px; background: #f7f7f7; padding: 8px; overflow-x: auto; }
)";

// One csv line (RFC 4180: quoted fields may hold commas and quotes).
std::vector<std::string> SplitCsv(absl::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// A figure at full precision is shown with 6 significant digits, the full
// value in its tooltip; other cells as they are.
std::string Cell(const std::string& text, bool header) {
  if (header) return absl::StrCat("<th>", XmlEscape(text), "</th>");
  double v;
  if (!text.empty() && absl::SimpleAtod(text, &v) && std::isfinite(v)) {
    std::string shown = absl::StrFormat("%.6g", v);
    if (shown == text) return absl::StrCat("<td class=\"n\">", XmlEscape(text), "</td>");
    return absl::StrCat("<td class=\"n\" title=\"", XmlEscape(text), "\">", XmlEscape(shown),
                        "</td>");
  }
  return absl::StrCat("<td>", XmlEscape(text), "</td>");
}

std::string Heading(const std::string& section) {
  if (section == "program") return "Run";
  if (section == "observe") return "Observations";
  if (section == "stage") return "Stages";
  if (section == "pool") return "Pools";
  if (section == "session") return "Sessions";
  // A section the report gained (steady_state): its words, capitalised.
  std::string words = section;
  for (char& c : words) c = c == '_' ? ' ' : c;
  if (!words.empty()) words[0] = absl::ascii_toupper(words[0]);
  return words;
}

// Every csv section with rows as a table under its heading.
std::string Tables(const std::string& csv) {
  std::string out;
  for (absl::string_view section : absl::StrSplit(csv, "\n\n", absl::SkipWhitespace())) {
    std::vector<absl::string_view> lines = absl::StrSplit(section, '\n', absl::SkipEmpty());
    if (lines.size() < 2) continue;  // a header without rows
    std::vector<std::string> header = SplitCsv(lines[0]);
    absl::StrAppend(&out, "<h2>", XmlEscape(Heading(header[0])), "</h2>\n<div class=\"wide\"><table>\n<tr>");
    for (const std::string& h : header) absl::StrAppend(&out, Cell(h, true));
    absl::StrAppend(&out, "</tr>\n");
    for (size_t i = 1; i < lines.size(); ++i) {
      absl::StrAppend(&out, "<tr>");
      for (const std::string& c : SplitCsv(lines[i])) absl::StrAppend(&out, Cell(c, false));
      absl::StrAppend(&out, "</tr>\n");
    }
    absl::StrAppend(&out, "</table></div>\n");
  }
  return out;
}

std::string Figure(const std::string& caption, const std::string& svg, const std::string& id) {
  return absl::StrCat("<figure id=\"", id, "\"><figcaption>", XmlEscape(caption),
                      "</figcaption>\n", svg, "</figure>\n");
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
  std::vector<ResultsFile> named;
  for (size_t i = 0; i < inputs.size(); ++i) {
    named.push_back({i < files.size() ? files[i] : absl::StrCat("<results ", i + 1, ">"), &inputs[i]});
  }
  absl::StatusOr<MergedResults> merged = MergeResults(named);
  if (!merged.ok()) return merged.status();

  std::string run_line(absl::string_view(*text).substr(0, text->find('\n')));
  std::string title = inputs[0].program().empty() ? std::string("serq report")
                                                  : absl::StrCat("serq: ", inputs[0].program());
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
      XmlEscape(title), "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n<h1>",
      XmlEscape(title), "</h1>\n<p id=\"run\">", XmlEscape(run_line), "</p>\n");
  for (size_t s = 0; s < sections.size(); ++s) {
    absl::StrAppend(&out, Tables(sections[s].csv));
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
    absl::StrAppend(&out, "<h2>Station row</h2>\n",
                    Figure("each station filled by its utilisation (docs/view.md)", *row, "row"));
  }

  absl::StrAppend(&out, Tables(*csv));

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
      // Beyond 2^20 samples a replication the CDF is the sketch's, and says so.
      std::string caption =
          pooled.sketch ? absl::StrCat(names[i], ", every replication's samples, from the quantile "
                                       "sketch (each step within ",
                                       FormatShortest(100 * pooled.sketch->alpha()),
                                       "% of the exact value)")
                        : absl::StrCat(names[i], ", every replication's samples");
      c.lines.push_back(view::ObservationCdfLine(names[i], std::move(pooled)));
      absl::StrAppend(&out, Figure(caption,
                                   view::ChartDocument({c}, ""), absl::StrCat("cdf-", i)));
    }
  }
  for (const results::Replication* r : merged->replications) {
    if (!r->has_series()) continue;
    // The first replication's series: the others are the same program's.
    absl::StrAppend(&out, "<h2>Time series</h2>\n",
                    Figure(absl::StrCat("replication ", r->index(), ", sampled every ",
                                        absl::StrFormat("%g", inputs[0].sample()), " s"),
                           view::ChartDocument(view::SeriesPlots(*r), ""), "series"));
    break;
  }
  absl::StrAppend(&out, "<h2>Text report</h2>\n<details><summary>as serq-report prints it</summary>\n<pre>",
                  XmlEscape(*text), "</pre>\n</details>\n</body>\n</html>\n");
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
