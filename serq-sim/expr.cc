#include "serq-sim/expr.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

absl::string_view OpText(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    default: return "?";
  }
}

std::string CallText(Function f, absl::Span<const double> args) {
  std::string out = absl::StrCat(GetFunction(f).name, "(");
  for (size_t i = 0; i < args.size(); ++i) absl::StrAppend(&out, i ? ", " : "", args[i]);
  return out + ")";
}

}  // namespace

void Evaluator::Fail(uint32_t line, uint32_t column, std::string message) {
  if (failed_) return;
  failed_ = true;
  error_.line = line;
  error_.column = column;
  error_.message = std::move(message);
}

double Evaluator::Fail(const Node& node, std::string message) {
  Fail(node.line, node.column, std::move(message));
  return std::nan("");
}

bool Evaluator::Element(uint32_t ref, const EvalFrame& frame, uint32_t* element) {
  const ElementRef& r = table_->refs[ref];
  if (r.index < 0) {
    *element = r.base;
    return true;
  }
  double i = Eval(r.index, frame);
  if (failed_) return false;
  double index = std::floor(i);
  if (!(index >= 0 && index < r.size)) {
    Fail(r.line, r.column,
         absl::StrCat("index ", i, " is out of range for '", r.name, "' (size ", r.size, ")"));
    return false;
  }
  *element = r.base + static_cast<uint32_t>(index);
  return true;
}

double Evaluator::Eval(uint32_t id, const EvalFrame& frame) {
  const Node& n = table_->nodes[id];
  switch (n.op) {
    case Op::kNumber:
      return n.number;
    case Op::kVariable: {
      double v = frame.variables[n.a];
      if (std::isnan(v)) {
        return Fail(n, absl::StrCat("variable '", (*frame.variable_names)[n.a],
                                    "' is read before it is set"));
      }
      return v;
    }
    case Op::kKeyVariable: {
      int32_t slot = frame.key_slots[n.a];
      if (slot < 0) {
        return Fail(n, absl::StrCat("variable '", (*key_names_)[n.a],
                                    "' is not a variable of this session"));
      }
      double v = frame.variables[slot];
      if (std::isnan(v)) {
        return Fail(n, absl::StrCat("variable '", (*key_names_)[n.a],
                                    "' is read before it is set"));
      }
      return v;
    }
    case Op::kNow: return frame.now;
    case Op::kArrival: return frame.arrival;
    case Op::kSerial: return frame.serial;
    case Op::kPresent: return frame.present;
    case Op::kSince: return frame.since;
    case Op::kTokens: return frame.step.tokens;
    case Op::kPrefill: return frame.step.prefill;
    case Op::kDecode: return frame.step.decode;
    case Op::kSeqs: return frame.step.seqs;
    case Op::kContext: return frame.step.context;
    case Op::kAttention: return frame.step.attention;
    case Op::kNeg: {
      double v = Eval(n.a, frame);
      return -v;
    }
    case Op::kNot: {
      double v = Eval(n.a, frame);
      if (failed_) return v;
      return v == 0 ? 1 : 0;
    }
    case Op::kOr: {
      // Short-circuit, as in C: `x == 0 || y / x > 1` is safe.
      double a = Eval(n.a, frame);
      if (failed_) return a;
      if (a != 0) return 1;
      double b = Eval(n.b, frame);
      return failed_ ? b : (b != 0 ? 1 : 0);
    }
    case Op::kAnd: {
      double a = Eval(n.a, frame);
      if (failed_) return a;
      if (a == 0) return 0;
      double b = Eval(n.b, frame);
      return failed_ ? b : (b != 0 ? 1 : 0);
    }
    case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe: case Op::kEq: case Op::kNe:
    case Op::kAdd: case Op::kSub: case Op::kMul: case Op::kDiv: case Op::kMod: {
      double a = Eval(n.a, frame);
      if (failed_) return a;
      double b = Eval(n.b, frame);
      if (failed_) return b;
      double v = 0;
      switch (n.op) {
        case Op::kLt: return a < b;
        case Op::kLe: return a <= b;
        case Op::kGt: return a > b;
        case Op::kGe: return a >= b;
        case Op::kEq: return a == b;
        case Op::kNe: return a != b;
        case Op::kAdd: v = a + b; break;
        case Op::kSub: v = a - b; break;
        case Op::kMul: v = a * b; break;
        case Op::kDiv:
          if (b == 0) return Fail(n, absl::StrCat("division by zero (", a, " / 0)"));
          v = a / b;
          break;
        default:
          if (b == 0) return Fail(n, absl::StrCat("'%' by zero (", a, " % 0)"));
          v = std::fmod(a, b);
          break;
      }
      if (std::isnan(v)) return Fail(n, absl::StrCat(a, " ", OpText(n.op), " ", b, " is NaN"));
      return v;
    }
    case Op::kMath:
    case Op::kRandom: {
      // Most calls have a few arguments: no allocation for those.
      double fixed[8];
      std::vector<double> many;
      double* values = fixed;
      if (n.b > 8) {
        many.resize(n.b);
        values = many.data();
      }
      for (uint32_t i = 0; i < n.b; ++i) {
        values[i] = Eval(table_->args[n.a + i], frame);
        if (failed_) return values[i];
      }
      absl::Span<const double> args(values, n.b);
      if (n.op == Op::kRandom) {
        if (!DrawValid(n.fn, args)) return Fail(n, CheckDraw(n.fn, args));
        return Draw(n.fn, args, *random_);
      }
      double v = ApplyMath(n.fn, args);
      if (std::isnan(v)) return Fail(n, absl::StrCat(CallText(n.fn, args), " is NaN"));
      return v;
    }
    case Op::kStageState:
    case Op::kPoolState: {
      uint32_t element;
      if (!Element(n.a, frame, &element)) return std::nan("");
      return n.op == Op::kStageState ? state_->StageState(n.fn, element)
                                     : state_->PoolState(n.fn, element);
    }
  }
  return Fail(n, "unknown expression");
}

}  // namespace serq::sim
