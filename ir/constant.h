// Evaluating constant expressions: numbers, params and math functions. The
// linker uses it for array sizes, caps, constant indices and params; the
// simulator for params (after -D overrides) and run settings.
#ifndef SERQ_IR_CONSTANT_H_
#define SERQ_IR_CONSTANT_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/ir.pb.h"

namespace serq {

// The value of param `decl` (an index into Program.param), or an error.
using ParamValue = std::function<absl::StatusOr<double>(uint32_t decl)>;

// Evaluates a linked constant expression. Errors (a non-constant part,
// division by zero, a NaN) come back as InvalidArgument with a message in
// diagnostic style (lowercase, no period); the caller adds the location.
absl::StatusOr<double> EvaluateConstant(const ir::Expr& expr, const ParamValue& param);

}  // namespace serq

#endif  // SERQ_IR_CONSTANT_H_
