// The compiler's declarations (compiler.h): the tables, and the stages,
// pools and the other declarations a program's sessions name.
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
#include "ir/limits.h"
#include "ir/walk.h"
#include "serq-sim/model/compiler.h"

namespace serq::sim::compiler {
namespace {

// True when a stage's rate or one of its lets has a part `pred` holds for.
bool RateHas(const ir::Stage& s, const std::function<bool(const ir::Expr&)>& pred) {
  if (s.has_rate() && AnyExpr(s.rate(), pred)) return true;
  for (const ir::Let& l : s.let()) {
    if (AnyExpr(l.value(), pred)) return true;
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

// True when `e` is `present` (RateHas finds it anywhere in a rate).
bool IsPresent(const ir::Expr& e) {
  return e.has_ref() && e.ref().kind() == ir::Ref::BUILTIN && e.ref().decl() == ir::Ref::PRESENT;
}

}  // namespace

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
      if (RateHas(s, IsPresent) || s.let_size() > 0 ||
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

}  // namespace serq::sim::compiler
