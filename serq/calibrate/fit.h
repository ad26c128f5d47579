// `serq fit`: the values of a program's params that make its simulated
// runs match measured ones (docs/cli.md §serq fit).
//
// Each evaluation replays every measured run exactly (the program's trace
// workload reads that run's requests), simulates the program at the
// candidate point, and compares it as `serq compare` does (compare.h). The
// objective is the root mean square of the relative errors of the chosen
// figures (default: TTFT and E2E means and p90s, BLIS's loss) over the
// training runs.
//
// The optimiser is NLopt (Debian's libnlopt), derivative-free and bounded,
// in two phases by default: DIRECT-L (a deterministic global search that
// divides the box into rectangles) for two thirds of the evaluations, then
// Nelder-Mead from its best point. Why: a simulated run's figures move in
// steps as a param moves (a request joins one batch or the next), so the
// objective is piecewise and has several basins; a local method from the
// centre stops in the nearest one (on the dev run BOBYQA alone stopped at
// 3.4% against 0.1%), and BOBYQA's quadratic model, polishing, trusts the
// steps (0.96% where Nelder-Mead's simplex reached 0.12%). Both phases
// start from the box alone, so a fit is deterministic for a seed.
#ifndef SERQ_SERQ_FIT_H_
#define SERQ_SERQ_FIT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/pipeline/commands.h"
#include "serq/measured/compare.h"

namespace serq::fit {

struct ParamRange {
  std::string name;
  double lo = 0, hi = 0;
};

// "NAME=LO:HI" (several comma-separated in one text). Errors
// (InvalidArgument): not that form, LO or HI not finite, LO >= HI (empty
// or inverted), a name twice.
absl::Status ParseParamRanges(absl::string_view text, std::vector<ParamRange>* out);

// A measured run and the trace it replays: "MEASURED" (a vLLM
// requests.jsonl is both) or "MEASURED@TRACE" (a BLIS results.json beside
// its trace), split at the last '@' unless the whole text names a file
// (`runs@2/requests.jsonl`). Error (InvalidArgument): a side empty
// (`@trace.csv` read standard input as the measured run).
struct MeasuredRun {
  std::string measured, trace;
};
absl::StatusOr<MeasuredRun> ParseMeasuredRun(absl::string_view text);

// One term of the objective: a metric's figure ("ttft.mean", "e2e.p90").
struct Term {
  compare::Metric metric;
  int figure;  // compare::FigureName's index
};
// "ttft.mean,ttft.p90,e2e.mean,e2e.p90" into terms; errors name the bad one.
absl::StatusOr<std::vector<Term>> ParseObjective(absl::string_view text);
inline constexpr char kDefaultObjective[] = "ttft.mean,ttft.p90,e2e.mean,e2e.p90";

struct FitSpec {
  std::string program;
  std::vector<ParamRange> params;
  std::vector<MeasuredRun> train, test;
  std::string objective = kDefaultObjective;
  std::string algorithm = "direct-neldermead";  // or direct-bobyqa, bobyqa, neldermead, direct
  uint32_t max_evals = 600;
  double xtol_rel = 1e-4;  // stop when a step moves every param less than this, relative
  double ftol_abs = 1e-6;  // or improves the objective (relative errors) less than this
  uint32_t jobs = 1;                 // measured runs simulated at once
  DriverOptions driver;              // -D, --seed, --replications, --data-dir
  // Said as the program is first linked, before any simulation: a flag
  // that changes nothing of it (--data-dir where it reads no file by a
  // relative path).
  std::function<void(const std::string& warning)> warn;
};

// The fit's result, rendered as text (stdout) with the CPU time apart
// (stderr), so that stdout is the same bytes for the same inputs.
struct FitOutcome {
  CommandResult result;
  double cpu_seconds = 0;
  uint64_t simulations = 0;
};

// Runs the fit. Exit codes: 0 converged; 1 a program, range, objective or
// measured run rejected, a simulation that fails or gives a NaN
// objective, or no convergence within max_evals (the best point is still
// printed, said to be partial); 2 a file that cannot be read.
FitOutcome RunFit(const FitSpec& spec);

}  // namespace serq::fit

#endif  // SERQ_SERQ_FIT_H_
