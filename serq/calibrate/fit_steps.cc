#include "serq/calibrate/fit_steps.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <eigen3/Eigen/Dense>
#include <nlopt.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "ir/json.h"
#include "ir/utf8.h"
#include "text/csv.h"
#include "text/json_row.h"

namespace serq::fit {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

absl::Status LineError(const std::string& file, size_t line, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": error: ", message));
}

bool IsName(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// The step's kind, from its figures (a step with both is mixed).
std::string Kind(double prefill, double decode) {
  if (prefill > 0 && decode > 0) return "mixed";
  return prefill > 0 ? "prefill" : "decode";
}


// sum (x b - y)^2 and its gradient, over the normal equations (G = X^T X,
// c = X^T y: k x k work an evaluation, not n x k).
struct Normal {
  Eigen::MatrixXd g;
  Eigen::VectorXd c;
  double yy = 0;
};

double NormalObjective(unsigned k, const double* b, double* grad, void* data) {
  const Normal& nq = *static_cast<const Normal*>(data);
  Eigen::Map<const Eigen::VectorXd> v(b, Eigen::Index(k));
  const Eigen::VectorXd gv = nq.g * v;
  if (grad != nullptr) {
    Eigen::Map<Eigen::VectorXd>(grad, Eigen::Index(k)) = 2 * (gv - nq.c);
  }
  return v.dot(gv) - 2 * nq.c.dot(v) + nq.yy;
}

// Least squares on the columns of `set` alone (the others 0), by Eigen's
// QR.
Eigen::VectorXd SolveOn(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const std::vector<bool>& set) {
  std::vector<Eigen::Index> cols;
  for (size_t j = 0; j < set.size(); ++j) {
    if (set[j]) cols.push_back(Eigen::Index(j));
  }
  Eigen::VectorXd out = Eigen::VectorXd::Zero(x.cols());
  if (cols.empty()) return out;
  const Eigen::MatrixXd xs = x(Eigen::all, cols);
  const Eigen::VectorXd z = xs.colPivHouseholderQr().solve(y);
  for (size_t c = 0; c < cols.size(); ++c) out(cols[c]) = z(Eigen::Index(c));
  return out;
}

// Least squares with every coefficient at least 0. NLopt's SLSQP (a
// quadratic objective under bounds, from the unconstrained solution clipped
// at 0) comes near the answer but stops short of it: on a profile's 19,364
// attention rows it left two coefficients at 3e-4 and 2e-7 that the exact
// answer holds at 0, and so solved the wrong active set. Its answer is
// the start of Lawson and Hanson's active-set method (Solving Least Squares
// Problems, 1974, ch. 23), which serq writes itself (Eigen 3.4, Debian's,
// has no NNLS; NLopt's methods stop at a tolerance): the free set's exact
// least squares, stepping back to the bound where a coefficient would turn
// negative, and a bound coefficient freed while the residual's gradient
// says the objective falls with it. It ends at the optimum (Karush-Kuhn-
// Tucker: free coefficients above 0 with a zero gradient, held ones with
// a gradient that does not descend). The columns are of unit length, so
// one tolerance serves every term.
absl::StatusOr<Eigen::VectorXd> NonNegative(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                            const Eigen::VectorXd& unbounded) {
  const unsigned k = static_cast<unsigned>(x.cols());
  Normal nq{x.transpose() * x, x.transpose() * y, y.squaredNorm()};
  std::vector<double> b(k), lower(k, 0.0);
  for (unsigned j = 0; j < k; ++j) b[j] = std::max(unbounded(Eigen::Index(j)), 0.0);
  nlopt_opt opt = nlopt_create(NLOPT_LD_SLSQP, k);
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_min_objective(opt, NormalObjective, &nq);
  nlopt_set_xtol_rel(opt, 1e-15);
  nlopt_set_ftol_rel(opt, 1e-15);
  nlopt_set_maxeval(opt, 100000);
  double value = 0;
  const nlopt_result result = nlopt_optimize(opt, b.data(), &value);
  nlopt_destroy(opt);
  if (result < 0) {
    return absl::InternalError(absl::StrCat("--nonnegative: NLopt's SLSQP failed (code ", int(result), ")"));
  }
  // The start: SLSQP's point, its coefficients at 0 up to its tolerance held.
  Eigen::VectorXd at = Eigen::VectorXd::Zero(Eigen::Index(k));
  std::vector<bool> free(k, false);
  for (unsigned j = 0; j < k; ++j) {
    if (b[j] > 1e-12 * std::max(1.0, std::abs(unbounded(Eigen::Index(j))))) {
      at(Eigen::Index(j)) = b[j];
      free[j] = true;
    }
  }
  const double tolerance = 1e-10 * std::max(1.0, y.norm());
  // The free set's least squares, stepping back along the segment from
  // `at` to it where a coefficient would cross 0, which is then held, until
  // the free set's own answer is above 0 everywhere.
  auto settle = [&]() {
    for (unsigned round = 0; round <= k; ++round) {
      const Eigen::VectorXd z = SolveOn(x, y, free);
      double step = 1;
      for (unsigned j = 0; j < k; ++j) {
        if (free[j] && z(Eigen::Index(j)) <= 0) {
          step = std::min(step, at(Eigen::Index(j)) / (at(Eigen::Index(j)) - z(Eigen::Index(j))));
        }
      }
      if (step >= 1) {
        at = z;
        return;
      }
      at += step * (z - at);
      for (unsigned j = 0; j < k; ++j) {
        if (free[j] && at(Eigen::Index(j)) <= 1e-15) {
          free[j] = false;
          at(Eigen::Index(j)) = 0;
        }
      }
    }
  };
  settle();
  // Free the bound coefficient of steepest descent while there is one
  // (Lawson and Hanson bound the rounds by 3k; more is a numerical stall).
  // A coefficient that enters and at once falls back to 0 has a gradient
  // within rounding of none: it does not enter again.
  std::vector<bool> refused(k, false);
  for (unsigned round = 0; round < 3 * k + 3; ++round) {
    const Eigen::VectorXd gradient = x.transpose() * (y - x * at);  // -1/2 the objective's
    int enter = -1;
    for (unsigned j = 0; j < k; ++j) {
      if (!free[j] && !refused[j] && gradient(Eigen::Index(j)) > tolerance &&
          (enter < 0 || gradient(Eigen::Index(j)) > gradient(Eigen::Index(enter)))) {
        enter = int(j);
      }
    }
    if (enter < 0) return at;
    free[size_t(enter)] = true;
    settle();
    if (!free[size_t(enter)]) refused[size_t(enter)] = true;
  }
  return absl::InternalError("--nonnegative: the active-set method did not settle (numerically degenerate terms)");
}

}  // namespace

absl::StatusOr<std::vector<StepTerm>> ParseStepTerms(absl::string_view text) {
  std::vector<StepTerm> terms;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    std::pair<absl::string_view, absl::string_view> nv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    StepTerm t;
    t.param = std::string(absl::StripAsciiWhitespace(nv.first));
    t.text = std::string(absl::StripAsciiWhitespace(nv.second));
    if (!IsName(t.param) || t.text.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--terms: '", item, "' is not NAME=FACTOR*FACTOR... (e.g. B1=prefill, B0=1)"));
    }
    for (absl::string_view f : absl::StrSplit(t.text, '*')) {
      f = absl::StripAsciiWhitespace(f);
      double number;
      const bool is_number = absl::SimpleAtod(f, &number);
      if (!IsName(f) && !is_number) {
        return absl::InvalidArgumentError(
            absl::StrCat("--terms: '", f, "' in '", item, "' is neither a figure nor a number"));
      }
      // `nan` and `inf` read as numbers (and as names), 1e400 as inf: a
      // factor must be a finite number.
      if (is_number && !std::isfinite(number)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--terms: '", f, "' in '", item, "' is not a finite number"));
      }
      t.factors.emplace_back(f);
    }
    for (const StepTerm& other : terms) {
      if (other.param == t.param) {
        return absl::InvalidArgumentError(absl::StrCat("--terms: '", t.param, "' appears twice"));
      }
    }
    terms.push_back(std::move(t));
  }
  if (terms.empty()) return absl::InvalidArgumentError("--terms names no term");
  return terms;
}

absl::StatusOr<StepRecords> ReadStepRecords(absl::string_view text, const std::string& file,
                                            const std::string& stage) {
  StepRecords r;
  SkipByteOrderMark(&text);
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  size_t first = 0;
  while (first < lines.size() && absl::StripAsciiWhitespace(lines[first]).empty()) ++first;
  if (first == lines.size()) return LineError(file, 1, "no step records (the file is empty)");
  const bool json = absl::StartsWith(absl::StripAsciiWhitespace(lines[first]), "{");
  int prefill_col = -1, decode_col = -1;
  if (json) {
    // serq's --trace: the step events' figures, in the order of the first.
    size_t first_step = 0;  // its line
    for (size_t i = first; i < lines.size(); ++i) {
      absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
      // Only a line that may be a step is parsed (a trace is mostly other
      // events); the event itself decides, however the JSON is spaced
      // (`"event": "step"`, as Python's json and jq write it).
      if (line.empty() || !absl::StrContains(line, "\"step\"")) continue;
      Struct event;
      if (absl::Status s = text::ParseJsonRow(line, &event); !s.ok()) {
        return LineError(file, i + 1, s.message());
      }
      auto field = [&](const char* name) -> const Value* {
        auto it = event.fields().find(name);
        return it == event.fields().end() ? nullptr : &it->second;
      };
      if (field("event") == nullptr || field("event")->string_value() != "step") continue;
      if (!stage.empty() && (field("stage") == nullptr || field("stage")->string_value() != stage)) {
        continue;
      }
      // Every step has the first one's figures, no more and no fewer: a
      // figure of some steps only would be fitted as 0 on the others, or
      // not at all.
      std::vector<std::string> figures;
      for (const auto& [name, value] : event.fields()) {
        if (value.kind_case() == Value::kNumberValue && name != "t" && name != "tau") figures.push_back(name);
      }
      std::sort(figures.begin(), figures.end());
      if (r.rows.empty()) {
        r.columns = figures;
        first_step = i + 1;
      } else if (figures != r.columns) {
        for (const std::string& c : r.columns) {
          if (!std::binary_search(figures.begin(), figures.end(), c)) {
            return LineError(file, i + 1,
                             absl::StrCat("the step has no figure '", c, "', which the first step (line ",
                                          first_step, ") has"));
          }
        }
        for (const std::string& c : figures) {
          if (!std::binary_search(r.columns.begin(), r.columns.end(), c)) {
            return LineError(file, i + 1,
                             absl::StrCat("the step has a figure '", c, "', which the first step (line ",
                                          first_step, ") has not"));
          }
        }
      }
      std::vector<double> row;
      for (const std::string& c : r.columns) row.push_back(field(c.c_str())->number_value());
      const Value* tau = field("tau");
      if (tau == nullptr || tau->kind_case() != Value::kNumberValue || !std::isfinite(tau->number_value())) {
        return LineError(file, i + 1, "the step has no finite 'tau'");
      }
      if (tau->number_value() < 0) {
        return LineError(file, i + 1, absl::StrCat("'tau' is ", ShortestDouble(tau->number_value()),
                                                   ": a step's duration is at least 0"));
      }
      r.rows.push_back(std::move(row));
      r.duration.push_back(tau->number_value());
    }
  } else {
    // A CSV has no stages: a --step-stage would keep every row silently.
    if (!stage.empty()) {
      return LineError(file, first + 1,
                       absl::StrCat("--step-stage ", stage, " selects a stage's steps of serq's --trace; a CSV "
                                    "of step records has no stage column to select by"));
    }
    if (text::CsvFieldCount(lines[first]) > text::kMaxColumns) {
      return LineError(file, first + 1,
                       absl::StrCat("the header has more than ", text::kMaxColumns, " columns"));
    }
    std::vector<absl::string_view> names;
    text::CsvFields(lines[first], &names);
    // A name twice would be fitted as its first column, silently.
    if (absl::Status s = text::CheckCsvHeader(names); !s.ok()) {
      return LineError(file, first + 1, s.message());
    }
    std::vector<std::string> header(names.begin(), names.end());
    int duration_col = -1;
    for (size_t c = 0; c < header.size(); ++c) {
      if (header[c] == "tau" || header[c] == "duration") {
        if (duration_col >= 0) return LineError(file, first + 1, "both 'tau' and 'duration'");
        duration_col = static_cast<int>(c);
      } else {
        r.columns.push_back(header[c]);
      }
    }
    if (duration_col < 0) {
      return LineError(file, first + 1, "the header names no duration column ('tau' or 'duration')");
    }
    for (size_t i = first + 1; i < lines.size(); ++i) {
      absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
      if (line.empty()) continue;
      std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
      if (fields.size() != header.size()) {
        return LineError(file, i + 1, absl::StrCat(fields.size(), " fields, the header has ", header.size()));
      }
      std::vector<double> row;
      double duration = 0;
      for (size_t c = 0; c < fields.size(); ++c) {
        double x;
        if (!absl::SimpleAtod(absl::StripAsciiWhitespace(fields[c]), &x) || !std::isfinite(x)) {
          return LineError(file, i + 1, absl::StrCat("'", header[c], "' is not a finite number"));
        }
        if (static_cast<int>(c) == duration_col) {
          if (x < 0) {
            return LineError(file, i + 1, absl::StrCat("'", header[c], "' is ", ShortestDouble(x),
                                                       ": a step's duration is at least 0"));
          }
          duration = x;
        } else {
          row.push_back(x);
        }
      }
      r.rows.push_back(std::move(row));
      r.duration.push_back(duration);
    }
  }
  if (r.rows.empty()) {
    return LineError(file, first + 1,
                     stage.empty() ? "no step records" : absl::StrCat("no step of stage '", stage, "'"));
  }
  for (size_t c = 0; c < r.columns.size(); ++c) {
    if (r.columns[c] == "prefill") prefill_col = static_cast<int>(c);
    if (r.columns[c] == "decode") decode_col = static_cast<int>(c);
  }
  for (const std::vector<double>& row : r.rows) {
    r.kind.push_back(prefill_col < 0 || decode_col < 0 ? "step" : Kind(row[prefill_col], row[decode_col]));
  }
  return r;
}

absl::StatusOr<StepFit> FitStepTerms(const StepRecords& records, const std::vector<StepTerm>& terms,
                                     bool nonnegative) {
  std::map<std::string, size_t> column;
  for (size_t c = 0; c < records.columns.size(); ++c) column[records.columns[c]] = c;
  const size_t n = records.rows.size(), k = terms.size();
  Eigen::MatrixXd x(n, k);
  for (size_t j = 0; j < k; ++j) {
    std::vector<std::pair<bool, double>> factors;  // (a column, its index or the number)
    for (const std::string& f : terms[j].factors) {
      double number;
      if (absl::SimpleAtod(f, &number)) {
        factors.emplace_back(false, number);
      } else if (auto it = column.find(f); it != column.end()) {
        factors.emplace_back(true, static_cast<double>(it->second));
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "--terms: '", f, "' is not a column of the steps (they have ",
            absl::StrJoin(records.columns, ", "), ")"));
      }
    }
    for (size_t i = 0; i < n; ++i) {
      double v = 1;
      for (const auto& [is_column, a] : factors) v *= is_column ? records.rows[i][size_t(a)] : a;
      if (!std::isfinite(v)) {
        return absl::InvalidArgumentError(absl::StrCat("--terms: '", terms[j].param, "=", terms[j].text,
                                                       "' is past a double's range on step ", i + 1,
                                                       " of the records: scale a factor down"));
      }
      x(Eigen::Index(i), Eigen::Index(j)) = v;
    }
  }
  if (n < k) {
    return absl::InvalidArgumentError(absl::StrCat(n, " steps cannot fit ", k, " terms"));
  }
  Eigen::VectorXd y(n);
  for (size_t i = 0; i < n; ++i) y(Eigen::Index(i)) = records.duration[i];
  // Each column scaled to unit length first, so that the rank test
  // compares like with like (a column of contexts and one of ones).
  Eigen::VectorXd scale(k);
  for (size_t j = 0; j < k; ++j) {
    // stableNorm: a column of 1e200s (or 1e-200s) has a norm, where its
    // squares overflow (underflow) and norm() says inf (0).
    double norm = x.col(Eigen::Index(j)).stableNorm();
    if (norm == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--terms: '", terms[j].param, "=", terms[j].text, "' is 0 on every step"));
    }
    scale(Eigen::Index(j)) = norm;
    x.col(Eigen::Index(j)) /= norm;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
  qr.setThreshold(1e-10);
  if (static_cast<size_t>(qr.rank()) < k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the terms are collinear on these steps (rank ", qr.rank(), " of ", k,
        " terms): drop a term that the others determine"));
  }
  Eigen::VectorXd b = qr.solve(y);
  // The terms free of their bound: all of them, or with `nonnegative` those
  // that the bound does not hold at 0.
  std::vector<bool> free(k, true);
  if (nonnegative && b.minCoeff() < 0) {
    absl::StatusOr<Eigen::VectorXd> bounded = NonNegative(x, y, b);
    if (!bounded.ok()) return bounded.status();
    b = *bounded;
    for (size_t j = 0; j < k; ++j) free[j] = b(Eigen::Index(j)) > 0;
  }
  StepFit fit;
  fit.nonnegative = nonnegative;
  Eigen::VectorXd fitted = x * b;
  Eigen::VectorXd residual = y - fitted;
  const double sse = residual.squaredNorm();
  const double mean = y.mean();
  const double sst = (y.array() - mean).square().sum();
  fit.rmse = std::sqrt(sse / double(n));
  // Durations all alike leave nothing for a fit to explain: R^2 is 0 / 0,
  // not 1 whatever the residuals.
  fit.r2 = sst > 0 ? 1 - sse / sst : std::nan("");
  // Standard errors: sigma^2 (X^T X)^-1 on the scaled columns of the free
  // terms, unscaled; a term held at its bound has none (0).
  std::vector<Eigen::Index> cols;
  for (size_t j = 0; j < k; ++j) {
    if (free[j]) cols.push_back(Eigen::Index(j));
  }
  const size_t m = cols.size();
  Eigen::VectorXd se = Eigen::VectorXd::Zero(Eigen::Index(k));
  if (n == m) {
    for (Eigen::Index c : cols) se(c) = std::nan("");
  } else if (m > 0) {
    const double sigma2 = sse / double(n - m);
    const Eigen::MatrixXd xf = x(Eigen::all, cols);  // the free terms' columns
    Eigen::MatrixXd inverse = (xf.transpose() * xf).inverse();
    for (size_t c = 0; c < m; ++c) se(cols[c]) = std::sqrt(sigma2 * inverse(Eigen::Index(c), Eigen::Index(c)));
  }
  for (size_t j = 0; j < k; ++j) {
    fit.coefficients.push_back(b(Eigen::Index(j)) / scale(Eigen::Index(j)));
    fit.standard_errors.push_back(se(Eigen::Index(j)) / scale(Eigen::Index(j)));
    fit.at_bound.push_back(!free[j]);
  }
  for (size_t i = 0; i < n; ++i) fit.fitted.push_back(fitted(Eigen::Index(i)));
  return fit;
}

std::string RenderStepFit(const StepRecords& records, const std::vector<StepTerm>& terms,
                          const StepFit& fit, const std::string& file) {
  std::string out;
  absl::StrAppend(&out, "fit-steps  ", file, ": ", records.rows.size(), " steps, ", terms.size(),
                  fit.nonnegative ? " terms, non-negative least squares (NLopt SLSQP, then Lawson-Hanson's active set: every coefficient at least 0)\n"
                                  : " terms, linear least squares (Eigen, column-pivoting QR)\n");
  absl::StrAppend(&out, "residuals  RMSE ", ShortestDouble(fit.rmse), " (the duration's unit), R^2 ",
                  std::isnan(fit.r2) ? std::string("undefined (every step's duration is the same)")
                                     : absl::StrFormat("%.9f", fit.r2),
                  "\n\n");
  absl::StrAppend(&out, "param  term  fitted  standard_error\n");
  std::vector<std::string> tau;
  for (size_t j = 0; j < terms.size(); ++j) {
    absl::StrAppend(&out, terms[j].param, "  ", terms[j].text, "  ",
                    ShortestDouble(fit.coefficients[j]), "  ",
                    fit.at_bound.size() > j && fit.at_bound[j] ? std::string("at the bound 0")
                    : std::isnan(fit.standard_errors[j])
                        ? std::string("undefined (as many steps as free terms)")
                        : ShortestDouble(fit.standard_errors[j]),
                    "\n");
    tau.push_back(terms[j].text == "1" ? terms[j].param : absl::StrCat(terms[j].param, " * ", terms[j].text));
  }
  absl::StrAppend(&out, "\nas params:\n");
  for (size_t j = 0; j < terms.size(); ++j) {
    absl::StrAppend(&out, "param ", terms[j].param, " = ", ShortestDouble(fit.coefficients[j]), ";\n");
  }
  absl::StrAppend(&out, "tau: ", absl::StrJoin(tau, " + "), "\n");
  // The residual table, by kind of step.
  struct Group {
    size_t n = 0;
    double duration = 0, fitted = 0, sse = 0, worst = 0, worst_relative = 0;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < records.rows.size(); ++i) {
    for (const std::string& key : {records.kind[i], std::string("all")}) {
      Group& g = groups[key];
      const double res = records.duration[i] - fit.fitted[i];
      g.n += 1;
      g.duration += records.duration[i];
      g.fitted += fit.fitted[i];
      g.sse += res * res;
      g.worst = std::max(g.worst, std::abs(res));
      if (records.duration[i] != 0) {
        g.worst_relative = std::max(g.worst_relative, std::abs(res / records.duration[i]));
      }
    }
  }
  absl::StrAppend(&out, "\nresiduals by step (duration - fitted)\n",
                  "steps      n  mean_duration  mean_fitted  rmse  max_abs  max_relative\n");
  for (const char* key : {"prefill", "decode", "mixed", "step", "all"}) {
    auto it = groups.find(key);
    if (it == groups.end()) continue;
    const Group& g = it->second;
    absl::StrAppend(&out, absl::StrFormat("%-7s %4d  %13.6g  %11.6g  %.3g  %.3g  %.3g%%\n", key, g.n,
                                          g.duration / g.n, g.fitted / g.n, std::sqrt(g.sse / g.n),
                                          g.worst, g.worst_relative * 100));
  }
  return out;
}

std::string StepResidualsCsv(const StepRecords& records, const StepFit& fit) {
  std::string out = absl::StrCat(absl::StrJoin(records.columns, ","), ",duration,fitted,residual\n");
  for (size_t i = 0; i < records.rows.size(); ++i) {
    std::vector<std::string> row;
    for (double v : records.rows[i]) row.push_back(ShortestDouble(v));
    absl::StrAppend(&out, absl::StrJoin(row, ","), ",", ShortestDouble(records.duration[i]), ",",
                    ShortestDouble(fit.fitted[i]), ",",
                    ShortestDouble(records.duration[i] - fit.fitted[i]), "\n");
  }
  return out;
}

}  // namespace serq::fit
