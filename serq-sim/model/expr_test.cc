// The evaluator's compiled path (expr.h): a pure expression gives the
// tree's value to the bit, through its first evaluation (compiled) and
// every later one; one that would fail reports the tree's error at the
// failing node, whether or not constants were folded.
#include "serq-sim/model/expr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace serq::sim {
namespace {

class FakeState : public StateView {
 public:
  double StageState(Function f, uint32_t station) override {
    ++calls;
    return f == Function::kQueue ? 10.0 + station : 0.5;
  }
  double PoolState(Function f, uint32_t pool) override { return 100.0 + pool; }
  int calls = 0;
};

// Builds an ExprTable node by node; each helper returns the node's id.
struct Builder {
  ExprTable t;
  uint32_t Add(Node n, uint32_t line) {
    n.line = line;
    n.column = 1;
    t.nodes.push_back(n);
    return t.nodes.size() - 1;
  }
  uint32_t Num(double v, uint32_t line = 1) {
    Node n;
    n.op = Op::kNumber;
    n.number = v;
    return Add(n, line);
  }
  uint32_t Leaf(Op op, uint32_t a = 0, uint32_t line = 1) {
    Node n;
    n.op = op;
    n.a = a;
    return Add(n, line);
  }
  uint32_t Bin(Op op, uint32_t a, uint32_t b, uint32_t line = 1) {
    Node n;
    n.op = op;
    n.a = a;
    n.b = b;
    return Add(n, line);
  }
  // A call of a function (kMath) or a distribution (kRandom).
  uint32_t Call(Op op, Function fn, std::vector<uint32_t> args, uint32_t line) {
    Node n;
    n.op = op;
    n.fn = fn;
    n.a = t.args.size();
    n.b = args.size();
    for (uint32_t a : args) t.args.push_back(a);
    return Add(n, line);
  }
  uint32_t Math(Function fn, std::vector<uint32_t> args, uint32_t line = 1) {
    return Call(Op::kMath, fn, std::move(args), line);
  }
  uint32_t Draw(Function fn, std::vector<uint32_t> args, uint32_t line = 1) {
    return Call(Op::kRandom, fn, std::move(args), line);
  }
  uint32_t Stage(Function fn, int32_t index_node, uint32_t size, uint32_t line = 1) {
    ElementRef r;
    r.base = 3;
    r.size = size;
    r.index = index_node;
    r.name = "P";
    r.line = line;
    r.column = 2;
    t.refs.push_back(r);
    Node n;
    n.op = Op::kStageState;
    n.fn = fn;
    n.a = t.refs.size() - 1;
    return Add(n, line);
  }
};

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(CompiledExprTest, TauOfStepVariablesToTheBit) {
  // (c0 + c1 * tokens) + c2 * context, with c0 = 16.06e9 / 3.35e12 folded
  // from a constant subexpression: llmd_nixl_pull.sq's tau.
  Builder b;
  uint32_t c0 = b.Bin(Op::kDiv, b.Num(16.06e9), b.Num(3.35e12));
  uint32_t tokens = b.Leaf(Op::kTokens);
  uint32_t context = b.Leaf(Op::kContext);
  uint32_t root = b.Bin(Op::kAdd, b.Bin(Op::kAdd, c0, b.Bin(Op::kMul, b.Num(2.7e-5), tokens)),
                        b.Bin(Op::kMul, b.Num(3.9e-8), context));
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  const double c0v = 16.06e9 / 3.35e12;
  for (int k = 0; k < 3; ++k) {  // the first compiles, the others run it
    EvalFrame f;
    StepVars step;
    f.step = &step;
    step.tokens = 37 + k;
    step.context = 12345.5 + 1000 * k;
    double want = (c0v + 2.7e-5 * step.tokens) + 3.9e-8 * step.context;
    EXPECT_TRUE(SameBits(ev.Eval(root, f), want)) << k;
  }
  EXPECT_FALSE(ev.failed());
}

TEST(CompiledExprTest, NonCommutativeConstantsKeepTheirSide) {
  // 10 - x, x - 10, 10 / x, x / 10, fmod(x, 3), 3 < x, max(2, x, 1):
  // a constant moved into the instruction stays on its side.
  Builder b;
  uint32_t x = b.Leaf(Op::kPrefill);
  std::vector<uint32_t> roots = {
      b.Bin(Op::kSub, b.Num(10), x), b.Bin(Op::kSub, x, b.Num(10)),
      b.Bin(Op::kDiv, b.Num(10), x), b.Bin(Op::kDiv, x, b.Num(10)),
      b.Bin(Op::kMod, x, b.Num(3)),  b.Bin(Op::kLt, b.Num(3), x),
      b.Math(Function::kMax, {b.Num(2), x, b.Num(1)}), b.Leaf(Op::kNeg, b.Num(4))};
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  EvalFrame f;
  StepVars step;
  f.step = &step;
  step.prefill = 7.25;
  std::vector<double> want = {10 - 7.25, 7.25 - 10, 10 / 7.25, 7.25 / 10,
                              std::fmod(7.25, 3), 1, 7.25, -4};
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < roots.size(); ++i) {
      EXPECT_TRUE(SameBits(ev.Eval(roots[i], f), want[i])) << i << " pass " << pass;
    }
  }
  EXPECT_FALSE(ev.failed());
}

TEST(CompiledExprTest, DivisionByZeroFailsAtItsNode) {
  // tokens / (decode - 1) with decode = 1: the compiled run gives up and
  // the tree reports the division at line 7, after a good evaluation.
  Builder b;
  uint32_t root = b.Bin(Op::kDiv, b.Leaf(Op::kTokens),
                        b.Bin(Op::kSub, b.Leaf(Op::kDecode), b.Num(1), 6), 7);
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  EvalFrame f;
  StepVars step;
  f.step = &step;
  step.tokens = 8;
  step.decode = 3;
  EXPECT_EQ(ev.Eval(root, f), 4);
  step.decode = 1;
  EXPECT_TRUE(std::isnan(ev.Eval(root, f)));
  ASSERT_TRUE(ev.failed());
  EXPECT_EQ(ev.error().line, 7u);
  EXPECT_EQ(ev.error().message, "division by zero (8 / 0)");
}

TEST(CompiledExprTest, ConstantDivisionByZeroIsNotFoldedAway) {
  Builder b;
  uint32_t root = b.Bin(Op::kAdd, b.Leaf(Op::kSeqs), b.Bin(Op::kDiv, b.Num(1), b.Num(0), 4), 5);
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  EvalFrame f;
  StepVars step;
  f.step = &step;
  ev.Eval(root, f);
  ASSERT_TRUE(ev.failed());
  EXPECT_EQ(ev.error().line, 4u);
  EXPECT_EQ(ev.error().message, "division by zero (1 / 0)");
}

// Every instruction of the compiled code, each on values that tell them
// apart: a leaf minus 0.5 (the constant on the right), the fused leaf
// plus or times a constant (either side), and each binary
// operation with its operands both variables (S), the constant on the
// left (L) and on the right (R). The expected values are the C++
// operations themselves; each expression is evaluated twice (compiled,
// then run), and both must agree with the tree's way of computing.
TEST(CompiledExprTest, EveryInstructionToTheBit) {
  Builder b;
  struct Case {
    uint32_t root;
    double want;
  };
  std::vector<Case> cases;
  const double x = 7.25, y = -3.5, c = 2.0;  // variables 0 and 1, the constant
  EvalFrame f;
  StepVars step;
  f.step = &step;
  f.now = 101;
  f.arrival = 102;
  f.serial = 103;
  f.present = 104;
  f.since = 105;
  step.tokens = 106;
  step.prefill = 107;
  step.decode = 108;
  step.seqs = 109;
  step.context = 110;
  step.attention = 111;
  const std::pair<Op, double> leaves[] = {
      {Op::kNow, 101},      {Op::kArrival, 102}, {Op::kSerial, 103},  {Op::kPresent, 104},
      {Op::kSince, 105},    {Op::kTokens, 106},  {Op::kPrefill, 107}, {Op::kDecode, 108},
      {Op::kSeqs, 109},     {Op::kContext, 110}, {Op::kAttention, 111}};
  // Each leaf alone (a difference is not fused) and fused with a sum or
  // a product by a constant on either side.
  for (const auto& [op, value] : leaves) {
    cases.push_back({b.Bin(Op::kSub, b.Leaf(op), b.Num(0.5)), value - 0.5});
    cases.push_back({b.Bin(Op::kAdd, b.Leaf(op), b.Num(0.5)), value + 0.5});
    cases.push_back({b.Bin(Op::kAdd, b.Num(0.25), b.Leaf(op)), 0.25 + value});
    cases.push_back({b.Bin(Op::kMul, b.Leaf(op), b.Num(1.5)), value * 1.5});
    cases.push_back({b.Bin(Op::kMul, b.Num(-3), b.Leaf(op)), -3 * value});
  }
  auto var = [&](uint32_t slot) { return b.Leaf(Op::kVariable, slot); };
  auto apply = [](Op op, double a, double d) {
    switch (op) {
      case Op::kAdd: return a + d;
      case Op::kSub: return a - d;
      case Op::kMul: return a * d;
      case Op::kDiv: return a / d;
      case Op::kMod: return std::fmod(a, d);
      case Op::kLt: return a < d ? 1.0 : 0.0;
      default: return a >= d ? 1.0 : 0.0;  // kGe
    }
  };
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMod, Op::kLt, Op::kGe}) {
    cases.push_back({b.Bin(op, var(0), var(1)), apply(op, x, y)});
    cases.push_back({b.Bin(op, b.Num(c), var(0)), apply(op, c, x)});
    cases.push_back({b.Bin(op, var(0), b.Num(c)), apply(op, x, c)});
  }
  cases.push_back({b.Math(Function::kMin, {var(0), var(1)}), y});
  cases.push_back({b.Math(Function::kMax, {var(0), var(1)}), x});
  cases.push_back({b.Math(Function::kFloor, {var(0)}), std::floor(x)});
  cases.push_back({b.Math(Function::kMax, {var(0), var(1), b.Num(c)}), x});
  // -(x) and queue(P[floor(1.5)]) = 10 + element 4 (FakeState).
  Node neg;
  neg.op = Op::kNeg;
  neg.a = var(0);
  cases.push_back({b.Add(neg, 1), -x});
  cases.push_back({b.Stage(Function::kQueue, static_cast<int32_t>(b.Num(1.5)), 2), 14});
  double vars[2] = {x, y};
  f.variables = vars;
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  for (size_t i = 0; i < cases.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      EXPECT_TRUE(SameBits(ev.Eval(cases[i].root, f), cases[i].want)) << "case " << i << ", " << k;
    }
  }
  EXPECT_FALSE(ev.failed());
}

TEST(CompiledExprTest, NanAndUnsetVariableFail) {
  Builder b;
  // 0 * inf is NaN: "0 * inf is NaN" at the multiplication.
  uint32_t nan_root = b.Bin(Op::kMul, b.Leaf(Op::kContext), b.Num(INFINITY), 3);
  std::vector<std::string> names = {"prompt"};
  // prompt + 1, and max(42, prompt), which would lose the NaN of a
  // variable not set (compiled code checks it only where it could be lost).
  uint32_t var_roots[] = {b.Bin(Op::kAdd, b.Leaf(Op::kVariable, 0, 9), b.Num(1)),
                          b.Math(Function::kMax, {b.Num(42), b.Leaf(Op::kVariable, 0, 9)})};
  Random random(1);
  FakeState state;
  {
    Evaluator ev(&b.t, nullptr, &random, &state);
    EvalFrame f;
    StepVars step;
    f.step = &step;
    step.context = 0;
    ev.Eval(nan_root, f);
    ASSERT_TRUE(ev.failed());
    EXPECT_EQ(ev.error().line, 3u);
    EXPECT_EQ(ev.error().message, "0 * inf is NaN");
  }
  for (uint32_t var_root : var_roots) {
    Evaluator ev(&b.t, nullptr, &random, &state);
    double vars[1] = {41};
    EvalFrame f;
    StepVars step;
    f.step = &step;
    f.variables = vars;
    f.variable_names = &names;
    EXPECT_EQ(ev.Eval(var_root, f), 42);
    vars[0] = std::nan("");
    ev.Eval(var_root, f);
    ASSERT_TRUE(ev.failed());
    EXPECT_EQ(ev.error().line, 9u);
    EXPECT_EQ(ev.error().message, "variable 'prompt' is read before it is set");
  }
}

// Arithmetic does not check for NaN; what could lose one checks its
// operands. context * 0 with context = inf is NaN, made at line 3, and
// each way it could vanish must still fail there, with the tree's
// message: max(1, NaN) and min(NaN, 1) (std::max_element of NaN and 1 is
// 1), NaN < 1 (0), min(NaN, 1, 2) through ApplyMath, exponential(NaN),
// queue(P[NaN]). (A variable not set: NanAndUnsetVariableFail.)
TEST(CompiledExprTest, NanIsNotLostOnTheWay) {
  Builder b;
  auto nan = [&] { return b.Bin(Op::kMul, b.Leaf(Op::kContext), b.Num(0), 3); };
  std::vector<uint32_t> roots = {
      b.Math(Function::kMax, {b.Num(1), nan()}),
      b.Math(Function::kMin, {nan(), b.Num(1)}),
      b.Bin(Op::kLt, nan(), b.Num(1)),
      b.Math(Function::kMin, {nan(), b.Num(1), b.Num(2)}),
      b.Draw(Function::kExponential, {nan()}),
      b.Stage(Function::kQueue, static_cast<int32_t>(nan()), 2),
  };
  FakeState state;
  for (size_t i = 0; i < roots.size(); ++i) {
    Random random(1);
    Evaluator ev(&b.t, nullptr, &random, &state);
    EvalFrame f;
    StepVars step;
    f.step = &step;
    step.context = 1;  // compiled on a value that does not fail
    ev.Eval(roots[i], f);
    EXPECT_FALSE(ev.failed()) << i;
    step.context = INFINITY;
    ev.Eval(roots[i], f);
    ASSERT_TRUE(ev.failed()) << i;
    EXPECT_EQ(ev.error().line, 3u) << i;
    EXPECT_EQ(ev.error().message, "inf * 0 is NaN") << i;
  }
}

TEST(CompiledExprTest, StateFunctionsOfAnIndexedElement) {
  // queue(P[i]) with P = elements 3 and 4: 13, 14; i = 2 is out of range.
  Builder b;
  std::vector<std::string> names = {"i"};
  uint32_t root = b.Stage(Function::kQueue, b.Leaf(Op::kVariable), 2, 8);
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  double vars[1] = {0};
  EvalFrame f;
  StepVars step;
  f.step = &step;
  f.variables = vars;
  f.variable_names = &names;
  EXPECT_EQ(ev.Eval(root, f), 13);
  vars[0] = 1.5;  // floor
  EXPECT_EQ(ev.Eval(root, f), 14);
  vars[0] = 2;
  ev.Eval(root, f);
  ASSERT_TRUE(ev.failed());
  EXPECT_EQ(ev.error().message, "index 2 is out of range for 'P' (size 2)");
}

// Element (`run P[i]`): an index that is a variable is read directly,
// any other evaluated; both floor it and check it the same way, and an
// unset variable is the tree's error. P is elements 3 and 4.
TEST(CompiledExprTest, ElementOfAVariableOrAnExpressionIndex) {
  Builder b;
  std::vector<std::string> names = {"i"};
  uint32_t by_var = b.Stage(Function::kQueue, b.Leaf(Op::kVariable, 0, 4), 2, 4);
  uint32_t by_expr =
      b.Stage(Function::kQueue, b.Bin(Op::kSub, b.Leaf(Op::kVariable, 0, 5), b.Num(1)), 2, 5);
  Random random(1);
  FakeState state;
  double vars[1] = {1.75};
  EvalFrame f;
  StepVars step;
  f.step = &step;
  f.variables = vars;
  f.variable_names = &names;
  {
    Evaluator ev(&b.t, nullptr, &random, &state);
    uint32_t element = 0;
    ASSERT_TRUE(ev.Element(b.t.nodes[by_var].a, f, &element));
    EXPECT_EQ(element, 4u);  // 3 + floor(1.75)
    ASSERT_TRUE(ev.Element(b.t.nodes[by_expr].a, f, &element));
    EXPECT_EQ(element, 3u);  // 3 + floor(0.75)
    vars[0] = 2;
    EXPECT_FALSE(ev.Element(b.t.nodes[by_var].a, f, &element));
    EXPECT_EQ(ev.error().message, "index 2 is out of range for 'P' (size 2)");
  }
  // The edges: floor(1.999) = 1 is in range, floor(-0.25) = -1 is not
  // (a truncation would make it 0), through Element and through the
  // compiled queue(P[i - 1]) (10 + element 4 from FakeState).
  {
    Evaluator ev(&b.t, nullptr, &random, &state);
    uint32_t element = 0;
    vars[0] = 1.999;
    ASSERT_TRUE(ev.Element(b.t.nodes[by_var].a, f, &element));
    EXPECT_EQ(element, 4u);
    vars[0] = 2.5;  // i - 1 = 1.5
    EXPECT_EQ(ev.Eval(by_expr, f), 14);
    EXPECT_EQ(ev.Eval(by_expr, f), 14);
    vars[0] = -0.25;
    EXPECT_FALSE(ev.Element(b.t.nodes[by_var].a, f, &element));
    EXPECT_EQ(ev.error().message, "index -0.25 is out of range for 'P' (size 2)");
  }
  {
    Evaluator ev(&b.t, nullptr, &random, &state);
    vars[0] = 0.75;  // i - 1 = -0.25
    ev.Eval(by_expr, f);
    ASSERT_TRUE(ev.failed());
    EXPECT_EQ(ev.error().line, 5u);
    EXPECT_EQ(ev.error().message, "index -0.25 is out of range for 'P' (size 2)");
  }
  {
    Evaluator ev(&b.t, nullptr, &random, &state);
    vars[0] = std::nan("");
    uint32_t element = 0;
    EXPECT_FALSE(ev.Element(b.t.nodes[by_var].a, f, &element));
    EXPECT_EQ(ev.error().line, 4u);
    EXPECT_EQ(ev.error().message, "variable 'i' is read before it is set");
  }
}

// min and max of two have instructions of their own: ApplyMath's
// answers, the first of two equal (0 and -0 keep their order), and a
// quotient of either side by 0 fails at its node as the tree's.
TEST(CompiledExprTest, MinAndMaxOfTwoAndQuotients) {
  Builder b;
  uint32_t x = b.Leaf(Op::kPrefill);
  uint32_t y = b.Leaf(Op::kDecode);
  std::vector<uint32_t> roots = {b.Math(Function::kMin, {x, y}), b.Math(Function::kMax, {x, y}),
                                 b.Math(Function::kMin, {y, x}), b.Math(Function::kMax, {y, x})};
  uint32_t left = b.Bin(Op::kDiv, b.Num(3), x, 6);   // 3 / prefill
  uint32_t right = b.Bin(Op::kDiv, y, b.Num(0), 7);  // decode / 0
  Random random(1);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  EvalFrame f;
  StepVars step;
  f.step = &step;
  for (auto [px, dy] : std::vector<std::pair<double, double>>{{2, 5}, {5, 2}, {0.0, -0.0}}) {
    step.prefill = px;
    step.decode = dy;
    for (size_t i = 0; i < roots.size(); ++i) {
      std::vector<double> args = i < 2 ? std::vector<double>{px, dy} : std::vector<double>{dy, px};
      double want = ApplyMath(i % 2 == 0 ? Function::kMin : Function::kMax, args);
      EXPECT_TRUE(SameBits(ev.Eval(roots[i], f), want)) << i << " " << px << " " << dy;
    }
  }
  EXPECT_FALSE(ev.failed());
  step.prefill = 4;
  EXPECT_EQ(ev.Eval(left, f), 0.75);
  step.prefill = 0;
  ev.Eval(left, f);
  ASSERT_TRUE(ev.failed());
  EXPECT_EQ(ev.error().line, 6u);
  EXPECT_EQ(ev.error().message, "division by zero (3 / 0)");
  Evaluator ev2(&b.t, nullptr, &random, &state);
  step.decode = 9;
  ev2.Eval(right, f);
  ASSERT_TRUE(ev2.failed());
  EXPECT_EQ(ev2.error().line, 7u);
  EXPECT_EQ(ev2.error().message, "division by zero (9 / 0)");
}

// A draw is compiled with the rest: one draw an evaluation, in the tree's
// order, the same stream as drawing directly. The sets of the vLLM
// examples' sessions: max(2, min(8192, round(lognormal(ln(1024), 0.8))))
// and min(x - 1, 512 * bernoulli(0.5)); and two draws in one expression,
// exponential(2) + normal(1, 3), left before right.
TEST(CompiledExprTest, DrawsInTheTreesOrderFromTheSameStream) {
  Builder b;
  auto draw = [&](Function fn, std::vector<uint32_t> args) { return b.Draw(fn, args); };
  uint32_t prompt = b.Math(
      Function::kMax,
      {b.Num(2), b.Math(Function::kMin,
                        {b.Num(8192), b.Math(Function::kRound,
                                             {draw(Function::kLognormal,
                                                   {b.Math(Function::kLn, {b.Num(1024)}),
                                                    b.Num(0.8)})})})});
  uint32_t c = b.Math(Function::kMin,
                      {b.Bin(Op::kSub, b.Leaf(Op::kVariable, 0), b.Num(1)),
                       b.Bin(Op::kMul, b.Num(512), draw(Function::kBernoulli, {b.Num(0.5)}))});
  uint32_t two = b.Bin(Op::kAdd, draw(Function::kExponential, {b.Num(2)}),
                       draw(Function::kNormal, {b.Num(1), b.Num(3)}));
  Random random(7), same(7);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  double vars[1] = {300};
  EvalFrame f;
  StepVars step;
  f.step = &step;
  f.variables = vars;
  for (int k = 0; k < 4; ++k) {
    double want = std::max(
        2.0, std::min(8192.0, std::round(Draw(Function::kLognormal,
                                               std::vector<double>{std::log(1024.0), 0.8}, same))));
    EXPECT_TRUE(SameBits(ev.Eval(prompt, f), want)) << k;
    want = std::min(299.0, 512 * Draw(Function::kBernoulli, std::vector<double>{0.5}, same));
    EXPECT_TRUE(SameBits(ev.Eval(c, f), want)) << k;
    double e = Draw(Function::kExponential, std::vector<double>{2}, same);
    want = e + Draw(Function::kNormal, std::vector<double>{1, 3}, same);
    EXPECT_TRUE(SameBits(ev.Eval(two, f), want)) << k;
  }
  EXPECT_FALSE(ev.failed());
  EXPECT_EQ(random.Next(), same.Next());  // no draw more, none fewer
}

// A program that draws and then fails gives the stream back: the tree
// draws the same values again and reports the failure at its node, and
// the stream has advanced by the tree's draws only. exponential(1) / x
// with x = 0 fails after its draw; exponential(x) with x = -1 before it.
TEST(CompiledExprTest, DrawThatFailsLeavesTheStreamAsTheTree) {
  Builder b;
  auto draw = [&](Function fn, uint32_t arg, uint32_t line) { return b.Draw(fn, {arg}, line); };
  uint32_t quotient =
      b.Bin(Op::kDiv, draw(Function::kExponential, b.Num(1), 2), b.Leaf(Op::kVariable, 0), 4);
  uint32_t invalid = draw(Function::kExponential, b.Leaf(Op::kVariable, 0), 6);
  FakeState state;
  {
    Random random(3), same(3);
    Evaluator ev(&b.t, nullptr, &random, &state);
    double vars[1] = {2};
    EvalFrame f;
    StepVars step;
    f.step = &step;
    f.variables = vars;
    // Compiled on the first evaluation, run on the second.
    for (int k = 0; k < 2; ++k) {
      double want = Draw(Function::kExponential, std::vector<double>{1}, same) / 2;
      EXPECT_TRUE(SameBits(ev.Eval(quotient, f), want)) << k;
    }
    vars[0] = 0;
    double drawn = Draw(Function::kExponential, std::vector<double>{1}, same);
    ev.Eval(quotient, f);
    ASSERT_TRUE(ev.failed());
    EXPECT_EQ(ev.error().line, 4u);
    EXPECT_EQ(ev.error().message, absl::StrCat("division by zero (", drawn, " / 0)"));
    EXPECT_EQ(random.Next(), same.Next());
  }
  {
    Random random(3), same(3);
    Evaluator ev(&b.t, nullptr, &random, &state);
    double vars[1] = {2};
    EvalFrame f;
    StepVars step;
    f.step = &step;
    f.variables = vars;
    for (int k = 0; k < 2; ++k) {
      double want = Draw(Function::kExponential, std::vector<double>{2}, same);
      EXPECT_TRUE(SameBits(ev.Eval(invalid, f), want)) << k;
    }
    vars[0] = -1;
    ev.Eval(invalid, f);
    ASSERT_TRUE(ev.failed());
    EXPECT_EQ(ev.error().line, 6u);
    EXPECT_EQ(ev.error().message, CheckDraw(Function::kExponential, std::vector<double>{-1}));
    EXPECT_EQ(random.Next(), same.Next());  // nothing drawn
  }
}

// Draws of constant parameters are checked when compiled and run as one
// instruction; a program of one instruction runs without Run's machine
// (EvalSingle). Each gives the tree's value to the bit, from the same
// stream, on its first evaluation (compiled) and after; so do the fused
// now - arrival (on the clock: OnClock of the difference) alone and
// inside a larger program, and a leaf alone.
TEST(CompiledExprTest, SingleInstructionsAndConstantDrawsToTheBit) {
  Builder b;
  uint32_t exponential = b.Draw(Function::kExponential, {b.Num(2)});
  uint32_t uniform = b.Draw(Function::kUniform, {b.Num(1), b.Num(3)});
  uint32_t elapsed = b.Bin(Op::kElapsed, b.Leaf(Op::kNow), b.Leaf(Op::kArrival));
  uint32_t twice =
      b.Bin(Op::kMul, b.Bin(Op::kElapsed, b.Leaf(Op::kNow), b.Leaf(Op::kArrival)), b.Num(2));
  uint32_t queued = b.Leaf(Op::kQueued);
  Random random(11), same(11);
  FakeState state;
  Evaluator ev(&b.t, nullptr, &random, &state);
  for (int k = 0; k < 3; ++k) {
    EvalFrame f;
    f.now = 0.3 + k;  // 0.3 - 0.1 is 0.19999999999999998 in doubles; on the clock 0.2
    f.arrival = 0.1;
    f.queued = 0.25 * k;
    EXPECT_TRUE(SameBits(ev.Eval(exponential, f), same.Exponential(2))) << k;
    EXPECT_TRUE(SameBits(ev.Eval(uniform, f), same.Uniform(1, 3))) << k;
    EXPECT_TRUE(SameBits(ev.Eval(elapsed, f), OnClock(f.now - f.arrival))) << k;
    EXPECT_TRUE(SameBits(ev.Eval(twice, f), OnClock(f.now - f.arrival) * 2)) << k;
    EXPECT_EQ(ev.Eval(queued, f), 0.25 * k) << k;
  }
  EvalFrame f;
  f.now = 0.3;
  f.arrival = 0.1;
  EXPECT_EQ(ev.Eval(elapsed, f), 0.2);
  EXPECT_FALSE(ev.failed());
  EXPECT_EQ(random.Next(), same.Next());  // no draw more, none fewer
}

// A draw of constant parameters that CheckDraw refuses is not made one
// instruction: it fails at its node with CheckDraw's message and draws
// nothing.
TEST(CompiledExprTest, ConstantInvalidDrawFailsAtItsNode) {
  Builder b;
  uint32_t invalid = b.Draw(Function::kExponential, {b.Num(-1)}, 9);
  FakeState state;
  Random random(5), same(5);
  Evaluator ev(&b.t, nullptr, &random, &state);
  EvalFrame f;
  EXPECT_TRUE(std::isnan(ev.Eval(invalid, f)));
  ASSERT_TRUE(ev.failed());
  EXPECT_EQ(ev.error().line, 9u);
  EXPECT_EQ(ev.error().message, CheckDraw(Function::kExponential, std::vector<double>{-1}));
  EXPECT_EQ(random.Next(), same.Next());  // nothing drawn
}

}  // namespace
}  // namespace serq::sim
