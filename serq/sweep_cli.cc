#include "serq/sweep_cli.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "ir/words.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "serq-sim/engine/simulate.h"
#include "serq/cli.h"
#include "serq/help.h"
#include "serq/sweep/emit.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/local_run.h"
#include "serq/sweep/merge.h"
#include "serq/sweep/metrics.h"
#include "serq/sweep/search.h"
#include "serq/sweep/search_html.h"
#include "serq/sweep/sweep.h"
#include "serq/sweep/sweep_chart.h"
#include "serq/sweep/sweep_html.h"
#include "serq/sweep/sweep_report.h"

ABSL_FLAG(std::string, out, "",
          "sweep: the directory of the sweep's plan and task files (default: a temporary one); "
          "physics, vllm: the program's file (default: standard output); plan: the plan's folder");
ABSL_FLAG(std::optional<uint64_t>, task, std::nullopt,
          "sweep: run task i of the sweep in --out (what each executor runs)");
ABSL_FLAG(std::string, merge, "",
          "sweep: merge the task files in this directory into the report; plan: the candidates' "
          "results in this directory into the plan's outputs");
ABSL_FLAG(std::string, emit, "",
          "sweep, plan: write the tasks for another executor instead of running them: parallel "
          "(one command a line) or slurm (an sbatch job array script)");
ABSL_FLAG(std::string, metrics, "",
          "sweep: the figures, e.g. 'mean(ttft),p99(ttft),rate(e2e)' (default: mean and "
          "p99 of every observation)");
ABSL_FLAG(std::string, chart, "",
          "sweep: print an SVG chart of this figure (e.g. 'p99(ttft)') instead of the report");
ABSL_FLAG(std::string, chart_x, "", "sweep: the chart's x axis, a param (default: the first swept)");
ABSL_FLAG(std::string, chart_lines, "",
          "sweep: one line per value of this parameter (default: the next swept)");
ABSL_FLAG(std::string, slo, "",
          "sweep: bounds the figures are held to, e.g. 'p99(ttft) <= 2 && p99(tpot) <= 0.05': "
          "their figures are reported and each is drawn as a line on its chart");
ABSL_FLAG(std::optional<bool>, log_y, std::nullopt,
          "sweep, search: the charts' y axis logarithmic (--log-y) or linear (--log-y=off), by "
          "default logarithmic where the values drawn span ten times or more");
ABSL_FLAG(std::string, param, "", "search: the param to search over");
ABSL_FLAG(std::string, range, "", "search: lo:hi, the interval of --param to search");
ABSL_FLAG(std::string, until, "",
          "search, plan: the condition a value must meet, e.g. 'p99(ttft) <= 2 && mean(ok) >= 0.9'");
ABSL_FLAG(std::optional<double>, step, std::nullopt,
          "search: the values tried are lo + k * step (default: (hi - lo) / 100)");
ABSL_FLAG(bool, allow_overload, false,
          "search: judge a point by its figures alone, even when it is not in a steady state "
          "(default: such a point fails)");
ABSL_FLAG(double, max_in_progress, 0.1,
          "search, plan: the largest share of the sessions a point's window saw that may be in progress "
          "at the horizon; more fails the point");
ABSL_FLAG(uint32_t, max_replications, 64,
          "search, plan: the most replications a point gets while it is undecided");

namespace serq {
namespace {

namespace fs = std::filesystem;

// Every output of sweep and search goes through here: a write that fails
// is "serq: error: cannot write output: <reason>", exit 2.
int Emit(absl::string_view out, int exit_code = kExitOk) {
  if (absl::Status s = WriteStdout(out); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return exit_code;
}

int Print(const CommandResult& r) {
  std::cerr << r.err;
  return Emit(r.out, r.exit_code);
}

// --slo's condition, if given.
absl::StatusOr<std::optional<Condition>> SloCondition() {
  std::string text = absl::GetFlag(FLAGS_slo);
  if (text.empty()) return std::nullopt;
  auto condition = ParseCondition(text);
  if (!condition.ok()) return absl::InvalidArgumentError(absl::StrCat("--slo: ", condition.status().message()));
  return *std::move(condition);
}

// Adds to `metrics` those of `more` it lacks.
void AddMetrics(const std::vector<Metric>& more, std::vector<Metric>* metrics) {
  for (const Metric& m : more) {
    bool listed = false;
    for (const Metric& x : *metrics) listed = listed || x.label == m.label;
    if (!listed) metrics->push_back(m);
  }
}

// The report's flags that do not go together, as the refusal; "" when
// they do. Checked before a sweep plans, so that no task runs for a
// report that cannot be printed, and again by --merge.
std::string ReportFlagsMisuse(const std::string& format) {
  const bool chart = !absl::GetFlag(FLAGS_chart).empty();
  // The chart's own flags draw nothing without a chart: taken silently,
  // a user would wonder where the axis went.
  if (!chart && format != "html") {
    for (const char* flag : {"chart-x", "chart-lines", "log-y"}) {
      if (FlagGiven(flag)) return absl::StrCat("--", flag, " shapes a chart: give --chart FIGURE or --format=html");
    }
  }
  if (chart && !format.empty()) return "--format applies to the report, not to --chart (always SVG)";
  // The chart draws its one figure instead of the report.
  if (chart && FlagGiven("metrics")) return "--metrics lists the report's figures: --chart draws its own figure instead";
  // And of --slo, the bounds on that figure: one with none would draw
  // nothing. (A condition or figure that does not parse is said later.)
  if (chart) {
    absl::StatusOr<std::optional<Condition>> slo = SloCondition();
    absl::StatusOr<Metric> figure = ParseMetric(absl::GetFlag(FLAGS_chart));
    if (slo.ok() && *slo && figure.ok()) {
      bool drawn = false;
      for (const Comparison& c : (*slo)->comparisons) drawn = drawn || c.metric.label == figure->label;
      if (!drawn) {
        return absl::StrCat("--slo bounds no ", figure->label, ", the figure --chart draws: none of its bounds would "
                            "be drawn");
      }
    }
  }
  return "";
}

// Merges `dir` and prints the report in `format`.
int MergeAndPrint(const std::string& dir, const std::string& format) {
  if (std::string misuse = ReportFlagsMisuse(format); !misuse.empty()) return Usage(misuse);
  // A folder that holds no sweep is the flag's mistake, as --task says it.
  if (absl::StatusOr<sweep::Plan> plan = ReadPlan(dir); absl::IsNotFound(plan.status())) {
    PrintToolError("serq", plan.status().message());
    return kExitUsage;
  }
  std::vector<Metric> metrics;
  if (std::string list = absl::GetFlag(FLAGS_metrics); !list.empty()) {
    auto parsed = ParseMetrics(list);
    if (!parsed.ok()) return Usage(absl::StrCat("--metrics: ", parsed.status().message()));
    metrics = *std::move(parsed);
  }
  SweepChartOptions chart_options;
  chart_options.x = absl::GetFlag(FLAGS_chart_x);
  chart_options.lines = absl::GetFlag(FLAGS_chart_lines);
  chart_options.log_y = absl::GetFlag(FLAGS_log_y);
  auto slo = SloCondition();
  if (!slo.ok()) return Usage(slo.status().message());
  if (*slo) {
    // The bounds' figures, after --metrics's (or the defaults, when
    // --metrics is not given: the table keeps its usual figures).
    chart_options.bounds = (*slo)->comparisons;
  }
  const std::string chart = absl::GetFlag(FLAGS_chart);
  if (!chart.empty()) {
    // The chart's figure alone, unless --metrics lists it.
    auto m = ParseMetric(chart);
    if (!m.ok()) return Usage(absl::StrCat("--chart: ", m.status().message()));
    bool listed = false;
    for (const Metric& x : metrics) listed = listed || x.label == m->label;
    if (!listed) metrics.push_back(*m);
  }
  // --slo with default figures: the defaults, then its own (the merge
  // fills in the defaults; they are known once a point is).
  const bool slo_after_defaults = *slo && metrics.empty();
  if (*slo && !slo_after_defaults) AddMetrics((*slo)->metrics, &metrics);
  auto table = MergeSweep(dir, metrics);
  if (table.ok() && slo_after_defaults) {
    std::vector<Metric> all = table->metrics;
    AddMetrics((*slo)->metrics, &all);
    if (all.size() != table->metrics.size()) table = MergeSweep(dir, all);
  }
  if (!table.ok()) {
    // A bad file is located already ("file: error: ..."); the rest is serq's.
    if (absl::IsInvalidArgument(table.status())) {
      std::cerr << table.status().message() << "\n";
    } else {
      PrintToolError("serq", table.status().message());
    }
    return kExitInputRejected;
  }
  // Points that failed or whose files are missing are in the table,
  // marked; stderr says which and why, and the exit code that some did.
  std::vector<std::string> problems = SweepProblems(dir, *table);
  const int exit_code = problems.empty() ? kExitOk : kExitInputRejected;
  for (const std::string& line : problems) PrintToolError("serq", line);
  if (!chart.empty()) {
    auto svg = SweepChart(*table, ParseMetric(chart)->label, chart_options);
    if (!svg.ok()) return Usage(std::string(svg.status().message()));
    return Emit(*svg, exit_code);
  }
  auto text = format == "html" ? RenderSweepHtml(*table, chart_options)
                               : RenderSweepReport(*table, format.empty() ? "text" : format);
  if (!text.ok()) return Usage(std::string(text.status().message()));
  return Emit(*text, exit_code);
}

// "1 task", "2 tasks".
std::string Count(uint64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// A word for sh: as it is when nothing in it is special, else in quotes.
std::string ShellWord(absl::string_view word) {
  bool plain = !word.empty();
  for (char c : word) {
    plain = plain && (absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                      absl::string_view("_-./=:,@%+").find(c) != absl::string_view::npos);
  }
  if (plain) return std::string(word);
  return absl::StrCat("'", absl::StrReplaceAll(word, {{"'", "'\\''"}}), "'");
}

// The command that resumes an interrupted sweep: the one typed, with
// --out DIR when the sweep had none (its temporary directory, kept).
std::string ResumeCommand(const CommandLine& line, const std::string& dir, bool add_out) {
  std::vector<std::string> words;
  for (const std::string& a : line.argv) words.push_back(ShellWord(a));
  if (add_out) {
    words.push_back("--out");
    words.push_back(ShellWord(dir));
  }
  return absl::StrJoin(words, " ");
}

std::string Absolute(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  return ec ? dir : p.lexically_normal().string();
}

// The shared flags and the command line, as sweep and search read them.
struct SweepArgs {
  std::vector<std::string> positional;  // after the command: the program, if any
  std::vector<std::pair<std::string, std::string>> defines;  // -D as written
  std::string share;   // --share, as written ("" when not given)
  std::string format;  // --format ("" when not given)
  std::optional<uint64_t> seed;
  std::optional<uint32_t> replications;
  std::optional<double> horizon;
  std::optional<double> warmup;
  std::string data_dir;
  std::optional<uint32_t> jobs;
  std::string self;  // this executable, for the tasks' command lines
};

// What sweep and search take of the shared flags, checked as `serq run`
// checks them.
absl::StatusOr<SweepArgs> ReadSweepArgs(const CommandLine& line) {
  SweepArgs args;
  args.positional = line.positional;
  args.defines = line.defines;
  args.share = absl::GetFlag(FLAGS_share);
  args.format = absl::GetFlag(FLAGS_format);
  args.seed = absl::GetFlag(FLAGS_seed);
  args.replications = absl::GetFlag(FLAGS_replications);
  args.horizon = absl::GetFlag(FLAGS_horizon);
  args.warmup = absl::GetFlag(FLAGS_warmup);
  args.data_dir = absl::GetFlag(FLAGS_data_dir);
  args.jobs = absl::GetFlag(FLAGS_jobs);
  args.self = line.self;
  SimOptions check;
  check.replications = args.replications;
  check.horizon = args.horizon;
  check.warmup = args.warmup;
  if (absl::Status valid = ValidateSimOptions(check); !valid.ok()) return valid;
  if (args.jobs && *args.jobs == 0) return absl::InvalidArgumentError("--jobs must be at least 1");
  return args;
}

}  // namespace

std::vector<FlagUse> SweepFlagUses() {
  return {
      {"out", {"sweep"}},
      // serq vllm and serq physics write one program (FlagNotFor joins a
      // flag's entries; each command's help takes its own).
      {"out", {"vllm"}, "", "the file the program is written to (default: standard output)"},
      {"out", {"physics"}, "", "the file the program is written to (default: standard output)"},
      {"task", {"sweep"}},
      {"merge", {"sweep"}},
      {"emit", {"sweep"}},
      {"chart", {"sweep"}},
      {"chart-x", {"sweep"}},
      {"chart-lines", {"sweep"}},
      {"slo", {"sweep"}, " (serq search takes --until)"},
      {"log-y", {"sweep", "search"}},
      {"param", {"search"}},
      {"range", {"search"}},
      {"until", {"search"}},
      {"step", {"search"}},
      {"max-replications", {"search"}},
      {"allow-overload", {"search"}},
      {"max-in-progress", {"search"}},
      {"metrics", {"sweep"}, ": serq search reports the figures of --until"},
  };
}

int SweepMain(const CommandLine& line) {
  absl::StatusOr<SweepArgs> read = ReadSweepArgs(line);
  if (!read.ok()) return Usage(read.status().message());
  const SweepArgs& args = *read;
  const std::string merge = absl::GetFlag(FLAGS_merge);
  const std::string out = absl::GetFlag(FLAGS_out);
  const std::optional<uint64_t> task = absl::GetFlag(FLAGS_task);
  const std::string emit = absl::GetFlag(FLAGS_emit);
  const bool plans = merge.empty() && !task;
  if (!plans) {
    // --merge and --task read the plan: the sweep's settings are in it.
    const char* what = !merge.empty() ? "--merge" : "--task";
    if (!args.positional.empty()) return Usage(absl::StrCat(what, " takes no program: the plan names it"));
    if (!args.defines.empty() || !args.share.empty() || args.seed || args.replications ||
        args.horizon || args.warmup || !args.data_dir.empty() || !emit.empty()) {
      return Usage(absl::StrCat(what, " takes the sweep's settings from its plan: give -D, --share, "
                                      "--seed, --replications, --horizon, --data-dir, --emit when planning"));
    }
    if (!merge.empty() && task) return Usage("--merge and --task do not go together");
    const std::string refused =
        !merge.empty()
            ? FlagNotForMode("sweep", "--merge", AllFlagUses(),
                             {"merge", "metrics", "slo", "format", "chart", "chart-x", "chart-lines", "log-y"})
            : FlagNotForMode("sweep", "--task", AllFlagUses(), {"task", "out"});
    if (!refused.empty()) return Usage(refused);
  }
  if (!merge.empty()) return MergeAndPrint(Absolute(merge), args.format);
  if (task) {
    if (out.empty()) return Usage("--task needs --out DIR, the sweep's directory");
    std::string dir = Absolute(out);
    auto plan = ReadPlan(dir);
    if (!plan.ok()) {
      PrintToolError("serq", plan.status().message());
      return kExitUsage;
    }
    // Paths in the plan are relative to where the sweep was planned.
    if (chdir(plan->cwd().c_str()) != 0) {
      PrintToolError("serq", absl::StrCat("cannot enter the sweep's directory '", plan->cwd(), "'"));
      return kExitUsage;
    }
    return Print(RunTask(dir, *plan, *task));
  }

  if (args.positional.empty()) return Usage("serq sweep expects a program file (or several), got none");
  for (const std::string& p : args.positional) {
    if (p == "-") return Usage("serq sweep needs a program file, not standard input: its tasks read the file");
  }
  if (!emit.empty() && emit != "parallel" && emit != "slurm") {
    return Usage(absl::StrCat("unknown --emit '", emit, "' (expected parallel or slurm)"));
  }
  if (!emit.empty() && out.empty()) {
    return Usage("--emit needs --out DIR, a directory every task can reach");
  }
  if (!emit.empty() && args.jobs) return Usage("--jobs applies to running the tasks here, not to --emit");
  if (!args.format.empty() && !emit.empty()) return Usage("--format applies to the report: give it to --merge");
  if (!emit.empty()) {
    // The report is --merge's: its figures (--metrics, --slo, --chart) are
    // checked against the program here, so that a typo shows before the
    // tasks run, but its shape (--format, --chart-x, ...) would be lost.
    const std::string refused =
        FlagNotForMode("sweep", "--emit", AllFlagUses(),
                       {"emit", "out", "seed", "replications", "horizon", "warmup", "data-dir", "share", "metrics",
                        "slo", "chart"});
    if (!refused.empty()) return Usage(absl::StrCat(refused, ": the report's flags go to --merge"));
  }
  if (!args.format.empty() && args.format != "text" && args.format != "csv" && args.format != "json" &&
      args.format != "md" && args.format != "html") {
    return Usage(absl::StrCat("unknown --format '", args.format, "' (expected text, csv, json, md or html)"));
  }
  if (std::string misuse = ReportFlagsMisuse(args.format); !misuse.empty()) return Usage(misuse);
  // --metrics and --chart's figure, checked against the program below.
  std::vector<std::pair<const char*, std::vector<Metric>>> asked;
  if (std::string list = absl::GetFlag(FLAGS_metrics); !list.empty()) {
    auto parsed = ParseMetrics(list);
    if (!parsed.ok()) return Usage(absl::StrCat("--metrics: ", parsed.status().message()));
    asked.emplace_back("--metrics", *std::move(parsed));
  }
  if (std::string chart = absl::GetFlag(FLAGS_chart); !chart.empty()) {
    auto m = ParseMetric(chart);
    if (!m.ok()) return Usage(absl::StrCat("--chart: ", m.status().message()));
    asked.emplace_back("--chart", std::vector<Metric>{*m});
  }
  {
    auto slo = SloCondition();
    if (!slo.ok()) return Usage(slo.status().message());
    if (*slo) asked.emplace_back("--slo", (*slo)->metrics);
  }
  SweepSpec spec;
  spec.program = args.positional[0];
  if (args.positional.size() > 1) spec.programs = args.positional;
  spec.defines = args.defines;
  if (!args.share.empty()) {
    auto share = ParseShareList(args.share);
    if (!share.ok()) return Usage(std::string(share.status().message()));
    spec.share = *std::move(share);
  }
  spec.replications = args.replications;
  spec.seed = args.seed;
  spec.horizon = args.horizon;
  spec.warmup = args.warmup;
  spec.data_dir = args.data_dir;
  sweep::Plan plan;
  CommandResult planned;
  std::vector<std::string> observations, unused;
  if (!PlanSweep(spec, &plan, &planned, &observations, &unused)) return Print(planned);
  for (const std::string& w : unused) std::cerr << ToolWarning("serq", w);
  // A figure of nothing the program observes, or a chart whose axes the
  // plan cannot give, is found now, not after every task ran.
  for (const auto& [flag, metrics] : asked) {
    if (absl::Status s = CheckObserved(metrics, observations); !s.ok()) {
      return Usage(absl::StrCat(flag, ": ", s.message()));
    }
  }
  if (!absl::GetFlag(FLAGS_chart).empty()) {
    absl::StatusOr<ChartAxisChoice> axes = ChartAxes(plan, absl::GetFlag(FLAGS_chart_x), absl::GetFlag(FLAGS_chart_lines));
    if (!axes.ok()) return Usage(std::string(axes.status().message()));
  }

  std::string dir;
  bool temporary = out.empty();
  if (temporary) {
    std::string pattern = (fs::temp_directory_path() / "serq-sweep-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      PrintToolError("serq", "cannot make a temporary directory for the sweep (give --out DIR)");
      return kExitUsage;
    }
    dir = pattern;
  } else {
    dir = Absolute(out);
  }
  std::error_code exists_error;
  const bool rerun = fs::exists(PlanPath(dir), exists_error);
  // The task list names the executable the tasks run: this one, or
  // $SERQ, for hosts where serq lives elsewhere (this one may be a build
  // tree's path that exists nowhere else).
  const char* installed = std::getenv("SERQ");
  const std::string exe = installed != nullptr && *installed != '\0' ? installed : args.self;
  if (emit == "slurm") {
    if (std::string problem = SlurmPathsProblem(exe, dir); !problem.empty()) return Usage(problem);
  }
  if (absl::Status s = WritePlan(dir, plan); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  if (emit == "parallel") {
    return Emit(EmitParallel(exe, dir, plan));
  }
  if (emit == "slurm") {
    return Emit(EmitSlurm(exe, dir, plan));
  }
  uint32_t jobs = args.jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
  LocalRun run;
  CommandResult ran = RunTasksLocally(args.self, dir, plan, jobs, &run);
  if (rerun && run.signal == 0) {
    std::cerr << absl::StrCat("serq: resumed the sweep in '", dir, "': ", run.resumed, " of ",
                              Count(run.tasks, "task", "tasks"), " had finished before; ran the other ",
                              run.tasks - run.resumed, "\n");
  }
  if (run.signal != 0) {
    // Interrupted: what finished stays, said where, with the command that
    // goes on from there.
    std::cerr << ran.err;
    std::cerr << absl::StrCat("serq: interrupted by ", run.signal == SIGINT ? "SIGINT" : "SIGTERM", ": ",
                              run.finished, " of ", Count(run.tasks, "task", "tasks"),
                              " finished; their files are in '",
                              dir, "'\n", "serq: resume with: ", ResumeCommand(line, dir, temporary),
                              "\n");
    return 128 + run.signal;
  }
  int rc = Print(ran);
  if (rc == kExitOk) rc = MergeAndPrint(dir, args.format);
  if (temporary && ran.exit_code == kExitOk) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  } else if (temporary) {
    std::cerr << absl::StrCat("serq: the sweep's files are kept in '", dir, "'\n");
  }
  return rc;
}

}  // namespace serq

namespace serq {

int SearchMain(const CommandLine& line) {
  absl::StatusOr<SweepArgs> read = ReadSweepArgs(line);
  if (!read.ok()) return Usage(read.status().message());
  const SweepArgs& args = *read;
  if (args.positional.size() != 1) {
    return Usage(absl::StrCat("serq search expects one program file, got ", args.positional.size()));
  }
  if (!args.format.empty() && args.format != "text" && args.format != "html") {
    return Usage(absl::StrCat("unknown --format '", args.format, "' for 'serq search' (expected text or html)"));
  }
  if (args.positional[0] == "-") return Usage("serq search needs a program file, not standard input");
  SearchSpec spec;
  spec.program = args.positional[0];
  spec.param = absl::GetFlag(FLAGS_param);
  if (spec.param.empty()) return Usage("serq search needs --param NAME, the param to search over");
  const std::string range = absl::GetFlag(FLAGS_range);
  if (range.empty()) return Usage("serq search needs --range lo:hi");
  {
    std::vector<std::string> parts = absl::StrSplit(range, ':');
    if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &spec.lo) ||
        !absl::SimpleAtod(parts[1], &spec.hi) || !std::isfinite(spec.lo) || !std::isfinite(spec.hi) ||
        !(spec.lo < spec.hi)) {
      return Usage(absl::StrCat("malformed --range '", range, "': expected lo:hi with lo < hi, e.g. 10:200"));
    }
  }
  spec.step = absl::GetFlag(FLAGS_step).value_or((spec.hi - spec.lo) / 100);
  if (!(spec.step > 0) || !std::isfinite(spec.step)) return Usage("--step must be > 0");
  const std::string until = absl::GetFlag(FLAGS_until);
  if (until.empty()) return Usage("serq search needs --until CONDITION, e.g. 'p99(ttft) <= 2'");
  auto condition = ParseCondition(until);
  if (!condition.ok()) return Usage(absl::StrCat("--until: ", condition.status().message()));
  spec.condition = *std::move(condition);
  auto defines = ParseDefines(args.defines);
  if (!defines.ok()) return Usage(std::string(defines.status().message()));
  for (const auto& [name, value] : *defines) {
    if (name == spec.param) return Usage(absl::StrCat("-D ", name, " is the searched --param"));
  }
  spec.base.defines = *std::move(defines);
  if (!args.share.empty()) {
    spec.base.share = ShareFromWord(args.share);
    if (spec.base.share == ir::Program::SHARE_UNSPECIFIED) {
      return Usage(absl::StrCat("unknown --share '", args.share, "' (expected maxmin or bottleneck)"));
    }
  }
  spec.base.sim.seed = args.seed;
  spec.base.sim.horizon = args.horizon;
  spec.base.sim.warmup = args.warmup;
  spec.base.sim.data_dir = args.data_dir;
  spec.base.sim.jobs = args.jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
  spec.replications = args.replications.value_or(4);
  spec.max_replications = absl::GetFlag(FLAGS_max_replications);
  if (std::string m = MaxReplicationsMisuse(spec.max_replications); !m.empty()) return Usage(m);
  if (std::string m = ReplicationsAboveMost(spec.replications, spec.max_replications); !m.empty()) return Usage(m);
  spec.allow_overload = absl::GetFlag(FLAGS_allow_overload);
  spec.max_in_progress = absl::GetFlag(FLAGS_max_in_progress);
  if (!(spec.max_in_progress >= 0 && spec.max_in_progress <= 1)) {
    return Usage("--max-in-progress must be a share from 0 to 1");
  }
  if (spec.allow_overload && FlagGiven("max-in-progress")) {
    // --allow-overload judges the figures alone: the share would be taken
    // and ignored.
    return Usage("--max-in-progress applies without --allow-overload, which judges the figures alone");
  }
  if (absl::GetFlag(FLAGS_log_y).has_value() && args.format != "html") {
    return Usage("--log-y applies to the charts of --format=html");
  }
  spec.warn = [](const std::string& w) { std::cerr << ToolWarning("serq", w); };
  SearchOutcome outcome;
  CommandResult error;
  if (!RunSearch(spec, &outcome, &error)) return Print(error);
  if (args.format == "html") return Emit(RenderSearchHtml(spec, outcome, absl::GetFlag(FLAGS_log_y)));
  return Emit(RenderSearch(spec, outcome));
}

}  // namespace serq
