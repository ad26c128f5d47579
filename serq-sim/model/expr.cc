#include "serq-sim/model/expr.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "serq-sim/events/clock.h"

namespace serq::sim {
namespace {

absl::string_view OpText(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    case Op::kElapsed: return "-";
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
  // An index that is a variable set (P[i]: most are) is read here, the
  // value Eval would give; any other, and a variable not set, by Eval.
  const Node& n = table_->nodes[r.index];
  if (n.op == Op::kVariable && r.At(frame.variables[n.a], element)) return true;
  return ElementByEval(r, frame, element);
}

// Element's way for any other index, a variable not set (NaN) and one out
// of range: the index evaluated (a variable's value, for one that is set)
// and checked. Out of Element's way, whose frame it would widen.
ABSL_ATTRIBUTE_NOINLINE bool Evaluator::ElementByEval(const ElementRef& r, const EvalFrame& frame,
                                                     uint32_t* element) {
  const Node& n = table_->nodes[r.index];
  double i;
  if (n.op == Op::kVariable && !std::isnan(frame.variables[n.a])) {
    i = frame.variables[n.a];
  } else {
    i = Eval(r.index, frame);
    if (failed_) return false;
  }
  if (!r.At(i, element)) {
    Fail(r.line, r.column,
         absl::StrCat("index ", i, " is out of range for '", r.name, "' (size ", r.size, ")"));
    return false;
  }
  return true;
}

namespace {

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

}  // namespace

double Evaluator::EvalTree(uint32_t id, const EvalFrame& frame) {
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
    case Op::kQueued: return frame.queued;
    case Op::kSerial: return frame.serial;
    case Op::kIndex: return frame.index;
    case Op::kPresent: return frame.present;
    case Op::kSince: return frame.since;
    case Op::kTokens: return frame.step->tokens;
    case Op::kPrefill: return frame.step->prefill;
    case Op::kDecode: return frame.step->decode;
    case Op::kSeqs: return frame.step->seqs;
    case Op::kContext: return frame.step->context;
    case Op::kAttention: return frame.step->attention;
    case Op::kPrefillJobs: case Op::kPrefillKv: case Op::kPrefillKvMax:
    case Op::kPrefillContext: case Op::kPrefillContextMax: case Op::kDecodeKv:
    case Op::kDecodeKvMax: case Op::kDecodeContext: case Op::kDecodeContextMax:
    case Op::kPrefillKvMin: case Op::kPrefillContextMin: case Op::kDecodeKvMin:
    case Op::kDecodeContextMin: case Op::kGroupTokens: case Op::kGroupTokensMax:
      return *reinterpret_cast<const double*>(reinterpret_cast<const char*>(frame.step) +
                                              StepOffset(n.op));
    case Op::kLocal: return frame.locals[n.a];
    case Op::kSumJobs: {
      // The expression for each job of the kind summed, as if the job were
      // the step's only one; the sum in batch order.
      const bool decodes = n.fn != Function::kSumPrefill;
      const bool prefills = n.fn != Function::kSumDecode;
      double sum = 0;
      EvalFrame one = frame;
      for (uint32_t i = 0; i < frame.step->job_count; ++i) {
        const StepJob& job = frame.step->jobs[i];
        if (job.decode ? !decodes : !prefills) continue;
        const StepVars alone = StepVars::Of(job);
        one.step = &alone;
        double v = Eval(n.a, one);
        if (failed_) return v;
        sum += v;
      }
      return sum;
    }
    case Op::kTable: {
      double fixed[8];
      for (uint32_t i = 0; i < n.b && i < 8; ++i) {
        fixed[i] = EvalTree(table_->args[n.a + i], frame);
        if (failed_) return fixed[i];
        if (std::isnan(fixed[i])) return Fail(n, "a table's key is NaN");
      }
      double v;
      std::string error;
      if (!Lookup(n.c, absl::Span<const double>(fixed, std::min<uint32_t>(n.b, 8)), &v, &error)) {
        return Fail(n, error);
      }
      return v;
    }
    case Op::kNeg: {
      double v = EvalTree(n.a, frame);
      return -v;
    }
    case Op::kNot: {
      double v = EvalTree(n.a, frame);
      if (failed_) return v;
      return v == 0 ? 1 : 0;
    }
    case Op::kOr: {
      // Short-circuit, as in C: `x == 0 || y / x > 1` is safe.
      double a = EvalTree(n.a, frame);
      if (failed_) return a;
      if (a != 0) return 1;
      double b = EvalTree(n.b, frame);
      return failed_ ? b : (b != 0 ? 1 : 0);
    }
    case Op::kAnd: {
      double a = EvalTree(n.a, frame);
      if (failed_) return a;
      if (a == 0) return 0;
      double b = EvalTree(n.b, frame);
      return failed_ ? b : (b != 0 ? 1 : 0);
    }
    case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe: case Op::kEq: case Op::kNe:
    case Op::kAdd: case Op::kSub: case Op::kMul: case Op::kDiv: case Op::kMod: case Op::kElapsed: {
      double a = EvalTree(n.a, frame);
      if (failed_) return a;
      double b = EvalTree(n.b, frame);
      if (failed_) return b;
      double v;
      if (Binary(n.op, a, b, &v)) return v;
      if (b == 0 && n.op == Op::kDiv) {
        return Fail(n, absl::StrCat("division by zero (", a, " / 0)"));
      }
      if (b == 0 && n.op == Op::kMod) return Fail(n, absl::StrCat("'%' by zero (", a, " % 0)"));
      return Fail(n, absl::StrCat(a, " ", OpText(n.op), " ", b, " is NaN"));
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
        values[i] = EvalTree(table_->args[n.a + i], frame);
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

bool Evaluator::Lookup(uint32_t table, absl::Span<const double> args, double* value,
                       std::string* error) const {
  const TableRef& t = table_->tables[table];
  int axis = -1;
  if (t.grid->Lookup(args, t.below, t.above, value, &axis)) return true;
  const bool low = args[axis] < t.grid->Least(axis);
  *error = absl::StrCat("table '", t.name, "': ", t.keys[axis], " ", args[axis], " is ",
                        low ? "below" : "above", " its grid (", t.grid->Least(axis), " to ",
                        t.grid->Greatest(axis), ") and the table's '", low ? "below" : "above",
                        "' is error");
  return false;
}

double Evaluator::CompileAndEval(uint32_t node, const EvalFrame& frame) {
  if (compiled_.size() < table_->nodes.size()) compiled_.resize(table_->nodes.size(), kUnknown);
  Program program;
  int max_depth = 0;
  if (Compile(node, 0, &max_depth, &program.code)) {
    Finish(&program);
    compiled_[node] = static_cast<int32_t>(programs_.size());
    programs_.push_back(std::make_unique<Program>(std::move(program)));
  } else {
    compiled_[node] = kNotCompiled;
  }
  return Eval(node, frame);
}

double Evaluator::EvalDrawing(const Program& program, uint32_t node, const EvalFrame& frame) {
  Random before = *random_;
  double v;
  if (Run(program, frame, &v)) return v;
  *random_ = before;
  return EvalTree(node, frame);
}

bool Evaluator::Compile(uint32_t id, int depth, int* max_depth, std::vector<Instr>* out) const {
  // `depth` values are on the stack below this node's.
  if (depth + 1 > kMaxStack) return false;
  if (depth + 1 > *max_depth) *max_depth = depth + 1;
  const Node& n = table_->nodes[id];
  switch (n.op) {
    case Op::kNumber:
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, 0, n.number});
      return true;
    case Op::kVariable:
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, n.a, 0});
      return true;
    case Op::kNow: case Op::kArrival: case Op::kSerial: case Op::kPresent: case Op::kSince:
    case Op::kQueued: case Op::kIndex:
    case Op::kTokens: case Op::kPrefill: case Op::kDecode: case Op::kSeqs: case Op::kContext:
    case Op::kAttention: case Op::kPrefillJobs: case Op::kPrefillKv: case Op::kPrefillKvMax:
    case Op::kPrefillContext: case Op::kPrefillContextMax: case Op::kDecodeKv:
    case Op::kDecodeKvMax: case Op::kDecodeContext: case Op::kDecodeContextMax:
    case Op::kPrefillKvMin: case Op::kPrefillContextMin: case Op::kDecodeKvMin:
    case Op::kDecodeContextMin: case Op::kGroupTokens: case Op::kGroupTokensMax:
      out->push_back(Instr{n.op, n.fn});
      return true;
    case Op::kLocal:
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, n.a, 0});
      return true;
    case Op::kTable: {
      if (n.b > 8) return false;
      for (uint32_t i = 0; i < n.b; ++i) {
        if (!Compile(table_->args[n.a + i], depth + static_cast<int>(i), max_depth, out)) {
          return false;
        }
      }
      // The table's index travels in `number` (exact: far below 2^53).
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, n.b, double(n.c)});
      return true;
    }
    case Op::kNeg:
      if (!Compile(n.a, depth, max_depth, out)) return false;
      if (out->size() >= 1 && out->back().op == Op::kNumber) {
        out->back().number = -out->back().number;  // as the tree: -v
      } else {
        out->push_back(Instr{n.op, n.fn});
      }
      return true;
    case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe: case Op::kEq: case Op::kNe:
    case Op::kAdd: case Op::kSub: case Op::kMul: case Op::kDiv: case Op::kMod: case Op::kElapsed: {
      size_t left = out->size();
      if (!Compile(n.a, depth, max_depth, out)) return false;
      size_t right = out->size();
      if (!Compile(n.b, depth + 1, max_depth, out)) return false;
      out->push_back(Instr{n.op, n.fn});
      Fold(left, right, out);
      return true;
    }
    case Op::kMath:
    case Op::kRandom: {
      if (n.b > 8) return false;
      size_t first = out->size();
      for (uint32_t i = 0; i < n.b; ++i) {
        if (!Compile(table_->args[n.a + i], depth + static_cast<int>(i), max_depth, out)) {
          return false;
        }
      }
      // A draw is never constant. A function of constant arguments only
      // (one instruction each) is its value, when that is not NaN (NaN
      // fails at run time, as in the tree).
      if (n.op == Op::kMath && out->size() - first == n.b) {
        double args[8];
        bool constant = true;
        for (uint32_t i = 0; i < n.b && constant; ++i) {
          constant = (*out)[first + i].op == Op::kNumber;
          args[i] = (*out)[first + i].number;
        }
        if (constant) {
          double v = ApplyMath(n.fn, absl::Span<const double>(args, n.b));
          if (!std::isnan(v)) {
            out->resize(first);
            out->push_back(Instr{Op::kNumber, n.fn, Operands::kStack, Code::kNumber, 0, v});
            return true;
          }
        }
      }
      // A draw of constant parameters that CheckDraw accepts is checked
      // here once: one instruction that draws (Finish: kExponential,
      // kDrawConst), its parameters in it. Invalid ones fail at run time
      // (the tree says how).
      if (n.op == Op::kRandom && n.b <= 2 && out->size() - first == n.b) {
        double args[2] = {0, 0};
        bool constant = true;
        for (uint32_t i = 0; i < n.b && constant; ++i) {
          constant = (*out)[first + i].op == Op::kNumber;
          args[i] = (*out)[first + i].number;
        }
        if (constant && DrawValid(n.fn, absl::Span<const double>(args, n.b))) {
          out->resize(first);
          Instr draw{n.op, n.fn, Operands::kConstLeft, Code::kNumber, n.b, args[0]};
          draw.number2 = args[1];
          out->push_back(draw);
          return true;
        }
      }
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, n.b, 0});
      return true;
    }
    case Op::kStageState:
    case Op::kPoolState: {
      // cached() and hit() read the current session's blocks: the tree.
      if (n.fn == Function::kCached || n.fn == Function::kHit) return false;
      const ElementRef& r = table_->refs[n.a];
      if (r.index >= 0 && !Compile(static_cast<uint32_t>(r.index), depth, max_depth, out)) {
        return false;
      }
      out->push_back(Instr{n.op, n.fn, Operands::kStack, Code::kNumber, n.a, 0});
      return true;
    }
    default:  // key variables, && || ! (short-circuit): the tree
      return false;
  }
}


void Evaluator::Fold(size_t left, size_t right, std::vector<Instr>* out) {
  std::vector<Instr>& p = *out;
  size_t op = p.size() - 1;
  // Each operand is a constant when its code is one kNumber.
  bool left_const = right - left == 1 && p[left].op == Op::kNumber;
  bool right_const = op - right == 1 && p[right].op == Op::kNumber;
  Instr in = p[op];
  if (left_const && right_const) {
    double v;
    if (Binary(in.op, p[left].number, p[op - 1].number, &v)) {
      p.resize(left);
      p.push_back(Instr{Op::kNumber, in.fn, Operands::kStack, Code::kNumber, 0, v});
    }
    return;
  }
  if (right_const) {
    in.operands = Operands::kConstRight;
    in.number = p[right].number;
    p.resize(right);
    p.push_back(in);
  } else if (left_const) {
    in.operands = Operands::kConstLeft;
    in.number = p[left].number;
    p.erase(p.begin() + static_cast<ptrdiff_t>(left));
    p.back() = in;
  }
}

void Evaluator::Finish(Program* program) {
  for (Instr& in : program->code) {
    auto by_operands = [&](Code s, Code l, Code r) {
      switch (in.operands) {
        case Operands::kStack: return s;
        case Operands::kConstLeft: return l;
        default: return r;
      }
    };
    switch (in.op) {
      case Op::kNumber: in.code = Code::kNumber; break;
      case Op::kVariable: in.code = Code::kVariable; break;
      case Op::kNow: in.code = Code::kNow; break;
      case Op::kArrival: in.code = Code::kArrival; break;
      case Op::kQueued: in.code = Code::kQueued; break;
      case Op::kSerial: in.code = Code::kSerial; break;
      case Op::kIndex: in.code = Code::kIndex; break;
      case Op::kPresent: in.code = Code::kPresent; break;
      case Op::kSince: in.code = Code::kSince; break;
      case Op::kTokens: in.code = Code::kTokens; break;
      case Op::kPrefill: in.code = Code::kPrefill; break;
      case Op::kDecode: in.code = Code::kDecode; break;
      case Op::kSeqs: in.code = Code::kSeqs; break;
      case Op::kContext: in.code = Code::kContext; break;
      case Op::kAttention: in.code = Code::kAttention; break;
      case Op::kNeg: in.code = Code::kNeg; break;
      case Op::kAdd: in.code = by_operands(Code::kAddS, Code::kAddL, Code::kAddR); break;
      case Op::kSub: in.code = by_operands(Code::kSubS, Code::kSubL, Code::kSubR); break;
      case Op::kElapsed:
        in.code = in.operands == Operands::kStack
                      ? Code::kElapsed
                      : by_operands(Code::kBinaryS, Code::kBinaryL, Code::kBinaryR);
        break;
      case Op::kMul: in.code = by_operands(Code::kMulS, Code::kMulL, Code::kMulR); break;
      case Op::kDiv:
        // A constant divisor of 0 goes through Binary, which fails on it:
        // kDivR need not check.
        in.code = in.operands == Operands::kConstRight && in.number == 0
                      ? Code::kBinaryR
                      : by_operands(Code::kDivS, Code::kDivL, Code::kDivR);
        break;
      case Op::kMath:
        in.code = in.a == 2 && in.fn == Function::kMin   ? Code::kMin2
                  : in.a == 2 && in.fn == Function::kMax ? Code::kMax2
                                                         : Code::kMath;
        break;
      case Op::kRandom:
        // Operands::kConstLeft: its parameters are constants, checked (Compile).
        in.code = in.operands != Operands::kConstLeft    ? Code::kDraw
                  : in.fn == Function::kExponential ? Code::kExponential
                                                    : Code::kDrawConst;
        program->draws = true;
        break;
      case Op::kStageState: case Op::kPoolState: in.code = Code::kState; break;
      case Op::kPrefillJobs: case Op::kPrefillKv: case Op::kPrefillKvMax:
      case Op::kPrefillContext: case Op::kPrefillContextMax: case Op::kDecodeKv:
      case Op::kDecodeKvMax: case Op::kDecodeContext: case Op::kDecodeContextMax:
      case Op::kPrefillKvMin: case Op::kPrefillContextMin: case Op::kDecodeKvMin:
      case Op::kDecodeContextMin: case Op::kGroupTokens: case Op::kGroupTokensMax:
        in.code = Code::kField;
        in.a = static_cast<uint32_t>(StepOffset(in.op));
        break;
      case Op::kLocal: in.code = Code::kLocal; break;
      case Op::kTable: in.code = Code::kTable; break;
      default:  // the comparisons and %: Compile emits no other
        in.code = by_operands(Code::kBinaryS, Code::kBinaryL, Code::kBinaryR);
        break;
    }
  }
  // A leaf of the frame and the product or sum by a constant that takes
  // it (c * tokens, context * c: a step's tau is made of them) become one
  // instruction. Products and sums are commutative in IEEE arithmetic:
  // c * x and x * c have the same bits.
  // Two leaves of the frame and the difference on the clock that takes
  // them (now - arrival: most observations) become one instruction too.
  std::vector<Instr>& code = program->code;
  size_t kept = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    Instr in = code[i];
    const int32_t in_frame = FrameOffset(in.op);
    if (in_frame >= 0 && i + 2 < code.size() && FrameOffset(code[i + 1].op) >= 0 &&
        code[i + 2].code == Code::kElapsed) {
      in = code[i + 2];
      in.code = Code::kElapsedFields;
      in.a = static_cast<uint32_t>(in_frame);
      in.b = static_cast<uint32_t>(FrameOffset(code[i + 1].op));
      code[kept++] = in;
      i += 2;
      continue;
    }
    const int32_t offset = in_frame >= 0 ? in_frame : StepOffset(in.op);
    if (offset >= 0 && i + 1 < code.size()) {
      Code next = code[i + 1].code;
      bool mul = next == Code::kMulL || next == Code::kMulR;
      bool add = next == Code::kAddL || next == Code::kAddR;
      if (mul || add) {
        in = code[i + 1];
        in.code = in_frame >= 0 ? (mul ? Code::kMulField : Code::kAddField)
                                : (mul ? Code::kMulStep : Code::kAddStep);
        in.a = static_cast<uint32_t>(offset);
        ++i;
      }
    }
    code[kept++] = in;
  }
  code.resize(kept);
  if (code.size() == 1) {
    Instr& only = code[0];
    switch (only.code) {
      case Code::kNumber: program->single = !std::isnan(only.number); break;
      case Code::kNow: case Code::kArrival: case Code::kSerial: case Code::kPresent:
      case Code::kSince: case Code::kQueued: case Code::kIndex:
        only.a = static_cast<uint32_t>(FrameOffset(only.op));
        program->single = true;
        break;
      case Code::kExponential: case Code::kDrawConst: case Code::kElapsedFields:
        program->single = true;
        break;
      default: break;
    }
  }
  Instr done{Op::kNumber, Function::kMin};
  done.code = Code::kDone;
  code.push_back(done);
}

int32_t Evaluator::FrameOffset(Op op) {
  switch (op) {
    case Op::kNow: return offsetof(EvalFrame, now);
    case Op::kArrival: return offsetof(EvalFrame, arrival);
    case Op::kQueued: return offsetof(EvalFrame, queued);
    case Op::kSerial: return offsetof(EvalFrame, serial);
    case Op::kIndex: return offsetof(EvalFrame, index);
    case Op::kPresent: return offsetof(EvalFrame, present);
    case Op::kSince: return offsetof(EvalFrame, since);
    default: return -1;
  }
}

int32_t Evaluator::StepOffset(Op op) {
  switch (op) {
    case Op::kTokens: return offsetof(StepVars, tokens);
    case Op::kPrefill: return offsetof(StepVars, prefill);
    case Op::kDecode: return offsetof(StepVars, decode);
    case Op::kSeqs: return offsetof(StepVars, seqs);
    case Op::kContext: return offsetof(StepVars, context);
    case Op::kAttention: return offsetof(StepVars, attention);
    case Op::kPrefillJobs: return offsetof(StepVars, prefill_jobs);
    case Op::kPrefillKv: return offsetof(StepVars, prefill_kv);
    case Op::kPrefillKvMax: return offsetof(StepVars, prefill_kv_max);
    case Op::kPrefillKvMin: return offsetof(StepVars, prefill_kv_min);
    case Op::kPrefillContext: return offsetof(StepVars, prefill_context);
    case Op::kPrefillContextMax: return offsetof(StepVars, prefill_context_max);
    case Op::kPrefillContextMin: return offsetof(StepVars, prefill_context_min);
    case Op::kDecodeKv: return offsetof(StepVars, decode_kv);
    case Op::kDecodeKvMax: return offsetof(StepVars, decode_kv_max);
    case Op::kDecodeKvMin: return offsetof(StepVars, decode_kv_min);
    case Op::kDecodeContext: return offsetof(StepVars, decode_context);
    case Op::kDecodeContextMax: return offsetof(StepVars, decode_context_max);
    case Op::kDecodeContextMin: return offsetof(StepVars, decode_context_min);
    case Op::kGroupTokens: return offsetof(StepVars, group_tokens);
    case Op::kGroupTokensMax: return offsetof(StepVars, group_tokens_max);
    default: return -1;
  }
}

bool Evaluator::Run(const Program& program, const EvalFrame& frame, double* value) {
  // The top value in a register (`tos`), the values below it in `stack`:
  // of `top` values, the j-th from the bottom (j from 1) is at stack[j]
  // for j < top, and stack[0] takes the first push's empty tos. An
  // operation reads its operands from there and leaves its result in the
  // register: no store and reload between one instruction and the next.
  double stack[kMaxStack + 1];
  double tos = 0;
  int top = 0;  // values on the stack, tos included
  // Threaded code (GCC's and Clang's labels as values): each instruction
  // ends by jumping to the next one's code, one indirect jump an
  // instruction that the processor predicts from where it is, not one
  // shared by all. The labels are in Code's order.
  static const void* const kCode[] = {
      &&number, &&variable, &&now, &&arrival, &&serial, &&present, &&since, &&queued, &&index,
      &&tokens, &&prefill, &&decode, &&seqs, &&context, &&attention, &&neg,
      &&add_s, &&add_l, &&add_r, &&sub_s, &&sub_l, &&sub_r, &&mul_s, &&mul_l, &&mul_r,
      &&div_s, &&div_l, &&div_r, &&binary, &&binary, &&binary, &&min2, &&max2, &&math, &&draw,
      &&state, &&mul_field, &&add_field, &&mul_step, &&add_step, &&field, &&local, &&table,
      &&elapsed, &&exponential, &&draw_const, &&elapsed_fields, &&done,
  };
  static_assert(sizeof(kCode) / sizeof(kCode[0]) == static_cast<size_t>(Code::kDone) + 1);
  const char* const fields = reinterpret_cast<const char*>(&frame);
  const char* const figures = reinterpret_cast<const char*>(frame.step);
  const Instr* in = program.code.data();
  // A binary operation's result replaces its left operand. A NaN makes the
  // program give up (the tree reports it at the node that made it), but
  // arithmetic does not check for one: NaN in, NaN out, so one made there
  // reaches the end or an operation that could lose it (a comparison, min
  // or max, a function, a draw, an index), and those check their operands.
#define SERQ_NEXT()                                 \
  do {                                              \
    ++in;                                           \
    goto* kCode[static_cast<uint8_t>(in->code)];    \
  } while (0)
#define SERQ_RESULT(expr)                \
  do {                                   \
    tos = (expr);                        \
    SERQ_NEXT();                         \
  } while (0)
#define SERQ_PUSH(expr)                  \
  do {                                   \
    stack[top++] = tos;                  \
    tos = (expr);                        \
    SERQ_NEXT();                         \
  } while (0)
  goto* kCode[static_cast<uint8_t>(in->code)];
number:
  SERQ_PUSH(in->number);
variable:  // NaN when not set: it goes on as a NaN made here would
  SERQ_PUSH(frame.variables[in->a]);
now:
  SERQ_PUSH(frame.now);
arrival:
  SERQ_PUSH(frame.arrival);
serial:
  SERQ_PUSH(frame.serial);
present:
  SERQ_PUSH(frame.present);
since:
  SERQ_PUSH(frame.since);
queued:
  SERQ_PUSH(frame.queued);
index:
  SERQ_PUSH(frame.index);
tokens:
  SERQ_PUSH(frame.step->tokens);
prefill:
  SERQ_PUSH(frame.step->prefill);
decode:
  SERQ_PUSH(frame.step->decode);
seqs:
  SERQ_PUSH(frame.step->seqs);
context:
  SERQ_PUSH(frame.step->context);
attention:
  SERQ_PUSH(frame.step->attention);
neg:
  SERQ_RESULT(-tos);
add_s:
  SERQ_RESULT(stack[--top] + tos);
add_l:
  SERQ_RESULT(in->number + tos);
add_r:
  SERQ_RESULT(tos + in->number);
sub_s:
  SERQ_RESULT(stack[--top] - tos);
sub_l:
  SERQ_RESULT(in->number - tos);
sub_r:
  SERQ_RESULT(tos - in->number);
mul_s:
  SERQ_RESULT(stack[--top] * tos);
mul_l:
  SERQ_RESULT(in->number * tos);
mul_r:
  SERQ_RESULT(tos * in->number);
// A division by 0 gives up (the tree reports it), as Binary does.
div_s:
  if (tos == 0) return false;
  SERQ_RESULT(stack[--top] / tos);
div_l:
  if (tos == 0) return false;
  SERQ_RESULT(in->number / tos);
div_r:  // never by 0 (Finish)
  SERQ_RESULT(tos / in->number);
// ApplyMath's std::min_element and std::max_element of two: the first
// unless the second is smaller (larger).
min2: {
  const double a = stack[--top];
  if (std::isunordered(a, tos)) return false;
  SERQ_RESULT(tos < a ? tos : a);
}
max2: {
  const double a = stack[--top];
  if (std::isunordered(a, tos)) return false;
  SERQ_RESULT(a < tos ? tos : a);
}
binary: {
  double a, b;
  if (in->code == Code::kBinaryS) {
    a = stack[--top];
    b = tos;
  } else if (in->code == Code::kBinaryL) {
    a = in->number;
    b = tos;
  } else {
    a = tos;
    b = in->number;
  }
  double v;
  if (std::isunordered(a, b) || !Binary(in->op, a, b, &v)) return false;
  SERQ_RESULT(v);
}
// A function's or a draw's arguments are the last in->a values, tos the
// last: spilled to stack[top], they are stack[top - in->a + 1 .. top], and
// the result is value top - in->a + 1.
math: {
  stack[top] = tos;
  top -= static_cast<int>(in->a) - 1;
  absl::Span<const double> args(stack + top, in->a);
  for (double arg : args) {
    if (std::isnan(arg)) return false;
  }
  double v = ApplyMath(in->fn, args);
  if (std::isnan(v)) return false;
  SERQ_RESULT(v);
}
field:
  SERQ_PUSH(*reinterpret_cast<const double*>(figures + in->a));
local:
  SERQ_PUSH(frame.locals[in->a]);
table: {
  stack[top] = tos;
  top -= static_cast<int>(in->a) - 1;
  absl::Span<const double> args(stack + top, in->a);
  for (double arg : args) {
    if (std::isnan(arg)) return false;
  }
  double v;
  // The message lives in the lambda's scope: an indirect goto may not
  // leave a scope with a destructor to run (clang refuses it).
  const bool found = [&] {
    std::string error;
    return Lookup(static_cast<uint32_t>(in->number), args, &v, &error);
  }();
  if (!found) return false;
  SERQ_RESULT(v);
}
elapsed:
  SERQ_RESULT(OnClock(stack[--top] - tos));
mul_field:
  SERQ_PUSH(in->number * *reinterpret_cast<const double*>(fields + in->a));
add_field:
  SERQ_PUSH(in->number + *reinterpret_cast<const double*>(fields + in->a));
mul_step:
  SERQ_PUSH(in->number * *reinterpret_cast<const double*>(figures + in->a));
add_step:
  SERQ_PUSH(in->number + *reinterpret_cast<const double*>(figures + in->a));
// Parameters the tree would reject give up before drawing (EvalDrawing
// then gives the stream back to the tree, which reports them).
draw: {
  stack[top] = tos;
  top -= static_cast<int>(in->a) - 1;
  absl::Span<const double> args(stack + top, in->a);
  for (double arg : args) {
    if (std::isnan(arg)) return false;
  }
  if (!DrawValid(in->fn, args)) return false;
  SERQ_RESULT(Draw(in->fn, args, *random_));
}
exponential:
  SERQ_PUSH(random_->Exponential(in->number));
draw_const:
  SERQ_PUSH(DrawConst(*in));
elapsed_fields:
  SERQ_PUSH(OnClock(*reinterpret_cast<const double*>(fields + in->a) -
                    *reinterpret_cast<const double*>(fields + in->b)));
state: {
  const ElementRef& r = table_->refs[in->a];
  uint32_t element = r.base;
  const bool indexed = r.index >= 0;
  if (indexed && !r.At(tos, &element)) return false;
  const double v = in->op == Op::kStageState ? state_->StageState(in->fn, element)
                                            : state_->PoolState(in->fn, element);
  if (indexed) SERQ_RESULT(v);  // in the index's place
  SERQ_PUSH(v);
}
done:
#undef SERQ_PUSH
#undef SERQ_RESULT
#undef SERQ_NEXT
  if (std::isnan(tos)) return false;
  *value = tos;
  return true;
}

double Evaluator::DrawConst(const Instr& in) {
  const double args[2] = {in.number, in.number2};
  return Draw(in.fn, absl::Span<const double>(args, in.a), *random_);
}

}  // namespace serq::sim
