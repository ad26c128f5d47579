// serq-view [ir|-] [--format=svg|dot] [--results r.json]
// serq-view --results r.json --plot cdf|series [--observe a,b] [--replication N]
//
// Reads IR (linked or not) and writes the drawing of its station row; with
// --results, the stations carry a simulation's figures.
#include "serq-view/cli.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/diagnostics.h"
#include "chart/plot.h"
#include "diagram/view.h"
#include "lang/link/link.h"

ABSL_FLAG(std::string, format, "svg", "output: svg, or dot for Graphviz");
ABSL_FLAG(std::string, results, "",
          "results of a simulation of this program (serq-sim's output): colour the stations "
          "by utilisation and label them with their figures");

ABSL_FLAG(std::string, plot, "",
          "draw the results instead of the program: cdf (the observations' CDF) or series "
          "(the time series of run { sample DT; }); needs --results, reads no IR");
ABSL_FLAG(std::string, observe, "",
          "--plot cdf: the observations to draw, separated by commas (default: all)");
ABSL_FLAG(std::optional<uint32_t>, replication, std::nullopt,
          "--plot series: the replication whose series to draw (default: the first)");

namespace {

constexpr char kTool[] = "serq-view";

// serq-view --results r --plot cdf|series: results in, a chart out.
int Plot(const std::vector<char*>& positional) {
  serq::view::PlotOptions options;
  options.kind = absl::GetFlag(FLAGS_plot);
  if (options.kind != "cdf" && options.kind != "series") {
    serq::PrintToolError(kTool, "unknown --plot '" + options.kind + "' (expected cdf or series)");
    return serq::kExitUsage;
  }
  std::string path = absl::GetFlag(FLAGS_results);
  if (path.empty()) {
    serq::PrintToolError(kTool, "--plot draws results: give them with --results FILE");
    return serq::kExitUsage;
  }
  if (positional.size() > 1) {
    serq::PrintToolError(kTool, "--plot reads no IR, only the --results file");
    return serq::kExitUsage;
  }
  if (absl::GetFlag(FLAGS_format) != "svg") {
    serq::PrintToolError(kTool, "--plot draws SVG only");
    return serq::kExitUsage;
  }
  // Each mode's own flag: taken by the other, it would be ignored.
  if (options.kind == "cdf" && absl::GetFlag(FLAGS_replication)) {
    serq::PrintToolError(kTool, "--replication applies to --plot series (a CDF pools every replication)");
    return serq::kExitUsage;
  }
  if (options.kind == "series" && !absl::GetFlag(FLAGS_observe).empty()) {
    serq::PrintToolError(kTool, "--observe applies to --plot cdf (a series draws the stages, pools and sessions over time)");
    return serq::kExitUsage;
  }
  const std::string observe = absl::GetFlag(FLAGS_observe);
  // "x," or "," is a list with a name missing, as serq-report's
  // --quantiles=50, is (taken, ',' alone drew every observation).
  if (!observe.empty() && (absl::StrContains(observe, ",,") || observe.front() == ',' || observe.back() == ',')) {
    serq::PrintToolError(kTool, absl::StrCat("--observe '", observe, "': an empty name in the list"));
    return serq::kExitUsage;
  }
  for (absl::string_view name : absl::StrSplit(observe, ',', absl::SkipEmpty())) {
    if (std::find(options.observations.begin(), options.observations.end(), name) != options.observations.end()) {
      // Twice would draw one line over the other.
      serq::PrintToolError(kTool, absl::StrCat("--observe names '", name, "' twice"));
      return serq::kExitUsage;
    }
    options.observations.emplace_back(name);
  }
  options.replication = absl::GetFlag(FLAGS_replication);
  absl::StatusOr<std::string> bytes = serq::ReadInput(path);
  if (!bytes.ok()) {
    serq::PrintToolError(kTool, bytes.status().message());
    return serq::kExitUsage;
  }
  std::vector<serq::results::Results> results(1);
  std::string name = serq::InputName(path);
  serq::Diagnostics diags(name);
  if (!serq::ReadResults(*bytes, &results[0], &diags)) {
    std::cerr << diags.Render();
    return serq::kExitInputRejected;
  }
  absl::StatusOr<std::string> svg = serq::view::PlotResults(results, {name}, options);
  if (!svg.ok()) {
    std::cerr << svg.status().message();
    return serq::kExitInputRejected;
  }
  absl::Status written = serq::WriteOutput(*svg, serq::Format::kJson);
  if (!written.ok()) {
    serq::PrintToolError(kTool, written.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}
constexpr char kUsage[] =
    "serq-view [ir|-] [--format=svg|dot] [--results r.json]\n"
    "serq-view --results r.json --plot cdf|series [--observe a,b] [--replication N]\n\n"
    "Reads serq IR (JSON or protobuf binary, autodetected, linked or not; from the\n"
    "file, or stdin when it is '-' or absent) and writes the drawing of each\n"
    "session's station row to stdout: SVG, or DOT for Graphviz. docs/view.md says\n"
    "what each mark means. With --plot, draws the results alone: the CDF of the\n"
    "observations, or the time series of the stages, pools and sessions.\n\n"
    "Errors go to stderr; exit 1 when the IR or the results cannot be drawn, 2 on\n"
    "misuse.";

int Main(int argc, char** argv) {
  std::vector<char*> positional =
      serq::ParseFlagsOrExit(std::vector<char*>(argv, argv + argc), kUsage);
  if (!absl::GetFlag(FLAGS_plot).empty()) return Plot(positional);
  if (!absl::GetFlag(FLAGS_observe).empty() || absl::GetFlag(FLAGS_replication)) {
    serq::PrintToolError(kTool, "--observe and --replication apply to --plot only");
    return serq::kExitUsage;
  }
  std::string format = absl::GetFlag(FLAGS_format);
  if (format != "svg" && format != "dot") {
    serq::PrintToolError(kTool, "unknown --format '" + format + "' (expected svg or dot)");
    return serq::kExitUsage;
  }
  serq::ir::Program program;
  std::string name;
  if (int rc = serq::ReadProgramArgument(kTool, positional, &program, &name); rc != serq::kExitOk) {
    return rc;
  }
  {
    // The IR is checked as serq-link checks it (a NaN param, a reference
    // to nothing, any static rule), on a copy: the drawing is of the IR
    // as given, linked or not.
    serq::ir::Program linked = program;
    serq::Diagnostics diags(name);
    if (!serq::LinkProgram(&linked, serq::LinkOptions(), &diags)) {
      std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
      return serq::kExitInputRejected;
    }
  }
  std::string drawing, err;
  int rc = serq::DrawProgram(program, name, format, absl::GetFlag(FLAGS_results), kTool,
                             &drawing, &err);
  std::cerr << err;
  if (rc != serq::kExitOk) return rc;
  absl::Status written = serq::WriteOutput(drawing, serq::Format::kJson);
  if (!written.ok()) {
    serq::PrintToolError(kTool, written.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}

}  // namespace

namespace serq {

int ViewMain(int argc, char** argv) { return Main(argc, argv); }

}  // namespace serq
