// The engine's side of what stations and sessions ask of it (StageHost,
// PoolHost): a stage's phi and tau, growth in a pool, preemption, tokens,
// wake-ups, leases, and the state functions expressions read. The event
// loop that drives them is engine.cc.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/json.h"
#include "serq-sim/engine/engine.h"
#include "serq-sim/events/clock.h"

namespace serq::sim {
namespace {

// The IR path of a stage's phi or tau, built only for a message.
std::string RatePath(uint32_t decl) { return absl::StrCat("stage[", decl, "].rate"); }

}  // namespace

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
      R"(,"group_tokens":)", JsonNumber(vars.group_tokens),
      R"(,"group_tokens_max":)", JsonNumber(vars.group_tokens_max),
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

}  // namespace serq::sim
