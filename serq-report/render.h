// The report's formats, each rendering the same Report message
// (docs/report.md shows them): text for people, md for GitHub, csv for
// spreadsheets and json for programs.
#ifndef SERQ_REPORT_RENDER_H_
#define SERQ_REPORT_RENDER_H_

#include <string>

#include "absl/strings/string_view.h"

#include "proto/report.pb.h"
#include "stats/format.h"  // CsvField, which every csv serq writes quotes with

namespace serq::report {

// The run line, then each table that has rows, a blank line before each.
std::string RenderText(const Report& report);

// As text, with the tables as GitHub markdown tables.
std::string RenderMarkdown(const Report& report);

// One section per table (run, observe, stage, pool, session), each a header
// row and its rows, sections separated by a blank line; every section is
// there even without rows. Figures at full precision, undefined ones empty.
std::string RenderCsv(const Report& report);

// The Report message in the canonical proto3 JSON mapping, pretty-printed.
std::string RenderJson(const Report& report);

}  // namespace serq::report

#endif  // SERQ_REPORT_RENDER_H_
