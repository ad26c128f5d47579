#include "serq/measured/compare_command.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/io.h"
#include "ir/output.h"
#include "serq-report/html.h"
#include "serq/measured/compare_render.h"

namespace serq {
namespace {

// A reader's error: a file that cannot be read is misuse (as for every
// tool); one that reads but is not right, the input rejected.
CommandResult ReadFailure(const absl::Status& s) {
  if (absl::IsInvalidArgument(s)) return FailureLine(kExitInputRejected, s.message());
  return FailureLine(kExitUsage, ToolError("serq", s.message()));
}

}  // namespace

bool IsProgramPath(const std::string& path) { return absl::EndsWith(path, ".sq"); }

CommandResult CompareCommand(const std::string& measured_path, const std::string& simulated_path,
                             const CompareCommandOptions& options) {
  absl::StatusOr<compare::Run> measured = compare::ReadRun(measured_path, options.names);
  if (!measured.ok()) return ReadFailure(measured.status());

  // The simulated side: a program run here (its results kept for the html
  // page), serq results, or any run ReadRun reads.
  ir::Program program;
  std::vector<results::Results> inputs;
  absl::StatusOr<compare::Run> simulated;
  std::string warnings;  // the link's flags that change nothing of the program (--data-dir)
  if (IsProgramPath(simulated_path)) {
    CommandResult failed;
    inputs.resize(1);
    LinkFlagUses uses;
    if (!SimulateProgram(simulated_path, options.driver, &program, &inputs[0], &failed, nullptr, &uses)) {
      return failed;
    }
    warnings = UnusedFlagWarnings(uses, options.driver, simulated_path);
    simulated = compare::RunFromResults(inputs, {InputName(simulated_path)}, options.names);
  } else {
    absl::StatusOr<std::string> text = ReadInput(simulated_path);
    if (!text.ok()) return FailureLine(kExitUsage, ToolError("serq", text.status().message()));
    if (compare::DetectSource(*text) == "serq results") {
      inputs.resize(1);
      Diagnostics diags(InputName(simulated_path));
      if (!ReadResults(*text, &inputs[0], &diags)) {
        return FailureLine(kExitInputRejected, diags.Render());
      }
      simulated = compare::RunFromResults(inputs, {InputName(simulated_path)}, options.names);
    } else {
      simulated = compare::ReadRun(simulated_path, options.names);
    }
  }
  if (!simulated.ok()) return ReadFailure(simulated.status());
  if (IsProgramPath(simulated_path)) simulated->source = "serq run";
  // --names renames serq's observations: with neither side serq's, it
  // would be taken and ignored.
  const bool named = std::any_of(options.names.given.begin(), options.names.given.end(), [](bool b) { return b; });
  if (named && measured->source != "serq results" && inputs.empty()) {
    return FailureLine(kExitUsage, ToolError("serq", absl::StrCat("--names names serq's observations, and neither run is "
                                                                  "serq's (", measured->source, ", ",
                                                                  simulated->source, ")")));
  }
  // Misuse before what the runs hold: the page is serq's results'.
  if (options.format == "html" && inputs.empty()) {
    return FailureLine(kExitUsage, ToolError("serq", "--format=html is the simulated run's report page: the "
                                                     "simulated run must be a program or serq results"));
  }

  absl::StatusOr<compare::Comparison> comparison =
      compare::Compare(*measured, *simulated, options.compare);
  if (!comparison.ok()) {
    return FailureLine(kExitInputRejected, ToolError("serq", comparison.status().message()));
  }

  CommandResult result;
  if (options.format == "html") {
    absl::StatusOr<std::string> csv = compare::RenderComparison(*comparison, "csv");
    report::HtmlSection section;
    section.csv = *csv;
    section.figures_heading = "Measured and simulated";
    for (const view::Chart& chart : compare::CdfCharts(*measured, *simulated)) {
      section.figures.emplace_back(chart.title, view::ChartDocument({chart}, ""));
    }
    report::ReportOptions report_options = options.driver.report;
    report_options.format = "html";
    absl::StatusOr<std::string> page = report::RenderHtml(
        inputs, report_options, {InputName(simulated_path)},
        IsProgramPath(simulated_path) ? &program : nullptr, {section});
    if (!page.ok()) return FailureLine(kExitInputRejected, page.status().message());
    result.out = *std::move(page);
  } else {
    absl::StatusOr<std::string> out = compare::RenderComparison(*comparison, options.format);
    if (!out.ok()) return FailureLine(kExitUsage, ToolError("serq", out.status().message()));
    result.out = *std::move(out);
  }

  if (!options.svg_path.empty() && compare::CdfCharts(*measured, *simulated).empty()) {
    // Two summaries: no values on either side, nothing to draw.
    return FailureLine(kExitUsage, ToolError("serq", "--svg draws the runs' values, and neither run has any (both "
                                                     "are summaries: figures only)"));
  }
  if (!options.svg_path.empty()) {
    OutputFile svg;
    absl::Status s = svg.Open(options.svg_path);
    if (s.ok()) {
      svg.stream() << compare::CdfSvg(*measured, *simulated);
      s = svg.Commit();
    }
    if (!s.ok()) {
      return FailureLine(kExitUsage, ToolError("serq", absl::StrCat("cannot write output '",
                                                               options.svg_path, "' (--svg): ",
                                                               s.message())));
    }
  }
  result.err = warnings;
  return result;
}

}  // namespace serq
