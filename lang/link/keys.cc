// The keys evaluated in some session other than the one being linked: a
// pool's `evict by` (in the session that owns each lease), a stage's
// `serve by` (in the session of each arriving job) and a step stage's
// `preempt by` (in the session of each victim). A variable they read is
// resolved by name in that session at run time (Ref.decl is 0), so it must
// be a variable of every session that can get there: every session that
// leases from the pool, or runs on the stage. A name no session sets at all
// is an error even when none gets there.
#include "absl/strings/str_cat.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {

void Linker::ResolveKeyVariable(ir::Ref* ref, const Place& where, const Scope& scope) {
  const std::string& name = ref->name();
  bool anywhere = false;
  for (const SessionScope& s : sessions_) anywhere = anywhere || s.Has(name);
  if (!anywhere) {
    Error(where, absl::StrCat("variable '", name, "' is never set"));
    return;
  }
  for (const SessionScope* s : scope.sessions) {
    if (!s->Has(name)) {
      Error(where, absl::StrCat("variable '", name, "' is never set in ", s->Describe(),
                                ", which ", scope.verb, " '", scope.owner, "'"));
      return;
    }
  }
  if (ref->has_index()) {
    Error(where, absl::StrCat("'", name, "' is a variable, not an array"));
    return;
  }
  ref->set_kind(ir::Ref::VARIABLE);
  ref->set_decl(0);
  // A trace session gets a slot for the column, so that the simulator finds
  // the variable by name in every session the key reads.
  for (SessionScope* s : scope.sessions) s->Slot(name);
}

void Linker::LinkKeys() {
  auto sessions = [&](const std::set<int>& indices) {
    std::vector<SessionScope*> out;
    for (int i : indices) out.push_back(&sessions_[i]);
    return out;
  };
  for (int i = 0; i < program_->pool_size(); ++i) {
    ir::Pool* p = program_->mutable_pool(i);
    if (!p->has_evict_by()) continue;
    Scope scope;
    scope.context = Context::kEvictBy;
    scope.sessions = sessions(lease_sessions_[i]);
    scope.owner = p->name();
    scope.verb = "leases from";
    Place here = Place{}.Field("pool").Item(i, &p->loc()).Field("evictBy");
    ResolveKey(p->mutable_evict_by(), here, scope,
               absl::StrCat("the evict by of '", p->name(), "' has no key"));
  }
  for (int i = 0; i < program_->stage_size(); ++i) {
    ir::Stage* s = program_->mutable_stage(i);
    if (!s->has_serve_by()) continue;
    Scope scope;
    scope.context = Context::kServeBy;
    scope.sessions = sessions(run_sessions_[i]);
    scope.owner = s->name();
    scope.verb = "runs on";
    Place here = Place{}.Field("stage").Item(i, &s->loc()).Field("serveBy");
    ResolveKey(s->mutable_serve_by(), here, scope,
               absl::StrCat("the serve by of '", s->name(), "' has no key"));
  }
  // preempt by: evaluated in each victim's session, a job running on the
  // stage, like evict by in the lease owner's (and so it may read `since`).
  for (int i = 0; i < program_->stage_size(); ++i) {
    ir::Stage* s = program_->mutable_stage(i);
    if (!s->has_preempt_by() || s->kind() != ir::Stage::STEP) continue;
    Scope scope;
    scope.context = Context::kPreemptBy;
    scope.sessions = sessions(run_sessions_[i]);
    scope.owner = s->name();
    scope.verb = "runs on";
    Place here = Place{}.Field("stage").Item(i, &s->loc()).Field("preemptBy", &s->preempt_loc());
    ResolveKey(s->mutable_preempt_by(), here, scope,
               absl::StrCat("the preempt by of '", s->name(), "' has no key"));
  }
}

}  // namespace linker
}  // namespace serq
