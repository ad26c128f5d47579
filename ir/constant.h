// Evaluating constant expressions: numbers, params and math functions. The
// linker uses it for array sizes, caps, constant indices and params; the
// simulator for params (after -D overrides) and run settings.
#ifndef SERQ_IR_CONSTANT_H_
#define SERQ_IR_CONSTANT_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "proto/ir.pb.h"

namespace serq {

// The value of param `decl` (an index into Program.param), or an error.
using ParamValue = std::function<absl::StatusOr<double>(uint32_t decl)>;

// Evaluates a linked constant expression. Errors (a non-constant part,
// division by zero, a NaN) come back as InvalidArgument with a message in
// diagnostic style (lowercase, no period); the caller adds the location.
absl::StatusOr<double> EvaluateConstant(const ir::Expr& expr, const ParamValue& param);

// A trace's file name with each `{NAME}` replaced by the value of param
// NAME (IR 11), in the shortest form that reads back exactly (3, 0.5,
// 1e+21), so that `-D Day=3` picks "day{Day}.csv" = "day3.csv". `param`
// gives a param's value by name, nullopt when there is no such param.
// Errors: a `{` without its `}`, a name that is no param, a value that is
// not finite.
absl::StatusOr<std::string> ExpandFileName(
    const std::string& file,
    const std::function<std::optional<absl::StatusOr<double>>(const std::string& name)>& param);

// A param's value against its range (`param X = v in [low, high];`, IR
// 11): "" when low <= value <= high, else the error the linker and the
// simulator both give, "param 'X' is 3, outside its range [0, 1]", or
// "-D X=3 is outside the param's range [0, 1]" when `defined` (the value
// came from -D). A NaN is outside every range.
std::string ParamOutsideRange(const std::string& name, double value, double low, double high, bool defined);
// The range of param `name` of a linked program (`in [low, high]`), its
// ends evaluated at the params' values as the program gives them (-D
// applied by the link): nullopt for a param without one, NotFound for no
// such param, InvalidArgument for an end without a value. For a tool that
// moves the param itself (a fit's box, a search's range), to check its
// bounds before it runs.
absl::StatusOr<std::optional<std::pair<double, double>>> ParamRangeOf(const ir::Program& linked,
                                                                      const std::string& name);

// The first of `params` (indices into linked.param) that the linked
// program's constant `e` reads, itself or through the params it reads
// (acyclic once linked), or -1: whether a value moves with them (a fit's
// params), or was computed from a refused one.
int FirstParamRead(const ir::Expr& e, const std::set<int>& params, const ir::Program& linked);

// "" when the range holds a value (low <= high), else "the range of param
// 'X' holds nothing: its low end 2 is not at most its high end 1".
std::string ParamRangeEmpty(const std::string& name, double low, double high);
// An end of param X's range (`end`: "low" or "high") that has no value:
// "the low end of param 'X''s range: division by zero".
std::string ParamRangeEndFailed(const std::string& name, const std::string& end, const std::string& why);

}  // namespace serq

#endif  // SERQ_IR_CONSTANT_H_
