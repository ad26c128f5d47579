#include "ir/constant.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace serq {
namespace {

ir::Expr Num(double v) {
  ir::Expr e;
  e.set_number(v);
  return e;
}

ir::Expr Bin(ir::Expr::BinaryOp op, ir::Expr a, ir::Expr b) {
  ir::Expr e;
  e.mutable_binary()->set_op(op);
  *e.mutable_binary()->mutable_lhs() = std::move(a);
  *e.mutable_binary()->mutable_rhs() = std::move(b);
  return e;
}

ir::Expr Param(uint32_t decl) {
  ir::Expr e;
  e.mutable_ref()->set_kind(ir::Ref::PARAM);
  e.mutable_ref()->set_decl(decl);
  return e;
}

ir::Expr Call(const std::string& f, std::vector<ir::Expr> args) {
  ir::Expr e;
  e.mutable_call()->set_function(f);
  for (auto& a : args) *e.mutable_call()->add_arg() = std::move(a);
  return e;
}

absl::StatusOr<double> NoParams(uint32_t) { return absl::InvalidArgumentError("none"); }

TEST(Constant, ArithmeticAndParams) {
  // 25e9 / 2 / 1024, as the language's param example: 12207031.25.
  auto v = EvaluateConstant(Bin(ir::Expr::DIV, Bin(ir::Expr::DIV, Param(0), Num(2)), Num(1024)),
                            [](uint32_t) -> absl::StatusOr<double> { return 25e9; });
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 12207031.25);
  EXPECT_EQ(*EvaluateConstant(Bin(ir::Expr::MOD, Num(7), Num(3)), NoParams), 1);
  EXPECT_EQ(*EvaluateConstant(Bin(ir::Expr::LE, Num(2), Num(2)), NoParams), 1);
  EXPECT_EQ(*EvaluateConstant(Call("max", {Num(1), Num(5), Num(3)}), NoParams), 5);
  EXPECT_EQ(*EvaluateConstant(Call("round", {Num(2.5)}), NoParams), 3);
  EXPECT_EQ(*EvaluateConstant(Call("round", {Num(-2.5)}), NoParams), -3);
  EXPECT_TRUE(std::isinf(*EvaluateConstant(Num(INFINITY), NoParams)));
}

// docs/language.md §4 (interp): through (0, 10) and (10, 30) the line is 10 + 2x, so 5 is
// 20 and, extrapolated, 15 is 40 and -5 is 0. With a third point (20, 10)
// the second segment is 30 - 2(x - 10): 15 is 20 and 25 (beyond) is 0; x
// on a point is that point's y.
TEST(Constant, InterpIsPiecewiseLinearAndExtrapolates) {
  auto interp = [](double x, std::vector<double> points) {
    std::vector<ir::Expr> args = {Num(x)};
    for (double p : points) args.push_back(Num(p));
    return *EvaluateConstant(Call("interp", std::move(args)), NoParams);
  };
  EXPECT_EQ(interp(5, {0, 10, 10, 30}), 20);
  EXPECT_EQ(interp(15, {0, 10, 10, 30}), 40);
  EXPECT_EQ(interp(-5, {0, 10, 10, 30}), 0);
  EXPECT_EQ(interp(15, {0, 10, 10, 30, 20, 10}), 20);
  EXPECT_EQ(interp(25, {0, 10, 10, 30, 20, 10}), 0);
  EXPECT_EQ(interp(-5, {0, 10, 10, 30, 20, 10}), 0);
  EXPECT_EQ(interp(10, {0, 10, 10, 30, 20, 10}), 30);
  EXPECT_EQ(interp(20, {0, 10, 10, 30, 20, 10}), 10);
}

TEST(Constant, ErrorsAreReported) {
  EXPECT_EQ(EvaluateConstant(Bin(ir::Expr::DIV, Num(1), Num(0)), NoParams).status().message(),
            "division by zero");
  EXPECT_EQ(EvaluateConstant(Call("sqrt", {Num(-1)}), NoParams).status().message(),
            "the value is NaN");
  EXPECT_EQ(EvaluateConstant(Call("exponential", {Num(1)}), NoParams).status().message(),
            "'exponential' is not a constant (only numbers, params and math functions are)");
  EXPECT_EQ(EvaluateConstant(Call("pow", {Num(1)}), NoParams).status().message(),
            "wrong number of arguments to 'pow'");
}

// A trace's {NAME} is the param's value in the shortest form that reads
// back (3, 0.5, 1e+21), and -0 is 0: the file name of -D Day=-0 is
// day0.csv, as of -D Day=0.
TEST(Constant, AFileNamesParam) {
  auto expand = [](double day) {
    absl::StatusOr<std::string> name = ExpandFileName(
        "day{Day}.csv", [day](const std::string& n) -> std::optional<absl::StatusOr<double>> {
          if (n == "Day") return absl::StatusOr<double>(day);
          return std::nullopt;
        });
    return name.ok() ? *name : std::string(name.status().message());
  };
  EXPECT_EQ(expand(3), "day3.csv");
  EXPECT_EQ(expand(0.5), "day0.5.csv");
  EXPECT_EQ(expand(1e21), "day1e+21.csv");
  EXPECT_EQ(expand(-0.0), "day0.csv");
  EXPECT_EQ(expand(INFINITY), "the file name 'day{Day}.csv' takes param 'Day', whose value is \"Infinity\"");
}

}  // namespace
}  // namespace serq
