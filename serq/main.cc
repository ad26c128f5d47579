// serq: the driver. `serq run x.sq` is the whole pipeline in one process;
// `check`, `fmt` and `view` are its other commands. The work is in
// serq/commands.cc over the toolchain's libraries.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/limits.h"
#include "serq/commands.h"
#include "serq/sweep_cli.h"
#include "ir/words.h"

ABSL_FLAG(std::string, format, "",
          "run: the report's format, text (default), csv, json, md or html; "
          "view: svg (default) or dot");
// The default of --quantiles, which is also how `check`, `fmt` and `view`
// tell that it was not given.
constexpr char kDefaultQuantiles[] = "99";

ABSL_FLAG(std::string, quantiles, kDefaultQuantiles,
          "run: the report's quantile columns, in percent, e.g. 50,90,99");
ABSL_FLAG(std::optional<uint64_t>, seed, std::nullopt,
          "run: the seed of the random streams (overrides run { seed })");
ABSL_FLAG(std::optional<uint32_t>, replications, std::nullopt,
          "run: the number of replications (overrides run { replications })");
ABSL_FLAG(std::optional<double>, horizon, std::nullopt,
          "run: the simulated time to stop at, in seconds (overrides run { horizon })");
ABSL_FLAG(std::optional<double>, sample, std::nullopt,
          "run: record the time series every DT seconds (overrides run { sample })");
ABSL_FLAG(std::string, data_dir, "", "run: where relative trace file names resolve (default: the program's directory)");
ABSL_FLAG(std::string, trace, "", "run: write the event log (JSON lines) to this file");
ABSL_FLAG(std::string, trace_format, "jsonl",
          "run: the --trace file's format, jsonl or chrome (Trace Event Format, for ui.perfetto.dev)");
ABSL_FLAG(std::string, results, "",
          "run: also write the results to this file (.json: JSON, .pb: protobuf binary), as "
          "serq-sim would; view: a results file (from serq-sim) whose figures to overlay");
ABSL_FLAG(std::string, share, "",
          "run, check, view, search: the sharing policy, maxmin or bottleneck, replacing the "
          "program's 'share'; sweep: a list of them, e.g. maxmin,bottleneck");
ABSL_FLAG(std::optional<uint32_t>, jobs, std::nullopt,
          "run, search: replications on this many threads (the same output for any N); sweep: "
          "tasks run as this many local processes (default: the machine's cores)");
ABSL_FLAG(uint64_t, max_sessions, serq::kDefaultMaxSessions,
          "run: the most sessions alive at once (and 10 times as many live leases)");
ABSL_FLAG(uint64_t, max_events, 0, "run: the most events a replication may process; 0: no limit");
ABSL_FLAG(double, max_cpu, 0, "run: the most CPU seconds the run may take; 0: no limit");

namespace {

constexpr char kUsage[] =
    "serq: model an LLM-serving deployment as a queueing network and simulate it.\n"
    "\n"
    "usage: serq run x.sq [-D name=value]... [--seed N] [--replications R] [--horizon T]\n"
    "                     [--sample DT] [--data-dir D] [--trace FILE] [--trace-format=jsonl|chrome]\n"
    "                     [--format=text|csv|json|md|html] [--quantiles=50,90,99]\n"
    "                     [--results r.json|r.pb]\n"
    "                     [--share=maxmin|bottleneck] [--jobs N] [--max-sessions N]\n"
    "                     [--max-events N] [--max-cpu SECONDS]\n"
    "       serq sweep x.sq [-D name=10:30:5|2,4,6]... [--share=maxmin,bottleneck]\n"
    "                       [--replications R] [--out DIR] [--jobs N | --emit=parallel|slurm]\n"
    "                       [--metrics 'mean(ttft),p99(ttft)'] [--format=text|csv|json|md]\n"
    "       serq sweep --out DIR --task i\n"
    "       serq sweep --merge DIR [--metrics ...] [--format=...]\n"
    "       serq search x.sq --param P --range lo:hi --until 'p99(ttft) <= 2' [--step S]\n"
    "                        [--replications R] [--max-replications C] [-D name=value]...\n"
    "       serq check x.sq [-D name=value]...\n"
    "       serq fmt x.sq\n"
    "       serq view x.sq [--format=svg|dot] [--results r.json]\n"
    "\n"
    "run    parse, link, simulate and report: the same bytes as\n"
    "       serq-parse x.sq | serq-link | serq-sim | serq-report\n"
    "check  parse and link (every static rule); prints nothing when the program is valid\n"
    "fmt    print the program as canonical source\n"
    "view   draw the station row as SVG (or DOT)\n"
    "sweep  run a grid of points (each point x replication a task: here, with GNU\n"
    "       parallel or as a Slurm array) and report one row per point\n"
    "search the largest value of a param meeting a condition, by bisection\n"
    "\n"
    "Exit status: 0 ok, 1 the program was rejected (syntax, static rule or runtime\n"
    "error), 2 misuse. See docs/cli.md.";

int Usage(const std::string& message) {
  serq::PrintToolError("serq", message);
  std::cerr << "run 'serq --help' for usage\n";
  return serq::kExitUsage;
}

}  // namespace

// This executable's absolute path, for the command lines of a sweep's tasks.
std::string SelfPath(const char* argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, n);
  return argv0;
}

int main(int argc, char** argv) {
  std::vector<char*> raw(argv, argv + argc);
  auto define_texts = serq::ExtractDefineTexts(&raw);
  if (!define_texts.ok()) return Usage(std::string(define_texts.status().message()));
  std::vector<char*> args = serq::ParseFlagsOrExit(raw, kUsage);
  if (args.size() < 2) return Usage("expected a command: run, check, fmt, view, sweep or search");
  std::string command = args[1];
  if (std::string foreign = serq::ForeignSweepFlag(command); !foreign.empty()) return Usage(foreign);
  if (command == "sweep" || command == "search") {
    if (!absl::GetFlag(FLAGS_trace).empty()) return Usage(absl::StrCat("--trace does not apply to 'serq ", command, "'"));
    if (absl::GetFlag(FLAGS_trace_format) != "jsonl") {
      return Usage(absl::StrCat("--trace-format does not apply to 'serq ", command, "'"));
    }
    if (absl::GetFlag(FLAGS_sample).has_value()) {
      return Usage(absl::StrCat("--sample does not apply to 'serq ", command, "'"));
    }
    if (!absl::GetFlag(FLAGS_results).empty()) {
      return Usage(absl::StrCat("--results does not apply to 'serq ", command, "'"));
    }
    if (absl::GetFlag(FLAGS_quantiles) != kDefaultQuantiles) {
      return Usage(absl::StrCat("--quantiles does not apply to 'serq ", command, "': use --metrics"));
    }
    serq::SweepArgs sweep;
    for (size_t i = 2; i < args.size(); ++i) sweep.positional.push_back(args[i]);
    sweep.defines = *define_texts;
    sweep.share = absl::GetFlag(FLAGS_share);
    sweep.format = absl::GetFlag(FLAGS_format);
    sweep.seed = absl::GetFlag(FLAGS_seed);
    sweep.replications = absl::GetFlag(FLAGS_replications);
    sweep.horizon = absl::GetFlag(FLAGS_horizon);
    sweep.data_dir = absl::GetFlag(FLAGS_data_dir);
    sweep.jobs = absl::GetFlag(FLAGS_jobs);
    sweep.self = SelfPath(argv[0]);
    serq::SimOptions check;
    check.replications = sweep.replications;
    check.horizon = sweep.horizon;
    if (absl::Status valid = serq::ValidateSimOptions(check); !valid.ok()) {
      return Usage(std::string(valid.message()));
    }
    if (sweep.jobs && *sweep.jobs == 0) return Usage("--jobs must be at least 1");
    return command == "sweep" ? serq::SweepMain(sweep) : serq::SearchMain(sweep);
  }
  auto defines = serq::ParseDefines(*define_texts);
  if (!defines.ok()) return Usage(std::string(defines.status().message()));
  if (args.size() > 3) return Usage(absl::StrCat("expected one program file, got ", args.size() - 2));
  std::string path = args.size() == 3 ? args[2] : "-";

  serq::DriverOptions options;
  options.defines = *defines;
  std::string format = absl::GetFlag(FLAGS_format);
  options.sim.seed = absl::GetFlag(FLAGS_seed);
  options.sim.replications = absl::GetFlag(FLAGS_replications);
  options.sim.horizon = absl::GetFlag(FLAGS_horizon);
  options.sim.sample = absl::GetFlag(FLAGS_sample);
  options.sim.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.sim.trace_path = absl::GetFlag(FLAGS_trace);
  options.sim.trace_format = absl::GetFlag(FLAGS_trace_format);
  options.sim.progress = isatty(2);
  options.sim.limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  options.sim.limits.max_events = absl::GetFlag(FLAGS_max_events);
  options.sim.limits.max_cpu = absl::GetFlag(FLAGS_max_cpu);
  options.results_path = absl::GetFlag(FLAGS_results);
  options.sim.jobs = absl::GetFlag(FLAGS_jobs).value_or(1);
  const std::string share = absl::GetFlag(FLAGS_share);
  options.share = serq::ShareFromWord(share);
  if (!share.empty() && options.share == serq::ir::Program::SHARE_UNSPECIFIED) {
    return Usage(absl::StrCat("unknown --share '", share, "' (expected maxmin or bottleneck)"));
  }
  if (absl::Status valid = serq::ValidateSimOptions(options.sim); !valid.ok()) {
    return Usage(std::string(valid.message()));
  }

  // A flag that the command does not read is a mistake to point out, not to
  // ignore: `serq check x.sq --seed 3` would otherwise look like it did something.
  if (command != "run") {
    const std::pair<const char*, bool> run_only[] = {
        {"seed", options.sim.seed.has_value()},
        {"replications", options.sim.replications.has_value()},
        {"horizon", options.sim.horizon.has_value()},
        {"sample", options.sim.sample.has_value()},
        {"data-dir", !options.sim.data_dir.empty()},
        {"trace", !options.sim.trace_path.empty()},
        {"jobs", absl::GetFlag(FLAGS_jobs).has_value()},
        {"max-sessions", options.sim.limits.max_sessions != serq::kDefaultMaxSessions},
        {"max-events", options.sim.limits.max_events != 0},
        {"max-cpu", options.sim.limits.max_cpu != 0},
        {"trace-format", options.sim.trace_format != "jsonl"},
    };
    for (const auto& [flag, set] : run_only) {
      if (set) return Usage(absl::StrCat("--", flag, " applies to 'serq run' only"));
    }
    if (absl::GetFlag(FLAGS_quantiles) != kDefaultQuantiles) {
      return Usage("--quantiles applies to 'serq run' only");
    }
    if (!format.empty() && command != "view") {
      return Usage(absl::StrCat("--format does not apply to 'serq ", command, "'"));
    }
    if (!defines->empty() && command == "fmt") return Usage("-D does not apply to 'serq fmt'");
    if (!share.empty() && command == "fmt") return Usage("--share does not apply to 'serq fmt'");
  }
  if (command != "view" && command != "run" && !absl::GetFlag(FLAGS_results).empty()) {
    return Usage("--results applies to 'serq run' and 'serq view' only");
  }

  serq::CommandResult result;
  if (command == "run") {
    options.report.format = format.empty() ? "text" : format;
    auto quantiles = serq::report::ParseQuantiles(absl::GetFlag(FLAGS_quantiles));
    if (!quantiles.ok()) return Usage(absl::StrCat("--quantiles: ", quantiles.status().message()));
    options.report.quantiles = *quantiles;
    if (auto s = serq::report::ValidateReportOptions(options.report); !s.ok()) {
      return Usage(absl::StrCat("--format: ", s.message()));
    }
    if (!options.results_path.empty()) {
      if (auto f = serq::ResultsFormatForPath(options.results_path); !f.ok()) {
        return Usage(std::string(f.status().message()));
      }
    }
    result = serq::RunCommand(path, options);
  } else if (command == "check") {
    result = serq::CheckCommand(path, options);
  } else if (command == "fmt") {
    result = serq::FmtCommand(path);
  } else if (command == "view") {
    options.view_format = format.empty() ? "svg" : format;
    if (options.view_format != "svg" && options.view_format != "dot") {
      return Usage(absl::StrCat("unknown --format '", options.view_format, "' (expected svg or dot)"));
    }
    result = serq::ViewCommand(path, options);
  } else {
    return Usage(absl::StrCat("unknown command '", command,
                              "' (expected run, check, fmt, view, sweep or search)"));
  }
  std::cerr << result.err;
  if (absl::Status s = serq::WriteStdout(result.out); !s.ok()) {
    serq::PrintToolError("serq", s.message());
    return serq::kExitUsage;
  }
  return result.exit_code;
}
