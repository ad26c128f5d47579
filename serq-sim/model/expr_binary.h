// The binary operations of an expression, shared by the tree evaluator
// and the compiled programs (expr.cc) and the compiler's constant folding
// (expr_compile.cc): one definition, inline in both.
#ifndef SERQ_SIM_MODEL_EXPR_BINARY_H_
#define SERQ_SIM_MODEL_EXPR_BINARY_H_

#include <cmath>

#include "serq-sim/events/clock.h"
#include "serq-sim/model/expr.h"

namespace serq::sim::expr_internal {

// A binary operation on a and b, for the tree and the compiled programs
// alike; false where it fails (division or '%' by zero, a NaN).
inline bool Binary(Op op, double a, double b, double* v) {
  switch (op) {
    case Op::kLt: *v = a < b; return true;
    case Op::kLe: *v = a <= b; return true;
    case Op::kGt: *v = a > b; return true;
    case Op::kGe: *v = a >= b; return true;
    case Op::kEq: *v = a == b; return true;
    case Op::kNe: *v = a != b; return true;
    case Op::kAdd: *v = a + b; break;
    case Op::kSub: *v = a - b; break;
    // Two instants are ticks read as seconds: their difference is whole
    // nanoseconds, which OnClock gives without the operands' representation
    // error (events/clock.h).
    case Op::kElapsed: *v = OnClock(a - b); break;
    case Op::kMul: *v = a * b; break;
    case Op::kDiv:
      if (b == 0) return false;
      *v = a / b;
      break;
    default:
      if (b == 0) return false;
      *v = std::fmod(a, b);
      break;
  }
  return !std::isnan(*v);
}

}  // namespace serq::sim::expr_internal

#endif  // SERQ_SIM_MODEL_EXPR_BINARY_H_
