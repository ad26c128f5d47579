// The compiler's sessions and workloads (compiler.h): each session's
// statements as the interpreter's code, and the workloads' arrivals.
#include <algorithm>
#include <cmath>
#include <map>

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
#include "serq-sim/model/compiler.h"

namespace serq::sim::compiler {
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

}  // namespace

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
          // inf is one arrival, at 0 (the linker's rule, language.md §11):
          // the k-th arrival at k x period.
          if (!(*v > 0)) {
            Error(w.arg().loc(), path + ".arg",
                  absl::StrCat("periodic(dt): the period must be > 0, got ", ShortestDouble(*v)));
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

}  // namespace serq::sim::compiler
