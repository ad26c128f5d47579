// serq-link [ir|-] [--check] [-D name=value]... [--format=json|pb]
//
// Reads IR (JSON or binary), resolves every name and checks every static
// rule, and writes the linked IR; with --check, writes nothing.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "serq-link/link.h"

ABSL_FLAG(bool, check, false, "validate only: write no IR, exit 0 when the program is valid");
ABSL_FLAG(std::string, format, "json", "output encoding: json or pb (protobuf binary)");

namespace {

constexpr char kTool[] = "serq-link";
constexpr char kUsage[] =
    "serq-link [ir|-] [--check] [-D name=value]... [--format=json|pb]\n\n"
    "Reads serq IR (JSON or protobuf binary, autodetected; from the file, or stdin\n"
    "when it is '-' or absent), resolves every name and checks every static rule,\n"
    "and writes the linked IR to stdout.\n\n"
    "  -D name=value\n"
    "      replace param name's value by the number (repeatable; array sizes follow)\n\n"
    "Errors go to stderr; exit 1 when the program is rejected, 2 on misuse.";

int Main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  // -D may repeat; Abseil keeps only a flag's last value, so the defines
  // are taken out before the flags are parsed.
  auto defines = serq::ExtractDefines(&args);
  if (!defines.ok()) {
    serq::PrintToolError(kTool, defines.status().message());
    return serq::kExitUsage;
  }
  std::vector<char*> positional = serq::ParseFlagsOrExit(args, kUsage);
  auto format = serq::ParseFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) {
    serq::PrintToolError(kTool, format.status().message());
    return serq::kExitUsage;
  }
  serq::ir::Program program;
  std::string name;
  if (int rc = serq::ReadProgramArgument(kTool, positional, &program, &name); rc != serq::kExitOk) {
    return rc;
  }
  serq::LinkOptions options;
  options.defines = *std::move(defines);
  serq::Diagnostics diags(name);
  if (!serq::LinkProgram(&program, options, &diags)) {
    std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
    return serq::kExitInputRejected;
  }
  if (absl::GetFlag(FLAGS_check)) return serq::kExitOk;
  return serq::WriteMessageOutput(kTool, program, *format);
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
