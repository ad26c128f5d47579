// What every binary's main does the same way: read the input named on the
// command line (or stdin), write the output (refusing binary to a
// terminal), and exit with the toolchain's codes.
#ifndef SERQ_IR_CLI_H_
#define SERQ_IR_CLI_H_

#include <string>
#include <utility>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "ir/io.h"

namespace serq {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInputRejected = 1;  // bad source, invalid IR, runtime error
inline constexpr int kExitUsage = 2;          // misuse or internal failure

// On an allocation that fails (std::bad_alloc: past `ulimit -v`, or on a
// machine whose kernel refuses rather than kills) or a thread that cannot
// start (std::system_error), uncaught in whatever thread: says "TOOL:
// error: out of memory: ..." (or "a system call failed: ...") on standard
// error, removes the temporary files being written (ir/output.h), and
// exits kExitUsage, instead of std::terminate's abort (exit 134, a core).
// A std::terminate hook; every binary's main calls it first. Where a run's
// memory grows with an input, a bound stops it earlier with a located
// error (ir/limits.h); this is for what no bound covers, e.g. the samples
// of many replications kept for one report.
void ExitOnOutOfMemory(const char* tool);

// The whole of file `path`; "-" or "" reads standard input. A file that
// cannot be read (missing, a directory, an I/O error, past 512 MB) is never
// InvalidArgument, the code callers keep for a file read and wrong.
absl::StatusOr<std::string> ReadInput(absl::string_view path);

// The name diagnostics print for input `path`: "<stdin>" for "-" or "".
std::string InputName(absl::string_view path);

// Writes `bytes` to stdout, every byte checked: a failed write is
// "cannot write output: <reason>" (the tool exits kExitUsage). Binary
// output is refused when stdout is a terminal (it would only garble the
// screen). Every output a tool writes goes through this or ir/output.h.
absl::Status WriteOutput(absl::string_view bytes, Format format);

// The checked write of WriteOutput without the terminal check: for output
// written in pieces (serq-sim's replications as they finish).
absl::Status WriteStdout(absl::string_view bytes);

// The one positional argument of a tool that reads one input: "-" when
// there is none; an error when there are several. `args` is what
// ParseFlags returned (args[0] is the program).
absl::StatusOr<std::string> SingleInputArgument(const std::vector<char*>& args);

// Removes every `-D name=value` from `args` (also written `-Dname=value`,
// `-D=name=value`, `--D name=value`, `--D=name=value`) before Abseil parses
// the rest, since Abseil keeps only the last value of a repeated flag.
// Stops at "--". Returns the definitions in command-line order; an error
// for a malformed one (a missing value, a name that is not an identifier,
// a value that is not a number).
absl::StatusOr<std::vector<std::pair<std::string, double>>> ExtractDefines(
    std::vector<char*>* args);

// ExtractDefines in two steps, for `serq sweep`, whose values are grids
// ("10:30:5", "2,4,6"): the definitions with their values as written
// (an error only for a missing '=' or a name that is not an identifier),
// then each value read as a number.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ExtractDefineTexts(
    std::vector<char*>* args);
// A -D value: a number, or inf (an unlimited value: "inf", "infinity",
// signed, any case). A literal past the largest double (1e400), which
// reads as inf, is refused: empty when `text` is one, else why not.
std::string DefineValueProblem(absl::string_view text, double* value);

absl::StatusOr<std::vector<std::pair<std::string, double>>> ParseDefines(
    const std::vector<std::pair<std::string, std::string>>& texts);

// Renders diagnostics about `program`, read from input `input_name`: those
// with a source location, and those about the whole program, against the
// program's source file when it has one (`Program.file`; with the source
// line and caret when the file is readable); those at an IR path against
// `input_name`.
std::string RenderProgramDiagnostics(const Diagnostics& diags, const ir::Program& program,
                                     absl::string_view input_name);

// Reads the IR named by a tool's positional arguments (`positional` as
// ParseFlags returns them: one file, or stdin when there is none or "-")
// into `program`, and sets `name` to the input's name for diagnostics.
// Returns kExitOk; otherwise it has printed why (a misuse as
// "<tool>: error: ...", IR that cannot be read as diagnostics) and returns
// the exit code the tool should end with.
int ReadProgramArgument(absl::string_view tool, const std::vector<char*>& positional,
                        ir::Program* program, std::string* name);

// Writes `message` to stdout in `format`. Returns kExitOk, or kExitUsage
// after printing why it could not.
int WriteMessageOutput(absl::string_view tool, const google::protobuf::Message& message,
                       Format format);

// "<tool>: error: <message>" and a newline: how a tool reports misuse. The
// message's control characters but line breaks and tabs are written as
// escapes (\x1b), as ToolWarning's.
std::string ToolError(absl::string_view tool, absl::string_view message);

// Prints ToolError(tool, message) to stderr.
void PrintToolError(absl::string_view tool, absl::string_view message);

// "<tool>: warning: <message>" and a newline: what a tool takes and says
// (a flag that changes nothing, a lookup past its table).
std::string ToolWarning(absl::string_view tool, absl::string_view message);

}  // namespace serq

#endif  // SERQ_IR_CLI_H_
