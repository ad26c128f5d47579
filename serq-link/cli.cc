// serq-link [ir|-] [--check] [-D name=value]... [--share=maxmin|bottleneck] [--format=json|pb]
//
// Reads IR (JSON or binary), resolves every name and checks every static
// rule, and writes the linked IR; with --check, writes nothing.
#include "serq-link/cli.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "ir/words.h"
#include "absl/strings/str_cat.h"
#include "lang/link/link.h"

ABSL_FLAG(bool, check, false, "validate only: write no IR, exit 0 when the program is valid");
ABSL_FLAG(std::string, format, "json", "output encoding: json or pb (protobuf binary)");
ABSL_FLAG(std::string, share, "",
          "the sharing policy, maxmin or bottleneck, replacing the program's 'share' declaration");
ABSL_FLAG(std::string, data_dir, "",
          "directory that relative table file names resolve against (default: the program's)");

namespace {

constexpr char kTool[] = "serq-link";
constexpr char kUsage[] =
    "serq-link [ir|-] [--check] [-D name=value]... [--share=maxmin|bottleneck]\n"
    "          [--data-dir D] [--format=json|pb]\n\n"
    "Reads serq IR (JSON or protobuf binary, autodetected; from the file, or stdin\n"
    "when it is '-' or absent), resolves every name and checks every static rule,\n"
    "reads each table's rows from its file into the IR, and writes the linked IR\n"
    "to stdout.\n\n"
    "  -D name=value\n"
    "      replace param name's value by the number (repeatable; array sizes follow)\n"
    "  --share=maxmin|bottleneck\n"
    "      the sharing policy of the shared stages, replacing the 'share' declaration\n\n"
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
  std::string share = absl::GetFlag(FLAGS_share);
  serq::LinkOptions options;
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.share = serq::ShareFromWord(share);
  if (!share.empty() && options.share == serq::ir::Program::SHARE_UNSPECIFIED) {
    serq::PrintToolError(kTool, absl::StrCat("unknown --share '", share,
                                             "' (expected maxmin or bottleneck)"));
    return serq::kExitUsage;
  }
  serq::ir::Program program;
  std::string name;
  if (int rc = serq::ReadProgramArgument(kTool, positional, &program, &name); rc != serq::kExitOk) {
    return rc;
  }
  options.defines = *std::move(defines);
  serq::Diagnostics diags(name);
  // Judged on the IR as given: linked IR keeps the rows its tables read.
  const serq::LinkFlagUses uses = serq::UsesOfLinkFlags(program, /*traces=*/false);
  if (!serq::LinkProgram(&program, options, &diags)) {
    std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
    return serq::kExitInputRejected;
  }
  for (const std::string& w : serq::UnusedLinkFlags(uses, share, options.data_dir,
                                                    program.file().empty() ? name : program.file())) {
    std::cerr << serq::ToolWarning(kTool, w);
  }
  if (absl::GetFlag(FLAGS_check)) return serq::kExitOk;
  return serq::WriteMessageOutput(kTool, program, *format);
}

}  // namespace

namespace serq {

int LinkMain(int argc, char** argv) { return Main(argc, argv); }

}  // namespace serq
