#include "serq/calibrate/fit.h"

#include <fcntl.h>
#include <nlopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/cli.h"
#include "ir/constant.h"
#include "ir/json.h"
#include "ir/output.h"
#include "lang/link/link.h"
#include "lang/parse/format.h"
#include "serq/measured/compare_render.h"
#include "serq/measured/measured.h"

namespace serq::fit {
namespace {

// One measured run, read, with the absolute path of the trace it replays.
struct Target {
  std::string name;   // as given
  std::string trace;  // absolute
  compare::Run run;
};

// The figures of one evaluation: each run's relative errors by term.
struct Evaluation {
  double rmse = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> errors;  // [run][term], relative (0.01 = 1%)
  std::vector<compare::Comparison> comparisons;
  std::string failure;  // non-empty: why the point has no objective
  int failure_code = kExitInputRejected;
};

std::string TermName(const Term& t) {
  return absl::StrCat(compare::MetricName(t.metric), ".", compare::FigureName(t.figure));
}

std::string PointText(const std::vector<ParamRange>& params, const double* x) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < params.size(); ++i) {
    parts.push_back(absl::StrCat(params[i].name, "=", ShortestDouble(x[i])));
  }
  return absl::StrJoin(parts, ", ");
}

// A fit compares like counts only: a figure over fewer requests than
// were measured is not the run's, whatever the params.
compare::CompareOptions FitCompareOptions() {
  compare::CompareOptions o;
  o.count_mismatch_hint =
      "a fit compares the same requests only (a summary's program must generate its completed count)";
  return o;
}

// Simulates the program replaying each target at `x` (up to `jobs` at a
// time; each run's figures are its own, so the result is the same for any
// jobs) and compares.
Evaluation Evaluate(const FitSpec& spec, const std::vector<Term>& terms,
                    const std::vector<Target>& targets, const double* x) {
  Evaluation e;
  const size_t n = targets.size();
  e.errors.assign(n, {});
  e.comparisons.resize(n);
  std::vector<std::string> failures(n);
  std::vector<int> codes(n, kExitInputRejected);
  auto one = [&](size_t i) {
    DriverOptions driver = spec.driver;
    for (size_t p = 0; p < spec.params.size(); ++p) {
      driver.defines.emplace_back(spec.params[p].name, x[p]);
    }
    driver.replay = targets[i].trace;
    ir::Program program;
    results::Results results;
    CommandResult failed;
    if (!SimulateProgram(spec.program, driver, &program, &results, &failed)) {
      failures[i] = failed.err;
      codes[i] = failed.exit_code;
      return;
    }
    absl::StatusOr<compare::Run> simulated =
        compare::RunFromResults({results}, {InputName(spec.program)}, compare::MetricNames{});
    if (!simulated.ok()) {
      failures[i] = std::string(simulated.status().message());
      return;
    }
    absl::StatusOr<compare::Comparison> c =
        compare::Compare(targets[i].run, *simulated, FitCompareOptions());
    if (!c.ok()) {
      failures[i] = absl::StrCat(targets[i].name, ": ", c.status().message());
      return;
    }
    c->measured_file = targets[i].name;
    c->simulated_file = InputName(spec.program);
    c->simulated_source = "serq run";
    for (const Term& t : terms) {
      std::optional<double> err;
      const compare::MetricComparison* row = nullptr;
      for (const compare::MetricComparison& m : c->metrics) {
        if (m.metric == t.metric) {
          err = m.error_percent[t.figure];
          row = &m;
        }
      }
      // A relative error needs a measured figure above 0; one of 1e-300
      // gives errors whose squares pass a double.
      const std::optional<double> measured =
          row != nullptr && row->measured ? std::optional<double>(row->measured->values[t.figure]) : std::nullopt;
      if (measured && row->simulated && std::isfinite(*measured) && *measured == 0) {
        failures[i] = absl::StrCat(targets[i].name, ": the measured ", TermName(t),
                                   " is 0: a relative error has no denominator (give the objective another "
                                   "figure, --objective)");
        return;
      }
      if (!err.has_value() || !std::isfinite(*err)) {
        failures[i] = absl::StrCat(targets[i].name, ": no ", TermName(t),
                                   " on both sides (the objective is NaN)");
        return;
      }
      if (!std::isfinite(*err * *err)) {
        failures[i] = absl::StrCat(targets[i].name, ": the relative error of ", TermName(t), " is ",
                                   ShortestDouble(*err), "%, whose square passes a double (the measured figure ",
                                   measured ? ShortestDouble(*measured) : std::string("?"),
                                   " s is next to nothing)");
        return;
      }
      e.errors[i].push_back(*err / 100);
    }
    e.comparisons[i] = *std::move(c);
  };
  const size_t jobs = std::max<size_t>(1, std::min<size_t>(spec.jobs, n));
  for (size_t start = 0; start < n; start += jobs) {
    std::vector<std::thread> threads;
    for (size_t i = start + 1; i < std::min(n, start + jobs); ++i) threads.emplace_back(one, i);
    one(start);
    for (std::thread& t : threads) t.join();
  }
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!failures[i].empty()) {
      e.failure = failures[i];
      e.failure_code = codes[i];
      return e;
    }
    for (double err : e.errors[i]) {
      sum += err * err;
      ++count;
    }
  }
  e.rmse = count == 0 ? 0 : std::sqrt(sum / count);
  return e;
}

struct Optimisation {
  const FitSpec* spec;
  const std::vector<Term>* terms;
  const std::vector<Target>* train;
  uint64_t evaluations = 0;
  // The phase's share of --max-evals, and how much of it is left: NLopt's
  // DIRECT-L given 1 evaluated 2 points (--max-evals 2 printed "after 3
  // evaluations" under "at most 2"), so the objective holds the bound.
  uint64_t phase_left = 0;
  std::string failure;  // set: the objective stopped the optimiser
  int failure_code = kExitInputRejected;
  std::vector<double> best;
  double best_rmse = std::numeric_limits<double>::infinity();
  nlopt_opt opt = nullptr;
};

double Objective(unsigned n, const double* x, double* /*gradient: none*/, void* data) {
  auto* o = static_cast<Optimisation*>(data);
  // After a failure nlopt may still ask for a point (DIRECT-L finishes its
  // sweep before it sees the stop): the first failure stands, and nothing
  // more is simulated.
  if (!o->failure.empty()) return std::numeric_limits<double>::infinity();
  if (o->phase_left == 0) {
    // Past the phase's share: not simulated, and the phase ends as at its
    // maxeval (not converged, unless a later phase converges).
    nlopt_force_stop(o->opt);
    return std::numeric_limits<double>::infinity();
  }
  --o->phase_left;
  ++o->evaluations;
  Evaluation e = Evaluate(*o->spec, *o->terms, *o->train, x);
  if (!e.failure.empty() || !std::isfinite(e.rmse)) {
    o->failure = absl::StrCat("at ", PointText(o->spec->params, x), ":\n", e.failure);
    o->failure_code = e.failure_code;
    nlopt_force_stop(o->opt);
    return std::numeric_limits<double>::infinity();
  }
  if (e.rmse < o->best_rmse) {
    o->best_rmse = e.rmse;
    o->best.assign(x, x + n);
  }
  return e.rmse;
}

std::string Percent(double relative) { return absl::StrFormat("%+.3f%%", relative * 100); }

// The runs' errors at the fitted point: RMSE, then each run's terms.
void AppendErrors(std::string* out, absl::string_view label, const std::vector<Term>& terms,
                  const std::vector<Target>& targets, const Evaluation& e) {
  absl::StrAppend(out, label, "  RMSE ", absl::StrFormat("%.3f%%", e.rmse * 100), "\n");
  for (size_t i = 0; i < targets.size(); ++i) {
    std::vector<std::string> parts;
    for (size_t t = 0; t < terms.size(); ++t) {
      parts.push_back(absl::StrCat(TermName(terms[t]), " ", Percent(e.errors[i][t])));
    }
    absl::StrAppend(out, "  ", targets[i].name, ": ", absl::StrJoin(parts, ", "), "\n");
  }
}

// Whether the file at `path` can be opened for reading, and is not a
// directory: FailedPrecondition (misuse, exit 2) when not.
absl::Status CanRead(const std::string& path, absl::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open ", what, ": ", std::strerror(errno)));
  }
  struct stat st;
  const bool directory = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  ::close(fd);
  if (directory) {
    return absl::FailedPreconditionError(absl::StrCat("cannot read ", what, ": it is a directory"));
  }
  return absl::OkStatus();
}

// The runs of `flag` (--to or --test) read, and each one's trace checked
// before any simulation: a trace that cannot be opened is misuse found
// here, not at the first simulation (which reads it).
absl::StatusOr<std::vector<Target>> ReadTargets(const std::vector<MeasuredRun>& runs,
                                                absl::string_view flag) {
  std::vector<Target> out;
  for (const MeasuredRun& r : runs) {
    Target t;
    t.name = r.trace == r.measured ? r.measured : absl::StrCat(r.measured, "@", r.trace);
    std::error_code ec;
    t.trace = std::filesystem::absolute(r.trace, ec).string();
    if (ec) t.trace = r.trace;
    absl::StatusOr<compare::Run> run = compare::ReadRun(r.measured, compare::MetricNames{});
    if (!run.ok()) return run.status();
    if (r.trace != r.measured) {
      if (absl::Status s = CanRead(r.trace, absl::StrCat("the trace '", r.trace, "' (", flag, " ",
                                                         t.name, ")"));
          !s.ok()) {
        return s;
      }
    }
    t.run = *std::move(run);
    if (t.run.summary) {
      if (r.trace != r.measured) {
        return absl::InvalidArgumentError(absl::StrCat(
            "serq: error: ", t.name, ": a ", t.run.source, " has no requests: @TRACE does not apply"));
      }
      t.trace.clear();  // not replayed: the program's own workload runs
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

absl::Status ParseParamRanges(absl::string_view text, std::vector<ParamRange>* out) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    // Every piece, so that a third (B0=1:2:3) is refused, not dropped.
    const std::vector<absl::string_view> name_range = absl::StrSplit(item, '=');
    const std::vector<absl::string_view> lo_hi =
        absl::StrSplit(name_range.size() == 2 ? name_range[1] : absl::string_view(), ':');
    ParamRange p;
    p.name = std::string(name_range[0]);
    if (name_range.size() != 2 || lo_hi.size() != 2 || p.name.empty() || lo_hi[1].empty() ||
        !absl::SimpleAtod(lo_hi[0], &p.lo) || !absl::SimpleAtod(lo_hi[1], &p.hi)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--param '", item, "': expected NAME=LO:HI, e.g. B0=1e3:2e4"));
    }
    if (!std::isfinite(p.lo) || !std::isfinite(p.hi)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--param '", item, "': LO and HI must be finite numbers"));
    }
    if (!(p.lo < p.hi)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--param '", item, "': the range is ", p.lo == p.hi ? "empty" : "inverted",
          " (LO must be below HI)"));
    }
    for (const ParamRange& q : *out) {
      if (q.name == p.name) {
        return absl::InvalidArgumentError(absl::StrCat("--param '", p.name, "' is given twice"));
      }
    }
    out->push_back(std::move(p));
  }
  return absl::OkStatus();
}

absl::StatusOr<MeasuredRun> ParseMeasuredRun(absl::string_view text) {
  MeasuredRun r;
  std::error_code error;
  const size_t at = std::filesystem::exists(std::string(text), error) ? absl::string_view::npos : text.rfind('@');
  r.measured = std::string(at == absl::string_view::npos ? text : text.substr(0, at));
  r.trace = at == absl::string_view::npos ? r.measured : std::string(text.substr(at + 1));
  if (r.measured.empty() || r.trace.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "': expected MEASURED or MEASURED@TRACE, each a file (", r.measured.empty() ? "MEASURED" : "TRACE",
        " is empty)"));
  }
  return r;
}

absl::StatusOr<std::vector<Term>> ParseObjective(absl::string_view text) {
  std::vector<Term> terms;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    // Exactly two pieces: `ttft.mean.x` is no term (a pair split would
    // drop the third).
    const std::vector<absl::string_view> mf = absl::StrSplit(item, '.');
    std::optional<Term> term;
    for (compare::Metric m : compare::kAllMetrics) {
      for (int f = 0; f < compare::kFigures; ++f) {
        if (mf.size() == 2 && mf[0] == compare::MetricName(m) && mf[1] == compare::FigureName(f)) {
          term = Term{m, f};
        }
      }
    }
    if (!term.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--objective: unknown term '", item,
          "' (expected METRIC.FIGURE: ttft, tpot, itl or e2e; mean, p50, p90, p95 or p99)"));
    }
    // A term twice would count twice in the root mean square, silently.
    for (const Term& other : terms) {
      if (other.metric == term->metric && other.figure == term->figure) {
        return absl::InvalidArgumentError(absl::StrCat("--objective: '", item, "' appears twice"));
      }
    }
    terms.push_back(*term);
  }
  if (terms.empty()) return absl::InvalidArgumentError("--objective names no term");
  return terms;
}

FitOutcome RunFit(const FitSpec& spec) {
  FitOutcome outcome;
  const std::clock_t cpu_start = std::clock();
  auto done = [&](CommandResult r) {
    outcome.result = std::move(r);
    outcome.cpu_seconds = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    return outcome;
  };
  absl::StatusOr<std::vector<Term>> terms = ParseObjective(spec.objective);
  if (!terms.ok()) return done(FailureLine(kExitInputRejected, ToolError("serq", terms.status().message())));
  if (spec.params.empty()) return done(FailureLine(kExitInputRejected, ToolError("serq", "serq fit needs --param NAME=LO:HI")));
  for (const ParamRange& p : spec.params) {
    if (!(p.lo < p.hi)) {
      return done(FailureLine(kExitInputRejected,
                          ToolError("serq", absl::StrCat("--param '", p.name, "': LO must be below HI"))));
    }
  }
  if (spec.train.empty()) return done(FailureLine(kExitInputRejected, ToolError("serq", "serq fit needs --to MEASURED")));

  // Each fitted param's range as the program writes it, " in [low, high]",
  // for the fitted point's param lines.
  std::map<std::string, std::string> ranges;
  // The program once, as written: it must declare the params (and replay a
  // trace, or generate its workload for summaries: below).
  int traces = 0;
  {
    ir::Program program;
    CommandResult failed;
    LinkFlagUses uses;
    if (!ParseAndLink(spec.program, spec.driver, &program, &failed, &uses)) return done(failed);
    // The program's own trace counts as a use: this link reads it, though
    // the fit then replays the measured runs' requests instead.
    if (spec.warn) {
      for (const std::string& w : UnusedLinkFlags(uses, "", spec.driver.sim.data_dir, InputName(spec.program))) {
        spec.warn(w);
      }
    }
    for (const ir::Workload& w : program.workload()) traces += w.process() == ir::Workload::TRACE;
    // Each declared param's index, and the fitted ones'.
    std::map<std::string, int> declared;
    for (int j = 0; j < program.param_size(); ++j) declared[program.param(j).name()] = j;
    std::set<int> fitted;
    for (const ParamRange& p : spec.params) {
      if (auto it = declared.find(p.name); it != declared.end()) fitted.insert(it->second);
    }
    for (const ParamRange& p : spec.params) {
      const auto at = declared.find(p.name);
      if (at == declared.end()) {
        return done(FailureLine(kExitInputRejected,
                            ToolError("serq", absl::StrCat("--param '", p.name, "': ", InputName(spec.program), " declares no param '", p.name, "'"))));
      }
      if (const ir::Param& q = program.param(at->second); q.has_low()) {
        ranges[p.name] = absl::StrCat(" in [", FormatExpr(q.low()), ", ", FormatExpr(q.high()), "]");
        // Ends that move with the fit could not be checked here, and a
        // trial past them would stop it.
        int read = FirstParamRead(q.low(), fitted, program);
        if (read < 0) read = FirstParamRead(q.high(), fitted, program);
        if (read >= 0) {
          const std::string& moved = program.param(read).name();
          return done(FailureLine(
              kExitInputRejected,
              ToolError("serq", absl::StrCat("--param ", p.name, ": its range, [", FormatExpr(q.low()), ", ",
                                             FormatExpr(q.high()), "] in ", InputName(spec.program), ", reads ",
                                             moved, ", which the fit moves too: fit params whose ranges' ends "
                                             "stay fixed"))));
        }
      }
      // The box within the param's range (`in [low, high]`), which every
      // trial's -D must keep: said here, before a trial fails at its edge.
      absl::StatusOr<std::optional<std::pair<double, double>>> range = ParamRangeOf(program, p.name);
      if (!range.ok()) {
        return done(FailureLine(kExitInputRejected, ToolError("serq", absl::StrCat(InputName(spec.program), ": ",
                                                                                   range.status().message()))));
      }
      if (*range && (p.lo < (*range)->first || p.hi > (*range)->second)) {
        return done(FailureLine(
            kExitInputRejected, ToolError("serq", absl::StrCat("--param ", p.name, "=", ShortestDouble(p.lo), ":",
                                                       ShortestDouble(p.hi), ": the box reaches outside the param's "
                                                       "range [", ShortestDouble((*range)->first), ", ",
                                                       ShortestDouble((*range)->second), "] in ",
                                                       InputName(spec.program)))));
      }
    }
  }
  // A measured run (with its trace) once: twice in --to it would weigh
  // twice in the objective (`--to R --to ./R`), in --to and --test its
  // test error would be a train error.
  {
    std::vector<std::pair<const char*, const MeasuredRun*>> all;
    for (const MeasuredRun& r : spec.train) all.emplace_back("--to", &r);
    for (const MeasuredRun& r : spec.test) all.emplace_back("--test", &r);
    for (size_t i = 0; i < all.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (!SameFile(all[i].second->measured, all[j].second->measured) ||
            !SameFile(all[i].second->trace, all[j].second->trace)) {
          continue;
        }
        const std::string both = absl::StrCat(all[j].first, " ", all[j].second->measured, " and ", all[i].first,
                                              " ", all[i].second->measured);
        return done(FailureLine(
            kExitUsage,
            ToolError("serq", absl::StrCat("the measured run '", all[i].second->measured, "' is given twice (", both,
                                           std::string_view(all[i].first) == all[j].first
                                               ? "): it would count twice in the objective"
                                               : "): a run fitted to is not held out"))));
      }
    }
  }
  absl::StatusOr<std::vector<Target>> train = ReadTargets(spec.train, "--to");
  absl::StatusOr<std::vector<Target>> test =
      train.ok() ? ReadTargets(spec.test, "--test")
                 : absl::StatusOr<std::vector<Target>>(train.status());
  if (!test.ok()) {
    const absl::Status& s = test.status();
    if (absl::IsInvalidArgument(s)) return done(FailureLine(kExitInputRejected, s.message()));
    return done(FailureLine(kExitUsage, ToolError("serq", s.message())));
  }
  // Runs with requests are replayed through the program's one trace
  // workload; summaries have none, and the program generates its own.
  size_t summaries = 0;
  for (const std::vector<Target>* targets : {&*train, &*test}) {
    for (const Target& t : *targets) summaries += t.run.summary;
  }
  const size_t runs = train->size() + test->size();
  if (summaries > 0 && summaries < runs) {
    return done(FailureLine(kExitInputRejected,
                        ToolError("serq", "summaries (figures only) and runs with requests cannot be "
                                          "fitted together: the summaries' program generates its "
                                          "workload, the runs' replays them")));
  }
  if (summaries > 0 && traces != 0) {
    return done(FailureLine(kExitInputRejected,
                        ToolError("serq", absl::StrCat(InputName(spec.program), ": a summary has no requests to replay: the program's workload must be generated (poisson, ... with a limit of the summary's requests), not trace(...)"))));
  }
  if (summaries == 0 && traces != 1) {
    return done(FailureLine(kExitInputRejected,
                        ToolError("serq", absl::StrCat(InputName(spec.program), ": serq fit replays each measured run's requests: the program needs exactly one workload that arrives by trace(...), not ", traces))));
  }

  const unsigned n = static_cast<unsigned>(spec.params.size());
  std::vector<double> lo(n), hi(n), x(n), step(n);
  for (unsigned i = 0; i < n; ++i) {
    lo[i] = spec.params[i].lo;
    hi[i] = spec.params[i].hi;
    // Halves first: lo + hi, or hi - lo, of two figures near the largest
    // double is past it (1e308:1.7e308 had no centre).
    x[i] = lo[i] / 2 + hi[i] / 2;
    step[i] = hi[i] / 4 - lo[i] / 4;
  }
  // The phases: a global search of the box (DIRECT-L), then a local
  // polish from its best point (BOBYQA; Nelder-Mead for one param, which
  // BOBYQA cannot take), or one of them alone.
  const bool nelder = spec.algorithm == "neldermead" || spec.algorithm == "direct-neldermead";
  const nlopt_algorithm local = nelder || n < 2 ? NLOPT_LN_NELDERMEAD : NLOPT_LN_BOBYQA;
  std::vector<std::pair<nlopt_algorithm, uint32_t>> phases;
  if (spec.algorithm == "direct") {
    phases = {{NLOPT_GN_DIRECT_L, spec.max_evals}};
  } else if (spec.algorithm == "direct-bobyqa" || spec.algorithm == "direct-neldermead") {
    const uint32_t global = static_cast<uint32_t>(uint64_t{spec.max_evals} * 2 / 3);
    phases = {{NLOPT_GN_DIRECT_L, global}, {local, spec.max_evals - global}};
  } else {
    phases = {{local, spec.max_evals}};
  }
  Optimisation o{&spec, &*terms, &*train};
  nlopt_result code = NLOPT_FAILURE;
  for (const auto& [algorithm, evals] : phases) {
    if (evals == 0) continue;
    o.opt = nlopt_create(algorithm, n);
    o.phase_left = evals;
    nlopt_set_lower_bounds(o.opt, lo.data());
    nlopt_set_upper_bounds(o.opt, hi.data());
    nlopt_set_min_objective(o.opt, Objective, &o);
    nlopt_set_maxeval(o.opt, static_cast<int>(evals));
    nlopt_set_xtol_rel(o.opt, spec.xtol_rel);
    nlopt_set_ftol_abs(o.opt, spec.ftol_abs);
    nlopt_set_initial_step(o.opt, step.data());
    if (!o.best.empty()) x = o.best;  // the polish starts where the search ended
    double value = 0;
    code = nlopt_optimize(o.opt, x.data(), &value);
    nlopt_destroy(o.opt);
    if (!o.failure.empty()) break;
    // The polish's steps: a quarter of what is left of the box around it.
    for (unsigned i = 0; i < n && !o.best.empty(); ++i) step[i] = (hi[i] - lo[i]) / 16;
  }
  outcome.simulations = o.evaluations * train->size();
  if (!o.failure.empty()) {
    return done(FailureLine(o.failure_code, absl::StrCat("serq: error: the fit stopped: the objective "
                                                     "has no value ", o.failure)));
  }
  if (o.best.empty()) {
    return done(FailureLine(kExitInputRejected,
                        ToolError("serq", absl::StrCat("NLopt stopped before any evaluation (code ", code, ")"))));
  }
  const bool converged = code == NLOPT_SUCCESS || code == NLOPT_FTOL_REACHED ||
                         code == NLOPT_XTOL_REACHED || code == NLOPT_STOPVAL_REACHED;

  // The fitted point, once more, for its tables (and the test runs').
  Evaluation at_train = Evaluate(spec, *terms, *train, o.best.data());
  Evaluation at_test;
  outcome.simulations += train->size();
  if (!test->empty()) {
    at_test = Evaluate(spec, *terms, *test, o.best.data());
    outcome.simulations += test->size();
    if (!at_test.failure.empty()) {
      return done(FailureLine(at_test.failure_code,
                          absl::StrCat("serq: error: a test run at the fitted point: ", at_test.failure)));
    }
  }

  std::string out;
  std::vector<std::string> term_names;
  for (const Term& t : *terms) term_names.push_back(TermName(t));
  absl::StrAppend(&out, "fit        ", InputName(spec.program), ": ", n, " param", n == 1 ? "" : "s",
                  " to ", train->size(), " measured run", train->size() == 1 ? "" : "s",
                  test->empty() ? "" : absl::StrCat(", ", test->size(), " held out"), "\n");
  absl::StrAppend(&out, "objective  root mean square of the relative errors of ",
                  absl::StrJoin(term_names, ", "), " over the training runs\n");
  std::vector<std::string> names;
  for (const auto& [algorithm, evals] : phases) {
    names.push_back(absl::StrCat(algorithm == NLOPT_LN_BOBYQA     ? "BOBYQA"
                                 : algorithm == NLOPT_GN_DIRECT_L ? "DIRECT-L"
                                                                  : "Nelder-Mead",
                                 " (", evals, ")"));
  }
  absl::StrAppend(&out, "optimiser  NLopt ", absl::StrJoin(names, " then "),
                  ", from the centre of the box, at most ", spec.max_evals,
                  " evaluations, xtol_rel ", ShortestDouble(spec.xtol_rel),
                  ", ftol_abs ", ShortestDouble(spec.ftol_abs), "\n");
  absl::StrAppend(&out, "result     ",
                  converged ? "converged" : "NOT CONVERGED: the best point found is printed (a partial result)",
                  " after ", o.evaluations, " evaluations, ", outcome.simulations,
                  " simulations (the last ", train->size() + test->size(), " for the tables)\n\n");
  absl::StrAppend(&out, "param  lo  hi  fitted\n");
  for (unsigned i = 0; i < n; ++i) {
    absl::StrAppend(&out, spec.params[i].name, "  ", ShortestDouble(lo[i]), "  ",
                    ShortestDouble(hi[i]), "  ", ShortestDouble(o.best[i]), "\n");
  }
  absl::StrAppend(&out, "\n");
  AppendErrors(&out, "train", *terms, *train, at_train);
  if (!test->empty()) AppendErrors(&out, "test ", *terms, *test, at_test);
  absl::StrAppend(&out, "\nas flags:  ");
  for (unsigned i = 0; i < n; ++i) {
    absl::StrAppend(&out, i ? " " : "", "-D ", spec.params[i].name, "=", ShortestDouble(o.best[i]));
  }
  absl::StrAppend(&out, "\nas params:\n");
  for (unsigned i = 0; i < n; ++i) {
    absl::StrAppend(&out, "param ", spec.params[i].name, " = ", ShortestDouble(o.best[i]),
                    ranges.count(spec.params[i].name) ? ranges.at(spec.params[i].name) : "", ";\n");
  }
  auto tables = [&](const Evaluation& e, absl::string_view role) -> absl::Status {
    for (const compare::Comparison& c : e.comparisons) {
      absl::StatusOr<std::string> table = compare::RenderComparison(c, "text");
      if (!table.ok()) return table.status();
      absl::StrAppend(&out, "\n", role, " run at the fitted point\n", *table);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = tables(at_train, "training"); !s.ok()) return done(FailureLine(kExitUsage, s.message()));
  if (absl::Status s = tables(at_test, "held-out"); !s.ok()) return done(FailureLine(kExitUsage, s.message()));
  CommandResult r;
  r.out = std::move(out);
  r.exit_code = converged ? kExitOk : kExitInputRejected;
  if (!converged) {
    r.err = ToolError("serq", absl::StrCat("the fit did not converge in ", spec.max_evals,
                                           " evaluations (--max-evals): the point printed is the best found"));
    if (r.err.back() != '\n') r.err += '\n';
  }
  return done(std::move(r));
}

}  // namespace serq::fit
