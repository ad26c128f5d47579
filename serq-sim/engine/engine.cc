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
#include "serq-sim/events/clock.h"

namespace serq::sim {
namespace {

// What shortens a run, for the advice of a limit's error: its horizon, or,
// in a run without one (a drained replay, which ends when its last session
// does), its arrivals.
std::string ShorterRun(double horizon) {
  return std::isfinite(horizon) ? "lower the horizon" : "give the run fewer arrivals or a horizon";
}

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
  // --max-cpu between replications too: a run of many short ones may never
  // reach the loop's check, every 65,536 events of one replication. Not on
  // a stall's second pass (stop_at), which replays events the first pass
  // ran, to say where it stalled.
  if (!std::isfinite(options_.stop_at) && !WithinRunLimits()) return false;
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
    Fail(0, 0, "", absl::StrCat("the run used ", options_.limits.max_cpu, " s of CPU time, the --max-cpu limit, ",
                                events_processed_ == 0 ? "as replication " : "in replication ", replication_ + 1,
                                " of ", model_.replications,
                                events_processed_ == 0 ? " started" : absl::StrCat(" after ", events_processed_, " events"),
                                " (raise --max-cpu, lower the replications, or ", ShorterRun(model_.horizon), ")"));
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
