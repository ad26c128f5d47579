// The `serq` driver's commands: the toolchain's libraries in one process,
// so that `serq run x.sq` prints exactly what
// `serq-parse x.sq | serq-link | serq-sim | serq-report` prints.
#ifndef SERQ_SERQ_COMMANDS_H_
#define SERQ_SERQ_COMMANDS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/io.h"
#include "lang/link/link.h"
#include "serq-report/report.h"
#include "serq-sim/engine/simulate.h"
#include "diagram/view.h"

namespace serq {

struct DriverOptions {
  // -D name=value: given to the linker, so that an override of a param that
  // sizes an array takes effect (serq-sim would refuse it).
  std::vector<std::pair<std::string, double>> defines;
  // --share: the sharing policy, given to the linker (SHARE_UNSPECIFIED:
  // the program's declaration).
  ir::Program::Share share = ir::Program::SHARE_UNSPECIFIED;
  SimOptions sim;  // run: --seed, --replications, --horizon, --data-dir, --trace, --jobs
  report::ReportOptions report;    // run: --format, --quantiles
  std::string view_format = "svg";  // view: --format
  // view: --results, the results file to overlay; run: --results, where
  // to write the results as well as the report (ResultsFormatForPath).
  std::string results_path;
  // run: --series, where to write the time series as csv (RenderSeriesCsv);
  // "" none. Without --sample or the program's `sample`, every 1 s.
  std::string series_path;
  // serq fit: the trace every trace workload reads instead of its own
  // ("" none), so that a program replays a measured run's requests.
  std::string replay;
};

// The encoding of `serq run --results PATH`, by its extension: `.json`
// JSON, `.pb` or `.binpb` protobuf binary. Anything else is misuse: the
// name must say what the file holds, since serq-report autodetects it but
// people and other tools go by the name.
absl::StatusOr<Format> ResultsFormatForPath(absl::string_view path);

// What a command printed and its exit code (ir/cli.h's codes).
struct CommandResult {
  int exit_code = 0;
  std::string out;  // for stdout
  std::string err;  // for stderr
};

// A command that failed with exit code `code` and `err` on standard error
// as given; FailureLine ends a non-empty message with a newline.
CommandResult Failure(int code, std::string err);
CommandResult FailureLine(int code, absl::string_view message);

CommandResult RunCommand(const std::string& path, const DriverOptions& options);
CommandResult CheckCommand(const std::string& path, const DriverOptions& options);
CommandResult FmtCommand(const std::string& path);
CommandResult ViewCommand(const std::string& path, const DriverOptions& options);

// Parses, links and simulates `path` as `serq run` does, into `program`
// (linked) and `results`, for a command that uses the results itself
// (serq compare; serq fit). On failure fills `result` (the diagnostics and
// exit code, as `serq run` would end) and returns false; after a stall
// (`*stalled` set when given) `results` holds the figures up to it.
bool SimulateProgram(const std::string& path, const DriverOptions& options, ir::Program* program,
                     results::Results* results, CommandResult* result,
                     bool* stalled = nullptr, LinkFlagUses* uses = nullptr);

// "serq: warning: …" lines, one for each flag of the link in `options`
// that changes nothing of the program at `path` (UnusedLinkFlags over its
// `uses`: --share, --data-dir); "" when each does something. serq run,
// check and view print them.
std::string UnusedFlagWarnings(const LinkFlagUses& uses, const DriverOptions& options, const std::string& path);

// Parses and links `path` as `serq-parse path | serq-link -D… --share=…`
// would; on failure fills `result` (the rendered diagnostics, exit code)
// and returns false. The sweep and the search link each point with it.
// `uses`, when given, gets the program's uses of the link's flags, judged
// as parsed (UsesOfLinkFlags; the driver's --data-dir places traces too).
bool ParseAndLink(const std::string& path, const DriverOptions& options, ir::Program* program,
                  CommandResult* result, LinkFlagUses* uses = nullptr);

// Parses and links `source`, a program a generator wrote (serq vllm, serq
// physics), as `serq run` would once it is written to `out` ("": standard
// output; the files it names resolve from out's folder, or from the
// current one): the generator's own check that what it writes links, so
// that a table it names holding what no table can hold (a time of nan, a
// row twice) is refused when the program is written, not when it runs. On
// failure fills `result` (the linker's diagnostics, at the table's file and
// line; exit code 1) and returns false. True without a check when out's
// folder is not there: writing the program says so.
bool LinkGenerated(const std::string& out, const std::string& source, CommandResult* result);

}  // namespace serq

#endif  // SERQ_SERQ_COMMANDS_H_
