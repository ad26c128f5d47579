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
#include "absl/strings/str_join.h"
#include "ir/builtins.h"
#include "ir/constant.h"
#include "ir/io.h"
#include "ir/json.h"
#include "ir/limits.h"
#include "ir/walk.h"

namespace serq::sim {
namespace {

// A trace's columns for a message, in file order: the first 20 and how
// many more (a trace may have 10^6).
std::string ColumnList(const std::vector<std::string>& columns) {
  if (columns.empty()) return "none";
  constexpr size_t kShown = 20;
  if (columns.size() <= kShown) return absl::StrJoin(columns, ", ");
  return absl::StrCat(absl::StrJoin(columns.begin(), columns.begin() + kShown, ", "), " and ",
                      columns.size() - kShown, " more");
}

// What the names of an expression mean where it stands.
enum class Context {
  kSession,  // a session's statements: variables by slot
  kKey,      // evict by, serve by: variables by name, in another session
  kPhi,      // a stage's phi: params and `present`
  kGap,      // a renewal gap: params and random draws
};

class Compiler {
 public:
  Compiler(const ir::Program& program, const ModelOptions& options, Model* model,
           Diagnostics* diags)
      : program_(program), options_(options), model_(model), diags_(diags) {}

  bool Compile();

 private:
  void Error(const ir::Location& loc, absl::string_view path, std::string message) {
    diags_->Error(loc, path, std::move(message));
    ok_ = false;
  }

  bool Params();
  bool Settings();
  bool SampleSetting();
  void Tables();
  void Declarations();
  void Sessions();
  void Workloads();

  absl::StatusOr<double> Constant(const ir::Expr& e) {
    return EvaluateConstant(e, [this](uint32_t decl) -> absl::StatusOr<double> {
      return param_values_[decl];
    });
  }
  // A constant with its place, or nullopt after reporting an error.
  std::optional<double> ConstantAt(const ir::Expr& e, absl::string_view path) {
    auto v = Constant(e);
    if (!v.ok()) {
      Error(e.loc(), path, std::string(v.status().message()));
      return std::nullopt;
    }
    return *v;
  }

  uint32_t Expr(const ir::Expr& e, Context ctx);
  uint32_t Ref(const ir::Ref& r, Context ctx);
  uint32_t Node(Op op, const ir::Location& loc) {
    sim::Node n;
    n.op = op;
    n.line = loc.line();
    n.column = loc.column();
    model_->exprs.nodes.push_back(n);
    return model_->exprs.nodes.size() - 1;
  }
  uint32_t KeyName(const std::string& name) {
    auto [it, added] = key_name_ids_.emplace(name, model_->key_names.size());
    if (added) model_->key_names.push_back(name);
    return it->second;
  }
  std::vector<uint32_t> Key(const ir::Key& key, Context ctx) {
    std::vector<uint32_t> out;
    for (const ir::Expr& e : key.expr()) out.push_back(Expr(e, ctx));
    return out;
  }

  void Body(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
            const std::string& path, SessionDecl* session);
  uint32_t Emit(Code code, uint32_t statement, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    model_->code.push_back(Instr{code, statement, a, b, c});
    return model_->code.size() - 1;
  }
  uint32_t Here() const { return model_->code.size(); }

  const ir::Program& program_;
  const ModelOptions& options_;
  Model* model_;
  Diagnostics* diags_;
  bool ok_ = true;
  std::vector<double> param_values_;
  std::map<std::string, uint32_t> key_name_ids_;
  std::map<std::string, uint32_t> observation_ids_;
  // While a choose's key compiles: the element refs its state functions read.
  std::vector<uint32_t>* state_refs_ = nullptr;
};

bool Compiler::Params() {
  const int n = program_.param_size();
  std::map<std::string, int> by_name;
  for (int i = 0; i < n; ++i) by_name[program_.param(i).name()] = i;

  // Param values with a set of overrides; the linker made them acyclic.
  auto evaluate = [&](const std::map<int, double>& overrides,
                      std::vector<double>* values) -> absl::Status {
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
        if (!r.ok()) return r.status();
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
      diags_->ErrorInFile(absl::StrCat("-D ", name, ": ", s.message()));
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
  return true;
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

// True when `pred` holds for `e` or any expression in it.
bool Any(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& pred) {
  if (pred(e)) return true;
  switch (e.kind_case()) {
    case ir::Expr::kRef: return e.ref().has_index() && Any(e.ref().index(), pred);
    case ir::Expr::kUnary: return Any(e.unary().operand(), pred);
    case ir::Expr::kBinary: return Any(e.binary().lhs(), pred) || Any(e.binary().rhs(), pred);
    case ir::Expr::kCall:
      for (const ir::Expr& a : e.call().arg()) {
        if (Any(a, pred)) return true;
      }
      return false;
    default: return false;
  }
}

// True when a stage's rate or one of its lets has a part `pred` holds for.
bool RateHas(const ir::Stage& s, const std::function<bool(const ir::Expr&)>& pred) {
  if (s.has_rate() && Any(s.rate(), pred)) return true;
  for (const ir::Let& l : s.let()) {
    if (Any(l.value(), pred)) return true;
  }
  return false;
}

// A tau that reads IR 10's figures of the prefill and decode jobs apart,
// or sums over the step's jobs: its station gathers them (StepStation's
// `figures`).
bool ReadsJobFigures(const ir::Expr& e) {
  if (e.has_ref()) {
    return e.ref().kind() == ir::Ref::BUILTIN && IsJobFigure(e.ref().decl());
  }
  if (e.has_call() && e.call().table() == 0) {
    const FunctionInfo* f = LookupFunction(e.call().function());
    return f != nullptr && f->cls == FunctionClass::kJobs;
  }
  return false;
}

// True when `e` reads `present` anywhere.
bool ReadsPresent(const ir::Expr& e) {
  switch (e.kind_case()) {
    case ir::Expr::kRef:
      return (e.ref().kind() == ir::Ref::BUILTIN && e.ref().decl() == ir::Ref::PRESENT) ||
             (e.ref().has_index() && ReadsPresent(e.ref().index()));
    case ir::Expr::kUnary:
      return ReadsPresent(e.unary().operand());
    case ir::Expr::kBinary:
      return ReadsPresent(e.binary().lhs()) || ReadsPresent(e.binary().rhs());
    case ir::Expr::kCall:
      for (const ir::Expr& a : e.call().arg()) {
        if (ReadsPresent(a)) return true;
      }
      return false;
    default:
      return false;
  }
}

void Compiler::Tables() {
  for (int i = 0; i < program_.table_size(); ++i) {
    const ir::Table& t = program_.table(i);
    std::string path = absl::StrCat("table[", i, "]");
    tables::Rows rows;
    rows.keys = t.key_size();
    rows.key.assign(t.grid_key().begin(), t.grid_key().end());
    rows.value.assign(t.grid_value().begin(), t.grid_value().end());
    // The linker read and checked the rows; checked again for IR that
    // skipped it, since a lookup trusts them.
    if (absl::Status s = tables::CheckRows(rows); !s.ok()) {
      Error(t.loc(), path, absl::StrCat("table '", t.name(), "': ", s.message()));
      continue;
    }
    TableRef ref;
    ref.grid = std::make_shared<const tables::Grid>(rows);
    auto rule = [](ir::Table::Outside o, tables::Outside none) {
      switch (o) {
        case ir::Table::CLAMP: return tables::Outside::kClamp;
        case ir::Table::EXTRAPOLATE: return tables::Outside::kExtrapolate;
        case ir::Table::ERROR: return tables::Outside::kError;
        default: return none;
      }
    };
    ref.below = rule(t.below(), tables::Outside::kClamp);
    ref.above = rule(t.above(), tables::Outside::kExtrapolate);
    ref.name = t.name();
    ref.keys.assign(t.key().begin(), t.key().end());
    model_->exprs.tables.push_back(std::move(ref));
  }
}

void Compiler::Declarations() {
  // Shared stages: every declaration named in a run with a non-empty also.
  std::set<uint32_t> shared;
  ForEachStatement(program_, [&](const ir::Statement& s, const std::string&) {
    if (!s.has_run() || s.run().also().empty()) return;
    shared.insert(s.run().stage().decl());
    for (const ir::Ref& r : s.run().also()) shared.insert(r.decl());
  });
  model_->has_shared = !shared.empty();
  model_->share =
      program_.share() == ir::Program::BOTTLENECK ? flow::Policy::kBottleneck : flow::Policy::kMaxMin;

  uint32_t next = 0;
  for (int i = 0; i < program_.pool_size(); ++i) {
    const ir::Pool& p = program_.pool(i);
    std::string path = absl::StrCat("pool[", i, "]");
    PoolDecl d;
    d.name = p.name();
    d.base = next;
    d.array = p.has_size();
    if (d.array) {
      auto v = ConstantAt(p.size(), path + ".size");
      d.size = v ? static_cast<uint32_t>(*v) : 1;
    }
    auto cap = ConstantAt(p.cap(), path + ".cap");
    if (cap) {
      d.cap = *cap;
      if (!(*cap >= 0)) {
        Error(p.cap().loc(), path + ".cap",
              absl::StrCat("the cap of '", p.name(), "' must be >= 0, got ", *cap));
      }
    }
    if (p.has_cache()) {
      // The linker checks it is a constant whole number >= 1; checked again
      // here for IR that skipped it.
      auto block = ConstantAt(p.cache(), path + ".cache");
      if (block) {
        d.cache = *block;
        d.cache_loc = p.cache_loc();
        if (!(*block >= 0 && *block == std::floor(*block) && std::isfinite(*block))) {
          Error(p.cache().loc(), path + ".cache",
                absl::StrCat("the cache block of '", p.name(), "' must be a whole number >= 1 (0: no cache), got ",
                             *block));
        }
      }
    }
    if (p.has_block()) {
      // As `cache`: the linker's rule, checked again for IR that skipped it.
      auto grain = ConstantAt(p.block(), path + ".block");
      if (grain) {
        d.block = *grain;
        if (!(*grain >= 1 && *grain == std::floor(*grain) && std::isfinite(*grain))) {
          Error(p.block().loc(), path + ".block",
                absl::StrCat("the block of '", p.name(), "' must be a whole number >= 1, got ",
                             *grain));
        }
      }
    }
    next += d.size;
    for (uint32_t k = 0; k < d.size; ++k) model_->pool_decl.push_back(i);
    model_->pools.push_back(std::move(d));
  }
  next = 0;
  for (int i = 0; i < program_.stage_size(); ++i) {
    const ir::Stage& s = program_.stage(i);
    std::string path = absl::StrCat("stage[", i, "]");
    StageDecl d;
    d.name = s.name();
    d.loc = s.loc();
    d.path = path;
    d.kind = s.kind();
    d.base = next;
    d.array = s.has_size();
    d.shared = shared.count(i) > 0;
    if (d.array) {
      auto v = ConstantAt(s.size(), path + ".size");
      d.size = v ? static_cast<uint32_t>(*v) : 1;
    }
    if (s.kind() == ir::Stage::STEP) {
      d.phi_constant = false;  // tau is evaluated at every step
      d.seqs = d.tokens = std::numeric_limits<double>::infinity();
      if (s.has_seqs()) {
        if (auto v = ConstantAt(s.seqs(), path + ".seqs")) d.seqs = *v;
      }
      if (s.has_tokens()) {
        if (auto v = ConstantAt(s.tokens(), path + ".tokens")) d.tokens = *v;
      }
      d.chunk = std::numeric_limits<double>::infinity();
      if (s.has_chunk()) {
        if (auto v = ConstantAt(s.chunk(), path + ".chunk")) d.chunk = *v;
      }
      d.reserve_prompt = s.reserve_prompt() && s.has_preempt_by();
      d.async_scheduling = s.async_scheduling() && s.has_preempt_by();
      d.recompute_last = s.recompute_last() && s.has_preempt_by();
      d.lockstep = s.lockstep();
    } else if (s.kind() == ir::Stage::PS || s.kind() == ir::Stage::FIFO) {
      // A phi in parts (lets) or that looks a table up is evaluated as it
      // runs, as one that reads present.
      if (RateHas(s, ReadsPresent) || s.let_size() > 0 ||
          RateHas(s, [](const ir::Expr& x) { return x.has_call() && x.call().table() != 0; })) {
        d.phi_constant = false;
      } else if (auto v = ConstantAt(s.rate(), path + ".rate")) {
        d.phi = *v;
        if (!(*v > 0)) {
          Error(s.rate().loc(), path + ".rate",
                absl::StrCat("phi of '", s.name(), "' is ", *v, "; it must be > 0"));
        }
      }
    }
    next += d.size;
    for (uint32_t k = 0; k < d.size; ++k) model_->station_decl.push_back(i);
    model_->stages.push_back(std::move(d));
  }
  // Expressions after every declaration is known (they name elements).
  for (int i = 0; i < program_.pool_size(); ++i) {
    if (program_.pool(i).has_evict_by()) {
      model_->pools[i].evict_by = Key(program_.pool(i).evict_by(), Context::kKey);
    }
  }
  for (int i = 0; i < program_.stage_size(); ++i) {
    const ir::Stage& s = program_.stage(i);
    StageDecl& d = model_->stages[i];
    for (const ir::Let& l : s.let()) d.lets.push_back(Expr(l.value(), Context::kPhi));
    if (!d.phi_constant) d.phi_node = Expr(s.rate(), Context::kPhi);
    d.figures = s.kind() == ir::Stage::STEP && RateHas(s, ReadsJobFigures);
    if (s.has_serve_by()) d.serve_by = Key(s.serve_by(), Context::kKey);
    if (s.has_preempt_by() && s.kind() == ir::Stage::STEP) {
      d.preempt = true;
      d.preempt_by = Key(s.preempt_by(), Context::kKey);
    }
  }
}

void Compiler::Body(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
                    const std::string& path, SessionDecl* session) {
  for (int i = 0; i < body.size(); ++i) {
    const ir::Statement& s = body[i];
    std::string here = absl::StrCat(path, "[", i, "]");
    uint32_t info = model_->statements.size();
    model_->statements.push_back(StatementInfo{s.loc(), here, ""});
    auto what = [&](absl::string_view w) { model_->statements[info].what = std::string(w); };
    switch (s.kind_case()) {
      case ir::Statement::kSet:
        what("set");
        session->assigned[s.set().slot()] = true;
        Emit(Code::kSet, info, s.set().slot(), Expr(s.set().value(), Context::kSession));
        break;
      case ir::Statement::kIf: {
        what("if");
        uint32_t test = Emit(Code::kIf, info, Expr(s.if_().condition(), Context::kSession));
        Body(s.if_().then(), here + ".if.then", session);
        if (s.if_().else__size() > 0) {
          uint32_t jump = Emit(Code::kJump, info);
          model_->code[test].b = Here();
          Body(s.if_().else_(), here + ".if.else", session);
          model_->code[jump].a = Here();
        } else {
          model_->code[test].b = Here();
        }
        break;
      }
      case ir::Statement::kRepeat: {
        what("repeat");
        uint32_t counter = session->slots++;
        session->assigned.push_back(true);
        uint32_t start = Emit(Code::kRepeat, info, Expr(s.repeat().count(), Context::kSession),
                              counter);
        Body(s.repeat().body(), here + ".repeat.body", session);
        Emit(Code::kLoop, info, counter, start + 1);
        model_->code[start].c = Here();
        break;
      }
      case ir::Statement::kEnd:
        what("end");
        Emit(Code::kEnd, info);
        break;
      case ir::Statement::kRun: {
        what("run");
        const ir::Statement::Run& r = s.run();
        RunSite site;
        site.decl = r.stage().decl();
        site.shared = model_->stages[site.decl].shared;
        site.stage = Ref(r.stage(), Context::kSession);
        for (const ir::Ref& a : r.also()) site.also.push_back(Ref(a, Context::kSession));
        site.work = Expr(r.work(), Context::kSession);
        site.mode = r.mode();
        if (r.has_growing()) site.growing = Ref(r.growing(), Context::kSession);
        if (!r.observe().empty()) site.observe = observation_ids_.at(r.observe());
        model_->runs.push_back(std::move(site));
        Emit(Code::kRun, info, model_->runs.size() - 1);
        break;
      }
      case ir::Statement::kChoose: {
        what("choose");
        const ir::Statement::Choose& c = s.choose();
        session->assigned[c.slot()] = true;
        ChooseSite site;
        site.slot = c.slot();
        site.size = c.array().kind() == ir::Ref::POOL ? model_->pools[c.array().decl()].size
                                                      : model_->stages[c.array().decl()].size;
        std::vector<uint32_t> refs;
        state_refs_ = &refs;
        site.key = Key(c.by(), Context::kSession);
        state_refs_ = nullptr;
        if (c.has_every()) {
          site.every = ConstantAt(c.every(), here + ".choose.every").value_or(0);
          site.pool = c.array().kind() == ir::Ref::POOL;
          site.base = site.pool ? model_->pools[c.array().decl()].base
                                : model_->stages[c.array().decl()].base;
          // The copy holds every element of each array the key reads (an
          // index may be any expression), and the chosen array's.
          auto add = [](uint32_t base, uint32_t size, std::vector<uint32_t>* out) {
            for (uint32_t e = base; e < base + size; ++e) out->push_back(e);
          };
          add(site.base, site.size, site.pool ? &site.pools : &site.stations);
          for (uint32_t r : refs) {
            const ElementRef& ref = model_->exprs.refs[r];
            add(ref.base, ref.size, ref.pool ? &site.pools : &site.stations);
          }
          for (auto* v : {&site.stations, &site.pools}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
          }
        }
        model_->chooses.push_back(std::move(site));
        Emit(Code::kChoose, info, model_->chooses.size() - 1);
        break;
      }
      case ir::Statement::kHold: {
        what("hold");
        const ir::Statement::Hold& h = s.hold();
        HoldSite site;
        for (const auto& a : h.pool()) {
          site.pools.emplace_back(Ref(a.pool(), Context::kSession),
                                  Expr(a.amount(), Context::kSession));
        }
        for (const auto& a : h.lease()) {
          site.leases.emplace_back(Ref(a.pool(), Context::kSession),
                                   Expr(a.amount(), Context::kSession));
        }
        model_->holds.push_back(std::move(site));
        uint32_t id = model_->holds.size() - 1;
        Emit(Code::kHold, info, id);
        Body(h.body(), here + ".hold.body", session);
        // The block's end is a place of its own: a lease's duration is
        // evaluated there.
        uint32_t end_info = model_->statements.size();
        model_->statements.push_back(StatementInfo{s.loc(), here, "the end of the hold"});
        Emit(Code::kHoldEnd, end_info, id);
        break;
      }
      case ir::Statement::kRelease:
        what("release");
        Emit(Code::kRelease, info, Ref(s.release().pool(), Context::kSession));
        break;
      case ir::Statement::kLoad:
        what("load");
        Emit(Code::kLoad, info, Ref(s.load().pool(), Context::kSession),
             Expr(s.load().amount(), Context::kSession));
        break;
      case ir::Statement::kObserve:
        what("observe");
        Emit(Code::kObserve, info, observation_ids_.at(s.observe().name()),
             Expr(s.observe().value(), Context::kSession));
        break;
      case ir::Statement::kPrefix:
        what("prefix");
        Emit(Code::kPrefix, info, Expr(s.prefix().family(), Context::kSession),
             Expr(s.prefix().count(), Context::kSession));
        break;
      default:
        Error(s.loc(), here, "empty statement");
    }
  }
}

void Compiler::Sessions() {
  ForEachStatement(program_, [&](const ir::Statement& s, const std::string&) {
    if (s.has_observe()) observation_ids_.emplace(s.observe().name(), 0);
    if (s.has_run() && !s.run().observe().empty()) observation_ids_.emplace(s.run().observe(), 0);
  });
  for (auto& [name, id] : observation_ids_) {  // std::map: sorted by name
    id = model_->observations.size();
    model_->observations.push_back(name);
  }
  for (int i = 0; i < program_.session_size(); ++i) {
    const ir::Session& s = program_.session(i);
    SessionDecl d;
    d.name = s.name();
    d.variables.assign(s.variable().begin(), s.variable().end());
    d.slots = d.variables.size();
    d.assigned.assign(d.slots, false);
    d.entry = Here();
    Body(s.body(), absl::StrCat("session[", i, "].body"), &d);
    uint32_t info = model_->statements.size();
    model_->statements.push_back(StatementInfo{s.loc(), absl::StrCat("session[", i, "]"),
                                               "the end of the session"});
    Emit(Code::kEnd, info);
    model_->sessions.push_back(std::move(d));
  }
  // Key variables by name, in every session (keys were compiled before).
  for (SessionDecl& d : model_->sessions) {
    d.key_slots.assign(model_->key_names.size(), -1);
    for (size_t k = 0; k < model_->key_names.size(); ++k) {
      auto it = std::find(d.variables.begin(), d.variables.end(), model_->key_names[k]);
      if (it != d.variables.end()) d.key_slots[k] = it - d.variables.begin();
    }
  }
}

void Compiler::Workloads() {
  std::map<std::string, std::shared_ptr<const Trace>> traces;
  for (int i = 0; i < program_.workload_size(); ++i) {
    const ir::Workload& w = program_.workload(i);
    std::string path = absl::StrCat("workload[", i, "]");
    WorkloadDecl d;
    d.name = w.name();
    d.session = w.session();
    d.loc = w.loc();
    d.path = path;
    ArrivalPlan& plan = d.plan;
    plan.process = w.process();
    if (w.has_limit()) {
      auto v = ConstantAt(w.limit(), path + ".limit");
      if (v) {
        if (!(*v >= 0)) {
          Error(w.limit().loc(), path + ".limit",
                absl::StrCat("the limit must be >= 0, got ", ShortestDouble(*v)));
        } else {
          plan.limit = *v >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(std::floor(*v));
        }
      }
    }
    switch (w.process()) {
      case ir::Workload::BATCH: {
        auto v = ConstantAt(w.arg(), path + ".arg");
        if (v) {
          plan.count = *v;
          if (!(*v >= 0 && std::isfinite(*v))) {
            Error(w.arg().loc(), path + ".arg",
                  absl::StrCat("batch(n): n must be >= 0 and finite, got ", ShortestDouble(*v)));
          }
        }
        break;
      }
      case ir::Workload::POISSON: {
        auto v = ConstantAt(w.arg(), path + ".arg");
        if (v) {
          plan.rate = *v;
          if (!(*v > 0 && std::isfinite(*v))) {
            Error(w.arg().loc(), path + ".arg",
                  absl::StrCat("poisson(rate): the rate must be > 0 and finite, got ", ShortestDouble(*v)));
          }
        }
        break;
      }
      case ir::Workload::PERIODIC: {
        auto v = ConstantAt(w.arg(), path + ".arg");
        if (v) {
          plan.period = *v;
          if (!(*v > 0 && std::isfinite(*v))) {
            Error(w.arg().loc(), path + ".arg",
                  absl::StrCat("periodic(dt): the period must be > 0 and finite, got ", ShortestDouble(*v)));
          }
        }
        break;
      }
      case ir::Workload::RENEWAL:
        plan.gap = Expr(w.arg(), Context::kGap);
        break;
      case ir::Workload::STAGES: {
        for (int k = 0; k + 1 < w.args_size(); k += 2) {
          auto rate = ConstantAt(w.args(k), absl::StrCat(path, ".args[", k, "]"));
          auto duration = ConstantAt(w.args(k + 1), absl::StrCat(path, ".args[", k + 1, "]"));
          if (!rate || !duration) continue;
          if (!(std::isfinite(*rate) && *rate >= 0 && std::isfinite(*duration) && *duration > 0)) {
            Error(w.loc(), path,
                  absl::StrCat("stages: a rate must be finite and >= 0 and a duration finite and > 0, got ",
                               *rate, " for ", *duration));
          }
          plan.stages.emplace_back(*rate, *duration);
        }
        if (w.args_size() == 0 || w.args_size() % 2 != 0) {
          Error(w.loc(), path, "stages: needs pairs of a rate and a duration");
        }
        break;
      }
      case ir::Workload::EXACTLY: {
        if (w.args_size() != 2) {
          Error(w.loc(), path, "exactly(n, T): needs 2 arguments");
          break;
        }
        auto n = ConstantAt(w.args(0), path + ".args[0]");
        auto span = ConstantAt(w.args(1), path + ".args[1]");
        if (n && span) {
          plan.count = *n;
          plan.span = *span;
          if (!(*n >= 0 && *n <= static_cast<double>(kMaxExactly) && *n == std::floor(*n) &&
                std::isfinite(*span) && *span > 0)) {
            Error(w.loc(), path,
                  absl::StrCat("exactly(n, T): n must be a whole number from 0 to 2^53 and T finite and > 0, got ",
                               *n, " and ", *span));
          }
        }
        break;
      }
      case ir::Workload::TRACE: {
        if (w.has_arg()) {
          auto scale = ConstantAt(w.arg(), path + ".arg");
          if (scale) {
            plan.scale = *scale;
            if (!(std::isfinite(*scale) && *scale > 0)) {
              Error(w.arg().loc(), path + ".arg",
                    absl::StrCat("trace(\"file\", scale): the time scale must be > 0 and finite, got ", *scale));
            }
          }
        }
        absl::StatusOr<std::string> expanded = ExpandFileName(
            w.file(), [&](const std::string& name) -> std::optional<absl::StatusOr<double>> {
              for (int p = 0; p < program_.param_size(); ++p) {
                if (program_.param(p).name() == name) return param_values_[p];
              }
              return std::nullopt;
            });
        if (!expanded.ok()) {
          Error(w.loc(), path + ".file", std::string(expanded.status().message()));
          break;
        }
        std::string file = DataPath(*expanded, model_->file, options_.data_dir);
        auto it = traces.find(file);
        if (it == traces.end()) {
          auto trace = std::make_shared<Trace>();
          TraceError error;
          if (!ReadTrace(file, trace.get(), &error)) {
            // A file that cannot be opened is the program's mistake (at the
            // workload); a bad line is the trace's (at its file and line).
            if (error.opened) {
              diags_->ErrorInOtherFile(error.file.empty() ? file : error.file, error.line,
                                       error.message);
              ok_ = false;
            } else {
              Error(w.loc(), path, error.message);
            }
            break;
          }
          it = traces.emplace(file, std::move(trace)).first;
        }
        plan.trace = it->second;
        const SessionDecl& session = model_->sessions[d.session];
        absl::flat_hash_map<absl::string_view, int32_t> slot_of;
        for (size_t slot = 0; slot < session.variables.size(); ++slot) {
          slot_of.emplace(session.variables[slot], static_cast<int32_t>(slot));  // first wins
        }
        for (const std::string& column : plan.trace->columns) {
          auto v = slot_of.find(column);
          plan.column_slot.push_back(v == slot_of.end() ? -1 : v->second);
        }
        // A set of the columns: a trace may have 10^6 of them.
        const absl::flat_hash_set<absl::string_view> cols(plan.trace->columns.begin(),
                                                          plan.trace->columns.end());
        for (size_t slot = 0; slot < session.variables.size(); ++slot) {
          if (session.assigned[slot]) continue;
          const std::string& name = session.variables[slot];
          if (!cols.contains(name)) {
            Error(w.loc(), path,
                  absl::StrCat("trace '", file, "' has no column '", name, "', which ",
                               session.name.empty() ? std::string("the unnamed session")
                                                    : absl::StrCat("session '", session.name, "'"),
                               " reads (its columns: ", ColumnList(plan.trace->columns),
                               ")"));
          }
        }
        break;
      }
      default:
        Error(w.loc(), path, "the workload has no arrival process");
    }
    model_->workloads.push_back(std::move(d));
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

}  // namespace

bool CompileModel(const ir::Program& program, const ModelOptions& options, Model* model,
                  Diagnostics* diags) {
  Compiler compiler(program, options, model, diags);
  return compiler.Compile();
}

}  // namespace serq::sim
