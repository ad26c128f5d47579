// The condition of `serq search --until`: comparisons of figures with
// numbers joined by `&&` (docs/cli.md §Conditions):
//
//   condition  = comparison { "&&" comparison }
//   comparison = figure op number | number op figure
//   figure     = ("mean" | "p" percent | "rate" | "goodput") "(" observation ")"
//   op         = "<=" | "<" | ">=" | ">"
//
// A point is decided by the figures' 95% intervals: a comparison holds when
// the whole interval [value - hw, value + hw] meets it, fails when none of
// it does, and is undecided otherwise (or when the figure is undefined);
// the condition holds when every comparison holds, fails when one fails.
#ifndef SERQ_SERQ_CONDITION_H_
#define SERQ_SERQ_CONDITION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/sweep/metrics.h"

namespace serq {

enum class Verdict { kPass, kFail, kUndecided };

absl::string_view VerdictWord(Verdict v);  // "pass", "fail", "undecided"

struct Comparison {
  Metric metric;
  enum Op { kLe, kLt, kGe, kGt } op = kLe;
  double bound = 0;
};

struct Condition {
  std::vector<Comparison> comparisons;
  std::string text;  // as written
  // The distinct metrics the comparisons read, in first-use order, and for
  // each comparison the index of its metric in that list.
  std::vector<Metric> metrics;
  std::vector<int> metric_of;
};

// Parses `text`. Errors say what was expected and where:
// "col 17: expected a figure such as p99(ttft) after '&&'", followed by the
// text and a caret under the column.
absl::StatusOr<Condition> ParseCondition(absl::string_view text);

// The verdict of one comparison, and of the whole condition, on `figures`
// (one per Condition.metrics).
Verdict Decide(const Comparison& c, const Figure& f);
Verdict Decide(const Condition& c, const std::vector<Figure>& figures);
// Why `figures` do not pass: each failing comparison ("mean(f3) = 1.9333 ±
// 0.0000, not <= 0.81"), or when none fails each undecided one; "" when
// they pass.
std::string WhyNot(const Condition& c, const std::vector<Figure>& figures);

}  // namespace serq

#endif  // SERQ_SERQ_CONDITION_H_
