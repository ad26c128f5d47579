// Sessions: their statements, and their variables. A session's variables are
// the names it assigns (set, choose) anywhere in its body, numbered in order
// of first appearance, assignment or read; a session driven by a trace also
// has every other unknown name it reads (its columns).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/limits.h"
#include "ir/walk.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {

void Linker::LinkSessions() {
  for (int i = 0; i < program_->session_size(); ++i) {
    SessionScope& s = sessions_[i];
    ForEachStatement(s.session->body(), "", [&](const ir::Statement& st, const std::string&) {
      if (st.has_set()) s.assigned.insert(st.set().variable());
      if (st.has_choose()) s.assigned.insert(st.choose().variable());
    });
  }
  for (int i = 0; i < program_->session_size(); ++i) {
    SessionScope& s = sessions_[i];
    Scope scope;
    scope.context = Context::kSession;
    scope.session = &s;
    Place here = Place{}.Field("session").Item(i, &s.session->loc());
    ResolveBody(s.session->mutable_body(), here.Field("body"), scope);
  }
}

void Linker::ResolveBody(google::protobuf::RepeatedPtrField<ir::Statement>* body,
                         const Place& where, const Scope& scope) {
  for (int i = 0; i < body->size(); ++i) {
    ir::Statement* st = body->Mutable(i);
    ResolveStatement(st, where.Item(i, &st->loc()), scope);
  }
}

std::optional<uint32_t> Linker::Assign(const std::string& name, const Place& where,
                                       SessionScope* s) {
  if (name.empty()) {
    Error(where, "the assignment has no variable name");
    return std::nullopt;
  }
  if (IsReservedBuiltin(name)) {
    Error(where, absl::StrCat("'", name, "' is a built-in variable; it cannot be set"));
    return std::nullopt;
  }
  if (const Decl* d = Find(name)) {
    Error(where, absl::StrCat("'", name, "' is a ", DeclWord(d->kind), "; it cannot be set",
                              d->kind == DeclKind::kParam ? " (params are constants)" : ""));
    return std::nullopt;
  }
  return s->Slot(name);
}

void Linker::ResolveStatement(ir::Statement* st, const Place& here, const Scope& scope) {
  // The program's statements in all, the simulator's instructions: said
  // once, at the first past the bound.
  if (++statements_ == kMaxStatements + 1) {
    Error(here, absl::StrCat("the program's sessions have more than ", kMaxStatements,
                             " statements in all; serq simulates at most that many (a repeat "
                             "runs its body many times)"));
  }
  switch (st->kind_case()) {
    case ir::Statement::kSet: {
      ir::Statement::Set* set = st->mutable_set();
      Place at = here.Field("set");
      set->set_slot(Assign(set->variable(), at, scope.session).value_or(0));
      Required(IF_PRESENT(set, value), at.Field("value"), scope,
               "the set has no value");
      break;
    }
    case ir::Statement::kIf: {
      ir::Statement::If* s = st->mutable_if_();
      Place at = here.Field("if");
      Required(IF_PRESENT(s, condition), at.Field("condition"), scope,
               "the if has no condition");
      ResolveBody(s->mutable_then(), at.Field("then"), scope);
      ResolveBody(s->mutable_else_(), at.Field("else"), scope);
      break;
    }
    case ir::Statement::kRepeat: {
      ir::Statement::Repeat* r = st->mutable_repeat();
      Place at = here.Field("repeat");
      Required(IF_PRESENT(r, count), at.Field("count"), scope,
               "the repeat has no count");
      ResolveBody(r->mutable_body(), at.Field("body"), scope);
      break;
    }
    case ir::Statement::kEnd:
      break;
    case ir::Statement::kRun:
      ResolveRun(st, here, scope);
      break;
    case ir::Statement::kChoose: {
      ir::Statement::Choose* c = st->mutable_choose();
      Place at = here.Field("choose");
      c->set_slot(Assign(c->variable(), at, scope.session).value_or(0));
      RequiredDeclRef(IF_PRESENT(c, array), at.Field("array"), Want::kPoolOrStage,
                      Shape::kArray, "choose needs a pool or stage array", scope,
                      "the choose has no array");
      if (!c->has_by()) {
        Error(at.Field("by"), "the choose has no key");
      } else {
        ResolveKey(c->mutable_by(), at.Field("by"), scope, "the choose has no key");
      }
      // IR 11: the copy's refresh interval, a constant of at least the
      // clock's tick (a shorter one would refresh at every instant).
      if (c->has_every()) {
        Place every = at.Field("every", &c->every_loc());
        Scope constant;
        if (ResolveExpr(c->mutable_every(), every, constant)) {
          std::optional<double> v = Evaluate(c->every(), every);
          if (v.has_value() && !(std::isfinite(*v) && *v >= 1e-9)) {
            Error(every.At(c->every().loc()),
                  absl::StrCat("a choose's 'every' must be a finite number of seconds, at least "
                               "1e-9 (the clock's tick), not ",
                               FormatNumber(*v)));
          }
        }
      }
      break;
    }
    case ir::Statement::kHold:
      ResolveHold(st->mutable_hold(), here.Field("hold"), scope);
      break;
    case ir::Statement::kRelease: {
      ir::Statement::Release* r = st->mutable_release();
      Place at = here.Field("release");
      RequiredDeclRef(IF_PRESENT(r, pool), at.Field("pool"), Want::kPool, Shape::kElement,
                      "a release needs a pool", scope, "the release has no pool");
      break;
    }
    case ir::Statement::kLoad: {
      ir::Statement::Load* l = st->mutable_load();
      Place at = here.Field("load");
      RequiredDeclRef(IF_PRESENT(l, pool), at.Field("pool"), Want::kPool, Shape::kElement,
                      "a load needs a pool", scope, "the load has no pool");
      Required(IF_PRESENT(l, amount), at.Field("amount"), scope,
               "the load has no amount");
      break;
    }
    case ir::Statement::kObserve: {
      ir::Statement::Observe* o = st->mutable_observe();
      Place at = here.Field("observe");
      if (o->name().empty()) Error(at, "the observe has no name");
      Required(IF_PRESENT(o, value), at.Field("value"), scope,
               "the observe has no value");
      break;
    }
    case ir::Statement::kPrefix:
      ResolvePrefix(st->mutable_prefix(), here.Field("prefix"), scope);
      break;
    case ir::Statement::KIND_NOT_SET:
      Error(here, "the statement is empty (it has no kind)");
      break;
  }
}

void Linker::ResolveHold(ir::Statement::Hold* hold, const Place& at, const Scope& scope) {
  if (hold->pool_size() == 0) Error(at, "the hold names no pool");
  std::set<int> held;
  for (int k = 0; k < hold->pool_size(); ++k) {
    ir::Statement::Amount* a = hold->mutable_pool(k);
    Place here = at.Field("pool").Item(k, &a->loc());
    if (const Decl* d = RequiredDeclRef(IF_PRESENT(a, pool), here.Field("pool"), Want::kPool,
                                        Shape::kElement, "a hold needs a pool", scope,
                                        "the hold's amount has no pool")) {
      held.insert(d->index);
    }
    Required(IF_PRESENT(a, amount), here.Field("amount"), scope,
             "the hold has no amount for this pool");
  }
  ResolveBody(hold->mutable_body(), at.Field("body"), scope);
  for (int k = 0; k < hold->lease_size(); ++k) {
    ir::Statement::Amount* a = hold->mutable_lease(k);
    Place here = at.Field("lease").Item(k, &a->loc());
    if (const Decl* d = RequiredDeclRef(IF_PRESENT(a, pool), here.Field("pool"), Want::kPool,
                                        Shape::kElement, "a lease needs a pool", scope,
                                        "the lease has no pool")) {
      lease_sessions_[d->index].insert(scope.session->index);
      // A lease keeps the units of the hold it ends; a pool the hold does
      // not hold has none to keep.
      if (held.count(d->index) == 0) {
        Error(here.Field("pool", &a->pool().loc()),
              absl::StrCat("'", a->pool().name(), "' is not held by this hold; a lease keeps "
                           "what its hold holds"));
      }
    }
    Required(IF_PRESENT(a, amount), here.Field("amount"), scope,
             "the lease has no duration");
  }
}

// `prefix (k, n);`: a family (any whole number: programs use `-1 - serial`
// for a session's own blocks) and a count (a whole number at least 0). Both
// are checked here when they are constants, and by the simulator otherwise.
void Linker::ResolvePrefix(ir::Statement::Prefix* prefix, const Place& at, const Scope& scope) {
  auto whole = [&](ir::Expr* e, absl::string_view field, absl::string_view what,
                   double least) {
    Place here = at.Field(field);
    if (!Required(e, here, scope, absl::StrCat("the prefix has no ", what))) return;
    if (!IsConstantExpr(*e)) return;
    absl::StatusOr<double> v = Value(*e);
    if (v.ok() && !(IsWhole(*v) && *v >= least)) {
      Error(here.At(e->loc()),
            absl::StrCat("the ", what, " of 'prefix' must be a whole number",
                         least > -INFINITY ? " at least 0" : "", ", not ", FormatNumber(*v)));
    }
  };
  whole(IF_PRESENT(prefix, family), "family", "family", -INFINITY);
  whole(IF_PRESENT(prefix, count), "count", "block count", 0);
}

void Linker::ResolveRun(ir::Statement* st, const Place& here, const Scope& scope) {
  ir::Statement::Run* run = st->mutable_run();
  Place at = here.Field("run");
  if (!run->has_stage()) {
    Error(at.Field("stage"), "the run has no stage");
  } else if (st->transfer() && run->stage().name() == "link" && Find("link") == nullptr) {
    // `transfer[j] (w) from P to Q (m)` was lowered to `run link[j] (w); …`:
    // speak of what the user wrote.
    run->mutable_stage()->set_kind(ir::Ref::UNRESOLVED);
    run->mutable_stage()->set_decl(0);
    Error(at.Field("stage", &run->stage().loc()),
          absl::StrCat(run->stage().has_index() ? "transfer[j]" : "transfer",
                       " needs a stage or stage array named 'link' (or name its stages: "
                       "transfer on …)"));
  } else if (const Decl* d = ResolveDeclRef(run->mutable_stage(),
                                            at.Field("stage", &run->stage().loc()), Want::kStage,
                                            Shape::kElement, "a run needs a stage", scope)) {
    run_sessions_[d->index].insert(scope.session->index);
  }
  for (int k = 0; k < run->also_size(); ++k) {
    if (const Decl* d = ResolveDeclRef(run->mutable_also(k),
                                       at.Field("also").Item(k, &run->also(k).loc()),
                                       Want::kStage, Shape::kElement, "a run needs a stage",
                                       scope)) {
      run_sessions_[d->index].insert(scope.session->index);
    }
  }
  Required(IF_PRESENT(run, work), at.Field("work"), scope,
           "the run has no work");
  if (run->has_growing()) {
    ResolveDeclRef(run->mutable_growing(), at.Field("growing", &run->growing().loc()),
                   Want::kPool, Shape::kElement, "growing needs a pool", scope);
  }
  runs_.push_back({st, here, scope.session->index});
}

}  // namespace linker
}  // namespace serq
