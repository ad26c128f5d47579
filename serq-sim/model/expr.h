// Expressions at run time: a compact tree in one flat array (children by
// index, params already folded to numbers, variables by slot), evaluated
// with no string look-ups. Runtime errors (division by zero, NaN, a
// variable read before it is set, an index out of range, invalid
// distribution parameters) are recorded once, with the location of the
// node that failed, and evaluation returns NaN; callers check failed().
#ifndef SERQ_SIM_MODEL_EXPR_H_
#define SERQ_SIM_MODEL_EXPR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/builtins.h"
#include "serq-sim/events/clock.h"
#include "serq-sim/random/random.h"
#include "serq-sim/stations/stage.h"
#include "tables/grid.h"

namespace serq::sim {

enum class Op : uint8_t {
  kNumber,
  kVariable,     // a: the session's slot
  kKeyVariable,  // a: a name id, looked up in the session's table (keys)
  kNow,
  kArrival,
  kSerial,
  kPresent,
  kSince,
  kQueued,  // IR 11: when the session's job was taken in by its stage
  kIndex,   // IR 11: the session's arrival number within its workload
  kTokens,  // the step variables of a step stage's tau
  kPrefill,
  kDecode,
  kSeqs,
  kContext,
  kAttention,
  kPrefillJobs,  // IR 10's step figures, the prefill and the decode jobs apart
  kPrefillKv,
  kPrefillKvMax,
  kPrefillKvMin,
  kPrefillContext,
  kPrefillContextMax,
  kPrefillContextMin,
  kDecodeKv,
  kDecodeKvMax,
  kDecodeKvMin,
  kDecodeContext,
  kDecodeContextMax,
  kDecodeContextMin,
  kGroupTokens,  // IR 11: the step's lockstep group
  kGroupTokensMax,
  kLocal,    // a: the stage's let (EvalFrame::locals)
  kNeg,  // a: operand
  kNot,
  kOr,  // a, b: operands (|| and && evaluate b only when needed)
  kAnd,
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,
  kNe,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kElapsed,  // a - b of two instants (now, arrival, since, queued), on the clock
  kMath,        // fn; a: first argument in args, b: count
  kRandom,      // fn; a, b as for kMath
  kStageState,  // fn (queue, busy, work, price, running, waiting); a: element ref
  kPoolState,   // fn (used, free, cap, held); a: element ref
  kTable,       // a, b: arguments as for kMath; c: the table (ExprTable::tables)
  kSumJobs,     // fn (sum_prefill, sum_decode, sum_jobs); a: the expression summed
};

struct Node {
  Op op = Op::kNumber;
  Function fn = Function::kMin;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
  double number = 0;
  uint32_t line = 0;  // source location, 0 when the IR has none
  uint32_t column = 0;
};

// A reference to an element of a pool or stage declaration: `base` is the
// first element's global id; with an index, element base + floor(index).
struct ElementRef {
  uint32_t base = 0;
  uint32_t size = 1;
  int32_t index = -1;  // a node, or -1: the scalar (or element 0 of a size-1 array)
  bool pool = false;
  std::string name;  // the declaration's, for messages
  uint32_t line = 0;
  uint32_t column = 0;

  // The element index value `i` names; false when it names none (out of
  // range, or NaN). floor(i) is in [0, size) exactly when i is (size is
  // whole), and then the conversion's truncation is floor: no call to it.
  bool At(double i, uint32_t* element) const {
    if (!(i >= 0 && i < size)) return false;
    *element = base + static_cast<uint32_t>(i);
    return true;
  }
};

// A profile table that lookups read (docs/language.md §3.7).
struct TableRef {
  std::shared_ptr<const tables::Grid> grid;
  tables::Outside below = tables::Outside::kClamp;
  tables::Outside above = tables::Outside::kExtrapolate;
  std::string name;
  std::vector<std::string> keys;  // for messages
};

struct ExprTable {
  std::vector<Node> nodes;
  std::vector<uint32_t> args;
  std::vector<ElementRef> refs;
  std::vector<TableRef> tables;
};

// The figures of no step: what a frame outside a step's tau points at.
inline constexpr StepVars kNoStep{};

// Where an expression is evaluated: what its names mean.
struct EvalFrame {
  const double* variables = nullptr;  // the session's slots (NaN: never set)
  const int32_t* key_slots = nullptr; // name id -> slot in `variables`, or -1
  const std::vector<std::string>* variable_names = nullptr;  // slot -> name
  double now = 0;
  double arrival = 0;
  double serial = 0;
  double present = 0;
  double since = 0;
  double queued = 0;  // IR 11: `queued`, in a session
  double index = 0;   // IR 11: `index`, in a session
  // In a step stage's tau, the step's figures (the stage's, not a copy:
  // a frame is made for every statement, and StepVars is 30 numbers).
  const StepVars* step = &kNoStep;
  // The values of the stage's lets, in a phi or a tau that has them.
  const double* locals = nullptr;
};

// The state functions read the deployment; the engine answers them.
class StateView {
 public:
  virtual ~StateView() = default;
  virtual double StageState(Function f, uint32_t station) = 0;
  virtual double PoolState(Function f, uint32_t pool) = 0;
};

struct EvalError {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
};

class Evaluator {
 public:
  Evaluator(const ExprTable* table, const std::vector<std::string>* key_names, Random* random,
            StateView* state)
      : table_(table), key_names_(key_names), random_(random), state_(state) {}

  // Evaluates the expression rooted at `node`. An expression without
  // short-circuits or key variables (numbers, variables, arithmetic,
  // comparisons, math functions, draws, state functions of a stage or pool
  // element) runs as a flat postfix program compiled on its first
  // evaluation, with the same operations and draws in the same order as
  // the tree's (the same bits, the same random stream); one that would
  // fail goes the tree's way from where it started, so the tree says how.
  double Eval(uint32_t node, const EvalFrame& frame) {
    if (node < compiled_.size()) {
      int32_t program = compiled_[node];
      if (program >= 0) {
        const Program& p = *programs_[program];
        if (p.single) {
          double v;
          if (EvalSingle(p.code[0], frame, &v)) return v;
          return EvalTree(node, frame);  // it would fail: the tree says how
        }
        if (p.draws) return EvalDrawing(p, node, frame);
        double v;
        if (Run(p, frame, &v)) return v;
        return EvalTree(node, frame);  // it would fail: the tree says how
      }
      if (program == kNotCompiled) return EvalTree(node, frame);
    }
    return CompileAndEval(node, frame);
  }
  // The element `ref` names, evaluating its index; false on an error.
  bool Element(uint32_t ref, const EvalFrame& frame, uint32_t* element);

  bool failed() const { return failed_; }
  const EvalError& error() const { return error_; }
  // Records an error found outside an expression (the caller's message).
  void Fail(uint32_t line, uint32_t column, std::string message);
  void set_random(Random* random) { random_ = random; }
  // What the state functions read: the engine, or a choose's copy of it.
  void set_state(StateView* state) { state_ = state; }
  StateView* state() const { return state_; }

 private:
  double Fail(const Node& node, std::string message);
  double EvalTree(uint32_t node, const EvalFrame& frame);
  bool ElementByEval(const ElementRef& r, const EvalFrame& frame, uint32_t* element);

  // A compiled expression: postfix instructions over a stack of at most
  // kMaxStack values.
  static constexpr int32_t kNotCompiled = -1;  // cannot be: the tree
  static constexpr int32_t kUnknown = -2;      // not tried yet
  static constexpr int kMaxStack = 16;
  // A binary operation's operands: both on the stack, or one of them the
  // constant `number` (a number, or a constant subexpression folded when
  // compiled: the same operations on the same values, the same bits).
  enum class Operands : uint8_t { kStack, kConstLeft, kConstRight };
  // What Run does with an instruction, decided once when it is compiled:
  // the operation and, for a binary one, where its operands are (S: both
  // on the stack, L: the constant on the left, R: on the right), so that
  // each instruction is one jump. Additions, subtractions, products and
  // quotients have their own, as have min and max of two (a step's tau is
  // often a max of two rooflines); the other binary operations go through
  // Binary, the other functions through ApplyMath.
  enum class Code : uint8_t {
    kNumber, kVariable, kNow, kArrival, kSerial, kPresent, kSince, kQueued, kIndex,
    kTokens, kPrefill, kDecode, kSeqs, kContext, kAttention, kNeg,
    kAddS, kAddL, kAddR, kSubS, kSubL, kSubR, kMulS, kMulL, kMulR,
    kDivS, kDivL, kDivR, kBinaryS, kBinaryL, kBinaryR, kMin2, kMax2, kMath, kDraw, kState,
    kMulField, kAddField,  // a leaf of the frame times (plus) a constant: Finish fuses them
    kMulStep, kAddStep,    // the same of a step figure
    kField,  // a: a step figure's offset in StepVars (IR 10's figures)
    kLocal,  // a: the let
    kTable,  // a: argument count; number: the table
    kElapsed,  // kElapsed of two operands on the stack
    // A draw whose parameters are constants that CheckDraw accepts (a:
    // their count, number and number2 their values), checked once when
    // compiled: the draw itself, the same values from the same stream.
    kExponential, kDrawConst,
    // The difference of two leaves of the frame on the clock (a: the
    // first's offset in EvalFrame, b: the second's): `now - arrival`.
    kElapsedFields,
    kDone,  // the program's end, which Finish appends
  };
  struct Instr {
    Op op;
    Function fn;
    Operands operands = Operands::kStack;
    Code code = Code::kNumber;  // set by Finish
    uint32_t a = 0;  // kVariable: slot; kMath, kRandom: argument count; state: ref;
                     // kMulField, kAddField: the leaf's offset in EvalFrame;
                     // kMulStep, kAddStep, kField: the figure's in StepVars
    double number = 0;
    double number2 = 0;  // kDrawConst: the second parameter
    uint32_t b = 0;      // kElapsedFields: the second leaf's offset
  };
  struct Program {
    std::vector<Instr> code;
    bool draws = false;  // a draw: a failure restarts the tree from the same stream
    // One instruction that EvalSingle evaluates without Run's machine: a
    // number, a leaf of the frame, a draw of constant parameters (which
    // cannot fail: its value is the tree's, NaN included, as the tree takes
    // a draw's value as it comes, so the random stream is not kept in
    // reserve for it), or kElapsedFields.
    bool single = false;
  };
  // Sets every instruction's code from its operation and operands (and
  // `draws`), fuses a leaf of the frame with the product or sum by a
  // constant after it, and appends the end.
  static void Finish(Program* program);
  // Where the leaf `op` is in an EvalFrame (a double), or -1.
  // Where a leaf is: its offset in EvalFrame (now .. since), or in
  // StepVars (the step's figures); -1 when it is not there.
  static int32_t FrameOffset(Op op);
  static int32_t StepOffset(Op op);
  // Runs a program that draws; on a failure, puts the random stream back
  // where it was and evaluates the tree (which draws the same values).
  double EvalDrawing(const Program& program, uint32_t node, const EvalFrame& frame);
  double CompileAndEval(uint32_t node, const EvalFrame& frame);
  // Appends `node`'s postfix code; false when an operation cannot be
  // compiled (a short-circuit, a key variable) or the stack would be
  // deeper than kMaxStack.
  bool Compile(uint32_t node, int depth, int* max_depth, std::vector<Instr>* out) const;
  // Folds the binary operation just emitted after its operands' code in
  // `out` (the left's from `left`, the right's from `right`): a constant
  // operand moves into the instruction; two constants become one when the
  // result is valid (an invalid one fails at run time, as in the tree).
  static void Fold(size_t left, size_t right, std::vector<Instr>* out);
  // A single program's instruction (Program::single); false when it
  // would fail, which only kElapsedFields can (a NaN: the tree reports it).
  bool EvalSingle(const Instr& in, const EvalFrame& frame, double* value) {
    const char* const fields = reinterpret_cast<const char*>(&frame);
    switch (in.code) {
      case Code::kExponential: *value = random_->Exponential(in.number); return true;
      case Code::kElapsedFields:
        *value = OnClock(*reinterpret_cast<const double*>(fields + in.a) -
                         *reinterpret_cast<const double*>(fields + in.b));
        return !std::isnan(*value);
      case Code::kNumber: *value = in.number; return true;
      case Code::kDrawConst: *value = DrawConst(in); return true;
      default:  // a leaf of the frame: in.a is its offset
        *value = *reinterpret_cast<const double*>(fields + in.a);
        return true;
    }
  }
  double DrawConst(const Instr& in);
  // False when an operation would fail (the tree then reports it).
  bool Run(const Program& program, const EvalFrame& frame, double* value);
  // A lookup of table `table` at `args`; false (*error its message) when
  // the table's rule refuses them.
  bool Lookup(uint32_t table, absl::Span<const double> args, double* value,
              std::string* error) const;

  std::vector<int32_t> compiled_;  // by root node: a program's index, or kNotCompiled
  // Each program on its own, so that one runs while others compile (its
  // address stays), found in two loads (a deque's index takes a division).
  std::vector<std::unique_ptr<Program>> programs_;

  const ExprTable* table_;
  const std::vector<std::string>* key_names_;
  Random* random_;
  StateView* state_;
  bool failed_ = false;
  EvalError error_;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_MODEL_EXPR_H_
