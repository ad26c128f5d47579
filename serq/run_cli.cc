#include "serq/run_cli.h"

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/progress.h"
#include "ir/flags.h"
#include "ir/limits.h"
#include "ir/words.h"
#include "serq/pipeline/commands.h"

// The default of --quantiles, which is also how the other commands tell
// that it was not given.
constexpr char kDefaultQuantiles[] = "99";

ABSL_FLAG(std::string, quantiles, kDefaultQuantiles,
          "run: the report's quantile columns, in percent, e.g. 50,90,99");
ABSL_FLAG(std::optional<double>, sample, std::nullopt,
          "run: record the time series every DT seconds (overrides run { sample })");
ABSL_FLAG(std::string, series, "",
          "run: write the time series as csv to this file (every --sample DT, the program's "
          "sample, else 1 s)");
ABSL_FLAG(std::string, trace, "", "run: write the event log (JSON lines) to this file");
ABSL_FLAG(std::string, trace_window, "",
          "run: with --trace, only its events in FROM:TO (seconds; a side may be empty)");
ABSL_FLAG(std::string, trace_select, "",
          "run: with --trace, only these kinds: steps, sessions, pools, counters (default all)");
ABSL_FLAG(std::string, trace_format, "jsonl",
          "run: the --trace file's format, jsonl or chrome (Trace Event Format, for ui.perfetto.dev)");
ABSL_FLAG(std::string, results, "",
          "run: also write the results to this file (.json: JSON, .pb: protobuf binary), as "
          "serq-sim would; view: a results file (from serq-sim) whose figures to overlay");
ABSL_FLAG(uint64_t, max_sessions, serq::kDefaultMaxSessions,
          "run: the most sessions alive at once (and 10 times as many live leases)");
ABSL_FLAG(uint64_t, max_events, 0, "run: the most events a replication may process; 0: the runaway bound (docs/cli.md §Limits)");
ABSL_FLAG(double, max_cpu, 0, "run: the most CPU seconds the run may take; 0: no limit");

namespace serq {

std::vector<FlagUse> RunFlagUses() {
  return {
      {"quantiles", {"run"},
       " (sweep and search report the figures of --metrics)"},
      {"sample", {"run"}},
      {"series", {"run"}},
      {"trace", {"run"}},
      {"trace-format", {"run"}},
      {"trace-window", {"run"}},
      {"trace-select", {"run"}},
      {"results", {"run"}, "",
       "also write the results to this file (.json: JSON, .pb: protobuf binary), as serq-sim would"},
      {"results", {"view"}, "", "a results file (from serq-sim) whose figures to overlay on the drawing"},
      {"max-sessions", {"run"}},
      {"max-events", {"run"}},
      {"max-cpu", {"run"}},
  };
}

int RunMain(const CommandLine& line) {
  const std::string& command = line.command;
  auto defines = ParseDefines(line.defines);
  if (!defines.ok()) return Usage(defines.status().message());
  if (line.positional.size() > 1) {
    return Usage(absl::StrCat("expected one program file, got ", line.positional.size()));
  }
  std::string path = line.positional.empty() ? "-" : line.positional[0];
  if (command == "fmt" && !defines->empty()) return Usage("-D does not apply to 'serq fmt'");

  DriverOptions options;
  options.defines = *defines;
  std::string format = absl::GetFlag(FLAGS_format);
  options.sim.seed = absl::GetFlag(FLAGS_seed);
  options.sim.replications = absl::GetFlag(FLAGS_replications);
  options.sim.horizon = absl::GetFlag(FLAGS_horizon);
  options.sim.warmup = absl::GetFlag(FLAGS_warmup);
  options.sim.sample = absl::GetFlag(FLAGS_sample);
  options.sim.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.sim.trace_path = absl::GetFlag(FLAGS_trace);
  options.sim.trace_format = absl::GetFlag(FLAGS_trace_format);
  options.sim.trace_window = absl::GetFlag(FLAGS_trace_window);
  options.sim.trace_select = absl::GetFlag(FLAGS_trace_select);
  options.sim.progress = ProgressLine::ForStderr();
  options.sim.progress_tool = "serq";
  options.sim.limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  options.sim.limits.max_events = absl::GetFlag(FLAGS_max_events);
  options.sim.limits.max_cpu = absl::GetFlag(FLAGS_max_cpu);
  options.results_path = absl::GetFlag(FLAGS_results);
  options.series_path = absl::GetFlag(FLAGS_series);
  options.sim.jobs = absl::GetFlag(FLAGS_jobs).value_or(1);
  const std::string share = absl::GetFlag(FLAGS_share);
  options.share = ShareFromWord(share);
  if (!share.empty() && options.share == ir::Program::SHARE_UNSPECIFIED) {
    return Usage(absl::StrCat("unknown --share '", share, "' (expected maxmin or bottleneck)"));
  }
  if (absl::Status valid = ValidateSimOptions(options.sim); !valid.ok()) return Usage(valid.message());

  CommandResult result;
  if (command == "run") {
    options.report.format = format.empty() ? "text" : format;
    if (options.sim.sample && options.results_path.empty() && options.series_path.empty() &&
        options.report.format != "html") {
      // The text, csv, json and md reports show no series: the samples
      // would be taken and dropped.
      return Usage("--sample records a time series, which only --series FILE, --results FILE and --format=html show");
    }
    auto quantiles = report::ParseQuantiles(absl::GetFlag(FLAGS_quantiles));
    if (!quantiles.ok()) return Usage(absl::StrCat("--quantiles: ", quantiles.status().message()));
    options.report.quantiles = *quantiles;
    if (auto s = report::ValidateReportOptions(options.report); !s.ok()) {
      return Usage(absl::StrCat("--format: ", s.message()));
    }
    if (!options.results_path.empty()) {
      if (auto f = ResultsFormatForPath(options.results_path); !f.ok()) return Usage(f.status().message());
    }
    result = RunCommand(path, options);
  } else if (command == "check") {
    result = CheckCommand(path, options);
  } else if (command == "fmt") {
    result = FmtCommand(path);
  } else {
    options.view_format = format.empty() ? "svg" : format;
    if (options.view_format != "svg" && options.view_format != "dot") {
      return Usage(absl::StrCat("unknown --format '", options.view_format, "' (expected svg or dot)"));
    }
    result = ViewCommand(path, options);
  }
  std::cerr << result.err;
  if (absl::Status s = WriteStdout(result.out); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return result.exit_code;
}

}  // namespace serq
