// Command-line flags with the toolchain's conventions, over Abseil's flag
// registry: `--help` prints the tool's usage and its own flags and exits 0;
// an unknown flag or a bad value is misuse, exit 2 (Abseil's own parser
// exits 1 for both, and its --help cannot find flags defined in main.cc).
#ifndef SERQ_IR_FLAGS_H_
#define SERQ_IR_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace serq {

// Sets the flags named in `args` (args[0] is the program; `--name=value`,
// `--name value`, `-name`, `--bool`, `--nobool`; everything after `--` is
// positional) and returns the positional arguments, args[0] first. `--help`
// (or `-h`) comes back as an error with code kCancelled after printing
// nothing: callers use ParseFlagsOrExit.
absl::StatusOr<std::vector<char*>> ParseFlags(const std::vector<char*>& args);

// The usage message followed by the flags defined outside Abseil, sorted by
// name, each with its default and help.
std::string FlagsHelp(absl::string_view usage);

// ParseFlags, then: on --help print FlagsHelp(usage) to stdout and exit 0;
// on misuse print "<tool>: error: …" to stderr and exit 2.
std::vector<char*> ParseFlagsOrExit(const std::vector<char*>& args, absl::string_view usage);

}  // namespace serq

#endif  // SERQ_IR_FLAGS_H_
