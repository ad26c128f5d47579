#include "serq-sim/model/expr.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "serq-sim/events/clock.h"
#include "serq-sim/model/expr_binary.h"

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
      if (expr_internal::Binary(n.op, a, b, &v)) return v;
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
  if (std::isunordered(a, b) || !expr_internal::Binary(in->op, a, b, &v)) return false;
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
