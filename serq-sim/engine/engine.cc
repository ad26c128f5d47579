#include "serq-sim/engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ctime>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/json.h"
#include "serq-sim/events/clock.h"

namespace serq::sim {
namespace {

// What shortens a run, for the advice of a limit's error: its horizon, or,
// in a run without one (a drained replay, which ends when its last session
// does), its arrivals.
std::string ShorterRun(double horizon) {
  return std::isfinite(horizon) ? "lower the horizon" : "give the run fewer arrivals or a horizon";
}

// The IR path of a stage's phi or tau, built only for a message.
std::string RatePath(uint32_t decl) { return absl::StrCat("stage[", decl, "].rate"); }

}  // namespace

Engine::Engine(const Model& model, uint32_t replication, const EngineOptions& options,
               Diagnostics* diags)
    : StageHost(&now_, &now_ticks_),
      PoolHost(&now_),
      model_(model),
      replication_(replication),
      options_(options),
      diags_(diags),
      stream_seed_(StreamSeed(model.seed, replication)),
      random_(stream_seed_),
      evaluator_(&model.exprs, &model.key_names, &random_, this),
      pools_(this) {
  if (model.has_shared) {
    shared_ = std::make_unique<SharedStages>(model.share, model.station_decl.size());
  }
  for (uint32_t id = 0; id < model.station_decl.size(); ++id) {
    const StageDecl& d = model.stages[model.station_decl[id]];
    if (d.shared) {
      stations_.push_back(shared_->AddStation(id, d.phi));
    } else if (d.kind == ir::Stage::PS) {
      stations_.push_back(MakePsStation(id, d.phi_constant, d.phi));
    } else if (d.kind == ir::Stage::FIFO) {
      stations_.push_back(MakeFifoStation(id, d.phi_constant, d.phi));
    } else if (d.kind == ir::Stage::STEP) {
      // --trace's step events carry every figure (serq fit-steps reads
      // them), so a traced run computes them whether its tau reads them or not.
      stations_.push_back(
          MakeStepStation(id, d.seqs, d.tokens, d.preempt, options_.lanes,
                          d.figures || options_.trace != nullptr,
                          StepRules{d.chunk, d.reserve_prompt, d.async_scheduling,
                                    d.recompute_last}));
    } else {
      stations_.push_back(MakeDelayStation(id));
    }
  }
  // price(S)'s window is kept only where a program reads it.
  const bool reads_price = std::any_of(model.exprs.nodes.begin(), model.exprs.nodes.end(), [](const Node& n) {
    return n.op == Op::kStageState && n.fn == Function::kPrice;
  });
  for (auto& station : stations_) station->set_keep_price(reads_price);
  // `lockstep`: each such stage's elements step together.
  for (uint32_t decl = 0; decl < model.stages.size(); ++decl) {
    if (!model.stages[decl].lockstep || model.stages[decl].kind != ir::Stage::STEP) continue;
    std::vector<Station*> elements;
    for (uint32_t id = 0; id < model.station_decl.size(); ++id) {
      if (model.station_decl[id] == decl) elements.push_back(stations_[id].get());
    }
    JoinLockstep(elements);
  }
  for (uint32_t id = 0; id < model.pool_decl.size(); ++id) {
    const PoolDecl& d = model.pools[model.pool_decl[id]];
    pools_.AddPool(d.cap, !d.evict_by.empty(), d.cache, d.block);
  }
  watchers_.resize(model.pool_decl.size());
  for (const ChooseSite& c : model.chooses) {
    copies_.push_back(c.every > 0 ? std::make_unique<ChooseCopy>(c, this) : nullptr);
    if (c.every > 0) next_copy_ = 0;  // the first event takes the copy of time 0
  }
  for (const RunSite& r : model.runs) {
    const StageDecl& d = model.stages[r.decl];
    plain_runs_.push_back(model.exprs.refs[r.stage].index < 0 && r.also.empty() && !r.shared &&
                          r.growing < 0 && d.serve_by.empty() && d.kind != ir::Stage::STEP);
  }
  horizon_ = std::max(model.warmup, std::min(model.horizon, options.stop_at));
  pool_freed_at_.assign(model.pool_decl.size(), 0);
  blocked_since_.assign(stations_.size(), -1);
  arrived_.assign(model.sessions.size(), 0);
  ended_.assign(model.sessions.size(), 0);
  arrived_window_.assign(model.sessions.size(), 0);
  ended_window_.assign(model.sessions.size(), 0);
  prefills_window_.assign(model.sessions.size(), 0);
  prefill_tokens_window_.assign(model.sessions.size(), 0);
  decode_tokens_window_.assign(model.sessions.size(), 0);
  in_progress_.assign(model.sessions.size(), TimeAverage());
  last_arrival_.assign(model.sessions.size(), -1);
  in_progress_last_arrival_.assign(model.sessions.size(), 0);
  present_start_.assign(stations_.size(), 0);
  observations_.resize(model.observations.size());
  if (model.sample > 0) series_ = std::make_unique<SeriesRecorder>(model);
  if (options.trace) pools_.NotifyChanges();
}

Engine::~Engine() = default;

std::string Engine::StationName(uint32_t station) const {
  const StageDecl& d = model_.stages[model_.station_decl[station]];
  return d.array ? absl::StrCat(d.name, "[", station - d.base, "]") : d.name;
}

std::string Engine::WorkloadName(uint32_t workload) const {
  const std::string& name = model_.workloads[workload].name;
  return name.empty() ? "the workload" : absl::StrCat("workload '", name, "'");
}

std::string Engine::PoolName(uint32_t pool) const {
  const PoolDecl& d = model_.pools[model_.pool_decl[pool]];
  return d.array ? absl::StrCat(d.name, "[", pool - d.base, "]") : d.name;
}

// ------------------------------------------------------------------ errors

void Engine::Fail(uint32_t line, uint32_t column, const std::string& path,
                  const std::string& message) {
  if (failed_) return;
  failed_ = true;
  std::string text = absl::StrCat("at t=", now_);
  if (has_current_) absl::StrAppend(&text, ", session ", sessions_[current_].serial);
  absl::StrAppend(&text, ": ", message);
  if (line != 0) {
    diags_->Error(line, column, std::move(text));
  } else {
    diags_->ErrorAtPath(path, std::move(text));
  }
}

void Engine::FailAt(uint32_t statement, const std::string& message) {
  const StatementInfo& info = model_.statements[statement];
  Fail(info.loc.line(), info.loc.column(), info.path, message);
}

void Engine::FailEval(uint32_t statement) {
  const EvalError& e = evaluator_.error();
  const StatementInfo& info = model_.statements[statement];
  if (e.line != 0) {
    Fail(e.line, e.column, info.path, e.message);
  } else {
    Fail(info.loc.line(), info.loc.column(), info.path, e.message);
  }
}

void Engine::FailEvalAt(const std::string& path) {
  const EvalError& e = evaluator_.error();
  Fail(e.line, e.column, path, e.message);
}

// ------------------------------------------------------------------ hosts

void Engine::Schedule(Ticks time, uint32_t station, uint32_t tag, bool end_of_instant) {
  events_.Push(time, kStation, station, tag, end_of_instant);
}

// Inline in Phi and Tau: a step evaluates tau, the call would be a good
// part of it.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool Engine::EvalRate(
    uint32_t station, EvalFrame& frame, absl::string_view what,
    absl::FunctionRef<std::string()> with, double* rate) {
  const StageDecl& d = model_.stages[model_.station_decl[station]];
  if (ABSL_PREDICT_FALSE(!d.lets.empty()) && !EvalLets(station, &frame)) return false;
  uint32_t node = d.phi_node;
  double v = evaluator_.Eval(node, frame);
  if (ABSL_PREDICT_FALSE(evaluator_.failed() || !(v > 0))) {
    return RateFailed(station, node, v, what, with);
  }
  *rate = v;
  return true;
}

// A rate in parts (`let`): each part in order, into rate_locals_, which
// the parts after it and the rate read.
ABSL_ATTRIBUTE_NOINLINE bool Engine::EvalLets(uint32_t station, EvalFrame* frame) {
  uint32_t decl = model_.station_decl[station];
  const std::vector<uint32_t>& lets = model_.stages[decl].lets;
  rate_locals_.resize(lets.size());
  frame->locals = rate_locals_.data();
  for (size_t i = 0; i < lets.size(); ++i) {
    rate_locals_[i] = evaluator_.Eval(lets[i], *frame);
    if (evaluator_.failed()) {
      FailEvalAt(absl::StrCat(RatePath(decl), ".let[", i, "]"));
      return false;
    }
  }
  return true;
}

ABSL_ATTRIBUTE_NOINLINE bool Engine::RateFailed(uint32_t station, uint32_t node, double v,
                                                absl::string_view what,
                                                absl::FunctionRef<std::string()> with) {
  uint32_t decl = model_.station_decl[station];
  if (evaluator_.failed()) {
    FailEvalAt(RatePath(decl));
    return false;
  }
  const Node& n = model_.exprs.nodes[node];
  Fail(n.line, n.column, RatePath(decl),
       absl::StrCat(what, " of '", StationName(station), "' is ", v, " with ", with(),
                    "; it must be > 0"));
  return false;
}

bool Engine::Phi(uint32_t station, double present, double* phi) {
  EvalFrame frame;
  frame.now = now_;
  frame.present = present;
  return EvalRate(station, frame, "phi", [&] { return absl::StrCat("present = ", present); },
                  phi);
}

namespace {

std::string StepText(const StepVars& vars) {
  return absl::StrCat("tokens = ", vars.tokens, ", prefill = ", vars.prefill,
                      ", decode = ", vars.decode, ", seqs = ", vars.seqs,
                      ", context = ", vars.context);
}

}  // namespace

bool Engine::Tau(uint32_t station, const StepVars& vars, double* tau) {
  blocked_since_[station] = -1;  // a step: the station is not blocked
  EvalFrame& frame = tau_frame_;
  frame.now = now_;
  frame.step = &vars;
  double v = 0;  // set when EvalRate succeeds (GCC cannot see it once inlined)
  const bool ok = EvalRate(station, frame, "tau", [&] { return StepText(vars); }, &v);
  frame.step = &kNoStep;
  if (!ok) return false;
  // A step must move the clock by a tick at least (a nanosecond; ToTicks
  // rounds to nearest): a shorter one, NaN or negative would step forever
  // at one instant, found only by the same-instant guard's 10^8 events.
  if (ABSL_PREDICT_FALSE(!(v > 0) || ToTicks(v) < 1)) return TauTooSmall(station, v, vars);
  if (ABSL_PREDICT_FALSE(options_.trace != nullptr)) LogStep(station, v, vars);
  *tau = v;
  return true;
}

ABSL_ATTRIBUTE_NOINLINE bool Engine::TauTooSmall(uint32_t station, double v,
                                                 const StepVars& vars) {
  uint32_t decl = model_.station_decl[station];
  const Node& n = model_.exprs.nodes[model_.stages[decl].phi_node];
  Fail(n.line, n.column, RatePath(decl),
       absl::StrCat("tau of '", StationName(station), "' is ", v, " with ", StepText(vars),
                    ", too small to advance the clock (whole nanoseconds) from t=", now_));
  return false;
}

ABSL_ATTRIBUTE_NOINLINE void Engine::LogStep(uint32_t station, double v, const StepVars& vars) {
  Log(absl::StrCat(
      R"({"t":)", JsonNumber(now_), R"(,"event":"step","stage":")", StationName(station),
      R"(","seqs":)", JsonNumber(vars.seqs), R"(,"tokens":)", JsonNumber(vars.tokens),
      R"(,"prefill":)", JsonNumber(vars.prefill), R"(,"decode":)", JsonNumber(vars.decode),
      R"(,"context":)", JsonNumber(vars.context), R"(,"attention":)", JsonNumber(vars.attention),
      R"(,"prefill_jobs":)", JsonNumber(vars.prefill_jobs),
      R"(,"prefill_kv":)", JsonNumber(vars.prefill_kv),
      R"(,"prefill_kv_max":)", JsonNumber(vars.prefill_kv_max),
      R"(,"prefill_kv_min":)", JsonNumber(vars.prefill_kv_min),
      R"(,"prefill_context":)", JsonNumber(vars.prefill_context),
      R"(,"prefill_context_max":)", JsonNumber(vars.prefill_context_max),
      R"(,"prefill_context_min":)", JsonNumber(vars.prefill_context_min),
      R"(,"decode_kv":)", JsonNumber(vars.decode_kv),
      R"(,"decode_kv_max":)", JsonNumber(vars.decode_kv_max),
      R"(,"decode_kv_min":)", JsonNumber(vars.decode_kv_min),
      R"(,"decode_context":)", JsonNumber(vars.decode_context),
      R"(,"decode_context_max":)", JsonNumber(vars.decode_context_max),
      R"(,"decode_context_min":)", JsonNumber(vars.decode_context_min),
      R"(,"tau":)", JsonNumber(v), "}"));
}

bool Engine::GrowthWithinCap(Session& s, SessionId session, double units) {
  const Hold& h = pools_.hold(s.grow_hold);
  double size = pools_.SizeAfterLoad(s.grow_hold, units);
  if (size <= pools_.cap(h.pool)) return true;
  SessionId saved = current_;
  bool had = has_current_;
  current_ = session;
  has_current_ = true;
  if (s.run_mode == ir::Statement::Run::PREFILL) {
    FailAt(s.wait_statement,
           absl::StrCat("the prefill run's next chunk of ", units, " tokens would make its hold on '",
                        PoolName(h.pool), "' ", size, " units, larger than its cap ",
                        pools_.cap(h.pool)));
  } else {
    FailAt(s.wait_statement,
           absl::StrCat("the decode run's next token would make its hold on '", PoolName(h.pool),
                        "' ", size, " units, larger than its cap ", pools_.cap(h.pool)));
  }
  current_ = saved;
  has_current_ = had;
  return false;
}

StageHost::Growth Engine::Grow(SessionId session, uint32_t hold, double units) {
  if (pools_.GrowFast(hold, units, now_, /*behind_line=*/true)) return Growth::kGranted;
  return GrowSlow(session, units);
}

// Out of line, so that the per-token path above has no frame to set up.
StageHost::Growth Engine::GrowSlow(SessionId session, double units) {
  Session& s = sessions_[session];
  if (!GrowthWithinCap(s, session, units)) return Growth::kFailed;
  if (pools_.Load(s.grow_hold, units)) return failed() ? Growth::kFailed : Growth::kGranted;
  if (failed()) return Growth::kFailed;
  s.state = SessionState::kStalled;
  s.wait_since = now_;
  if (options_.trace) LogSession("stall", s, "pool", PoolName(pools_.hold(s.grow_hold).pool));
  return Growth::kStalled;
}

StageHost::Growth Engine::GrowNow(SessionId session, uint32_t hold, double units) {
  if (pools_.GrowFast(hold, units, now_, /*behind_line=*/false)) return Growth::kGranted;
  return GrowNowSlow(session, units);
}

StageHost::Growth Engine::GrowNowSlow(SessionId session, double units) {
  Session& s = sessions_[session];
  if (!GrowthWithinCap(s, session, units)) return Growth::kFailed;
  bool granted = pools_.LoadNow(s.grow_hold, units);
  if (failed()) return Growth::kFailed;
  return granted ? Growth::kGranted : Growth::kStalled;
}

bool Engine::PreemptKey(uint32_t station, SessionId session, double since,
                        std::vector<double>* key) {
  uint32_t decl = model_.station_decl[station];
  const StageDecl& d = model_.stages[decl];
  EvalFrame frame = FrameOf(sessions_[session]);
  frame.since = since;
  key->clear();
  for (uint32_t node : d.preempt_by) {
    key->push_back(evaluator_.Eval(node, frame));
    if (evaluator_.failed()) {
      FailEvalAt(absl::StrCat("stage[", decl, "].preemptBy"));
      return false;
    }
  }
  return true;
}

void Engine::Preempt(uint32_t station, SessionId victim, SessionId cause, double content) {
  Session& v = sessions_[victim];
  if (options_.trace) {
    Log(absl::StrFormat(
        R"({"t":%s,"event":"preempt","stage":"%s","session":%d,"by":%d,"pool":"%s","content":%s})",
        JsonNumber(now_), StationName(station), v.serial, sessions_[cause].serial,
        PoolName(pools_.hold(v.grow_hold).pool), JsonNumber(content)));
  }
  pools_.EmptyHold(v.grow_hold);
}

void Engine::WatchPool(uint32_t pool, uint32_t station) {
  if (blocked_since_[station] < 0) blocked_since_[station] = now_;
  std::vector<uint32_t>& w = watchers_[pool];
  if (std::find(w.begin(), w.end(), station) == w.end()) w.push_back(station);
}

void Engine::Freed(uint32_t pool) {
  pool_freed_at_[pool] = now_;
  if (watchers_[pool].empty()) return;
  std::vector<uint32_t> stations;
  stations.swap(watchers_[pool]);
  for (uint32_t station : stations) stations_[station]->UnitsFreed(*this);
}

void Engine::Tokens(absl::Span<const SessionId> sessions, absl::Span<const TokenRun> runs) {
  if (options_.trace) {
    const SessionId* session = sessions.data();
    for (const TokenRun& run : runs) {
      for (uint32_t i = 0; i < run.count; ++i) LogToken(*session++, run);
    }
  }
  if (series_) {
    for (const TokenRun& run : runs) series_->Observe(run.observation, run.gap, run.count);
  }
  if (now_ < model_.warmup) return;
  // The recorder joins a run to the one before when they are one.
  for (const TokenRun& run : runs) observations_[run.observation].AddRun(run.gap, run.count);
}

// Out of Tokens' way: recording a step's tokens stays a leaf's work.
void Engine::LogToken(SessionId session, const TokenRun& run) {
  LogSession("observe", sessions_[session], "name", model_.observations[run.observation], "value",
             run.gap);
}

bool Engine::EvictKey(const Lease& lease, std::vector<double>* key) {
  uint32_t decl = model_.pool_decl[lease.pool];
  const PoolDecl& d = model_.pools[decl];
  const Session& owner = sessions_[lease.owner];
  EvalFrame frame = FrameOf(owner);
  frame.since = lease.since;
  key->clear();
  for (uint32_t node : d.evict_by) {
    key->push_back(evaluator_.Eval(node, frame));
    if (evaluator_.failed()) {
      FailEvalAt(absl::StrCat("pool[", decl, "].evictBy"));
      return false;
    }
  }
  return true;
}

void Engine::Wake(SessionId session) {
  Session& s = sessions_[session];
  if (s.state == SessionState::kStalled) {
    // A decode job's unit: its step station takes it up; the session stays
    // in its run.
    s.state = SessionState::kInRun;
    if (options_.trace) LogSession("grow", s);
    stations_[s.run_stations[0]]->GrowthGranted(*this, session);
    return;
  }
  events_.Push(now_ticks_, kResume, session, 0);
}

void Engine::ScheduleExpiry(double duration, LeaseId lease, uint32_t generation) {
  events_.Push(AddTicks(now_ticks_, ToTicks(duration)), kExpiry, lease, generation);
}

void Engine::LeaseEnded(SessionId owner) {
  Session& s = sessions_[owner];
  --s.live_leases;
  --live_leases_;
  if (s.state == SessionState::kEnded && s.live_leases == 0) FreeSession(owner);
}

double Engine::StageState(Function f, uint32_t station) {
  const Station& s = *stations_[station];
  switch (f) {
    case Function::kQueue: return s.Queue();
    case Function::kBusy: return s.Busy();
    case Function::kWork: return s.Work(now_);
    case Function::kPrice: return s.Price();
    case Function::kRunning: return s.Running();
    case Function::kWaiting: return s.Waiting();
    default: return 0;
  }
}

double Engine::PoolState(Function f, uint32_t pool) {
  switch (f) {
    case Function::kUsed: return pools_.used(pool);
    case Function::kFree: return pools_.free(pool);
    case Function::kCap: return pools_.cap(pool);
    case Function::kCached: return CacheState(true, pool);
    case Function::kHit: return CacheState(false, pool);
    case Function::kHeld: {
      if (!has_current_) return 0;
      const Session& s = sessions_[current_];
      double held = 0;
      for (HoldId h : s.holds) {
        const Hold& hold = pools_.hold(h);
        if (hold.pool == pool && hold.state == Hold::State::kActive) held += hold.size;
      }
      for (const LeaseRef& ref : s.leases) {
        if (ref.pool == pool && pools_.LeaseAlive(ref)) held += pools_.lease(ref.id).units;
      }
      return held;
    }
    default: return 0;
  }
}

bool Engine::RenewalGap(uint32_t workload, uint32_t node, double* gap) {
  EvalFrame frame;
  frame.now = now_;
  double v = evaluator_.Eval(node, frame);
  if (evaluator_.failed()) {
    FailEvalAt(absl::StrCat(model_.workloads[workload].path, ".arg"));
    return false;
  }
  if (!(v >= 0)) {
    const Node& n = model_.exprs.nodes[node];
    Fail(n.line, n.column, absl::StrCat(model_.workloads[workload].path, ".arg"),
         absl::StrCat("renewal gap ", v, " is negative; a gap must be >= 0"));
    return false;
  }
  *gap = v;
  return true;
}

// ------------------------------------------------------------------ the loop

void Engine::RefreshCopies(Ticks now) {
  next_copy_ = kNever;
  for (const auto& copy : copies_) {
    if (copy == nullptr) continue;
    if (now >= copy->next()) copy->Refresh(now);
    next_copy_ = std::min(next_copy_, copy->next());
  }
}

bool Engine::Run(results::Replication* out) {
  progress_.emplace(options_.progress);
  std::vector<const ArrivalPlan*> plans;
  for (const WorkloadDecl& w : model_.workloads) plans.push_back(&w.plan);
  if (!arrivals_.Start(plans, model_.horizon, &random_, this)) return false;
  ScheduleNextArrival();
  // The loop's rare work is behind two comparisons an event: one with the
  // time it is next due (the series' next point, the window's start, the
  // next checkpoint: only this work changes them), one with the budget.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double watch_from = -kInf;
  // The tick from which an event may be due for that work: one before
  // watch_from's nearest, so that rounding never skips it (the work itself
  // compares seconds).
  Ticks watch_ticks = kMinTicks;
  const uint64_t budget =
      options_.limits.max_events != 0 ? options_.limits.max_events : UINT64_MAX;
  // A second pass over a stall runs the events up to its time, included.
  const Ticks stop = std::isfinite(options_.stop_at) ? AddTicks(ToTicks(options_.stop_at), 1)
                                                     : ToTicks(model_.horizon);
  while (!events_.empty()) {
    const Ticks t = events_.Top().time;
    // Between instants (every end-of-instant step has started): the
    // sessions are as the instant left them.
    if (ABSL_PREDICT_FALSE(stall_check_due_) && t > now_ticks_) {
      stall_check_due_ = false;
      if (StallStops(out)) return false;
    }
    if (t >= stop) {
      if (ABSL_PREDICT_FALSE(t == kNever && stop == kNever) && PastTheClock()) return false;
      break;
    }
    if (ABSL_PREDICT_FALSE(t >= watch_ticks)) {
      // A choose's copy is of the state the events before its instant left.
      if (t >= next_copy_) RefreshCopies(t);
      const double ts = ToSeconds(t);
      if (series_ && ts > series_->next()) {
        series_->RecordBefore(ts, false, stations_, pools_, arrived_, ended_);
      }
      if (!window_started_ && ts >= model_.warmup) StartWindow(model_.warmup);
      while (CheckpointDue(ts)) Checkpoint();
      watch_from = std::min({series_ ? series_->next() : kInf,
                             window_started_ ? kInf : model_.warmup,
                             checkpoints_ < kCheckpoints ? CheckpointTime(checkpoints_) : kInf});
      watch_ticks = watch_from == -kInf ? kMinTicks
                    : ToTicks(watch_from) == kNever ? kNever
                                                    : ToTicks(watch_from) - 1;
      watch_ticks = std::min(watch_ticks, next_copy_);
    }
    if (ABSL_PREDICT_FALSE(events_processed_ >= budget)) {
      // An event is due before the horizon but the budget is spent.
      FailLimit(events_.Top(),
                absl::StrCat("the replication has processed ", events_processed_,
                             " events, the --max-events limit, and has not ",
                             std::isfinite(model_.horizon)
                                 ? absl::StrCat("reached the horizon ", model_.horizon)
                                 : std::string("drained (the run has no horizon: it ends when its last "
                                               "session does)"),
                             " (raise --max-events, or ", ShorterRun(model_.horizon), ")"));
      return false;
    }
    Event e = events_.Pop();
    if (e.time != now_ticks_ || events_processed_ == 0) {
      now_ticks_ = e.time;
      now_ = ToSeconds(e.time);
      events_this_instant_ = 0;
    } else if (++events_this_instant_ > options_.limits.events_per_instant) {
      // Zero gaps for ever (renewal(0), a trace of one instant repeated...)
      // would never reach the horizon: an error, not a hang.
      FailLimit(e, absl::StrCat("more than ", options_.limits.events_per_instant,
                                " events at one instant: simulated time does not advance"));
      return false;
    }
    if (Dispatch(e)) ++events_processed_;
    for (uint32_t station : deferred_) stations_[station]->Flush(*this);
    deferred_.clear();
    if (events_.size() > compact_at_) CompactEvents();
    if (options_.check_pools && !failed()) {
      std::string wrong = pools_.CheckInvariants();
      if (!wrong.empty()) Fail(0, 0, "", absl::StrCat("pool invariant broken: ", wrong));
      for (size_t i = 0; i < stations_.size() && wrong.empty(); ++i) {
        wrong = stations_[i]->CheckInvariants(*this);
        if (!wrong.empty()) Fail(0, 0, "", absl::StrCat("station invariant broken: ", wrong));
      }
    }
    if (failed()) {
      if (!failed_) FailEvalAt("");  // an evaluator error nobody reported
      progress_->Clear();
      return false;
    }
    if ((events_processed_ & 0xffff) == 0) {
      stall_check_due_ = !std::isfinite(options_.stop_at);
      Progress();  // nothing unless a line is due (never with no progress)
      // A trace that cannot be written stops the run (Simulate says why).
      bool stop = options_.trace != nullptr && options_.trace->fail();
      if (stop || !WithinRunLimits() || !OnCourse()) {
        progress_->Clear();
        return false;
      }
    }
  }
  progress_->Clear();
  if (!window_started_) StartWindow(model_.warmup);
  while (checkpoints_ < kCheckpoints) Checkpoint();
  // A stale event (the expiry of a lease released early) is
  // no event left: it must not hide a deadlock.
  CompactEvents();
  if (std::isfinite(options_.stop_at)) {
    // The second pass: the stall the first found must be here.
    now_ = options_.stop_at;
    if (!StallConfirmed()) return false;
    stalled_at_ = now_;
  } else {
    // A stall ends the run, dated when it began, whether events are left
    // (arrivals, other stages) or not.
    if (StallStops(out)) return false;
    if (events_.empty() && !ReportDeadlock()) return false;
  }
  if (series_) series_->RecordBefore(horizon_, true, stations_, pools_, arrived_, ended_);
  // A run without a horizon ends at its last event (which is now_), and
  // its window is empty when that is before the warmup.
  if (!model_.drain) now_ = horizon_;
  now_ = std::max(now_, model_.warmup);
  Report(out);
  return stalled_at_ < 0;
}

// An event at the clock's end with no horizon before it: a service,
// delay, lease or gap too long for the clock, which would otherwise end the
// run there, its sessions in progress, as if it had drained. Out of line:
// the event loop's code stays as it was.
ABSL_ATTRIBUTE_NOINLINE bool Engine::PastTheClock() {
  CompactEvents();  // a stale expiry is no event
  if (events_.empty() || events_.Top().time != kNever) return false;
  FailLimit(events_.Top(), "the next event is past the end of the simulated clock (2^63 ns, "
                           "9223372036.854775808 s): a service, delay, lease or gap too long to "
                           "simulate, and no horizon before it");
  return true;
}

void Engine::CompactEvents() {
  events_.RemoveIf([this](const Event& e) {
    return e.kind() == kExpiry && !pools_.ExpiryCurrent(e.target, e.tag);
  });
  compact_at_ = std::max<size_t>(256, 2 * events_.size());
}

// Inline in Run, its one caller: an event's dispatch is a good part of a
// short event (an M/M/1 arrival or completion).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool Engine::Dispatch(const Event& e) {
  switch (e.kind()) {
    case kArrival:
      Arrive(e.target);
      return true;
    case kStation: {
      done_.clear();
      bool live = shared_ && e.target == shared_->target()
                      ? shared_->OnEvent(*this, e.tag, &done_)
                      : stations_[e.target]->OnEvent(*this, e.tag, &done_);
      if (live && !done_.empty()) Complete(done_);  // a step's start completes nothing
      return live;
    }
    case kResume: {
      Session& s = sessions_[e.target];
      if (options_.trace) LogResume(s);
      s.state = SessionState::kRunning;
      Execute(e.target);
      return true;
    }
    case kExpiry:
      return pools_.Expire(e.target, e.tag);
    default:
      return false;
  }
}

void Engine::Arrive(uint32_t workload) {
  if (!SessionAllowed(workload)) return;
  const double* row;
  if (!arrivals_.Take(workload, &row)) return;
  ScheduleNextArrival();
  Spawn(workload, row);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void Engine::ScheduleNextArrival() {
  double time;
  uint32_t workload;
  // The one place an arrival's time (seconds, from the arrival process or
  // a trace) becomes the clock's: its nearest tick.
  if (arrivals_.Next(&time, &workload)) events_.Push(ToTicks(time), kArrival, workload, 0);
}

void Engine::Complete(const std::vector<SessionId>& done) {
  // Every station of the run first, then the sessions in completion order:
  // a session resumed may start a run on the same stations at once.
  for (size_t i = 0; i < done.size(); ++i) {
    Session& s = sessions_[done[i]];
    double service = now_ - s.service_start;
    for (uint32_t station : s.run_stations) stations_[station]->RecordDone(service);
    if (s.run_mode != ir::Statement::Run::PLAIN) {
      const double tokens = NewTokens(s);
      if (window_started_) CountTokens(s, tokens);
      if (series_) series_->Tokens(s.decl, s.run_mode == ir::Statement::Run::PREFILL, tokens);
    }
    if (options_.trace) LogStation("done", s);
  }
  for (size_t i = 0; i < done.size(); ++i) {
    sessions_[done[i]].state = SessionState::kRunning;
    Execute(done[i]);
    if (failed()) return;
  }
}

// A completed prefill or decode run's tokens for the report's counts. A
// prefill samples the first output token (the report counts one a
// prefill). A decode on another stage element than the session's prefill
// before it (P/D: vLLM's decode engine samples the first token again from
// the KV it received, and the prefill engine's is not delivered) makes
// that token again: its first token is not a new one.
double Engine::NewTokens(Session& s) {
  const uint32_t station = s.run_stations.empty() ? Session::kNoPrefill : s.run_stations[0];
  if (s.run_mode == ir::Statement::Run::PREFILL) {
    s.prefill_station = station;
    return s.run_work;
  }
  const bool again = s.prefill_station != Session::kNoPrefill && s.prefill_station != station;
  s.prefill_station = Session::kNoPrefill;
  return again ? s.run_work - 1 : s.run_work;
}

// The report's token throughputs (docs/report.md §Throughput): the tokens
// of the prefill and decode runs that completed in the window, by session
// name. A run of work 0 completes without an event and counts nothing.
void Engine::CountTokens(const Session& s, double tokens) {
  if (s.run_mode == ir::Statement::Run::PREFILL) {
    ++prefills_window_[s.decl];
    prefill_tokens_window_[s.decl] += tokens;
  } else {
    decode_tokens_window_[s.decl] += tokens;
  }
}

// When a line is due (ir/progress.h: in place on a terminal, a line every
// 5 s in a log), the replication's place. The rate of events and of simulated
// time tell a run that will not end (a huge horizon, time that crawls)
// from one that is merely long.
void Engine::Progress() {
  if (!progress_->Due()) return;
  const double elapsed = progress_->Elapsed();
  // A run without a horizon (a replay that drains) has no end to give a
  // share of: "of inf (0%)" would read as a run that will never end.
  const std::string of = std::isfinite(model_.horizon)
                             ? absl::StrFormat("of %.6g (%.0f%%)", model_.horizon, 100 * now_ / model_.horizon)
                             : std::string("(no horizon: until every session has ended)");
  progress_->Show(absl::StrFormat("%s: replication %u of %u, t = %.6g %s, %.3g events/s, %.3g simulated s/s",
                                  options_.progress_tool, replication_ + 1, model_.replications, now_, of,
                                  events_processed_ / elapsed, now_ / elapsed));
}

std::string Engine::DescribeEvent(const Event& e) const {
  switch (e.kind()) {
    case kArrival:
      return absl::StrCat("the latest event: an arrival of ", WorkloadName(e.target));
    case kStation:
      // One target serves every shared stage: the event is a flow's end
      // (or the solver's rescheduling), not one stage's.
      if (shared_ && e.target == shared_->target()) return "the latest event: a flow ending over the shared stages";
      return absl::StrCat("the latest event: stage '", StationName(e.target), "'");
    case kResume:
      return absl::StrCat("the latest event: session ", sessions_[e.target].serial, " resuming");
    default:
      return "the latest event: a lease expiry";
  }
}

void Engine::FailLimit(const Event& e, const std::string& message) {
  has_current_ = false;
  std::string text = absl::StrCat(message, "; ", DescribeEvent(e));
  if (e.kind() == kArrival) {
    const WorkloadDecl& w = model_.workloads[e.target];
    Fail(w.loc.line(), w.loc.column(), w.path, text);
  } else if (e.kind() == kResume && sessions_[e.target].state != SessionState::kFree) {
    current_ = e.target;
    has_current_ = true;
    FailAt(sessions_[e.target].wait_statement, text);
  } else if (e.kind() == kStation && !(shared_ && e.target == shared_->target())) {
    const StageDecl& d = model_.stages[model_.station_decl[e.target]];
    Fail(d.loc.line(), d.loc.column(), d.path, text);
  } else {
    Fail(0, 0, "", text);
  }
}

bool Engine::WithinRunLimits() {
  if (options_.cpu_deadline > 0 &&
      static_cast<double>(std::clock()) / CLOCKS_PER_SEC >= options_.cpu_deadline) {
    has_current_ = false;
    Fail(0, 0, "", absl::StrCat("the run used ", options_.limits.max_cpu,
                                " s of CPU time, the --max-cpu limit, in replication ",
                                replication_ + 1, " of ", model_.replications, " after ",
                                events_processed_, " events (raise --max-cpu, lower the replications, or ",
                                ShorterRun(model_.horizon), ")"));
    return false;
  }
  return true;
}

bool Engine::OnCourse() {
  if (options_.limits.max_events != 0 || events_processed_ % kRunawayStretch != 0) return true;
  const double stretch_start = stretch_time_;
  stretch_time_ = now_;
  // A stretch at one instant is the same-instant guard's to judge (a
  // batch at t = 0 is many events at once, then time moves on).
  if (events_processed_ < kRunawayJudgedAfter || !std::isfinite(model_.horizon) ||
      !(now_ > stretch_start)) {
    return true;
  }
  // Events a simulated second: over the whole run, and over the last
  // stretch; a run that slows down for a while (a burst at t = 0) and then
  // moves on is judged by both, so only one that crawls throughout stops.
  const double left = model_.horizon - now_;
  const double whole = static_cast<double>(events_processed_) / now_;
  const double recent = static_cast<double>(kRunawayStretch) / (now_ - stretch_start);
  const double need = left * std::min(whole, recent);
  if (!(need > kRunawayEvents)) return true;
  FailLimit(events_.Top(),
            absl::StrCat("simulated time advances about ", absl::StrFormat("%.3g", 1 / std::min(whole, recent)),
                         " s an event over ", events_processed_, " events: the horizon ", model_.horizon,
                         " would need about ",
                         absl::StrFormat("%.3g", need), " events more, past the bound of ",
                         absl::StrFormat("%.3g", kRunawayEvents),
                         " events (a runaway: lower the horizon, or give --max-events N to run up to "
                         "N events)"));
  return false;
}

bool Engine::SessionRefused(uint32_t workload, uint64_t live) {
  const WorkloadDecl& w = model_.workloads[workload];
  has_current_ = false;
  Fail(w.loc.line(), w.loc.column(), w.path,
       absl::StrCat(WorkloadName(workload), " would start a session while ", live,
                    " are alive, the --max-sessions limit: sessions arrive faster than they end "
                    "(raise --max-sessions, lower the arrival rate or the run's durations, or ",
                    ShorterRun(model_.horizon), ")"));
  return false;
}

void Engine::Log(const std::string& json) { *options_.trace << json << '\n'; }

}  // namespace serq::sim
