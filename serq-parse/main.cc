// serq-parse: .sq source to unlinked IR on stdout.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "ir/limits.h"
#include "lang/parse/parse.h"

ABSL_FLAG(std::string, format, "json", "the output encoding: json (pretty-printed) or pb (protobuf binary)");

namespace {

constexpr char kTool[] = "serq-parse";

}  // namespace

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq-parse");
  // The versions and the limit from where they are defined: the text said
  // "version 8" for two versions after it.
  const std::string usage = absl::StrCat(
      "serq-parse [file.sq|-] [--format=json|pb]\n"
      "Parses a serq program (a file, or standard input when the argument is '-'\n"
      "or absent) and writes its unlinked IR (version ",
      serq::kIrVersion,
      ") to standard output.\n"
      "Syntax errors go to standard error (the first ",
      serq::kMaxErrors,
      "; reading stops there),\n"
      "and the exit status is 1; misuse (bad flags, an unreadable file) exits with 2.");
  std::vector<char*> args = serq::ParseFlagsOrExit(std::vector<char*>(argv, argv + argc), usage);
  absl::StatusOr<serq::Format> format = serq::ParseFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) {
    serq::PrintToolError(kTool, format.status().message());
    return serq::kExitUsage;
  }
  absl::StatusOr<std::string> path = serq::SingleInputArgument(args);
  if (!path.ok()) {
    serq::PrintToolError(kTool, path.status().message());
    return serq::kExitUsage;
  }
  absl::StatusOr<std::string> source = serq::ReadInput(*path);
  if (!source.ok()) {
    serq::PrintToolError(kTool, source.status().message());
    return serq::kExitUsage;
  }
  std::string file = serq::InputName(*path);
  serq::Diagnostics diags(file, *source);
  serq::ir::Program program;
  if (!serq::ParseProgram(file, *source, &program, &diags)) {
    std::cerr << diags.Render();
    return serq::kExitInputRejected;
  }
  return serq::WriteMessageOutput(kTool, program, *format);
}
