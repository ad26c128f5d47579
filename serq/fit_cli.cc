#include "serq/fit_cli.h"

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/output.h"
#include "serq/calibrate/fit.h"
#include "serq/calibrate/fit_steps.h"

ABSL_FLAG(std::string, objective, serq::fit::kDefaultObjective,
          "fit: the terms whose relative errors' root mean square is minimised, METRIC.FIGURE "
          "(ttft, tpot, itl, e2e; mean, p50, p90, p95, p99)");
ABSL_FLAG(uint32_t, max_evals, 600, "fit: the most evaluations of the objective");
ABSL_FLAG(std::string, algorithm, "direct-neldermead",
          "fit: direct-neldermead (NLopt's DIRECT-L over the box, then Nelder-Mead from its best; "
          "the default), direct-bobyqa, bobyqa, neldermead or direct");

ABSL_FLAG(std::string, terms, "",
          "fit-steps: the step time's terms, NAME=FACTOR*FACTOR..., e.g. "
          "'B0=1,B1=prefill,B2=decode_context'");
ABSL_FLAG(std::string, step_stage, "", "fit-steps: in a --trace, the steps of this stage only");
ABSL_FLAG(bool, nonnegative, false,
          "fit-steps: every coefficient at least 0 (bounded least squares, exact: NLopt's SLSQP, then Lawson-Hanson's active set)");
ABSL_FLAG(std::string, residuals, "", "fit-steps: also write each step's residual to this CSV file");

namespace serq {
namespace {

// The most --max-evals: each evaluation simulates every measured run.
constexpr uint32_t kMostEvaluations = 1000000;

// The values of the repeated flags, taken before the flags are parsed.
struct FitLists {
  std::vector<std::string> param, to, test;
};
FitLists& Lists() {
  static FitLists lists;
  return lists;
}

}  // namespace

std::string TakeFitLists(std::vector<char*>* args) {
  if (args->size() < 2 || std::string((*args)[1]) != "fit") return "";
  std::vector<char*> kept;
  for (size_t i = 0; i < args->size(); ++i) {
    std::string a = (*args)[i];
    std::vector<std::string>* list = nullptr;
    std::string value;
    bool separate = false;
    for (auto [name, target] : {std::pair<const char*, std::vector<std::string>*>{"param", &Lists().param},
                                {"to", &Lists().to},
                                {"test", &Lists().test}}) {
      for (const std::string dashes : {"--", "-"}) {
        const std::string flag = dashes + name;
        if (a == flag) {
          list = target;
          separate = true;
        } else if (absl::StartsWith(a, flag + "=")) {
          list = target;
          value = a.substr(flag.size() + 1);
        }
      }
    }
    if (list == nullptr) {
      kept.push_back((*args)[i]);
      continue;
    }
    if (separate) {
      if (i + 1 >= args->size()) return absl::StrCat(a, " needs a value");
      value = (*args)[++i];
    }
    list->push_back(value);
  }
  *args = kept;
  return "";
}

std::vector<FlagUse> FitFlagUses() {
  return {
      {"objective", {"fit"}},
      {"max-evals", {"fit"}},
      {"algorithm", {"fit"}},
      {"terms", {"fit-steps"}},
      {"step-stage", {"fit-steps"}},
      {"residuals", {"fit-steps"}},
      {"nonnegative", {"fit-steps"}},
  };
}

int FitMain(const CommandLine& line) {
  if (line.positional.size() != 1) {
    return Usage(absl::StrCat("serq fit: expected one PROGRAM (a .sq file), got ",
                              line.positional.size()));
  }
  fit::FitSpec spec;
  spec.program = line.positional[0];
  for (const std::string& text : Lists().param) {
    if (absl::Status s = fit::ParseParamRanges(text, &spec.params); !s.ok()) {
      PrintToolError("serq", s.message());
      return kExitInputRejected;
    }
  }
  for (const auto* list : {&Lists().to, &Lists().test}) {
    for (const std::string& text : *list) {
      for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
        absl::StatusOr<fit::MeasuredRun> run = fit::ParseMeasuredRun(item);
        if (!run.ok()) return Usage(absl::StrCat(list == &Lists().to ? "--to " : "--test ", run.status().message()));
        (list == &Lists().to ? spec.train : spec.test).push_back(*std::move(run));
      }
    }
  }
  if (spec.params.empty()) return Usage("serq fit needs --param NAME=LO:HI (one or more)");
  if (spec.train.empty()) return Usage("serq fit needs --to MEASURED (a measured run to fit)");
  spec.objective = absl::GetFlag(FLAGS_objective);
  spec.max_evals = absl::GetFlag(FLAGS_max_evals);
  // Each evaluation is a simulation of every run: a million is past any
  // fit's budget, and more would overflow NLopt's int (2^31 read as no
  // limit at all).
  if (spec.max_evals < 1 || spec.max_evals > kMostEvaluations) {
    return Usage(absl::StrCat("--max-evals must be from 1 to ", kMostEvaluations, ", not ", spec.max_evals));
  }
  spec.algorithm = absl::GetFlag(FLAGS_algorithm);
  if (spec.algorithm != "direct-bobyqa" && spec.algorithm != "direct-neldermead" &&
      spec.algorithm != "bobyqa" &&
      spec.algorithm != "neldermead" && spec.algorithm != "direct") {
    return Usage(absl::StrCat("unknown --algorithm '", spec.algorithm,
                              "' (expected direct-bobyqa, direct-neldermead, bobyqa, neldermead or direct)"));
  }
  auto defines = ParseDefines(line.defines);
  if (!defines.ok()) return Usage(defines.status().message());
  for (const auto& [name, value] : *defines) {
    for (const fit::ParamRange& p : spec.params) {
      if (p.name == name) return Usage(absl::StrCat("'", name, "' is both fitted (--param) and set (-D)"));
    }
  }
  spec.driver.defines = *defines;
  spec.driver.sim.seed = absl::GetFlag(FLAGS_seed);
  spec.driver.sim.replications = absl::GetFlag(FLAGS_replications);
  spec.driver.sim.data_dir = absl::GetFlag(FLAGS_data_dir);
  spec.jobs = absl::GetFlag(FLAGS_jobs).value_or(1);
  if (spec.jobs == 0) return Usage("--jobs must be at least 1");
  if (absl::Status valid = ValidateSimOptions(spec.driver.sim); !valid.ok()) return Usage(valid.message());

  spec.warn = [](const std::string& w) { std::cerr << ToolWarning("serq", w); };
  fit::FitOutcome outcome = fit::RunFit(spec);
  std::cerr << outcome.result.err;
  if (absl::Status s = WriteStdout(outcome.result.out); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  // Apart from stdout, which is the same bytes for the same inputs.
  std::cerr << absl::StrFormat("serq fit: %u simulations, %.2f CPU seconds\n", outcome.simulations,
                               outcome.cpu_seconds);
  return outcome.result.exit_code;
}

int FitStepsMain(const CommandLine& line) {
  if (line.positional.size() != 1) {
    return Usage(absl::StrCat("serq fit-steps: expected one file of steps (CSV, or serq's --trace), got ",
                              line.positional.size()));
  }
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq fit-steps'");
  const std::string& path = line.positional[0];
  if (absl::GetFlag(FLAGS_terms).empty()) {
    return Usage("serq fit-steps needs --terms, e.g. 'B0=1,B1=prefill,B2=decode_context'");
  }
  absl::StatusOr<std::vector<fit::StepTerm>> terms = fit::ParseStepTerms(absl::GetFlag(FLAGS_terms));
  if (!terms.ok()) return Usage(terms.status().message());
  if (absl::Status s = DistinctFiles({{"--residuals", absl::GetFlag(FLAGS_residuals)}}, {{"the steps", path}});
      !s.ok()) {
    return Usage(s.message());
  }
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) {
    PrintToolError("serq", text.status().message());
    return kExitUsage;
  }
  absl::StatusOr<fit::StepRecords> records =
      fit::ReadStepRecords(*text, InputName(path), absl::GetFlag(FLAGS_step_stage));
  if (!records.ok()) {
    std::cerr << records.status().message() << "\n";
    return kExitInputRejected;
  }
  absl::StatusOr<fit::StepFit> fitted = fit::FitStepTerms(*records, *terms, absl::GetFlag(FLAGS_nonnegative));
  if (!fitted.ok()) {
    PrintToolError("serq", fitted.status().message());
    return kExitInputRejected;
  }
  if (const std::string out = absl::GetFlag(FLAGS_residuals); !out.empty()) {
    OutputFile file;
    absl::Status s = file.Open(out);
    if (s.ok()) {
      file.stream() << fit::StepResidualsCsv(*records, *fitted);
      s = file.Commit();
    }
    if (!s.ok()) {
      PrintToolError("serq", absl::StrCat("cannot write '", out, "' (--residuals): ", s.message()));
      return kExitUsage;
    }
  }
  if (absl::Status s = WriteStdout(fit::RenderStepFit(*records, *terms, *fitted, InputName(path)));
      !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace serq
