// The serq driver's command line: what every subcommand is handed, the
// flags more than one subcommand reads, and the check that a flag was
// given to a subcommand that reads it. Each subcommand's own flags are
// defined beside it (run_cli.cc, sweep_cli.cc).
#ifndef SERQ_SERQ_CLI_H_
#define SERQ_SERQ_CLI_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/strings/string_view.h"

ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(std::optional<uint64_t>, seed);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, replications);
ABSL_DECLARE_FLAG(std::optional<double>, horizon);
ABSL_DECLARE_FLAG(std::optional<double>, warmup);
ABSL_DECLARE_FLAG(std::string, data_dir);
ABSL_DECLARE_FLAG(std::string, share);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, jobs);

namespace serq {

// `serq --help`'s text above the flags: the commands and their usage.
extern const char kSerqUsage[];

// A subcommand's invocation, after the flags were parsed.
struct CommandLine {
  std::string command;                  // "run", "sweep", ...
  std::vector<std::string> positional;  // after the command
  std::vector<std::pair<std::string, std::string>> defines;  // -D as written
  std::string self;                     // this executable, for a sweep's tasks
  std::vector<std::string> argv;        // the command line as typed (argv[0] first)
};

// Prints "serq: error: MESSAGE" and the hint to run --help (`serq COMMAND
// --help` once SetUsageCommand named the command); returns the misuse exit
// code.
int Usage(absl::string_view message);

// The misuse message when --max-replications is outside 2 to
// kMaxReplications (serq search, serq plan): as --replications, each
// replication is a run, and a point that never decides (a figure with no
// sample) ran to 10^6 replications and 1.7 GB; "" when it is within.
std::string MaxReplicationsMisuse(uint64_t most);

// The misuse message when a searched point would start with more
// replications than the most it may get (serq search, serq plan); "" when
// it would not.
std::string ReplicationsAboveMost(uint64_t replications, uint64_t most);

// The command this process runs, for Usage's hint: `serq` runs one command
// a process, so main sets it once, as soon as it knows it.
void SetUsageCommand(absl::string_view command);

// `serq --help`, or `serq COMMAND --help` after SetUsageCommand: the help
// that a usage error points to.
std::string UsageHelpCommand();

// A flag and whether it was given, with the subcommands that read it.
// Whether it was given is FlagGiven(name) (ir/flags.h): the command line
// named it, whatever its value.
struct FlagUse {
  const char* name;  // as written: "max-events"
  std::vector<absl::string_view> commands;
  const char* hint = "";  // appended to the refusal, e.g. ": use --metrics"
  // For `serq COMMAND --help` of the one command of `commands` when the
  // flag means something else there than its own help says (serq plan's
  // --rate, a target; its --requests, 1000 by default): what it means, and
  // the default it has there. "": the flag's own.
  const char* help = "";
  const char* shown_default = "";
};

// The flags of cli.cc (format, seed, replications, horizon, data-dir,
// share, jobs).
std::vector<FlagUse> SharedFlagUses();

// The first flag of `uses` that was given but that `command` does not
// read, as the message refusing it ("--seed applies to 'serq run' only",
// "--format does not apply to 'serq fmt'"); "" when there is none.
std::string FlagNotFor(absl::string_view command, const std::vector<FlagUse>& uses);

// For a command with modes (serq sweep's --merge, --task, --emit): the
// first flag of `uses` that `command` reads and that was given, but that
// the mode does not (`reads`), as the message refusing it ("--jobs does
// not apply to --merge"); "" when there is none. Taken silently, such a
// flag would be ignored.
std::string FlagNotForMode(absl::string_view command, absl::string_view mode, const std::vector<FlagUse>& uses,
                           std::initializer_list<absl::string_view> reads);

// This executable's absolute path (argv0 when /proc cannot say).
std::string SelfPath(const char* argv0);

}  // namespace serq

#endif  // SERQ_SERQ_CLI_H_
