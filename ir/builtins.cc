#include "ir/builtins.h"

#include <algorithm>
#include <cmath>

#include "net/collective.h"

namespace serq {
namespace {

constexpr FunctionInfo kFunctions[] = {
    {"min", Function::kMin, FunctionClass::kMath, 1, -1},
    {"max", Function::kMax, FunctionClass::kMath, 1, -1},
    {"floor", Function::kFloor, FunctionClass::kMath, 1, 1},
    {"ceil", Function::kCeil, FunctionClass::kMath, 1, 1},
    {"round", Function::kRound, FunctionClass::kMath, 1, 1},
    {"abs", Function::kAbs, FunctionClass::kMath, 1, 1},
    {"sqrt", Function::kSqrt, FunctionClass::kMath, 1, 1},
    {"ln", Function::kLn, FunctionClass::kMath, 1, 1},
    {"pow", Function::kPow, FunctionClass::kMath, 2, 2},
    // x and at least two points (language.md §6)
    {"interp", Function::kInterp, FunctionClass::kMath, 5, -1, false, true},
    // (gpus, bytes, bandwidth, latency): seconds (IR 11, net/collective.h)
    {"all_reduce", Function::kAllReduce, FunctionClass::kMath, 4, 4},
    {"all_gather", Function::kAllGather, FunctionClass::kMath, 4, 4},
    {"reduce_scatter", Function::kReduceScatter, FunctionClass::kMath, 4, 4},
    {"all_to_all", Function::kAllToAll, FunctionClass::kMath, 4, 4},
    {"exponential", Function::kExponential, FunctionClass::kRandom, 1, 1},
    {"uniform", Function::kUniform, FunctionClass::kRandom, 2, 2},
    {"normal", Function::kNormal, FunctionClass::kRandom, 2, 2},
    {"lognormal", Function::kLognormal, FunctionClass::kRandom, 2, 2},
    {"gamma", Function::kGamma, FunctionClass::kRandom, 2, 2},
    {"erlang", Function::kErlang, FunctionClass::kRandom, 2, 2},
    {"geometric", Function::kGeometric, FunctionClass::kRandom, 1, 1},
    {"bernoulli", Function::kBernoulli, FunctionClass::kRandom, 1, 1},
    {"sharegpt_input", Function::kShareGptInput, FunctionClass::kRandom, 0, 0},
    {"sharegpt_output", Function::kShareGptOutput, FunctionClass::kRandom, 0, 0},
    {"queue", Function::kQueue, FunctionClass::kStage, 1, 1},
    {"busy", Function::kBusy, FunctionClass::kStage, 1, 1},
    {"work", Function::kWork, FunctionClass::kStage, 1, 1},
    {"price", Function::kPrice, FunctionClass::kStage, 1, 1},
    {"running", Function::kRunning, FunctionClass::kStage, 1, 1},
    {"waiting", Function::kWaiting, FunctionClass::kStage, 1, 1},
    {"used", Function::kUsed, FunctionClass::kPool, 1, 1},
    {"free", Function::kFree, FunctionClass::kPool, 1, 1},
    {"cap", Function::kCap, FunctionClass::kPool, 1, 1},
    {"held", Function::kHeld, FunctionClass::kPool, 1, 1},
    {"len", Function::kLen, FunctionClass::kArray, 1, 1},
    {"cached", Function::kCached, FunctionClass::kPool, 1, 1, true},
    {"hit", Function::kHit, FunctionClass::kPool, 1, 1, true},
    // The sum over a step's jobs of an expression of each job's figures (IR 10).
    {"sum_prefill", Function::kSumPrefill, FunctionClass::kJobs, 1, 1},
    {"sum_decode", Function::kSumDecode, FunctionClass::kJobs, 1, 1},
    {"sum_jobs", Function::kSumJobs, FunctionClass::kJobs, 1, 1},
};

constexpr BuiltinVariableInfo kVariables[] = {
    {"now", ir::Ref::NOW, "a session"},
    {"arrival", ir::Ref::ARRIVAL, "a session"},
    {"serial", ir::Ref::SERIAL, "a session"},
    {"queued", ir::Ref::QUEUED, "a session"},
    {"index", ir::Ref::INDEX, "a session"},
    {"present", ir::Ref::PRESENT, "the phi of a ps stage"},
    {"since", ir::Ref::SINCE, "a pool's evict by or a stage's preempt by"},
    {"tokens", ir::Ref::TOKENS, "the tau of a step stage"},
    {"prefill", ir::Ref::PREFILL, "the tau of a step stage"},
    {"decode", ir::Ref::DECODE, "the tau of a step stage"},
    {"seqs", ir::Ref::SEQS, "the tau of a step stage"},
    {"context", ir::Ref::CONTEXT, "the tau of a step stage"},
    {"attention", ir::Ref::ATTENTION, "the tau of a step stage"},
    {"prefill_jobs", ir::Ref::PREFILL_JOBS, "the tau of a step stage"},
    {"prefill_kv", ir::Ref::PREFILL_KV, "the tau of a step stage"},
    {"prefill_kv_max", ir::Ref::PREFILL_KV_MAX, "the tau of a step stage"},
    {"prefill_kv_min", ir::Ref::PREFILL_KV_MIN, "the tau of a step stage"},
    {"prefill_context", ir::Ref::PREFILL_CONTEXT, "the tau of a step stage"},
    {"prefill_context_max", ir::Ref::PREFILL_CONTEXT_MAX, "the tau of a step stage"},
    {"prefill_context_min", ir::Ref::PREFILL_CONTEXT_MIN, "the tau of a step stage"},
    {"decode_kv", ir::Ref::DECODE_KV, "the tau of a step stage"},
    {"decode_kv_max", ir::Ref::DECODE_KV_MAX, "the tau of a step stage"},
    {"decode_kv_min", ir::Ref::DECODE_KV_MIN, "the tau of a step stage"},
    {"decode_context", ir::Ref::DECODE_CONTEXT, "the tau of a step stage"},
    {"decode_context_max", ir::Ref::DECODE_CONTEXT_MAX, "the tau of a step stage"},
    {"decode_context_min", ir::Ref::DECODE_CONTEXT_MIN, "the tau of a step stage"},
    {"group_tokens", ir::Ref::GROUP_TOKENS, "the tau of a step stage"},
    {"group_tokens_max", ir::Ref::GROUP_TOKENS_MAX, "the tau of a step stage"},
};

// Piecewise linear through the points (x1, y1, ..., xn, yn), n >= 2 and
// the xs increasing; beyond either end, the end segment's line goes on.
double Interp(double x, absl::Span<const double> p) {
  // The linker refuses anything else; NaN (reported by callers) rather than
  // a read out of bounds if unchecked IR ever gets here.
  if (p.size() < 4 || p.size() % 2 != 0) return std::nan("");
  size_t n = p.size() / 2;
  size_t i = 0;  // the segment (point i to point i + 1)
  while (i + 2 < n && x >= p[2 * (i + 1)]) ++i;
  double x0 = p[2 * i], y0 = p[2 * i + 1], x1 = p[2 * i + 2], y1 = p[2 * i + 3];
  return y0 + (x - x0) * (y1 - y0) / (x1 - x0);
}

}  // namespace

const FunctionInfo* LookupFunction(absl::string_view name) {
  for (const FunctionInfo& f : kFunctions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FunctionInfo& GetFunction(Function fn) {
  for (const FunctionInfo& f : kFunctions) {
    if (f.function == fn) return f;
  }
  return kFunctions[0];  // unreachable: every Function is in the table
}

double ApplyMath(Function f, absl::Span<const double> a) {
  switch (f) {
    case Function::kMin: return *std::min_element(a.begin(), a.end());
    case Function::kMax: return *std::max_element(a.begin(), a.end());
    case Function::kFloor: return std::floor(a[0]);
    case Function::kCeil: return std::ceil(a[0]);
    case Function::kRound: return std::round(a[0]);  // halves away from zero
    case Function::kAbs: return std::fabs(a[0]);
    case Function::kSqrt: return std::sqrt(a[0]);
    case Function::kLn: return std::log(a[0]);
    case Function::kPow: return std::pow(a[0], a[1]);
    case Function::kInterp: return Interp(a[0], a.subspan(1));
    case Function::kAllReduce:
      return net::Seconds(net::Collective::kAllReduce, a[0], a[1], a[2], a[3]);
    case Function::kAllGather:
      return net::Seconds(net::Collective::kAllGather, a[0], a[1], a[2], a[3]);
    case Function::kReduceScatter:
      return net::Seconds(net::Collective::kReduceScatter, a[0], a[1], a[2], a[3]);
    case Function::kAllToAll:
      return net::Seconds(net::Collective::kAllToAll, a[0], a[1], a[2], a[3]);
    default: return std::nan("");
  }
}

const BuiltinVariableInfo* LookupBuiltinVariable(absl::string_view name) {
  for (const BuiltinVariableInfo& v : kVariables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const BuiltinVariableInfo& GetBuiltinVariable(ir::Ref::Builtin b) {
  for (const BuiltinVariableInfo& v : kVariables) {
    if (v.builtin == b) return v;
  }
  return kVariables[0];  // unreachable for a known Builtin
}

}  // namespace serq
