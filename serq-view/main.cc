// serq-view [ir|-] [--format=svg|dot] [--results r.json]
//
// Reads IR (linked or not) and writes the drawing of its station row; with
// --results, the stations carry a simulation's figures.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "serq-view/view.h"

ABSL_FLAG(std::string, format, "svg", "output: svg, or dot for Graphviz");
ABSL_FLAG(std::string, results, "",
          "results of a simulation of this program (serq-sim's output): colour the stations "
          "by utilisation and label them with their figures");

namespace {

constexpr char kTool[] = "serq-view";
constexpr char kUsage[] =
    "serq-view [ir|-] [--format=svg|dot] [--results r.json]\n\n"
    "Reads serq IR (JSON or protobuf binary, autodetected, linked or not; from the\n"
    "file, or stdin when it is '-' or absent) and writes the drawing of each\n"
    "session's station row to stdout: SVG, or DOT for Graphviz. docs/view.md says\n"
    "what each mark means.\n\n"
    "Errors go to stderr; exit 1 when the IR or the results cannot be drawn, 2 on\n"
    "misuse.";

int Main(int argc, char** argv) {
  std::vector<char*> positional =
      serq::ParseFlagsOrExit(std::vector<char*>(argv, argv + argc), kUsage);
  serq::ViewOptions options;
  options.format = absl::GetFlag(FLAGS_format);
  if (options.format != "svg" && options.format != "dot") {
    serq::PrintToolError(kTool, "unknown --format '" + options.format + "' (expected svg or dot)");
    return serq::kExitUsage;
  }
  serq::ir::Program program;
  std::string name;
  if (int rc = serq::ReadProgramArgument(kTool, positional, &program, &name); rc != serq::kExitOk) {
    return rc;
  }

  serq::results::Results results;
  serq::Diagnostics results_diags(serq::InputName(absl::GetFlag(FLAGS_results)));
  options.results_diags = &results_diags;
  std::string results_path = absl::GetFlag(FLAGS_results);
  if (!results_path.empty()) {
    auto results_bytes = serq::ReadInput(results_path);
    if (!results_bytes.ok()) {
      serq::PrintToolError(kTool, results_bytes.status().message());
      return serq::kExitUsage;
    }
    if (!serq::ReadResults(*results_bytes, &results, &results_diags)) {
      std::cerr << results_diags.Render();
      return serq::kExitInputRejected;
    }
    options.results = &results;
  }

  serq::Diagnostics diags(name);
  auto drawing = serq::RenderView(program, options, &diags);
  if (!drawing.ok()) {
    if (diags.empty() && results_diags.empty()) {
      serq::PrintToolError(kTool, drawing.status().message());
      return serq::kExitUsage;
    }
    if (!diags.empty()) std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
    std::cerr << results_diags.Render();
    return serq::kExitInputRejected;
  }
  absl::Status written = serq::WriteOutput(*drawing, serq::Format::kJson);
  if (!written.ok()) {
    serq::PrintToolError(kTool, written.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
