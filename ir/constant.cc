#include "ir/constant.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "ir/json.h"

namespace serq {

absl::StatusOr<double> EvaluateConstant(const ir::Expr& expr, const ParamValue& param) {
  double value = 0;
  switch (expr.kind_case()) {
    case ir::Expr::kNumber:
      return expr.number();
    case ir::Expr::kRef: {
      const ir::Ref& ref = expr.ref();
      if (ref.kind() != ir::Ref::PARAM) {
        return absl::InvalidArgumentError(
            absl::StrCat("'", ref.name(), "' is not a constant (only numbers, params and "
                         "math functions are)"));
      }
      return param(ref.decl());
    }
    case ir::Expr::kUnary: {
      auto operand = EvaluateConstant(expr.unary().operand(), param);
      if (!operand.ok()) return operand.status();
      value = expr.unary().op() == ir::Expr::NOT ? (*operand == 0 ? 1 : 0) : -*operand;
      break;
    }
    case ir::Expr::kBinary: {
      auto lhs = EvaluateConstant(expr.binary().lhs(), param);
      if (!lhs.ok()) return lhs.status();
      auto rhs = EvaluateConstant(expr.binary().rhs(), param);
      if (!rhs.ok()) return rhs.status();
      double a = *lhs, b = *rhs;
      switch (expr.binary().op()) {
        case ir::Expr::OR: value = (a != 0 || b != 0); break;
        case ir::Expr::AND: value = (a != 0 && b != 0); break;
        case ir::Expr::LT: value = a < b; break;
        case ir::Expr::LE: value = a <= b; break;
        case ir::Expr::GT: value = a > b; break;
        case ir::Expr::GE: value = a >= b; break;
        case ir::Expr::EQ: value = a == b; break;
        case ir::Expr::NE: value = a != b; break;
        case ir::Expr::ADD: value = a + b; break;
        case ir::Expr::SUB: value = a - b; break;
        case ir::Expr::MUL: value = a * b; break;
        case ir::Expr::DIV:
          if (b == 0) return absl::InvalidArgumentError("division by zero");
          value = a / b;
          break;
        case ir::Expr::MOD:
          if (b == 0) return absl::InvalidArgumentError("'%' by zero");
          value = std::fmod(a, b);
          break;
        default:
          return absl::InvalidArgumentError("unknown operator");
      }
      break;
    }
    case ir::Expr::kCall: {
      const FunctionInfo* f = LookupFunction(expr.call().function());
      if (f == nullptr || f->cls != FunctionClass::kMath) {
        return absl::InvalidArgumentError(absl::StrCat(
            "'", expr.call().function(),
            "' is not a constant (only numbers, params and math functions are)"));
      }
      int n = expr.call().arg_size();
      if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
        return absl::InvalidArgumentError(
            absl::StrCat("wrong number of arguments to '", f->name, "'"));
      }
      std::vector<double> args;
      for (const ir::Expr& arg : expr.call().arg()) {
        auto v = EvaluateConstant(arg, param);
        if (!v.ok()) return v.status();
        args.push_back(*v);
      }
      value = ApplyMath(f->function, args);
      break;
    }
    default:
      return absl::InvalidArgumentError("empty expression");
  }
  if (std::isnan(value)) return absl::InvalidArgumentError("the value is NaN");
  return value;
}

absl::StatusOr<std::string> ExpandFileName(
    const std::string& file,
    const std::function<std::optional<absl::StatusOr<double>>(const std::string& name)>& param) {
  std::string out;
  size_t i = 0;
  while (i < file.size()) {
    size_t open = file.find('{', i);
    if (open == std::string::npos) {
      out.append(file, i, std::string::npos);
      break;
    }
    out.append(file, i, open - i);
    size_t close = file.find('}', open);
    if (close == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the file name '", file, "' has a '{' without its '}' ({NAME} is the value of param NAME)"));
    }
    std::string name = file.substr(open + 1, close - open - 1);
    std::optional<absl::StatusOr<double>> v = param(name);
    if (!v.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the file name '", file, "' names '{", name, "}', and there is no param '", name, "'"));
    }
    if (!v->ok()) return v->status();
    if (!std::isfinite(**v)) {
      return absl::InvalidArgumentError(absl::StrCat("the file name '", file, "' takes param '", name,
                                                     "', whose value is ", JsonNumber(**v)));
    }
    // The number as a name, not JSON: -0 is 0 ("day0.csv").
    out += ShortestDouble(**v);
    i = close + 1;
  }
  return out;
}

absl::StatusOr<std::optional<std::pair<double, double>>> ParamRangeOf(const ir::Program& linked,
                                                                      const std::string& name) {
  const int n = linked.param_size();
  int index = -1;
  for (int i = 0; i < n && index < 0; ++i) {
    if (linked.param(i).name() == name) index = i;
  }
  if (index < 0) return absl::NotFoundError(absl::StrCat("no param '", name, "'"));
  const ir::Param& p = linked.param(index);
  if (!p.has_low() || !p.has_high()) return std::nullopt;
  // The params the ends read, each once (the link made them acyclic).
  std::vector<std::optional<double>> values(n);
  ParamValue value = [&](uint32_t decl) -> absl::StatusOr<double> {
    if (decl >= static_cast<uint32_t>(n)) return absl::InvalidArgumentError("unknown param");
    if (!values[decl]) {
      absl::StatusOr<double> v = EvaluateConstant(linked.param(decl).value(), value);
      if (!v.ok()) return v.status();
      values[decl] = *v;
    }
    return *values[decl];
  };
  absl::StatusOr<double> low = EvaluateConstant(p.low(), value);
  if (!low.ok()) return absl::InvalidArgumentError(ParamRangeEndFailed(name, "low", std::string(low.status().message())));
  absl::StatusOr<double> high = EvaluateConstant(p.high(), value);
  if (!high.ok()) {
    return absl::InvalidArgumentError(ParamRangeEndFailed(name, "high", std::string(high.status().message())));
  }
  return std::make_pair(*low, *high);
}

int FirstParamRead(const ir::Expr& e, const std::set<int>& params, const ir::Program& linked) {
  switch (e.kind_case()) {
    case ir::Expr::kRef: {
      const ir::Ref& r = e.ref();
      if (r.kind() != ir::Ref::PARAM || r.decl() >= static_cast<uint32_t>(linked.param_size())) return -1;
      const int decl = static_cast<int>(r.decl());
      return params.count(decl) ? decl : FirstParamRead(linked.param(decl).value(), params, linked);
    }
    case ir::Expr::kUnary: return FirstParamRead(e.unary().operand(), params, linked);
    case ir::Expr::kBinary: {
      const int lhs = FirstParamRead(e.binary().lhs(), params, linked);
      return lhs >= 0 ? lhs : FirstParamRead(e.binary().rhs(), params, linked);
    }
    case ir::Expr::kCall:
      for (const ir::Expr& a : e.call().arg()) {
        if (const int r = FirstParamRead(a, params, linked); r >= 0) return r;
      }
      return -1;
    default: return -1;
  }
}

std::string ParamRangeEmpty(const std::string& name, double low, double high) {
  if (low <= high) return "";
  return absl::StrCat("the range of param '", name, "' holds nothing: its low end ", ShortestDouble(low),
                      " is not at most its high end ", ShortestDouble(high));
}

std::string ParamRangeEndFailed(const std::string& name, const std::string& end, const std::string& why) {
  return absl::StrCat("the ", end, " end of param '", name, "''s range: ", why);
}

std::string ParamOutsideRange(const std::string& name, double value, double low, double high, bool defined) {
  if (low <= value && value <= high) return "";
  const std::string range = absl::StrCat("[", ShortestDouble(low), ", ", ShortestDouble(high), "]");
  return defined ? absl::StrCat("-D ", name, "=", ShortestDouble(value), " is outside the param's range ", range)
                 : absl::StrCat("param '", name, "' is ", ShortestDouble(value), ", outside its range ", range);
}

}  // namespace serq
