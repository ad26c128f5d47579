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

int main(int argc, char** argv) { return Main(argc, argv); }
