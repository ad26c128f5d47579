// serq-sim [ir|-] [-D name=value]... [--seed N] [--replications R]
//          [--horizon T] [--sample DT] [--data-dir D] [--trace FILE]
//          [--trace-format=jsonl|chrome] [--jobs N] [--format=json|pb]
//
// Reads linked IR (JSON or binary), simulates it, and writes the results
// (results.proto) for serq-report.
#include "serq-sim/cli.h"

#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/progress.h"
#include "ir/flags.h"
#include "ir/io.h"
#include "ir/output.h"
#include "ir/limits.h"
#include "ir/results_stream.h"
#include "lang/link/link.h"
#include "serq-sim/engine/simulate.h"

ABSL_FLAG(std::optional<uint64_t>, seed, std::nullopt, "the run's seed (overrides run { seed })");
ABSL_FLAG(std::optional<uint32_t>, replications, std::nullopt,
          "replications to run (overrides run { replications })");
ABSL_FLAG(std::optional<double>, horizon, std::nullopt,
          "the simulated time to stop at, in seconds (overrides run { horizon })");
ABSL_FLAG(std::optional<double>, warmup, std::nullopt,
          "the time before which nothing is measured, in seconds (overrides run { warmup })");
ABSL_FLAG(std::optional<double>, sample, std::nullopt,
          "record the time series every DT seconds (overrides run { sample })");
ABSL_FLAG(std::string, data_dir, "",
          "directory that relative trace paths resolve against (default: the program's)");
ABSL_FLAG(std::string, trace, "", "write an event log to this file, one JSON object a line");
ABSL_FLAG(std::string, trace_window, "",
          "with --trace, only its events in FROM:TO (seconds; a side may be empty)");
ABSL_FLAG(std::string, trace_select, "",
          "with --trace, only these kinds: steps, sessions, pools, counters (a comma list; "
          "default all)");
ABSL_FLAG(std::string, trace_format, "jsonl",
          "the --trace file's format: jsonl (one JSON object a line) or chrome (the Trace Event "
          "Format of ui.perfetto.dev and chrome://tracing)");
ABSL_FLAG(std::string, format, "json", "output encoding: json or pb (protobuf binary)");
ABSL_FLAG(uint32_t, jobs, 1,
          "run the replications on this many threads (the output is the same bytes for any N)");
ABSL_FLAG(uint64_t, max_sessions, serq::kDefaultMaxSessions,
          "the most sessions alive at once (and 10 times as many live leases); past it the run "
          "stops with an error");
ABSL_FLAG(uint64_t, max_events, 0,
          "the most events a replication may process before its horizon; 0: the runaway bound "
          "(docs/cli.md §Limits)");
ABSL_FLAG(double, max_cpu, 0,
          "the most CPU seconds the whole run may take; 0: no limit");

namespace {

constexpr char kTool[] = "serq-sim";

int Main(int argc, char** argv) {
  constexpr char kUsage[] =
      "serq-sim [ir|-] [-D name=value]... [--seed N] [--replications R] [--horizon T] [--warmup W]\n"
      "         [--sample DT] [--data-dir D] [--trace FILE] [--trace-format=jsonl|chrome]\n"
      "         [--trace-window FROM:TO] [--trace-select steps,sessions,pools,counters]\n"
      "         [--jobs N] [--format=json|pb]\n"
      "         [--max-sessions N] [--max-events N] [--max-cpu SECONDS]\n\n"
      "Reads linked serq IR (JSON or protobuf binary, autodetected; from the file, or\n"
      "stdin when it is '-' or absent), simulates it and writes the results to stdout\n"
      "for serq-report. -D name=value overrides a param (one that sizes an array goes to\n"
      "serq-link -D). Runtime errors and deadlocks go to stderr with the time, the\n"
      "session and the statement; exit 1 then, 2 on misuse.";
  std::vector<char*> args(argv, argv + argc);
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
  serq::SimOptions options;
  options.defines = *std::move(defines);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.replications = absl::GetFlag(FLAGS_replications);
  options.horizon = absl::GetFlag(FLAGS_horizon);
  options.warmup = absl::GetFlag(FLAGS_warmup);
  options.sample = absl::GetFlag(FLAGS_sample);
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.trace_path = absl::GetFlag(FLAGS_trace);
  options.trace_format = absl::GetFlag(FLAGS_trace_format);
  options.trace_window = absl::GetFlag(FLAGS_trace_window);
  options.trace_select = absl::GetFlag(FLAGS_trace_select);
  options.progress = serq::ProgressLine::ForStderr();
  options.jobs = absl::GetFlag(FLAGS_jobs);
  options.limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  options.limits.max_events = absl::GetFlag(FLAGS_max_events);
  options.limits.max_cpu = absl::GetFlag(FLAGS_max_cpu);
  if (absl::Status valid = serq::ValidateSimOptions(options); !valid.ok()) {
    serq::PrintToolError(kTool, valid.message());
    return serq::kExitUsage;
  }
  // The event log over the IR it simulates would destroy it.
  if (absl::Status s = serq::DistinctFiles({{"--trace", options.trace_path}},
                                           {{"the IR", positional.size() > 1 ? positional[1] : "-"}});
      !s.ok()) {
    serq::PrintToolError(kTool, s.message());
    return serq::kExitUsage;
  }
  serq::ir::Program program;
  std::string name;
  if (int rc = serq::ReadProgramArgument(kTool, positional, &program, &name); rc != serq::kExitOk) {
    return rc;
  }
  serq::Diagnostics diags(name);
  // Linked IR from outside is checked, not trusted: linking it again
  // recomputes every index the simulator follows (and changes nothing in
  // what serq-link wrote), so IR edited by hand or written by another tool
  // gets the linker's errors, not a crash.
  if (program.linked() && !serq::LinkProgram(&program, serq::LinkOptions(), &diags)) {
    std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
    return serq::kExitInputRejected;
  }
  // The overrides meet every static rule, as serq-link -D's would (a
  // `limit`, `batch`, `seqs` or `tokens` of 2.5 is refused there, and was
  // floored here): a copy is linked with them for its diagnostics only,
  // and the simulator applies them to the IR as given (an array's size
  // stays the linked one's, which the simulator says).
  if (program.linked() && !options.defines.empty()) {
    serq::ir::Program overridden = program;
    serq::LinkOptions overrides;
    overrides.defines = options.defines;
    if (!serq::LinkProgram(&overridden, overrides, &diags)) {
      std::cerr << serq::RenderProgramDiagnostics(diags, overridden, name);
      return serq::kExitInputRejected;
    }
  }
  if (*format == serq::Format::kBinary && isatty(STDOUT_FILENO)) {
    serq::PrintToolError(kTool, "refusing to write binary IR to a terminal; redirect it or use "
                                "--format=json");
    return serq::kExitUsage;
  }
  // Each replication is written as it finishes, so memory does not grow
  // with the replications. After a runtime error in a later replication the
  // output is cut short: it has no closing fields, which readers refuse.
  serq::results::Results header;
  serq::ResultsStream stream(*format, serq::WriteStdout);
  bool begun = false;
  absl::Status write_error;
  serq::SimOutcome outcome = serq::SimulateStreaming(
      program, options, &header,
      [&](serq::results::Replication* r) -> absl::Status {
        if (!begun) {
          begun = true;
          if (absl::Status s = stream.Begin(header); !s.ok()) return s;
        }
        return stream.Add(*r);
      },
      &diags, &write_error);
  if (outcome == serq::SimOutcome::kOk || outcome == serq::SimOutcome::kStalled) {
    write_error = stream.End();
  }
  // A stall: its figures up to then are written, and it is an error.
  if (outcome == serq::SimOutcome::kRejected ||
      (outcome == serq::SimOutcome::kStalled && write_error.ok())) {
    std::cerr << serq::RenderProgramDiagnostics(diags, program, name);
    return serq::kExitInputRejected;
  }
  if (!write_error.ok()) {
    serq::PrintToolError(kTool, write_error.message());
    return serq::kExitUsage;
  }
  return serq::kExitOk;
}

}  // namespace

namespace serq {

int SimMain(int argc, char** argv) { return Main(argc, argv); }

}  // namespace serq
