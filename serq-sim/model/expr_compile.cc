// The expressions' compiler: a tree to a postfix program (Compile), its
// constants folded (Fold), and each instruction given the code the
// evaluator's loop dispatches on (Finish). Evaluator::Run (expr.cc) runs
// the programs.
#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/types/span.h"
#include "serq-sim/model/expr.h"
#include "serq-sim/model/expr_binary.h"

namespace serq::sim {

using expr_internal::Binary;

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

}  // namespace serq::sim
