#include "serq/cli.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/limits.h"

ABSL_FLAG(std::string, format, "",
          "run: the report's format, text (default), csv, json, md or html; "
          "view: svg (default) or dot; sweep: text, csv, json, md or html; search: text or html; "
          "compare: text (default), csv, json or html");
// Each description names the commands that read the flag, as
// SharedFlagUses (below) lists them: `serq COMMAND --help` shows the
// description without them, and cli_test holds the two to each other.
ABSL_FLAG(std::optional<uint64_t>, seed, std::nullopt,
          "run, sweep, search, compare, fit, plan: the seed of the random streams (overrides run { seed })");
ABSL_FLAG(std::optional<uint32_t>, replications, std::nullopt,
          "run, sweep, compare, fit: the number of replications (overrides run { replications }); "
          "search, plan: those a point starts with");
ABSL_FLAG(std::optional<double>, horizon, std::nullopt,
          "run, sweep, search, compare: the simulated time to stop at, in seconds (overrides run { horizon })");
ABSL_FLAG(std::optional<double>, warmup, std::nullopt,
          "run, sweep, search: the time before which nothing is measured, in seconds (overrides "
          "run { warmup }); plan: each candidate's run's");
ABSL_FLAG(std::string, data_dir, "",
          "run, sweep, search, compare, fit: where relative trace and table file names resolve "
          "(default: the program's directory)");
ABSL_FLAG(std::string, share, "",
          "run, check, view, search: the sharing policy, maxmin or bottleneck, replacing the "
          "program's 'share'; sweep: a list of sharing policies, one axis of the points, e.g. "
          "maxmin,bottleneck");
ABSL_FLAG(std::optional<uint32_t>, jobs, std::nullopt,
          "run, search: replications on this many threads (the same output for any N); sweep: "
          "tasks run as this many local processes (default: the machine's cores); fit: measured runs "
          "simulated at once; plan: candidates searched at once");

namespace serq {

const char kSerqUsage[] =
    "serq: model an LLM-serving deployment as a queueing network and simulate it.\n"
    "\n"
    "usage: serq run x.sq [-D name=value]... [--seed N] [--replications R] [--horizon T] [--warmup W]\n"
    "                     [--sample DT] [--data-dir D] [--trace FILE] [--trace-format=jsonl|chrome]\n"
    "                     [--trace-window FROM:TO] [--trace-select steps,sessions,pools,counters]\n"
    "                     [--format=text|csv|json|md|html] [--quantiles=50,90,99]\n"
    "                     [--results r.json|r.pb] [--series FILE]\n"
    "                     [--share=maxmin|bottleneck] [--jobs N] [--max-sessions N]\n"
    "                     [--max-events N] [--max-cpu SECONDS]\n"
    "       serq sweep x.sq [y.sq...] [-D name=10:30:5|2,4,6]... [--share=maxmin,bottleneck]\n"
    "                       [--replications R] [--seed N] [--data-dir D] [--out DIR]\n"
    "                       [--jobs N | --emit=parallel|slurm]\n"
    "                       [--metrics 'mean(ttft),p99(ttft)'] [--format=text|csv|json|md|html]\n"
    "                       [--slo 'p99(ttft) <= 2'] [--log-y[=off]] [--horizon T] [--warmup W]\n"
    "                       [--chart 'p99(ttft)' [--chart-x P] [--chart-lines P]]\n"
    "       serq sweep --out DIR --task i\n"
    "       serq sweep --merge DIR [--metrics ...] [--slo ...] [--format=...]\n"
    "       serq search x.sq --param P --range lo:hi --until 'p99(ttft) <= 2' [--step S]\n"
    "                        [--replications R] [--max-replications C] [-D name=value]...\n"
    "                        [--allow-overload] [--max-in-progress SHARE]\n"
    "                        [--horizon T] [--warmup W] [--seed N] [--data-dir D] [--jobs N]\n"
    "                        [--share=maxmin|bottleneck] [--format=text|html] [--log-y[=off]]\n"
    "       serq check x.sq [-D name=value]... [--share=maxmin|bottleneck]\n"
    "       serq fmt x.sq\n"
    "       serq view x.sq [-D name=value]... [--share=maxmin|bottleneck] [--format=svg|dot]\n"
    "                      [--results r.json]\n"
    "       serq compare MEASURED SIMULATED [--format=text|csv|json|html] [--svg FILE]\n"
    "                    [--names ttft=NAME,...] [--allow-count-mismatch]\n"
    "                    [-D name=value]... [--seed N] [--replications R] [--horizon T]\n"
    "                    [--data-dir D]\n"
    "       serq fit x.sq --param NAME=LO:HI... --to MEASURED[@TRACE]... [--test MEASURED[@TRACE]...]\n"
    "                [--objective ttft.mean,...] [--max-evals N] [--algorithm A] [--jobs N]\n"
    "                [-D name=value]... [--seed N] [--replications R] [--data-dir D]\n"
    "       serq fit-steps STEPS --terms 'B0=1,B1=prefill,...' [--step-stage E] [--residuals F]\n"
    "                      [--nonnegative]\n"
    "       serq physics --model M --gpu G [--tp N] [--dp N] [--ep] [--interconnect NAME]\n"
    "                    (--replay TRACE | --rate R [--lengths L]) [--out x.sq]\n"
    "                    [--mixed-attention] [--enforce-eager] [--blis]\n"
    "       serq vllm RUN_DIR [--out x.sq] [--kv-blocks N] [--gpu-memory-utilization U]\n"
    "                 [--gpu-memory GIB] [--interconnect NAME] [--no-skew] [--no-prefix-cache]\n"
    "                 [--enforce-eager]\n"
    "       serq plan (--model M --gpu G | --run RUN_DIR) (--gpus N [--rate R] | --rate R [--max-gpus C])\n"
    "                 --until CONDITION --out DIR\n"
    "                 [--replay TRACE] [--price P] [--tps LIST] [--routers LIST]\n"
    "                 [--kinds colocated,disaggregated] [--jobs N | --no-early-stop --emit=parallel|slurm]\n"
    "       serq plan --out DIR --candidate K\n"
    "       serq plan --merge DIR\n"
    "\n"
    "run    parse, link, simulate and report: the same bytes as\n"
    "       serq-parse x.sq | serq-link | serq-sim | serq-report\n"
    "check  parse and link (every static rule); prints nothing when the program is valid\n"
    "fmt    print the program as canonical source\n"
    "view   draw the station row as SVG (or DOT)\n"
    "sweep  run a grid of points (each point x replication a task: here, with GNU\n"
    "       parallel or as a Slurm array) and report one row per point\n"
    "search the largest value of a param meeting a condition, by bisection\n"
    "compare a measured run (vLLM requests.jsonl or its run folder, BLIS results.json, serq\n"
    "       results, or a summary: vLLM's benchmark result, inference-perf's, BLIS's metrics.json)\n"
    "       beside a simulated one (serq results, or a program run here): TTFT, TPOT,\n"
    "       ITL, E2E, each figure with its error\n"
    "fit    the params that make a program's run match measured ones (NLopt)\n"
    "       --param NAME=LO:HI[,...]: the params fitted and their ranges (repeatable);\n"
    "       --to MEASURED[@TRACE][,...]: the measured runs fitted to, each replayed on its\n"
    "       trace (repeatable); --test MEASURED[@TRACE]: runs compared after, not fitted\n"
    "fit-steps  a step time linear in its params fitted to step records (least squares)\n"
    "physics the vLLM program for a model and a GPU nobody profiled: the step time from\n"
    "       the model's config.json and the GPU's datasheet (presets or files)\n"
    "vllm   the program that replays a measured vLLM run from its folder (profile,\n"
    "       engine arguments, model, requests)\n"
    "plan   the deployments a GPU budget can buy, colocated and disaggregated, each at the\n"
    "       largest rate meeting the SLOs: their Pareto front, per GPU against per user;\n"
    "       with --rate alone, the fewest GPUs that meet that rate and their front\n"
    "\n"
    "Exit status: 0 ok, 1 the program was rejected (syntax, static rule or runtime\n"
    "error), 2 misuse. See docs/cli.md.";

namespace {
std::string& UsageCommand() {
  static auto* command = new std::string;
  return *command;
}
}  // namespace

void SetUsageCommand(absl::string_view command) { UsageCommand() = std::string(command); }

std::string UsageHelpCommand() {
  return UsageCommand().empty() ? "serq --help" : absl::StrCat("serq ", UsageCommand(), " --help");
}

std::string MaxReplicationsMisuse(uint64_t most) {
  if (most >= 2 && most <= static_cast<uint64_t>(kMaxReplications)) return "";
  return absl::StrCat("--max-replications must be from 2 to ", kMaxReplications, ", not ", most);
}

std::string ReplicationsAboveMost(uint64_t replications, uint64_t most) {
  if (replications <= most) return "";
  return absl::StrCat("--replications ", replications, " is more than --max-replications ", most,
                      " (a point starts with --replications and adds up to the most)");
}

int Usage(absl::string_view message) {
  PrintToolError("serq", message);
  std::cerr << "run '" << UsageHelpCommand() << "' for usage\n";
  return kExitUsage;
}

std::vector<FlagUse> SharedFlagUses() {
  return {
      // A flag several commands read with another meaning or default in
      // each has an entry a command, so that `serq COMMAND --help` says
      // what it means there.
      {"format", {"run"}, "", "the report's format: text (the default), csv, json, md or html"},
      {"format", {"sweep"}, "", "the table's format: text (the default), csv, json, md or html"},
      {"format", {"search"}, "", "the report's format: text (the default) or html"},
      {"format", {"compare"}, "", "the comparison's format: text (the default), csv, json or html"},
      {"format", {"view"}, "", "svg (the default) or dot: the station row's drawing"},
      {"seed", {"run", "sweep", "search", "compare", "fit", "plan"}},
      {"replications", {"run", "sweep", "compare", "fit"}},
      {"replications", {"search"}, "",
       "the replications a point starts with (default 4, whatever the program's run block says), doubled "
       "while it is undecided up to --max-replications"},
      {"replications", {"plan"}, "",
       "the replications a candidate's rate starts with (default 4), doubled while it is undecided up to "
       "--max-replications"},
      {"horizon", {"run", "sweep", "search", "compare"}},
      {"warmup", {"run", "sweep", "search"}},
      {"warmup", {"plan"}, "", "the warm-up of each candidate's runs, in seconds (default 30; a --replay run's at most a quarter "
                               "of the run)"},
      {"data-dir", {"run", "sweep", "search", "compare", "fit"}},
      {"share", {"run", "check", "view", "sweep", "search"}},
      {"jobs", {"run"}, "", "replications on this many threads (default 1; the same output for any N)"},
      {"jobs", {"search"}, "",
       "replications on this many threads (default: the machine's cores; the same output for any N)"},
      {"jobs", {"sweep"}, "", "the tasks run here as this many local processes (default: the machine's cores)"},
      {"jobs", {"fit"}, "", "the measured runs (--to, --test) simulated at once, on threads (default 1)"},
      {"jobs", {"plan"}, "", "the candidates searched at once, on threads (default 1)"},
  };
}

std::string FlagNotFor(absl::string_view command, const std::vector<FlagUse>& uses) {
  for (const FlagUse& use : uses) {
    if (!FlagGiven(use.name)) continue;
    // A flag several entries list (serq plan reads serq physics's --model;
    // --out has each command's own help) is read by every command of all
    // of them, and the message names them all.
    std::vector<absl::string_view> readers;
    for (const FlagUse& other : uses) {
      if (absl::string_view(other.name) != use.name) continue;
      for (absl::string_view c : other.commands) {
        if (std::find(readers.begin(), readers.end(), c) == readers.end()) readers.push_back(c);
      }
    }
    if (std::find(readers.begin(), readers.end(), command) != readers.end()) continue;
    if (readers.size() == 1) {
      return absl::StrCat("--", use.name, " applies to 'serq ", readers[0], "' only", use.hint);
    }
    if (readers.size() == 2) {
      return absl::StrCat("--", use.name, " applies to 'serq ", readers[0], "' and 'serq ", readers[1], "' only",
                          use.hint);
    }
    return absl::StrCat("--", use.name, " does not apply to 'serq ", command, "'", use.hint);
  }
  return "";
}

std::string FlagNotForMode(absl::string_view command, absl::string_view mode, const std::vector<FlagUse>& uses,
                           std::initializer_list<absl::string_view> reads) {
  for (const FlagUse& use : uses) {
    if (std::find(use.commands.begin(), use.commands.end(), command) == use.commands.end()) continue;
    if (!FlagGiven(use.name)) continue;
    if (std::find(reads.begin(), reads.end(), absl::string_view(use.name)) != reads.end()) continue;
    return absl::StrCat("--", use.name, " does not apply to ", mode);
  }
  return "";
}

std::string SelfPath(const char* argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, n);
  return argv0;
}

}  // namespace serq
