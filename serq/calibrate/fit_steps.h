// `serq fit-steps`: a step time linear in its params, fitted to step
// records by linear least squares (docs/cli.md §serq fit-steps).
//
// The records are a CSV of steps (a header naming the columns: the step
// figures of docs/language.md §3.3 and the step's duration, `tau` or
// `duration`) or serq's own `--trace` (its `step` events, which carry
// every figure). The model is a sum of terms, each a param times a product
// of figures and numbers: `--terms 'B0=1,B1=prefill,B2=decode_context'`
// is tau = B0 + B1 prefill + B2 decode_context, in the duration's unit.
// Solved by Eigen's column-pivoting Householder QR (rank-revealing: terms
// that are collinear on these steps are an error, not an arbitrary split),
// or with --nonnegative under bounds at 0 (NLopt).
#ifndef SERQ_SERQ_FIT_STEPS_H_
#define SERQ_SERQ_FIT_STEPS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace serq::fit {

// One term: a param's name and the factors it multiplies (figure names,
// or numbers, as written; none means 1).
struct StepTerm {
  std::string param;
  std::vector<std::string> factors;
  std::string text;  // as written after '='
};

// "NAME=f*g*...,NAME=..." (a factor a figure's name or a number). Errors
// (InvalidArgument) name the bad term.
absl::StatusOr<std::vector<StepTerm>> ParseStepTerms(absl::string_view text);

// Step records: a column per figure, a duration each.
struct StepRecords {
  std::vector<std::string> columns;          // the figures, as named
  std::vector<std::vector<double>> rows;     // [step][column]
  std::vector<double> duration;              // [step]
  std::vector<std::string> kind;             // "prefill", "decode" or "mixed" ([step])
};

// Reads `text` (named `file` in errors): a JSON-lines trace of serq's
// (`step` events, of `stage` when not empty; the duration is `tau`) or a
// CSV with a header (the duration in `tau` or `duration`). Errors
// (InvalidArgument, "file:LINE: error: ..."): a field not a finite
// number, a row of the wrong width, no step.
absl::StatusOr<StepRecords> ReadStepRecords(absl::string_view text, const std::string& file,
                                            const std::string& stage);

struct StepFit {
  std::vector<double> coefficients;     // by term
  // By term; NaN where there is none: as many steps as free terms leave no
  // degree of freedom for the residuals' variance. 0 for a term at its bound.
  std::vector<double> standard_errors;
  std::vector<double> fitted;           // by step
  double rmse = 0;                      // of the residuals, the duration's unit
  double r2 = 0;                        // NaN where every duration is the same (none to explain)
  bool nonnegative = false;             // fitted with every coefficient at least 0
  std::vector<bool> at_bound;           // by term: held at 0 by the bound
};

// Least squares of `terms` over `records`; with `nonnegative`, every
// coefficient at least 0 (NLopt's SLSQP, then Lawson and Hanson's active
// set to the exact optimum), so that terms that move together on these steps cannot trade
// against each other through a negative coefficient. Errors
// (InvalidArgument): a factor that is no column, fewer steps than terms,
// collinear terms.
absl::StatusOr<StepFit> FitStepTerms(const StepRecords& records, const std::vector<StepTerm>& terms,
                                     bool nonnegative = false);

// The report: the fitted params as `param`s and as a tau, then the
// residual table (by kind of step: count, mean duration, mean fitted,
// RMSE, largest residual, in the duration's unit and relative).
std::string RenderStepFit(const StepRecords& records, const std::vector<StepTerm>& terms,
                          const StepFit& fit, const std::string& file);

// The per-step residuals as CSV (the figures, duration, fitted, residual).
std::string StepResidualsCsv(const StepRecords& records, const StepFit& fit);

}  // namespace serq::fit

#endif  // SERQ_SERQ_FIT_STEPS_H_
