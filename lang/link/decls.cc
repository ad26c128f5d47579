// The rules of declarations: pools, stages, workloads and the run block.
// Their numbers are constants, checked here where the language fixes their
// range.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "ir/constant.h"
#include "ir/limits.h"
#include "lang/link/linker.h"
#include "ir/words.h"

namespace serq {
namespace linker {
namespace {

// The seed is converted to an unsigned 64-bit integer; doubles are exact
// integers up to 2^53.
constexpr double kMaxSeed = 9007199254740992.0;

}  // namespace

void Linker::CheckPools() {
  Scope constant;
  for (int i = 0; i < program_->pool_size(); ++i) {
    ir::Pool* p = program_->mutable_pool(i);
    Place here = Place{}.Field("pool").Item(i, &p->loc());
    Place at = here.Field("cap");
    if (Required(IF_PRESENT(p, cap), at, constant,
                 absl::StrCat("pool '", p->name(), "' has no cap"))) {
      std::optional<double> v = Evaluate(p->cap(), at);
      if (v.has_value() && !(*v >= 0)) {
        Error(at.At(p->cap().loc()), absl::StrCat("the cap of '", p->name(),
                                                  "' must be at least 0, not ", FormatNumber(*v)));
      }
    }
    std::optional<double> cache;
    if (p->has_cache()) {
      Place at = here.Field("cache", &p->cache_loc());
      if (ResolveExpr(p->mutable_cache(), at, constant)) {
        std::optional<double> v = Evaluate(p->cache(), at);
        // 0 is no cache (cached() and hit() read 0), so -D can switch it off.
        if (v.has_value() && !(IsWhole(*v) && *v >= 0)) {
          Error(at.At(p->cache().loc()),
                absl::StrCat("the cache block of '", p->name(),
                             "' must be a whole number of units, at least 1 (0: no cache), not ",
                             FormatNumber(*v)));
        } else {
          cache = v;
        }
      }
    }
    if (p->has_block()) {
      Place at = here.Field("block", &p->block_loc());
      if (ResolveExpr(p->mutable_block(), at, constant)) {
        std::optional<double> v = Evaluate(p->block(), at);
        if (v.has_value() && !(IsWhole(*v) && *v >= 1)) {
          Error(at.At(p->block().loc()),
                absl::StrCat("the block of '", p->name(),
                             "' must be a whole number of units at least 1, not ",
                             FormatNumber(*v)));
        } else if (v.has_value() && cache.has_value() && *cache != 0 && *v != *cache) {
          // vLLM's prefix cache keys the same blocks that hold the KV (a
          // cache of 0 is none, whatever the block: -D Cache=0 turns it off).
          Error(at.At(p->block().loc()),
                absl::StrCat("the block of '", p->name(), "' (", FormatNumber(*v),
                             ") must equal its cache block (", FormatNumber(*cache), ")"));
        }
      }
    }
  }
}

void Linker::CheckStages() {
  Scope constant;
  for (int i = 0; i < program_->stage_size(); ++i) {
    ir::Stage* s = program_->mutable_stage(i);
    Place here = Place{}.Field("stage").Item(i, &s->loc());
    const std::string& name = s->name();
    // Empty when the kind is unset or unknown, which the switch reports.
    absl::string_view kind_word = StageKindWord(s->kind());
    Scope rate;
    std::vector<std::string> lets;
    // The lets, then the rate that reads them, in the rate's context.
    auto rate_with_lets = [&](Context context) {
      rate.context = context;
      lets = ResolveLets(s, here, rate);
      rate.lets = &lets;
    };
    switch (s->kind()) {
      case ir::Stage::KIND_UNSPECIFIED:
        Error(here, absl::StrCat("stage '", name, "' has no kind (delay, ps, fifo or step)"));
        break;
      case ir::Stage::DELAY:
        if (s->has_rate()) {
          Error(here.Field("rate"), absl::StrCat("delay stage '", name, "' takes no rate: a run "
                                                 "of work w takes w seconds"));
        }
        break;
      case ir::Stage::PS:
        rate_with_lets(Context::kPsPhi);
        Required(IF_PRESENT(s, rate), here.Field("rate"), rate,
                 absl::StrCat("ps stage '", name, "' has no rate: ps(phi)"));
        break;
      case ir::Stage::FIFO:
        rate_with_lets(Context::kFifoPhi);
        Required(IF_PRESENT(s, rate), here.Field("rate"), rate,
                 absl::StrCat("fifo stage '", name, "' has no rate: fifo(phi)"));
        break;
      case ir::Stage::STEP:
        rate_with_lets(Context::kStepTau);
        Required(IF_PRESENT(s, rate), here.Field("rate"), rate,
                 absl::StrCat("step stage '", name, "' has no step time: step(tau)"));
        break;
      default:
        Error(here, absl::StrCat("stage '", name, "' has an unknown kind (", s->kind(), ")"));
        break;
    }
    if (s->let_size() > 0 && rate.lets == nullptr && !kind_word.empty()) {
      Error(here.Field("let").Item(0, &s->let(0).loc()),
            absl::StrCat("'let' names a part of a stage's rate, and ", kind_word, " stage '",
                         name, "' has none"));
    }
    auto per_step = [&](absl::string_view word, ir::Expr* e) {
      if (e == nullptr) return;
      Place at = here.Field(word, &e->loc());
      if (s->kind() != ir::Stage::STEP) {
        if (!kind_word.empty()) {
          Error(at, absl::StrCat("'", word, "' is only for step stages, and '", name, "' is a ",
                                 kind_word, " stage"));
        }
        return;
      }
      if (!ResolveExpr(e, at, constant)) return;
      std::optional<double> v = Evaluate(*e, at);
      if (v.has_value() && !(IsWhole(*v) && *v >= 1)) {
        Error(at.At(e->loc()), absl::StrCat("'", word, "' of '", name,
                                            "' must be a whole number at least 1, not ",
                                            FormatNumber(*v)));
      }
    };
    per_step("seqs", IF_PRESENT(s, seqs));
    per_step("tokens", IF_PRESENT(s, tokens));
    per_step("chunk", IF_PRESENT(s, chunk));
    // vLLM's scheduler options: step stages only, and those of waiting
    // jobs only with `preempt by` (`why`: what the option needs of it).
    auto vllm_option = [&](bool given, absl::string_view field, const ir::Location* loc,
                           absl::string_view word, absl::string_view why) {
      if (!given || kind_word.empty()) return;
      Place at = here.Field(field, loc);
      if (s->kind() != ir::Stage::STEP) {
        Error(at, absl::StrCat("'", word, "' is only for step stages, and '", name, "' is a ",
                               kind_word, " stage"));
      } else if (!s->has_preempt_by()) {
        Error(at, absl::StrCat("'", word, "' ", why, ", and '", name,
                               "' has none: give it 'preempt by KEY;'"));
      }
    };
    // Without preemption no job is waiting in vLLM's sense: a growth that
    // does not fit stalls the job where it is. `recompute last` is vLLM's
    // admission of a waiting request whose KV was loaded; async
    // scheduling changes the scheduler with running and waiting requests.
    vllm_option(s->reserve_prompt(), "reservePrompt", &s->reserve_loc(), "reserve prompt",
                "admits waiting jobs");
    vllm_option(s->async_scheduling(), "asyncScheduling", &s->async_loc(), "async",
                "schedules as vLLM does, with running and waiting jobs");
    vllm_option(s->recompute_last(), "recomputeLast", &s->recompute_loc(), "recompute last",
                "admits waiting jobs");
    // `lockstep` groups the elements of a step stage (IR 11).
    if (s->lockstep() && s->kind() != ir::Stage::STEP && !kind_word.empty()) {
      Error(here.Field("lockstep", &s->lockstep_loc()),
            absl::StrCat("'lockstep' is only for step stages, and '", name, "' is a ", kind_word,
                         " stage"));
    }
    if (s->has_serve_by() && s->kind() != ir::Stage::FIFO && s->kind() != ir::Stage::STEP &&
        !kind_word.empty()) {
      // A key has no location of its own: point at its first expression.
      const ir::Location* loc = s->serve_by().expr_size() > 0 ? &s->serve_by().expr(0).loc() : nullptr;
      Error(here.Field("serveBy", loc), absl::StrCat("serve by is only for fifo and step stages, "
                                                "and '", name, "' is a ", kind_word,
                                                " stage"));
    }
    if (s->has_preempt_by() && s->kind() != ir::Stage::STEP && !kind_word.empty()) {
      Error(here.Field("preemptBy", &s->preempt_loc()),
            absl::StrCat("preempt by is only for step stages, and '", name, "' is a ",
                         kind_word, " stage"));
    }
  }
}

void Linker::CheckWorkloads() {
  Scope constant;
  for (int i = 0; i < program_->workload_size(); ++i) {
    ir::Workload* w = program_->mutable_workload(i);
    Place here = Place{}.Field("workload").Item(i, &w->loc());
    Place at = here.Field("arg");
    // A constant argument that must satisfy `ok`; `need` says what it must be.
    auto constant_arg = [&](absl::string_view missing, absl::string_view need,
                            bool (*ok)(double)) {
      if (!Required(IF_PRESENT(w, arg), at, constant, missing)) return;
      std::optional<double> v = Evaluate(w->arg(), at);
      if (v.has_value() && !ok(*v)) {
        Error(at.At(w->arg().loc()), absl::StrCat(need, ", not ", FormatNumber(*v)));
      }
    };
    switch (w->process()) {
      case ir::Workload::PROCESS_UNSPECIFIED:
        Error(here, absl::StrCat(DescribeWorkload(w->name()), " has no arrival process"));
        break;
      case ir::Workload::BATCH:
        // All n sessions are live at time 0: bounded like an array size.
        constant_arg("batch(n) has no n",
                     absl::StrCat("batch(n) needs a whole number n from 0 to ", kMaxBatch),
                     [](double v) { return IsWhole(v) && v >= 0 && v <= kMaxBatch; });
        break;
      case ir::Workload::POISSON:
        constant_arg("poisson(rate) has no rate", "poisson(rate) needs a finite rate above 0",
                     [](double v) { return std::isfinite(v) && v > 0; });
        break;
      case ir::Workload::PERIODIC:
        constant_arg("periodic(dt) has no period", "periodic(dt) needs a period above 0",
                     [](double v) { return v > 0; });
        break;
      case ir::Workload::RENEWAL: {
        Scope renewal;
        renewal.context = Context::kRenewal;
        Required(IF_PRESENT(w, arg), at, renewal,
                 "renewal(X) has no gap expression");
        break;
      }
      case ir::Workload::TRACE:
        if (w->file().empty()) Error(here, "trace(\"file\") has no file name");
        if (w->has_arg()) {
          // The time scale (IR 11): every arrival at scale x its trace time.
          constant_arg("", "trace(\"file\", scale) needs a finite time scale above 0",
                       [](double v) { return std::isfinite(v) && v > 0; });
        }
        if (!w->file().empty()) {
          // `{NAME}`: a param's value (IR 11).
          absl::StatusOr<std::string> file = ExpandFileName(
              w->file(), [&](const std::string& name) -> std::optional<absl::StatusOr<double>> {
                const Decl* d = Find(name);
                if (d == nullptr || d->kind != DeclKind::kParam) return std::nullopt;
                if (!param_value_[d->index].has_value()) return absl::AbortedError("reported");
                return *param_value_[d->index];
              });
          if (!file.ok() && file.status().code() != absl::StatusCode::kAborted) {
            Error(here.Field("file"), std::string(file.status().message()));
          }
        }
        break;
      case ir::Workload::STAGES:
      case ir::Workload::EXACTLY: {
        const bool stages = w->process() == ir::Workload::STAGES;
        const int n = w->args_size();
        if (stages ? (n == 0 || n % 2 != 0) : n != 2) {
          Error(here.Field("args"),
                stages ? absl::StrCat("stages(rate, duration, ...) needs pairs of a rate and a duration, not ",
                                      n, n == 1 ? " argument" : " arguments")
                       : absl::StrCat("exactly(n, T) needs 2 arguments, not ", n));
          break;
        }
        for (int k = 0; k < n; ++k) {
          Place arg = here.Field("args").Item(k, nullptr);
          if (!ResolveExpr(w->mutable_args(k), arg, constant)) continue;
          std::optional<double> v = Evaluate(w->args(k), arg);
          if (!v.has_value()) continue;
          std::string need;
          if (stages && k % 2 == 0 && !(std::isfinite(*v) && *v >= 0)) {
            need = "stages(rate, duration, ...) needs each rate finite and at least 0";
          } else if (stages && k % 2 == 1 && !(std::isfinite(*v) && *v > 0)) {
            need = "stages(rate, duration, ...) needs each duration finite and above 0";
          } else if (!stages && k == 0 && !(IsWhole(*v) && *v >= 0 && *v <= kMaxExactly)) {
            need = absl::StrCat("exactly(n, T) needs a whole number n from 0 to ", kMaxExactly);
          } else if (!stages && k == 1 && !(std::isfinite(*v) && *v > 0)) {
            need = "exactly(n, T) needs a finite time T above 0";
          }
          if (!need.empty()) Error(arg.At(w->args(k).loc()), absl::StrCat(need, ", not ", FormatNumber(*v)));
        }
        if (w->has_arg()) Error(at, absl::StrCat(stages ? "stages" : "exactly", " takes its arguments in 'args'"));
        break;
      }
      default:
        Error(here, absl::StrCat(DescribeWorkload(w->name()), " has an unknown arrival process (",
                                 w->process(), ")"));
        break;
    }
    if (w->args_size() > 0 && w->process() != ir::Workload::STAGES &&
        w->process() != ir::Workload::EXACTLY) {
      Error(here.Field("args"), "only stages and exactly take a list of arguments");
    }
    if (!w->file().empty() && w->process() != ir::Workload::TRACE) {
      Error(here.Field("file"), "only a trace workload reads a file");
    }
    if (w->has_limit()) {
      Place lim = here.Field("limit");
      if (ResolveExpr(w->mutable_limit(), lim, constant)) {
        std::optional<double> v = Evaluate(w->limit(), lim);
        if (v.has_value() && !(IsWhole(*v) && *v >= 0)) {
          Error(lim.At(w->limit().loc()),
                absl::StrCat("the limit must be a whole number at least 0, not ",
                             FormatNumber(*v)));
        }
      }
    }
  }
}

void Linker::CheckRunSettings() {
  Scope constant;
  if (!program_->has_run()) {
    // Nothing to point at: the whole input lacks it.
    Error(Place{}, "the program has no run block: run { horizon …; }");
    return;
  }
  ir::RunSettings* run = program_->mutable_run();
  Place here = Place{}.Field("run", &run->loc());
  // The horizon, when it is valid: the warmup must end before it.
  double horizon = 0;
  bool horizon_ok = false;
  Place at = here.Field("horizon");
  // Without a horizon the run goes on until no event is left, which every
  // workload must reach: a batch, a trace, or a limit.
  // (A workload without a known process, refused on its own, cannot say.)
  const ir::Workload* endless = nullptr;
  bool unknown = false;
  for (const ir::Workload& w : program_->workload()) {
    unknown |= w.process() == ir::Workload::PROCESS_UNSPECIFIED ||
               !ir::Workload::Process_IsValid(w.process());
    bool finite = w.process() == ir::Workload::BATCH || w.process() == ir::Workload::TRACE ||
                  w.process() == ir::Workload::STAGES || w.process() == ir::Workload::EXACTLY ||
                  w.has_limit();
    if (!finite && endless == nullptr) endless = &w;
  }
  if (!run->has_horizon() && endless == nullptr && !unknown) {
    if (run->has_sample()) {
      Error(here.Field("sample").At(run->sample().loc()),
            "a time series needs a horizon: give the run block one");
    }
  } else if (!run->has_horizon() && !unknown) {
    Error(at, absl::StrCat("the run block has no horizon, and ", DescribeWorkload(endless->name()),
                           " never stops arriving (give a horizon, or the workload a limit)"));
  } else if (Required(IF_PRESENT(run, horizon), at, constant,
                      "the run block has no horizon")) {
    std::optional<double> v = Evaluate(run->horizon(), at);
    if (v.has_value() && !(std::isfinite(*v) && *v > 0)) {
      Error(at.At(run->horizon().loc()),
            absl::StrCat("the horizon must be a finite number above 0, not ", FormatNumber(*v)));
    } else if (v.has_value()) {
      horizon = *v;
      horizon_ok = true;
    }
  }
  auto setting = [&](absl::string_view word, ir::Expr* e) -> std::optional<double> {
    if (e == nullptr) return std::nullopt;
    Place at = here.Field(word);
    if (!ResolveExpr(e, at, constant)) return std::nullopt;
    return Evaluate(*e, at);
  };
  if (auto v = setting("warmup", IF_PRESENT(run, warmup))) {
    Place w = here.Field("warmup").At(run->warmup().loc());
    if (!(*v >= 0)) {
      Error(w, absl::StrCat("the warmup must be at least 0, not ", FormatNumber(*v)));
    } else if (horizon_ok && !(*v < horizon)) {
      Error(w, absl::StrCat("the warmup (", FormatNumber(*v),
                            ") must end before the horizon (", FormatNumber(horizon), ")"));
    }
  }
  if (auto v = setting("replications", IF_PRESENT(run, replications))) {
    if (!(IsWhole(*v) && *v >= 1 && *v <= kMaxReplications)) {
      Error(here.Field("replications").At(run->replications().loc()),
            absl::StrCat("replications must be a whole number from 1 to ", kMaxReplications,
                         ", not ", FormatNumber(*v)));
    }
  }
  if (auto v = setting("sample", IF_PRESENT(run, sample))) {
    if (!(std::isfinite(*v) && *v > 0)) {
      Error(here.Field("sample").At(run->sample().loc()),
            absl::StrCat("the sample interval must be a finite number above 0, not ",
                         FormatNumber(*v)));
    }
  }
  if (auto v = setting("gpus", IF_PRESENT(run, gpus))) {
    if (!(IsWhole(*v) && *v >= 1 && *v <= kMaxGpus)) {
      Error(here.Field("gpus").At(run->gpus().loc()),
            absl::StrCat("gpus must be a whole number from 1 to ", kMaxGpus, ", not ",
                         FormatNumber(*v)));
    }
  }
  if (auto v = setting("seed", IF_PRESENT(run, seed))) {
    if (!(IsWhole(*v) && *v >= 0 && *v <= kMaxSeed)) {
      Error(here.Field("seed").At(run->seed().loc()),
            absl::StrCat("the seed must be a whole number from 0 to 2^53, not ",
                         FormatNumber(*v)));
    }
  }
}

std::vector<std::string> Linker::ResolveLets(ir::Stage* s, const Place& here, const Scope& rate) {
  std::vector<std::string> names;
  for (int i = 0; i < s->let_size(); ++i) {
    ir::Let* let = s->mutable_let(i);
    Place at = here.Field("let").Item(i, &let->loc());
    Scope scope = rate;
    scope.lets = &names;  // the ones before it
    Required(IF_PRESENT(let, value), at.Field("value"), scope, "the let has no value");
    const std::string& name = let->name();
    if (name.empty()) {
      Error(at, "the let has no name");
    } else if (LookupBuiltinVariable(name) != nullptr) {
      Error(at, absl::StrCat("'", name, "' is a built-in variable; a let cannot take its name"));
    } else if (const Decl* d = Find(name)) {
      Error(at, absl::StrCat("'", name, "' is a ", DeclWord(d->kind),
                             "; a let cannot take a declaration's name"));
    } else {
      for (int j = 0; j < i; ++j) {
        if (s->let(j).name() != name) continue;
        Error(at, absl::StrCat("'", name, "' is defined twice in stage '", s->name(),
                               "' (first at ", WhereIs(here.Field("let").Item(j, &s->let(j).loc())),
                               ")"));
        break;
      }
    }
    names.push_back(name);  // in step with the lets' indices, which LOCAL refs hold
  }
  return names;
}

}  // namespace linker
}  // namespace serq
