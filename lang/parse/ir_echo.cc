// A test tool: reads IR (JSON or binary, autodetected) from stdin and
// writes it back as JSON, with --dump as the compact dump of dump.h, or
// with --source as canonical source (format.h).
// The CLI test pipes `serq-parse --format=pb` through it; people read
// goldens with it.
#include <iostream>

#include "absl/flags/flag.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "lang/parse/dump.h"
#include "lang/parse/format.h"

ABSL_FLAG(bool, dump, false, "print the compact dump instead of JSON");
ABSL_FLAG(bool, locations, false, "with --dump: print locations too");
ABSL_FLAG(bool, source, false, "print canonical .sq source (the formatter) instead of JSON");

int main(int argc, char** argv) {
  serq::ParseFlagsOrExit(std::vector<char*>(argv, argv + argc),
                         "ir_echo [--dump [--locations] | --source] < ir: IR in, JSON, a dump or source out");
  absl::StatusOr<std::string> in = serq::ReadInput("-");
  if (!in.ok()) return serq::kExitUsage;
  serq::Diagnostics diags("<stdin>");
  serq::ir::Program p;
  if (!serq::ReadProgram(*in, &p, &diags)) {
    std::cerr << diags.Render();
    return serq::kExitInputRejected;
  }
  if (absl::GetFlag(FLAGS_source)) {
    std::cout << serq::FormatProgram(p);
    return serq::kExitOk;
  }
  std::cout << (absl::GetFlag(FLAGS_dump) ? serq::DumpProgram(p, absl::GetFlag(FLAGS_locations))
                                          : serq::EncodeMessage(p, serq::Format::kJson));
  return serq::kExitOk;
}
