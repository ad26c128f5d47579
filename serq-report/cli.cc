// serq-report: reads one or more results files (serq-sim's output, JSON or
// protobuf binary), merges them and prints the report (docs/report.md).
#include "serq-report/cli.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "serq-report/html.h"
#include "serq-report/report.h"
#include "stats/series.h"

ABSL_FLAG(std::string, format, "text", "the report's format: text, csv, json, md or html");
ABSL_FLAG(std::string, ir, "",
          "--format=html: the program's IR (serq-parse or serq-link output), to draw its station "
          "row with the utilisation");
ABSL_FLAG(std::string, quantiles, "99",
          "the quantile columns, in percent, separated by commas, each strictly between 0 and "
          "100 (e.g. 50,90,99; empty: none)");

ABSL_FLAG(bool, series, false,
          "print the time series (run { sample DT; }) as csv instead of the report");

namespace {

constexpr char kTool[] = "serq-report";

}  // namespace

namespace serq {

int ReportMain(int argc, char** argv) {
  constexpr char kUsage[] =
      "serq-report [results...|-] [--format=text|csv|json|md|html] [--ir x.ir.json]\n"
      "            [--quantiles=50,90,99] [--series]\n"
      "Reads results (serq-sim's output, JSON or protobuf binary; stdin when no file or '-' is\n"
      "given), merges the replications of every file and writes the report to stdout;\n"
      "with --series, the time series as csv instead.";
  std::vector<char*> args = serq::ParseFlagsOrExit(std::vector<char*>(argv, argv + argc), kUsage);

  serq::report::ReportOptions options;
  options.format = absl::GetFlag(FLAGS_format);
  absl::StatusOr<std::vector<double>> quantiles =
      serq::report::ParseQuantiles(absl::GetFlag(FLAGS_quantiles));
  if (!quantiles.ok()) {
    serq::PrintToolError(kTool, absl::StrCat("--quantiles: ", quantiles.status().message()));
    return serq::kExitUsage;
  }
  options.quantiles = *quantiles;
  if (absl::Status s = serq::report::ValidateReportOptions(options); !s.ok()) {
    serq::PrintToolError(kTool, absl::StrCat("--format: ", s.message()));
    return serq::kExitUsage;
  }

  // --series prints CSV of the series alone: the report's flags would be
  // ignored.
  if (absl::GetFlag(FLAGS_series)) {
    for (const char* flag : {"format", "quantiles", "ir"}) {
      if (serq::FlagGiven(flag)) {
        serq::PrintToolError(kTool, absl::StrCat("--", flag, " applies to the report, not to --series (always CSV)"));
        return serq::kExitUsage;
      }
    }
  }
  const std::string ir_path = absl::GetFlag(FLAGS_ir);
  serq::ir::Program program;
  if (!ir_path.empty()) {
    if (options.format != "html") {
      serq::PrintToolError(kTool, "--ir applies to --format=html only");
      return serq::kExitUsage;
    }
    absl::StatusOr<std::string> bytes = serq::ReadInput(ir_path);
    if (!bytes.ok()) {
      serq::PrintToolError(kTool, bytes.status().message());
      return serq::kExitUsage;
    }
    serq::Diagnostics diags(serq::InputName(ir_path));
    if (!serq::ReadProgram(*bytes, &program, &diags)) {
      std::cerr << diags.Render();
      return serq::kExitInputRejected;
    }
  }

  std::vector<std::string> paths(args.begin() + 1, args.end());
  if (paths.empty()) paths.push_back("-");
  if (std::count(paths.begin(), paths.end(), "-") > 1) {
    serq::PrintToolError(kTool, "standard input ('-') can be read only once");
    return serq::kExitUsage;
  }

  std::vector<serq::results::Results> inputs(paths.size());
  std::vector<std::string> names;
  bool failed = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    names.push_back(serq::InputName(paths[i]));
    absl::StatusOr<std::string> bytes = serq::ReadInput(paths[i]);
    if (!bytes.ok()) {
      serq::PrintToolError(kTool, bytes.status().message());
      return serq::kExitUsage;  // as serq-parse and serq-link: an input that cannot be read
    }
    serq::Diagnostics diags(names.back());
    if (!serq::ReadResults(*bytes, &inputs[i], &diags)) {
      std::cerr << diags.Render();
      failed = true;
    }
  }
  if (failed) return serq::kExitInputRejected;

  absl::StatusOr<std::string> report;
  if (absl::GetFlag(FLAGS_series)) {
    auto series = serq::report::CollectSeries(inputs, names);
    report = series.ok() ? absl::StatusOr<std::string>(serq::report::RenderSeriesCsv(*series))
                         : absl::StatusOr<std::string>(series.status());
  } else {
    report = serq::report::RenderAnyReport(inputs, options, names,
                                           ir_path.empty() ? nullptr : &program);
  }
  if (!report.ok()) {
    std::cerr << report.status().message();
    return serq::kExitInputRejected;
  }
  if (absl::Status s = serq::WriteOutput(*report, serq::Format::kJson); !s.ok()) {
    serq::PrintToolError(kTool, s.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}

}  // namespace serq
