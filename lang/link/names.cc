// The namespaces: params, pools and stages share one (one name names one
// thing); workloads have theirs, sessions theirs, and each workload drives
// the session of its name.
#include <map>

#include "absl/strings/str_cat.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {
namespace {

Place DeclPlace(const ir::Program& p, const Decl& d) {
  Place root;
  switch (d.kind) {
    case DeclKind::kParam: return root.Field("param").Item(d.index, &p.param(d.index).loc());
    case DeclKind::kPool: return root.Field("pool").Item(d.index, &p.pool(d.index).loc());
    case DeclKind::kStage: return root.Field("stage").Item(d.index, &p.stage(d.index).loc());
    case DeclKind::kTable: return root.Field("table").Item(d.index, &p.table(d.index).loc());
  }
  return root;
}

}  // namespace

const Decl* Linker::Find(absl::string_view name) const {
  auto it = names_.find(std::string(name));
  return it == names_.end() ? nullptr : &it->second;
}

std::string Linker::DescribeDecl(const Decl& d) const {
  if (d.kind == DeclKind::kParam) return "a param";
  if (d.kind == DeclKind::kTable) return "a table";
  absl::string_view word = DeclWord(d.kind);
  int64_t size = Size(d);
  if (size == 0) return absl::StrCat("a single ", word);
  if (size < 0) return absl::StrCat("an array of ", word, "s");
  return absl::StrCat("an array of ", size, " ", word, size == 1 ? "" : "s");
}

void Linker::DeclareNames() {
  auto declare = [&](const std::string& name, Decl d) {
    Place here = DeclPlace(*program_, d);
    if (name.empty()) {
      Error(here, absl::StrCat(DeclWord(d.kind), " has no name"));
      return;
    }
    // A declaration named like a built-in variable would be hidden by it in
    // some expressions and not in others.
    if (IsReservedBuiltin(name)) {
      Error(here, absl::StrCat("'", name, "' is a built-in variable; a ", DeclWord(d.kind),
                               " cannot take its name"));
      return;
    }
    auto [it, added] = names_.emplace(name, d);
    if (!added) {
      Error(here, absl::StrCat("redefinition of '", name, "' (first defined at ",
                               WhereIs(DeclPlace(*program_, it->second)), ")"));
    }
  };
  for (int i = 0; i < program_->param_size(); ++i) {
    declare(program_->param(i).name(), {DeclKind::kParam, i});
  }
  // Tables before pools and stages: a program declares its tables first,
  // so that a stage named like one is the one said to be defined again.
  for (int i = 0; i < program_->table_size(); ++i) {
    declare(program_->table(i).name(), {DeclKind::kTable, i});
  }
  for (int i = 0; i < program_->pool_size(); ++i) {
    declare(program_->pool(i).name(), {DeclKind::kPool, i});
  }
  for (int i = 0; i < program_->stage_size(); ++i) {
    declare(program_->stage(i).name(), {DeclKind::kStage, i});
  }
}

void Linker::PairWorkloadsAndSessions() {
  Place root;
  std::map<std::string, int> workloads, sessions;
  auto workload_place = [&](int i) {
    return root.Field("workload").Item(i, &program_->workload(i).loc());
  };
  auto session_place = [&](int i) {
    return root.Field("session").Item(i, &program_->session(i).loc());
  };
  for (int i = 0; i < program_->workload_size(); ++i) {
    const std::string& name = program_->workload(i).name();
    auto [it, added] = workloads.emplace(name, i);
    if (!added) {
      Error(workload_place(i), absl::StrCat("redefinition of ", DescribeWorkload(name),
                                            " (first defined at ",
                                            WhereIs(workload_place(it->second)), ")"));
    }
  }
  for (int i = 0; i < program_->session_size(); ++i) {
    const std::string& name = program_->session(i).name();
    auto [it, added] = sessions.emplace(name, i);
    if (!added) {
      Error(session_place(i), absl::StrCat("redefinition of ", DescribeSession(name),
                                           " (first defined at ",
                                           WhereIs(session_place(it->second)), ")"));
    }
  }
  for (int i = 0; i < program_->workload_size(); ++i) {
    ir::Workload* w = program_->mutable_workload(i);
    auto it = sessions.find(w->name());
    w->set_session(it == sessions.end() ? 0 : it->second);
    if (it == sessions.end()) {
      Error(workload_place(i),
            w->name().empty()
                ? std::string("the unnamed workload has no unnamed session to drive")
                : absl::StrCat("workload '", w->name(), "' has no session '", w->name(),
                               "' to drive"));
    }
  }
  sessions_.resize(program_->session_size());
  for (int i = 0; i < program_->session_size(); ++i) {
    ir::Session* s = program_->mutable_session(i);
    SessionScope& scope = sessions_[i];
    scope.index = i;
    scope.session = s;
    auto it = workloads.find(s->name());
    s->set_workload(it == workloads.end() ? 0 : it->second);
    if (it == workloads.end()) {
      Error(session_place(i),
            s->name().empty()
                ? std::string("the unnamed session has no unnamed workload to drive it")
                : absl::StrCat("session '", s->name(), "' has no workload '", s->name(),
                               "' to drive it"));
    } else {
      scope.trace = program_->workload(it->second).process() == ir::Workload::TRACE;
    }
  }
}

}  // namespace linker
}  // namespace serq
