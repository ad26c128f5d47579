// Command-line flags with the toolchain's conventions, over Abseil's flag
// registry: `--help` prints the tool's usage and its own flags and exits 0;
// an unknown flag or a bad value is misuse, exit 2 (Abseil's own parser
// exits 1 for both, and its --help cannot find flags defined in main.cc).
#ifndef SERQ_IR_FLAGS_H_
#define SERQ_IR_FLAGS_H_

#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace serq {

// Sets the flags named in `args` (args[0] is the program; `--name=value`,
// `--name value`, `-name`, `--bool`, `--nobool`; everything after `--` is
// positional) and returns the positional arguments, args[0] first. An
// empty value is misuse but for a text flag whose default is not empty.
// `--help`
// (or `-h`) comes back as an error with code kCancelled after printing
// nothing: callers use ParseFlagsOrExit.
absl::StatusOr<std::vector<char*>> ParseFlags(const std::vector<char*>& args);

// The flag documented as `name` (dashes, --data-dir) or spelled as Abseil
// names it (data_dir); nullptr when there is none.
absl::CommandLineFlag* FindFlagNamed(absl::string_view name);

// One flag's entry in a help text: "  --name=default\n      help\n" (a
// bool without its default). `name` with dashes.
std::string FlagHelpEntry(absl::string_view name, const absl::CommandLineFlag& flag,
                          absl::string_view default_value, absl::string_view help);
// The entry of --help itself, which every help text ends its flags with.
inline constexpr char kHelpFlagEntry[] = "  --help\n      print this message and exit\n";

// The usage message followed by the flags defined outside Abseil, sorted by
// name, each with its default and help.
std::string FlagsHelp(absl::string_view usage);

// ParseFlags, then: on --help print FlagsHelp(usage) to stdout and exit 0;
// on misuse print "<tool>: error: …" to stderr and exit 2.
// Whether flag `name` (documented with dashes, or Abseil's name) was given
// on the command line ParseFlags read, or set by SetFlagAsGiven, whatever
// its value: `--max-in-progress 0.1` is given though 0.1 is the default.
bool FlagGiven(absl::string_view name);

// Sets flag `name` from `value` as a command line would (the flag then
// FlagGiven); false, with Abseil's reason in `error`, when the flag does
// not exist or the value is not one of its type.
bool SetFlagAsGiven(absl::string_view name, absl::string_view value, std::string* error);

// `help_command` is what its error's hint says to run for usage (`serq
// plan --help`); the tool's `--help` when empty.
std::vector<char*> ParseFlagsOrExit(const std::vector<char*>& args, absl::string_view usage,
                                    absl::string_view help_command = "");

}  // namespace serq

#endif  // SERQ_IR_FLAGS_H_
