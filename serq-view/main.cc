// serq-view: the station row of a program (IR, linked or not) as SVG, or
// DOT for Graphviz; with --results, the stations carry a simulation's
// utilisation and mean number present.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "ir/cli.h"
#include "ir/io.h"
#include "serq-view/view.h"

ABSL_FLAG(std::string, format, "svg", "output format: svg or dot");
ABSL_FLAG(std::string, results, "",
          "results of a simulation of this program (serq-sim's output): colour the stations "
          "by utilisation and label them with their figures");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "draws a serq program's station row\n\n"
      "  serq-view [ir|-] [--format=svg|dot] [--results r.json]\n\n"
      "Reads IR (JSON or binary, linked or not) from the file or stdin and writes\n"
      "SVG (or DOT) to stdout. Exit 1 when the IR or the results cannot be drawn,\n"
      "2 on misuse.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  absl::StatusOr<std::string> input = serq::SingleInputArgument(args);
  if (!input.ok()) {
    serq::PrintToolError("serq-view", input.status().message());
    return serq::kExitUsage;
  }
  serq::ViewOptions options;
  options.format = absl::GetFlag(FLAGS_format);
  if (options.format != "svg" && options.format != "dot") {
    serq::PrintToolError("serq-view", "unknown --format '" + options.format +
                                          "' (expected svg or dot)");
    return serq::kExitUsage;
  }

  // A file that cannot be read is misuse (exit 2), as for the other tools.
  absl::StatusOr<std::string> bytes = serq::ReadInput(*input);
  if (!bytes.ok()) {
    serq::PrintToolError("serq-view", bytes.status().message());
    return serq::kExitUsage;
  }
  serq::Diagnostics diags(serq::InputName(*input));
  serq::ir::Program program;
  if (!serq::ReadProgram(*bytes, &program, &diags)) {
    std::cerr << diags.Render();
    return serq::kExitInputRejected;
  }
  // Later diagnostics point into the .sq source the IR came from.
  if (!program.file().empty()) diags.set_file(program.file());

  serq::results::Results results;
  std::string results_path = absl::GetFlag(FLAGS_results);
  if (!results_path.empty()) {
    absl::StatusOr<std::string> results_bytes = serq::ReadInput(results_path);
    if (!results_bytes.ok()) {
      serq::PrintToolError("serq-view", results_bytes.status().message());
      return serq::kExitUsage;
    }
    serq::Diagnostics results_diags(results_path);
    if (!serq::ReadResults(*results_bytes, &results, &results_diags)) {
      std::cerr << results_diags.Render();
      return serq::kExitInputRejected;
    }
    options.results = &results;
  }

  absl::StatusOr<std::string> drawing = serq::RenderView(program, options, &diags);
  if (!drawing.ok()) {
    if (diags.empty()) {
      serq::PrintToolError("serq-view", drawing.status().message());
      return serq::kExitUsage;
    }
    std::cerr << diags.Render();
    return serq::kExitInputRejected;
  }
  absl::Status written = serq::WriteOutput(*drawing, serq::Format::kJson);
  if (!written.ok()) {
    serq::PrintToolError("serq-view", written.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}
