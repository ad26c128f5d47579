// The report as one self-contained HTML page (serq-report --format=html,
// serq run --format=html): the run line, every table of the report, the
// station row with its utilisation overlay (serq-view's SVG, when the
// program is given), the CDF of every observation and the time series
// (serq-view's charts), all inline: no script, no style sheet or font or
// image from elsewhere, so the page opens offline and can be mailed.
// docs/report.md §HTML.
#ifndef SERQ_REPORT_HTML_H_
#define SERQ_REPORT_HTML_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "serq-report/report.h"

namespace serq::report {

// A section another command adds to the page, after the run line (serq
// compare's comparison with a measured run): its csv, each section a
// table under its heading as the report's own, then its figures.
struct HtmlSection {
  std::string csv;
  std::string figures_heading;
  std::vector<std::pair<std::string, std::string>> figures;  // caption, SVG
};

// The page of `inputs` (merged as RenderReport merges them). The tables
// are the csv report's sections (so a column added to the report is on
// the page too) and the text report is there whole, folded. `program`
// (linked IR of the program the results come from; null: none) adds the
// station row; its errors (results of another program) are errors here.
// `sections` come after the run line.
absl::StatusOr<std::string> RenderHtml(const std::vector<results::Results>& inputs,
                                       const ReportOptions& options,
                                       const std::vector<std::string>& files,
                                       const ir::Program* program,
                                       const std::vector<HtmlSection>& sections = {});

// RenderHtml for --format=html, else RenderReport: what serq-report and
// `serq run` call.
absl::StatusOr<std::string> RenderAnyReport(const std::vector<results::Results>& inputs,
                                            const ReportOptions& options,
                                            const std::vector<std::string>& files,
                                            const ir::Program* program);

}  // namespace serq::report

#endif  // SERQ_REPORT_HTML_H_
