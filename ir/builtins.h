// The language's built-in functions and variables, in one table that the
// linker (arity, argument kinds, where a name is defined) and the simulator
// (what to compute) both read.
#ifndef SERQ_IR_BUILTINS_H_
#define SERQ_IR_BUILTINS_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/ir.pb.h"

namespace serq {

enum class Function {
  // math
  kMin, kMax, kFloor, kCeil, kRound, kAbs, kSqrt, kLn, kPow,
  kInterp,  // piecewise linear through constant points (IR 9)
  // a collective among GPUs: (gpus, bytes, bandwidth, latency) -> seconds
  // (IR 11, net/collective.h)
  kAllReduce, kAllGather, kReduceScatter, kAllToAll,
  // random draws
  kExponential, kUniform, kNormal, kLognormal, kGamma, kErlang, kGeometric, kBernoulli,
  // named lengths (IR 11): ShareGPT's prompt and output tokens as the
  // measured vLLM runs of examples/vllm/runs sampled them
  kShareGptInput, kShareGptOutput,
  // state of the deployment
  kQueue, kBusy, kWork, kPrice,  // of a stage element
  kRunning, kWaiting,            // of a stage element (IR 11)
  kUsed, kFree, kCap, kHeld,     // of a pool element
  kLen,                          // of a pool or stage, array or scalar
  kCached, kHit,                 // of a cache pool element (IR 9)
  kSumPrefill, kSumDecode, kSumJobs,  // over a step's jobs (IR 10)
};

enum class FunctionClass {
  kMath,    // numbers in, a number out: allowed in constant expressions
  kRandom,  // a fresh draw from the replication's stream
  kStage,   // one argument: a stage element
  kPool,    // one argument: a pool element
  kArray,   // one argument: a pool or stage, named without index
  // One argument, evaluated for each of a step's jobs (its prefill jobs,
  // its decode jobs, or all) as if the job were the step's only one; the
  // sum. Only in a step's tau.
  kJobs,
};

struct FunctionInfo {
  absl::string_view name;
  Function function;
  FunctionClass cls;
  int min_args;
  int max_args;  // -1: any number (min, max, interp)
  // kPool only: the pool must keep a prefix cache (`cache B;`).
  bool needs_cache = false;
  // An odd number of arguments, x then (x, y) points whose xs are constant
  // and increasing (interp).
  bool points = false;
};

// The function called `name`, or nullptr.
const FunctionInfo* LookupFunction(absl::string_view name);
const FunctionInfo& GetFunction(Function f);

// Applies a math function to numbers already checked for arity (and, for
// interp, checked by the linker to be x then points with increasing xs). The result
// may be NaN (sqrt(-1), ln(0) is -inf); callers report NaN as an error.
double ApplyMath(Function f, absl::Span<const double> args);

// Built-in variables: `now`, `arrival`, `serial` in sessions; `present` in a
// ps phi; `since` in a pool's evict by and a stage's preempt by; the step
// variables (with IR 9's `attention` and IR 10's figures of the prefill and
// the decode jobs apart) in a step tau.
struct BuiltinVariableInfo {
  absl::string_view name;
  ir::Ref::Builtin builtin;
  // Where it is defined, for the linker's message: "a session", "the phi of a
  // ps stage", "a pool's evict by", "the tau of a step stage".
  absl::string_view place;
};

// The built-in variable called `name`, or nullptr.
const BuiltinVariableInfo* LookupBuiltinVariable(absl::string_view name);
const BuiltinVariableInfo& GetBuiltinVariable(ir::Ref::Builtin b);

// IR 11's figures of a step's lockstep group.
inline bool IsGroupFigure(int builtin) {
  return builtin == ir::Ref::GROUP_TOKENS || builtin == ir::Ref::GROUP_TOKENS_MAX;
}

// IR 10's step figures, the prefill and the decode jobs apart
// (PREFILL_JOBS .. DECODE_CONTEXT_MIN): a step gathers them only for a tau
// that reads them, and IR 9 has none of them.
inline bool IsJobFigure(int builtin) {
  return builtin >= ir::Ref::PREFILL_JOBS && builtin <= ir::Ref::DECODE_CONTEXT_MIN;
}

}  // namespace serq

#endif  // SERQ_IR_BUILTINS_H_
