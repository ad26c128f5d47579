// Expressions: what each name means where it stands. In a session a name is
// a built-in (now, arrival, serial), else a param, else a session variable;
// elsewhere the context decides which built-ins, draws and state it may read.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "ir/walk.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {
namespace {

bool BuiltinAllowed(ir::Ref::Builtin b, Context c) {
  switch (b) {
    case ir::Ref::NOW:
    case ir::Ref::ARRIVAL:
    case ir::Ref::SERIAL:
      return c == Context::kSession || c == Context::kEvictBy || c == Context::kServeBy ||
             c == Context::kPreemptBy;
    case ir::Ref::QUEUED: return c == Context::kSession;
    case ir::Ref::INDEX: return c == Context::kSession;
    case ir::Ref::PRESENT: return c == Context::kPsPhi;
    case ir::Ref::SINCE: return c == Context::kEvictBy || c == Context::kPreemptBy;
    case ir::Ref::TOKENS:
    case ir::Ref::PREFILL:
    case ir::Ref::DECODE:
    case ir::Ref::SEQS:
    case ir::Ref::CONTEXT:
    case ir::Ref::ATTENTION:
    case ir::Ref::PREFILL_JOBS:
    case ir::Ref::PREFILL_KV:
    case ir::Ref::PREFILL_KV_MAX:
    case ir::Ref::PREFILL_KV_MIN:
    case ir::Ref::PREFILL_CONTEXT:
    case ir::Ref::PREFILL_CONTEXT_MAX:
    case ir::Ref::PREFILL_CONTEXT_MIN:
    case ir::Ref::DECODE_KV:
    case ir::Ref::DECODE_KV_MAX:
    case ir::Ref::DECODE_KV_MIN:
    case ir::Ref::DECODE_CONTEXT:
    case ir::Ref::DECODE_CONTEXT_MAX:
    case ir::Ref::DECODE_CONTEXT_MIN:
      return c == Context::kStepTau || c == Context::kStepJob;
    // The group's figures are the whole step's: not a job's (IR 11).
    case ir::Ref::GROUP_TOKENS:
    case ir::Ref::GROUP_TOKENS_MAX:
      return c == Context::kStepTau;
    default: return false;
  }
}

// In evict by and serve by: a variable of some session the key reads.
bool IsVariableHere(const std::string& name, const Scope& scope) {
  for (const SessionScope* s : scope.sessions) {
    if (s->Has(name)) return true;
  }
  return false;
}

std::string Arguments(int n) { return absl::StrCat(n, n == 1 ? " argument" : " arguments"); }

}  // namespace

bool IsConstantExpr(const ir::Expr& e) {
  switch (e.kind_case()) {
    case ir::Expr::kNumber: return true;
    case ir::Expr::kRef: return e.ref().kind() == ir::Ref::PARAM && !e.ref().has_index();
    case ir::Expr::kUnary: return IsConstantExpr(e.unary().operand());
    case ir::Expr::kBinary: return IsConstantExpr(e.binary().lhs()) && IsConstantExpr(e.binary().rhs());
    case ir::Expr::kCall: {
      const FunctionInfo* f = LookupFunction(e.call().function());
      if (f == nullptr || f->cls != FunctionClass::kMath) return false;
      for (const ir::Expr& a : e.call().arg()) {
        if (!IsConstantExpr(a)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool ReadsBuiltin(const ir::Expr& e, ir::Ref::Builtin b) {
  return AnyExpr(e, [b](const ir::Expr& x) {
    return x.has_ref() && x.ref().kind() == ir::Ref::BUILTIN && x.ref().decl() == static_cast<uint32_t>(b);
  });
}

bool Linker::Required(ir::Expr* e, const Place& where, const Scope& scope,
                      absl::string_view missing) {
  if (e == nullptr) {
    Error(where, std::string(missing));
    return false;
  }
  return ResolveExpr(e, where, scope);
}

bool Linker::ResolveKey(ir::Key* key, const Place& where, const Scope& scope,
                        absl::string_view missing) {
  size_t before = diags_->size();
  if (key->expr_size() == 0) Error(where, std::string(missing));
  for (int i = 0; i < key->expr_size(); ++i) {
    ResolveExpr(key->mutable_expr(i), where.Field("expr").Item(i), scope);
  }
  return diags_->size() == before;
}

bool Linker::ResolveExpr(ir::Expr* e, const Place& where, const Scope& scope) {
  size_t before = diags_->size();
  Place here = where.At(e->loc());
  switch (e->kind_case()) {
    case ir::Expr::kNumber:
      // Only IR from a tool can hold one ({"number": "NaN"}); the language
      // has no NaN (docs/language.md §11).
      if (std::isnan(e->number())) Error(here, "the value is NaN");
      break;
    case ir::Expr::kRef:
      ResolveValue(e->mutable_ref(), here.Field("ref", &e->ref().loc()), scope);
      break;
    case ir::Expr::kUnary: {
      ir::Expr::Unary* u = e->mutable_unary();
      Place at = here.Field("unary");
      if (!ir::Expr::UnaryOp_IsValid(u->op())) {
        Error(at, absl::StrCat("unknown unary operator (", u->op(), ")"));
      }
      Required(IF_PRESENT(u, operand), at.Field("operand"), scope,
               "the unary expression has no operand");
      break;
    }
    case ir::Expr::kBinary: {
      ir::Expr::Binary* b = e->mutable_binary();
      Place at = here.Field("binary");
      if (b->op() == ir::Expr::BINARY_OP_UNSPECIFIED) {
        Error(at, "the binary expression has no operator");
      } else if (!ir::Expr::BinaryOp_IsValid(b->op())) {
        Error(at, absl::StrCat("unknown binary operator (", b->op(), ")"));
      }
      Required(IF_PRESENT(b, lhs), at.Field("lhs"), scope,
               "the binary expression has no left operand");
      Required(IF_PRESENT(b, rhs), at.Field("rhs"), scope,
               "the binary expression has no right operand");
      break;
    }
    case ir::Expr::kCall:
      ResolveCall(e->mutable_call(), here.Field("call"), scope);
      break;
    case ir::Expr::KIND_NOT_SET:
      Error(here, "the expression is empty (no number, reference, operator or call)");
      break;
  }
  return diags_->size() == before;
}

void Linker::ResolveValue(ir::Ref* ref, const Place& where, const Scope& scope) {
  ref->set_kind(ir::Ref::UNRESOLVED);
  ref->set_decl(0);
  const std::string& name = ref->name();
  if (name.empty()) {
    Error(where, "the reference has no name");
    return;
  }
  // A built-in variable defined here comes first: `tokens` in a step's tau
  // is the step's tokens even where a param is called so.
  const BuiltinVariableInfo* b = LookupBuiltinVariable(name);
  // `queued` (IR 11) is contextual: a session that sets a variable of that
  // name reads its own.
  // `index` (IR 11) likewise, and in a session a trace drives it is the
  // trace's column of that name, as before it was a built-in.
  const bool own_queued =
      b != nullptr && (b->builtin == ir::Ref::QUEUED || b->builtin == ir::Ref::INDEX) &&
      scope.context == Context::kSession && scope.session != nullptr &&
      (scope.session->assigned.count(name) > 0 || (b->builtin == ir::Ref::INDEX && scope.session->trace));
  if (b != nullptr && BuiltinAllowed(b->builtin, scope.context) && !own_queued) {
    if (ref->has_index()) {
      Error(where, absl::StrCat("'", name, "' is a built-in variable, not an array"));
    } else {
      ref->set_kind(ir::Ref::BUILTIN);
      ref->set_decl(b->builtin);
    }
    return;
  }
  // A local name of the stage's rate (`let`), then a declaration: a let
  // cannot take a declaration's name (ResolveLets), so the order is moot.
  if (scope.lets != nullptr) {
    for (size_t i = 0; i < scope.lets->size(); ++i) {
      if ((*scope.lets)[i] != name) continue;
      if (ref->has_index()) {
        Error(where, absl::StrCat("'", name, "' is a local name (let), not an array"));
      } else {
        ref->set_kind(ir::Ref::LOCAL);
        ref->set_decl(i);
      }
      return;
    }
  }
  if (const Decl* d = Find(name)) {
    if (d->kind != DeclKind::kParam) {
      Error(where, absl::StrCat("'", name, "' is a ", DeclWord(d->kind), ", not a value"));
    } else if (ref->has_index()) {
      Error(where, absl::StrCat("'", name, "' is a param, not an array"));
    } else {
      ref->set_kind(ir::Ref::PARAM);
      ref->set_decl(d->index);
    }
    return;
  }
  if (scope.context == Context::kSession && scope.session->Has(name)) {
    if (ref->has_index()) {
      Error(where, absl::StrCat("'", name, "' is a variable, not an array"));
    } else {
      ref->set_kind(ir::Ref::VARIABLE);
      ref->set_decl(scope.session->Slot(name));
    }
    return;
  }
  if ((scope.context == Context::kEvictBy || scope.context == Context::kServeBy ||
       scope.context == Context::kPreemptBy) &&
      (b == nullptr || IsVariableHere(name, scope))) {
    ResolveKeyVariable(ref, where, scope);
    return;
  }
  if (b != nullptr && IsGroupFigure(b->builtin) && scope.context == Context::kStepJob) {
    Error(where, absl::StrCat("'", name, "' is the lockstep group's figure of the whole step, "
                              "not a job's: read it outside the sum over jobs"));
  } else if (b != nullptr) {
    Error(where, absl::StrCat("'", name, "' is only defined in ", b->place));
  } else if (scope.context == Context::kSession) {
    Error(where, absl::StrCat("variable '", name, "' is never set"));
  } else {
    Error(where, absl::StrCat("unknown param '", name, "'"));
  }
}

void Linker::ResolveCall(ir::Expr::Call* call, const Place& where, const Scope& scope) {
  const std::string& name = call->function();
  call->set_table(0);  // recomputed, as every field the linker writes
  if (name.empty()) {
    Error(where, "the call has no function name");
    return;
  }
  if (const Decl* d = Find(name); d != nullptr && d->kind == DeclKind::kTable) {
    ResolveTableCall(call, d->index, where, scope);
    return;
  }
  const FunctionInfo* f = LookupFunction(name);
  if (f == nullptr) {
    Error(where, absl::StrCat("unknown function '", name, "'"));
    return;
  }
  int n = call->arg_size();
  bool points_ok = f->points && n >= f->min_args && n % 2 == 1;
  if (f->points && !points_ok) {
    Error(where, absl::StrCat("'", name, "' takes x and at least two points, x1, y1, ..., xn, yn: ",
                              n % 2 == 0 ? "an odd number of arguments" : "at least 5 arguments",
                              ", not ", n));
  } else if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
    if (f->max_args < 0) {
      Error(where, absl::StrCat("'", name, "' takes at least ", Arguments(f->min_args)));
    } else {
      Error(where, absl::StrCat("'", name, "' takes ", Arguments(f->min_args), ", not ", n));
    }
    if (f->cls != FunctionClass::kMath && f->cls != FunctionClass::kRandom) return;
  }
  Context c = scope.context;
  switch (f->cls) {
    case FunctionClass::kMath:
      break;
    case FunctionClass::kJobs: {
      if (c == Context::kStepJob) {
        Error(where, absl::StrCat("'", name, "' inside a sum over jobs: sums over a step's jobs "
                                  "do not nest"));
        return;
      }
      if (c != Context::kStepTau) {
        Error(where, absl::StrCat("'", name, "' sums over a step's jobs; only the tau of a step "
                                  "stage has them"));
        return;
      }
      if (n != 1) return;
      Scope job = scope;
      job.context = Context::kStepJob;
      ResolveExpr(call->mutable_arg(0), where.Field("arg").Item(0), job);
      return;
    }
    case FunctionClass::kRandom:
      if (c != Context::kSession && c != Context::kRenewal) {
        Error(where, absl::StrCat("'", name, "' draws a random number; only a session or "
                                  "renewal(…) may draw one"));
        return;
      }
      break;
    case FunctionClass::kStage:
    case FunctionClass::kPool:
    case FunctionClass::kArray: {
      if (c != Context::kSession && c != Context::kServeBy) {
        Error(where, absl::StrCat("'", name, "' reads the state of the deployment; only a "
                                  "session or a serve by key may read it"));
        return;
      }
      Want want = f->cls == FunctionClass::kStage  ? Want::kStage
                  : f->cls == FunctionClass::kPool ? Want::kPool
                                                   : Want::kPoolOrStage;
      std::string needs = absl::StrCat("'", name, "' takes a ", WantWord(want));
      ir::Expr* arg = call->mutable_arg(0);
      Place at = where.Field("arg").Item(0).At(arg->loc());
      if (!arg->has_ref()) {
        Error(at, absl::StrCat(needs, arg->has_number() ? ", not a number" : ", not an expression"));
        return;
      }
      const Decl* d =
          ResolveDeclRef(arg->mutable_ref(), at.Field("ref", &arg->ref().loc()), want,
                         f->cls == FunctionClass::kArray ? Shape::kWhole : Shape::kElement, needs,
                         scope);
      if (d != nullptr && f->needs_cache && !program_->pool(d->index).has_cache()) {
        const std::string& pool = program_->pool(d->index).name();
        Error(at.Field("ref", &arg->ref().loc()),
              absl::StrCat("'", name, "' reads a pool's prefix cache, and '", pool,
                           "' keeps none (give it 'cache B;')"));
      }
      return;
    }
  }
  size_t before = diags_->size();
  for (int i = 0; i < n; ++i) {
    ResolveExpr(call->mutable_arg(i), where.Field("arg").Item(i), scope);
  }
  if (points_ok && diags_->size() == before) CheckPoints(*call, where);
}

void Linker::CheckPoints(const ir::Expr::Call& call, const Place& where) {
  const std::string& name = call.function();
  std::optional<double> previous;
  for (int i = 1; i + 1 < call.arg_size(); i += 2) {
    const ir::Expr& x = call.arg(i);
    Place at = where.Field("arg").Item(i).At(x.loc());
    int point = (i + 1) / 2;
    if (!IsConstantExpr(x)) {
      Error(at, absl::StrCat("x", point, " of '", name, "' must be a constant (numbers, params "
                             "and math): the points are a fixed table"));
      return;
    }
    absl::StatusOr<double> v = Value(x);
    if (!v.ok()) return;  // a param whose value was refused, reported already
    if (!std::isfinite(*v)) {
      Error(at, absl::StrCat("x", point, " of '", name, "' must be finite, not ",
                             FormatNumber(*v)));
      return;
    }
    if (previous.has_value() && !(*v > *previous)) {
      Error(at, absl::StrCat("the xs of '", name, "' must increase: x", point, " is ",
                             FormatNumber(*v), ", not above x", point - 1, " = ",
                             FormatNumber(*previous)));
      return;
    }
    previous = *v;
  }
}

}  // namespace linker
}  // namespace serq
