#include "serq-sim/model/model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "ir/constant.h"
#include "ir/json.h"
#include "ir/limits.h"
#include "serq-sim/model/compiler.h"

namespace serq::sim {
namespace compiler {

bool Compiler::Params() {
  const int n = program_.param_size();
  std::map<std::string, int> by_name;
  for (int i = 0; i < n; ++i) by_name[program_.param(i).name()] = i;

  // Param values with a set of overrides; the linker made them acyclic.
  // `failed`: the param whose own value had none (-1: none failed), where
  // an error an override causes is said.
  int failed = -1;
  auto evaluate = [&](const std::map<int, double>& overrides,
                      std::vector<double>* values) -> absl::Status {
    failed = -1;
    values->assign(n, 0);
    std::vector<int> state(n, 0);  // 0 not yet, 1 in progress, 2 done
    std::function<absl::StatusOr<double>(uint32_t)> value =
        [&](uint32_t decl) -> absl::StatusOr<double> {
      if (decl >= static_cast<uint32_t>(n)) return absl::InvalidArgumentError("unknown param");
      if (state[decl] == 2) return (*values)[decl];
      if (state[decl] == 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("param '", program_.param(decl).name(), "' depends on itself"));
      }
      state[decl] = 1;
      double v;
      if (auto it = overrides.find(decl); it != overrides.end()) {
        v = it->second;
      } else {
        auto r = EvaluateConstant(program_.param(decl).value(), value);
        if (!r.ok()) {
          if (failed < 0) failed = static_cast<int>(decl);
          return r.status();
        }
        v = *r;
      }
      state[decl] = 2;
      (*values)[decl] = v;
      return v;
    };
    for (int i = 0; i < n; ++i) {
      auto r = value(i);
      if (!r.ok()) return r.status();
    }
    return absl::OkStatus();
  };
  auto sizes = [&](const std::vector<double>& values) {
    std::vector<std::pair<std::string, double>> out;
    auto param = [&](uint32_t decl) -> absl::StatusOr<double> { return values[decl]; };
    for (const ir::Pool& p : program_.pool()) {
      if (p.has_size()) {
        auto v = EvaluateConstant(p.size(), param);
        out.emplace_back(p.name(), v.ok() ? *v : NAN);
      }
    }
    for (const ir::Stage& s : program_.stage()) {
      if (s.has_size()) {
        auto v = EvaluateConstant(s.size(), param);
        out.emplace_back(s.name(), v.ok() ? *v : NAN);
      }
    }
    return out;
  };

  std::vector<double> linked_values;
  if (absl::Status s = evaluate({}, &linked_values); !s.ok()) {
    diags_->ErrorInFile(std::string(s.message()));
    return ok_ = false;
  }
  auto linked_sizes = sizes(linked_values);
  std::map<int, double> overrides;
  for (const auto& [name, value] : options_.defines) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      diags_->ErrorInFile(absl::StrCat("-D ", name, ": the program has no param '", name, "'"));
      ok_ = false;
      continue;
    }
    std::vector<double> values;
    if (absl::Status s = evaluate({{it->second, value}}, &values); !s.ok()) {
      // At the param the override left without a value, as the link says it.
      const std::string said = absl::StrCat("-D ", name, "=", ShortestDouble(value), ": ", s.message());
      if (failed >= 0) {
        Error(program_.param(failed).value().loc(), absl::StrCat("param[", failed, "].value"), said);
      } else {
        diags_->ErrorInFile(said);
      }
      ok_ = false;
      continue;
    }
    auto changed = sizes(values);
    for (size_t i = 0; i < changed.size(); ++i) {
      if (changed[i].second != linked_sizes[i].second) {
        const ir::Param& p = program_.param(it->second);
        Error(p.loc(), absl::StrCat("param[", it->second, "]"),
              absl::StrCat("-D ", name, ": param '", name, "' sizes array '", changed[i].first,
                           "', which is fixed when the program is linked; give -D ", name, "=",
                           value, " to serq-link (serq run -D does)"));
        break;
      }
    }
    overrides[it->second] = value;
  }
  if (!ok_) return false;
  if (absl::Status s = evaluate(overrides, &param_values_); !s.ok()) {
    diags_->ErrorInFile(std::string(s.message()));
    return ok_ = false;
  }
  // Each value within its range (`in [low, high]`), whatever gave it: the
  // linker checked the program's own, an override here may leave it. A
  // param whose range or value reads a refused one says nothing more, as
  // the link keeps it.
  auto param = [&](uint32_t decl) -> absl::StatusOr<double> { return param_values_[decl]; };
  struct Refusal {
    int param;
    bool defined;  // its value from -D, not its expression
    ir::Location loc;
    std::string path, message;
  };
  std::vector<Refusal> refusals;
  for (int i = 0; i < n; ++i) {
    const ir::Param& p = program_.param(i);
    if (!p.has_low() && !p.has_high()) continue;
    const std::string at = absl::StrCat("param[", i, "]");
    const bool defined = std::any_of(options_.defines.begin(), options_.defines.end(),
                                     [&](const auto& d) { return d.first == p.name(); });
    if (!p.has_low() || !p.has_high()) {  // serq-link refuses it: IR from a tool
      refusals.push_back({i, defined, p.loc(), at,
                          absl::StrCat("param '", p.name(), "' has a range with one end: give both, low and high")});
      continue;
    }
    absl::StatusOr<double> low = EvaluateConstant(p.low(), param), high = EvaluateConstant(p.high(), param);
    if (!low.ok() || !high.ok()) {
      const bool at_low = !low.ok();
      refusals.push_back({i, defined, at_low ? p.low().loc() : p.high().loc(), at + (at_low ? ".low" : ".high"),
                          ParamRangeEndFailed(p.name(), at_low ? "low" : "high",
                                              std::string((at_low ? low : high).status().message()))});
      continue;
    }
    if (std::string empty = ParamRangeEmpty(p.name(), *low, *high); !empty.empty()) {
      refusals.push_back({i, defined, p.low().loc(), at + ".low", std::move(empty)});
      continue;
    }
    if (std::string outside = ParamOutsideRange(p.name(), param_values_[i], *low, *high, defined); !outside.empty()) {
      refusals.push_back({i, defined, p.value().loc(), at + ".value", std::move(outside)});
    }
  }
  std::set<int> refused;
  for (const Refusal& r : refusals) refused.insert(r.param);
  for (const Refusal& r : refusals) {
    std::set<int> others = refused;
    others.erase(r.param);
    const ir::Param& p = program_.param(r.param);
    const bool reads_refused = (p.has_low() && FirstParamRead(p.low(), others, program_) >= 0) ||
                               (p.has_high() && FirstParamRead(p.high(), others, program_) >= 0) ||
                               (!r.defined && FirstParamRead(p.value(), others, program_) >= 0);
    if (!reads_refused) Error(r.loc, r.path, r.message);
    ok_ = false;
  }
  return ok_;
}

bool Compiler::Settings() {
  const ir::RunSettings& run = program_.run();
  auto whole = [](double v) { return std::isfinite(v) && std::floor(v) == v; };
  if (options_.horizon) {
    model_->horizon = *options_.horizon;
  } else if (run.has_horizon()) {
    auto v = ConstantAt(run.horizon(), "run.horizon");
    if (!v) return false;
    model_->horizon = *v;
  } else {
    // Every workload ends (the linker checked): the run goes on until no
    // event is left.
    model_->drain = true;
    model_->horizon = std::numeric_limits<double>::infinity();
  }
  if (!model_->drain && !(model_->horizon > 0 && std::isfinite(model_->horizon))) {
    Error(run.horizon().loc(), "run.horizon",
          absl::StrCat("the horizon must be > 0 and finite, got ", model_->horizon));
  }
  if (options_.warmup) {
    // --warmup: the command line's, so the error is about it, not the source.
    model_->warmup = *options_.warmup;
    if (!(model_->warmup < model_->horizon)) {
      Error(ir::Location(), "run.warmup",
            absl::StrCat("--warmup ", model_->warmup, " must be less than the horizon ", model_->horizon));
    }
  } else if (run.has_warmup()) {
    auto v = ConstantAt(run.warmup(), "run.warmup");
    if (!v) return false;
    model_->warmup = *v;
    if (!(*v >= 0 && *v < model_->horizon)) {
      Error(run.warmup().loc(), "run.warmup",
            absl::StrCat("the warmup must be >= 0 and less than the horizon ", model_->horizon,
                         ", got ", *v, options_.horizon ? " (give --warmup with --horizon)" : ""));
    }
  }
  if (options_.replications) {
    model_->replications = *options_.replications;
  } else if (run.has_replications()) {
    auto v = ConstantAt(run.replications(), "run.replications");
    if (!v) return false;
    if (!(whole(*v) && *v >= 1 && *v <= kMaxReplications)) {
      Error(run.replications().loc(), "run.replications",
            absl::StrCat("replications must be a whole number from 1 to ", kMaxReplications,
                         ", got ", ShortestDouble(*v)));
    } else {
      model_->replications = static_cast<uint32_t>(*v);
    }
  }
  if (model_->replications < 1) {
    diags_->ErrorInFile("--replications must be at least 1");
    ok_ = false;
  }
  if (options_.seed) {
    model_->seed = *options_.seed;
  } else if (run.has_seed()) {
    auto v = ConstantAt(run.seed(), "run.seed");
    if (!v) return false;
    if (!(whole(*v) && *v >= 0 && *v <= 9007199254740992.0)) {
      Error(run.seed().loc(), "run.seed",
            absl::StrCat("the seed must be a whole number from 0 to 2^53, got ", ShortestDouble(*v)));
    } else {
      model_->seed = static_cast<uint64_t>(*v);
    }
  }
  if (run.has_gpus()) {
    // serq-link checked it against the program's params; -D may change it.
    auto v = ConstantAt(run.gpus(), "run.gpus");
    if (!v) return false;
    if (!(whole(*v) && *v >= 1 && *v <= kMaxGpus)) {
      Error(run.gpus().loc(), "run.gpus",
            absl::StrCat("gpus must be a whole number from 1 to ", kMaxGpus, ", got ", ShortestDouble(*v)));
    } else {
      model_->gpus = static_cast<uint32_t>(*v);
    }
  }
  return ok_ && SampleSetting();
}

// run { sample DT; } or --sample: the interval of the time series. The
// count of samples is bounded so that a DT far too small for the horizon
// is an error rather than gigabytes of results.
bool Compiler::SampleSetting() {
  const ir::RunSettings& run = program_.run();
  std::string path = "run.sample";
  const ir::Location& loc = run.sample().loc();
  if (options_.sample) {
    model_->sample = *options_.sample;
    path = "--sample";
  } else if (run.has_sample()) {
    auto v = ConstantAt(run.sample(), "run.sample");
    if (!v) return false;
    model_->sample = *v;
  } else {
    return true;
  }
  auto fail = [&](const std::string& message) {
    if (options_.sample) {
      diags_->ErrorInFile(absl::StrCat(options_.sample_flag, ": ", message));
    } else {
      Error(loc, path, message);
    }
    return ok_ = false;
  };
  if (!(model_->sample > 0 && std::isfinite(model_->sample))) {
    return fail(absl::StrCat("the sample interval must be > 0 and finite, got ", model_->sample));
  }
  if (model_->drain) return fail("a time series needs a horizon (give one, or --horizon)");
  if (model_->horizon / model_->sample >= kMaxSamples) {
    return fail(absl::StrCat("a sample every ", model_->sample, " s over the horizon ",
                             model_->horizon, " makes more than ", static_cast<uint64_t>(kMaxSamples),
                             " samples; give a larger interval"));
  }
  return true;
}

uint32_t Compiler::Ref(const ir::Ref& r, Context ctx) {
  ElementRef ref;
  ref.pool = r.kind() == ir::Ref::POOL;
  ref.name = r.name();
  ref.line = r.loc().line();
  ref.column = r.loc().column();
  if (ref.pool) {
    const PoolDecl& d = model_->pools[r.decl()];
    ref.base = d.base;
    ref.size = d.size;
  } else {
    const StageDecl& d = model_->stages[r.decl()];
    ref.base = d.base;
    ref.size = d.size;
  }
  if (r.has_index()) ref.index = Expr(r.index(), ctx);
  model_->exprs.refs.push_back(std::move(ref));
  return model_->exprs.refs.size() - 1;
}

uint32_t Compiler::Expr(const ir::Expr& e, Context ctx) {
  switch (e.kind_case()) {
    case ir::Expr::kNumber: {
      uint32_t n = Node(Op::kNumber, e.loc());
      model_->exprs.nodes[n].number = e.number();
      return n;
    }
    case ir::Expr::kRef: {
      const ir::Ref& r = e.ref();
      const ir::Location& loc = r.loc().line() ? r.loc() : e.loc();
      switch (r.kind()) {
        case ir::Ref::PARAM: {
          uint32_t n = Node(Op::kNumber, loc);
          model_->exprs.nodes[n].number = param_values_[r.decl()];
          return n;
        }
        case ir::Ref::VARIABLE: {
          if (ctx == Context::kKey) {
            uint32_t n = Node(Op::kKeyVariable, loc);
            model_->exprs.nodes[n].a = KeyName(r.name());
            return n;
          }
          uint32_t n = Node(Op::kVariable, loc);
          model_->exprs.nodes[n].a = r.decl();
          return n;
        }
        case ir::Ref::BUILTIN: {
          Op op = Op::kNow;
          switch (r.decl()) {
            case ir::Ref::NOW: op = Op::kNow; break;
            case ir::Ref::ARRIVAL: op = Op::kArrival; break;
            case ir::Ref::QUEUED: op = Op::kQueued; break;
            case ir::Ref::SERIAL: op = Op::kSerial; break;
            case ir::Ref::INDEX: op = Op::kIndex; break;
            case ir::Ref::PRESENT: op = Op::kPresent; break;
            case ir::Ref::SINCE: op = Op::kSince; break;
            case ir::Ref::TOKENS: op = Op::kTokens; break;
            case ir::Ref::PREFILL: op = Op::kPrefill; break;
            case ir::Ref::DECODE: op = Op::kDecode; break;
            case ir::Ref::SEQS: op = Op::kSeqs; break;
            case ir::Ref::CONTEXT: op = Op::kContext; break;
            case ir::Ref::ATTENTION: op = Op::kAttention; break;
            case ir::Ref::PREFILL_JOBS: op = Op::kPrefillJobs; break;
            case ir::Ref::PREFILL_KV: op = Op::kPrefillKv; break;
            case ir::Ref::PREFILL_KV_MAX: op = Op::kPrefillKvMax; break;
            case ir::Ref::PREFILL_KV_MIN: op = Op::kPrefillKvMin; break;
            case ir::Ref::PREFILL_CONTEXT: op = Op::kPrefillContext; break;
            case ir::Ref::PREFILL_CONTEXT_MAX: op = Op::kPrefillContextMax; break;
            case ir::Ref::PREFILL_CONTEXT_MIN: op = Op::kPrefillContextMin; break;
            case ir::Ref::DECODE_KV: op = Op::kDecodeKv; break;
            case ir::Ref::DECODE_KV_MAX: op = Op::kDecodeKvMax; break;
            case ir::Ref::DECODE_KV_MIN: op = Op::kDecodeKvMin; break;
            case ir::Ref::DECODE_CONTEXT: op = Op::kDecodeContext; break;
            case ir::Ref::DECODE_CONTEXT_MAX: op = Op::kDecodeContextMax; break;
            case ir::Ref::DECODE_CONTEXT_MIN: op = Op::kDecodeContextMin; break;
            case ir::Ref::GROUP_TOKENS: op = Op::kGroupTokens; break;
            case ir::Ref::GROUP_TOKENS_MAX: op = Op::kGroupTokensMax; break;
            default:
              Error(loc, "", absl::StrCat("unknown built-in variable '", r.name(), "'"));
          }
          return Node(op, loc);
        }
        case ir::Ref::LOCAL: {
          uint32_t n = Node(Op::kLocal, loc);
          model_->exprs.nodes[n].a = r.decl();
          return n;
        }
        default:
          Error(loc, "", absl::StrCat("'", r.name(), "' is not a value"));
          return Node(Op::kNumber, loc);
      }
    }
    case ir::Expr::kUnary: {
      uint32_t operand = Expr(e.unary().operand(), ctx);
      uint32_t n = Node(e.unary().op() == ir::Expr::NOT ? Op::kNot : Op::kNeg, e.loc());
      model_->exprs.nodes[n].a = operand;
      return n;
    }
    case ir::Expr::kBinary: {
      uint32_t lhs = Expr(e.binary().lhs(), ctx);
      uint32_t rhs = Expr(e.binary().rhs(), ctx);
      Op op = Op::kAdd;
      switch (e.binary().op()) {
        case ir::Expr::OR: op = Op::kOr; break;
        case ir::Expr::AND: op = Op::kAnd; break;
        case ir::Expr::LT: op = Op::kLt; break;
        case ir::Expr::LE: op = Op::kLe; break;
        case ir::Expr::GT: op = Op::kGt; break;
        case ir::Expr::GE: op = Op::kGe; break;
        case ir::Expr::EQ: op = Op::kEq; break;
        case ir::Expr::NE: op = Op::kNe; break;
        case ir::Expr::ADD: op = Op::kAdd; break;
        case ir::Expr::SUB: op = Op::kSub; break;
        case ir::Expr::MUL: op = Op::kMul; break;
        case ir::Expr::DIV: op = Op::kDiv; break;
        case ir::Expr::MOD: op = Op::kMod; break;
        default: Error(e.loc(), "", "unknown operator");
      }
      // `now - arrival` and the like: a difference of two instants, put
      // back on the clock's nanoseconds (Op::kElapsed), so a latency is
      // reported without the representation error of its two ends.
      auto instant = [&](uint32_t node) {
        Op o = model_->exprs.nodes[node].op;
        return o == Op::kNow || o == Op::kArrival || o == Op::kSince || o == Op::kQueued;
      };
      if (op == Op::kSub && instant(lhs) && instant(rhs)) op = Op::kElapsed;
      uint32_t n = Node(op, e.loc());
      model_->exprs.nodes[n].a = lhs;
      model_->exprs.nodes[n].b = rhs;
      return n;
    }
    case ir::Expr::kCall: {
      const ir::Expr::Call& call = e.call();
      if (call.table() != 0) {
        std::vector<uint32_t> args;
        for (const ir::Expr& a : call.arg()) args.push_back(Expr(a, ctx));
        uint32_t n = Node(Op::kTable, e.loc());
        sim::Node& node = model_->exprs.nodes[n];
        node.a = model_->exprs.args.size();
        node.b = args.size();
        node.c = call.table() - 1;
        model_->exprs.args.insert(model_->exprs.args.end(), args.begin(), args.end());
        return n;
      }
      const FunctionInfo* f = LookupFunction(call.function());
      if (f == nullptr || call.arg_size() < f->min_args ||
          (f->max_args >= 0 && call.arg_size() > f->max_args)) {
        Error(e.loc(), "", absl::StrCat("bad call of '", call.function(), "'"));
        return Node(Op::kNumber, e.loc());
      }
      switch (f->cls) {
        case FunctionClass::kMath:
        case FunctionClass::kRandom: {
          std::vector<uint32_t> args;
          for (const ir::Expr& a : call.arg()) args.push_back(Expr(a, ctx));
          uint32_t n = Node(f->cls == FunctionClass::kMath ? Op::kMath : Op::kRandom, e.loc());
          sim::Node& node = model_->exprs.nodes[n];
          node.fn = f->function;
          node.a = model_->exprs.args.size();
          node.b = args.size();
          model_->exprs.args.insert(model_->exprs.args.end(), args.begin(), args.end());
          return n;
        }
        case FunctionClass::kStage:
        case FunctionClass::kPool: {
          uint32_t ref = Ref(call.arg(0).ref(), ctx);
          if (state_refs_ != nullptr) state_refs_->push_back(ref);
          uint32_t n =
              Node(f->cls == FunctionClass::kStage ? Op::kStageState : Op::kPoolState, e.loc());
          model_->exprs.nodes[n].fn = f->function;
          model_->exprs.nodes[n].a = ref;
          return n;
        }
        case FunctionClass::kJobs: {
          uint32_t arg = Expr(call.arg(0), ctx);
          uint32_t n = Node(Op::kSumJobs, e.loc());
          model_->exprs.nodes[n].fn = f->function;
          model_->exprs.nodes[n].a = arg;
          return n;
        }
        case FunctionClass::kArray: {
          const ir::Ref& r = call.arg(0).ref();
          uint32_t size = r.kind() == ir::Ref::POOL ? model_->pools[r.decl()].size
                                                    : model_->stages[r.decl()].size;
          uint32_t n = Node(Op::kNumber, e.loc());
          model_->exprs.nodes[n].number = size;
          return n;
        }
      }
      return Node(Op::kNumber, e.loc());
    }
    default:
      Error(e.loc(), "", "empty expression");
      return Node(Op::kNumber, e.loc());
  }
}

bool Compiler::Compile() {
  model_->file = program_.file();
  if (!Params()) return false;
  if (!Settings()) return false;
  Tables();
  Declarations();
  if (!ok_) return false;
  Sessions();
  Workloads();
  return ok_;
}

}  // namespace compiler

bool CompileModel(const ir::Program& program, const ModelOptions& options, Model* model,
                  Diagnostics* diags) {
  compiler::Compiler c(program, options, model, diags);
  return c.Compile();
}

}  // namespace serq::sim
