#include "serq/sweep/condition.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "stats/format.h"

#include "absl/strings/str_join.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace serq {
namespace {

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Condition> Parse() {
    Condition c;
    c.text = std::string(text_);
    while (true) {
      auto cmp = ParseComparison(c.comparisons.empty() ? "" : " after '&&'");
      if (!cmp.ok()) return cmp.status();
      c.comparisons.push_back(*std::move(cmp));
      Skip();
      if (pos_ == text_.size()) break;
      if (text_.substr(pos_, 2) != "&&") return Error("expected '&&' or the end of the condition");
      pos_ += 2;
    }
    for (const Comparison& cmp : c.comparisons) {
      int index = -1;
      for (size_t i = 0; i < c.metrics.size(); ++i) {
        if (c.metrics[i].label == cmp.metric.label) index = static_cast<int>(i);
      }
      if (index < 0) {
        index = static_cast<int>(c.metrics.size());
        c.metrics.push_back(cmp.metric);
      }
      c.metric_of.push_back(index);
    }
    return c;
  }

 private:
  void Skip() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("col ", pos_ + 1, ": ", what, "\n  ", text_,
                                                   "\n  ", std::string(pos_, ' '), "^"));
  }

  bool AtFigure() const { return pos_ < text_.size() && absl::ascii_isalpha(text_[pos_]); }

  absl::StatusOr<Metric> ParseFigure(absl::string_view after) {
    Skip();
    if (!AtFigure()) return Error(absl::StrCat("expected a figure such as p99(ttft)", after));
    size_t start = pos_;
    // A function of an observation, `p99(ttft)`, or a figure of its own
    // name, `request_throughput` (as --metrics takes them); a percentile's
    // function may have a fraction, `p99.9(ttft)`.
    size_t word_end = start;
    while (word_end < text_.size() &&
           (absl::ascii_isalnum(text_[word_end]) || text_[word_end] == '_' || text_[word_end] == '.')) {
      ++word_end;
    }
    size_t end = word_end;
    if (word_end < text_.size() && text_[word_end] == '(') {
      size_t close = text_.find(')', pos_);
      if (close == absl::string_view::npos) return Error("expected ')' to close the figure");
      end = close + 1;
    }
    auto m = ParseMetric(text_.substr(start, end - start));
    if (!m.ok()) return Error(m.status().message());
    pos_ = end;
    return m;
  }

  absl::StatusOr<double> ParseNumber() {
    Skip();
    const char* begin = text_.data() + pos_;
    std::string rest(begin, text_.size() - pos_);
    char* end = nullptr;
    errno = 0;
    double x = std::strtod(rest.c_str(), &end);
    const bool starts_number = absl::ascii_isdigit(rest[0]) || rest[0] == '-' ||
                               rest[0] == '.' || rest[0] == '+';
    if (end == rest.c_str() || std::isnan(x) || !starts_number) {
      return Error("expected a number");
    }
    // A bound a figure can be held to: finite, and not a number past a
    // double that strtod rounds (1e999 and -inf were taken as infinite
    // bounds, 1e-400 as 0).
    if (!std::isfinite(x) || errno == ERANGE) {
      return Error("expected a finite number within a double's range");
    }
    pos_ += end - rest.c_str();
    return x;
  }

  absl::StatusOr<Comparison::Op> ParseOp() {
    Skip();
    absl::string_view two = text_.substr(pos_, 2);
    Comparison::Op op;
    if (two == "<=") {
      op = Comparison::kLe;
    } else if (two == ">=") {
      op = Comparison::kGe;
    } else if (!two.empty() && two[0] == '<') {
      op = Comparison::kLt;
    } else if (!two.empty() && two[0] == '>') {
      op = Comparison::kGt;
    } else {
      return Error("expected a comparison: <=, <, >= or >");
    }
    pos_ += (two == "<=" || two == ">=") ? 2 : 1;
    return op;
  }

  absl::StatusOr<Comparison> ParseComparison(absl::string_view after) {
    Skip();
    Comparison c;
    if (AtFigure()) {
      auto m = ParseFigure(after);
      if (!m.ok()) return m.status();
      auto op = ParseOp();
      if (!op.ok()) return op.status();
      auto x = ParseNumber();
      if (!x.ok()) return x.status();
      c.metric = *std::move(m);
      c.op = *op;
      c.bound = *x;
      return c;
    }
    if (pos_ == text_.size()) return Error(absl::StrCat("expected a figure such as p99(ttft)", after));
    // number op figure: the same comparison turned round.
    auto x = ParseNumber();
    if (!x.ok()) return Error(absl::StrCat("expected a figure such as p99(ttft)", after));
    auto op = ParseOp();
    if (!op.ok()) return op.status();
    auto m = ParseFigure("");
    if (!m.ok()) return m.status();
    c.metric = *std::move(m);
    c.bound = *x;
    switch (*op) {
      case Comparison::kLe: c.op = Comparison::kGe; break;
      case Comparison::kLt: c.op = Comparison::kGt; break;
      case Comparison::kGe: c.op = Comparison::kLe; break;
      case Comparison::kGt: c.op = Comparison::kLt; break;
    }
    return c;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::string_view VerdictWord(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kUndecided: return "undecided";
  }
  return "";
}

absl::StatusOr<Condition> ParseCondition(absl::string_view text) { return Parser(text).Parse(); }

Verdict Decide(const Comparison& c, const Figure& f) {
  if (!f.defined || std::isnan(f.half_width)) return Verdict::kUndecided;
  const double lo = f.value - f.half_width, hi = f.value + f.half_width;
  auto meets = [&](double x) {
    switch (c.op) {
      case Comparison::kLe: return x <= c.bound;
      case Comparison::kLt: return x < c.bound;
      case Comparison::kGe: return x >= c.bound;
      case Comparison::kGt: return x > c.bound;
    }
    return false;
  };
  // The comparison is monotone in x, so the interval meets it whole when
  // both ends do, and not at all when neither does.
  if (meets(lo) && meets(hi)) return Verdict::kPass;
  if (!meets(lo) && !meets(hi)) return Verdict::kFail;
  return Verdict::kUndecided;
}

Verdict Decide(const Condition& c, const std::vector<Figure>& figures) {
  bool undecided = false;
  for (size_t i = 0; i < c.comparisons.size(); ++i) {
    Verdict v = Decide(c.comparisons[i], figures[c.metric_of[i]]);
    if (v == Verdict::kFail) return Verdict::kFail;
    if (v == Verdict::kUndecided) undecided = true;
  }
  return undecided ? Verdict::kUndecided : Verdict::kPass;
}

std::string WhyNot(const Condition& c, const std::vector<Figure>& figures) {
  static constexpr const char* kOps[] = {"<=", "<", ">=", ">"};
  std::vector<std::string> fails, undecided;
  for (size_t i = 0; i < c.comparisons.size(); ++i) {
    const Comparison& cmp = c.comparisons[i];
    const Figure& f = figures[c.metric_of[i]];
    Verdict v = Decide(cmp, f);
    if (v == Verdict::kPass) continue;
    std::string figure = f.defined ? absl::StrCat(cmp.metric.label, " = ", report::FormatFixed(f.value, 4),
                                                  " ± ", report::FormatFixed(f.half_width, 4))
                                   : absl::StrCat(cmp.metric.label, " has no sample");
    const std::string bound = absl::StrCat(kOps[cmp.op], " ", report::FormatShortest(cmp.bound));
    if (v == Verdict::kFail) {
      fails.push_back(absl::StrCat(figure, ", not ", bound));
    } else {
      undecided.push_back(absl::StrCat(figure, ", undecided against ", bound));
    }
  }
  return absl::StrJoin(fails.empty() ? undecided : fails, "; ");
}

}  // namespace serq
