// One replication of a simulation: the event loop over the model's
// stations, pools, arrivals and sessions, and the figures it measured.
//
// The loop takes the earliest event (time, then the order it was
// scheduled), stops at the horizon, starts the measured window at warmup
// (before the first event at or after it), and stops at the first runtime
// error. A job's completion resumes its session at once, inside the event
// that completed it; a hold admitted (or a growth granted) because another
// session freed units resumes its session by an event at the same time, so
// the session that freed them finishes its own statements first.
#ifndef SERQ_SIM_ENGINE_ENGINE_H_
#define SERQ_SIM_ENGINE_ENGINE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "ir/progress.h"
#include "proto/results.pb.h"
#include "serq-sim/workload/arrivals.h"
#include "serq-sim/events/event_queue.h"
#include "serq-sim/model/expr.h"
#include "serq-sim/engine/choose_copy.h"
#include "serq-sim/engine/interp.h"
#include "serq-sim/model/model.h"
#include "serq-sim/pools/pool.h"
#include "serq-sim/random/random.h"
#include "serq-sim/output/series.h"
#include "serq-sim/engine/run_limits.h"
#include "serq-sim/stations/stage.h"
#include "serq-sim/stations/stage_shared.h"
#include "stats/summary.h"

namespace serq::sim {

struct EngineOptions {
  std::ostream* trace = nullptr;  // --trace: one JSON object per line
  ProgressLine::Mode progress = ProgressLine::Mode::kNone;  // on stderr when the run is long
  const char* progress_tool = "serq-sim";  // the tool the progress line names
  bool check_pools = false;       // tests: Pools::CheckInvariants after every event
  bool lanes = true;              // tests: false, no step stage steps a lane (SimOptions)
  SimLimits limits;               // --max-sessions, --max-events, --max-cpu
  double cpu_deadline = 0;        // std::clock() seconds at which --max-cpu ends the run; 0: none
  // A stall's second pass (engine_stall.cc): the replication runs the
  // events up to this time, its horizon for the figures, then names the
  // stall it must find there. inf: a run to the horizon.
  double stop_at = std::numeric_limits<double>::infinity();
};

class Engine final : public StageHost, public PoolHost, public StateView, public GapSource {
 public:
  Engine(const Model& model, uint32_t replication, const EngineOptions& options,
         Diagnostics* diags);
  ~Engine() override;

  // Runs the replication to the horizon and fills `out`. Returns false after
  // a runtime error, a deadlock or a limit reached (in `diags`), or when the
  // trace stream has failed (nothing in `diags`: the caller reports it).
  bool Run(results::Replication* out);
  // After Run returned false: the time a stall began when the run stopped
  // at one (`out` then holds the figures up to that time, and `diags` the
  // stall); < 0 otherwise.
  double stalled_at() const { return stalled_at_; }

  // Both hosts read now_ through the clock they were given.
  double now() const { return now_; }
  // StageHost
  void Schedule(Ticks time, uint32_t station, uint32_t tag, bool end_of_instant) override;
  void Reschedule(double delay, uint32_t station) override {
    events_.Reschedule(AddTicks(now_ticks_, ToTicksUp(delay)), kStation, station);
  }
  void Cancel(uint32_t station) override { events_.Cancel(station); }
  void Defer(uint32_t station) override { deferred_.push_back(station); }
  bool Phi(uint32_t station, double present, double* phi) override;
  void StartService(SessionId session) override { sessions_[session].service_start = now_; }
  bool Tau(uint32_t station, const StepVars& vars, double* tau) override;
  void Queued(SessionId session, double time) override { sessions_[session].queued = time; }
  Growth Grow(SessionId session, uint32_t hold, double units) override;
  size_t GrowEach(absl::Span<const uint32_t> holds, double units) override {
    return pools_.GrowEach(holds, units, now_);
  }
  size_t GrowEachNow(absl::Span<const uint32_t> holds, double units) override {
    return pools_.GrowEach(holds, units, now_, /*behind_line=*/false);
  }
  bool GrowLane(uint32_t pool, uint32_t units, uint32_t count, bool behind_line) override {
    return pools_.GrowLane(pool, units, count, now_, behind_line);
  }
  int LaneHold(uint32_t hold, double steps) override { return pools_.LaneHold(hold, steps); }
  void CatchUpHold(uint32_t hold, double units) override { pools_.CatchUp(hold, units); }
  Growth GrowNow(SessionId session, uint32_t hold, double units) override;
  bool GrowthFits(uint32_t hold, double units) override { return pools_.GrowthFits(hold, units); }
  bool HoldsUnits(uint32_t hold) override { return pools_.hold(hold).size > 0; }
  bool CachePool(uint32_t pool) override { return pools_.cache_block(pool) > 0; }
  double PoolGrain(uint32_t pool) override { return pools_.grain(pool); }
  double Released(uint32_t pool) override { return pools_.released(pool); }
  double HoldUnits(uint32_t hold) override { return pools_.hold(hold).size; }
  void Withhold(uint32_t pool, double units) override { pools_.Withhold(pool, units); }
  void ExaminePool(uint32_t pool) override { pools_.Examine(pool); }
  bool PreemptKey(uint32_t station, SessionId session, double since,
                  std::vector<double>* key) override;
  void Preempt(uint32_t station, SessionId victim, SessionId cause, double content) override;
  void WatchPool(uint32_t pool, uint32_t station) override;
  void Tokens(absl::Span<const SessionId> sessions, absl::Span<const TokenRun> runs) override;
  bool TokenSessions() const override { return options_.trace != nullptr; }  // LogToken's
  // --trace: the observation a token of `run` made.
  [[gnu::noinline, gnu::cold]] void LogToken(SessionId session, const TokenRun& run);
  bool Lookup(SessionId session, double work, double budget, bool only_if_fits,
              double* tokens) override;  // engine_cache.cc
  // PoolHost
  bool EvictKey(const Lease& lease, std::vector<double>* key) override;
  void Wake(SessionId session) override;
  void ScheduleExpiry(double duration, LeaseId lease, uint32_t generation) override;
  void LeaseEnded(SessionId owner) override;
  void LeaseStarted(const Lease& lease, double duration) override;  // engine_trace.cc
  void LeaseEnding(const Lease& lease, LeaseEnd how) override;      // engine_trace.cc
  void PoolChanged(uint32_t pool) override;                      // engine_trace.cc
  absl::Span<const BlockTag> Blocks(SessionId session) override;
  void CacheEvicted(uint32_t pool, uint32_t blocks) override;
  void Freed(uint32_t pool) override;
  // StateView
  double StageState(Function f, uint32_t station) override;
  double PoolState(Function f, uint32_t pool) override;
  // GapSource
  bool RenewalGap(uint32_t workload, uint32_t node, double* gap) override;

 private:
  enum Kind : uint8_t { kArrival, kStation, kResume, kExpiry };

  bool Dispatch(const Event& e);
  // Drops stale events (the only ones: expiries of leases that ended
  // early; the stations move their events in place) once the queue has
  // doubled since the last time, so that they do not slow every push and
  // pop: amortized O(1).
  // Fails the run when its next event is past the clock's end (Run's loop,
  // with no horizon before it); false when no live event is.
  bool PastTheClock();
  void CompactEvents();
  // An arrival of `workload` (the event's target: the arrival process's
  // next, the one event of the arrivals in the queue).
  void Arrive(uint32_t workload);
  void ScheduleNextArrival();
  void Complete(const std::vector<SessionId>& done);
  void StartWindow(double at);
  double NewTokens(Session& s);
  void CountTokens(const Session& s, double tokens);
  // The window's thirds (for the steady-state figures): the integrals of
  // the jobs present at every station and of the sessions in progress at
  // warmup + k (horizon - warmup) / 3, taken before the first event at or
  // after that time. Checkpoint takes the next one.
  void Checkpoint();
  // Asked only when the loop's rare work is due (Run's watch_from).
  bool CheckpointDue(double time) const {
    return checkpoints_ < kCheckpoints && time >= CheckpointTime(checkpoints_);
  }
  double CheckpointTime(int k) const {
    return model_.warmup + (horizon_ - model_.warmup) * (k + 1) / 3;
  }
  // Sessions of declaration `decl` arrived or ended: the count in progress
  // changes.
  // Inline: a session's start and its end each change it.
  void InProgressChanged(uint32_t decl) {
    // Through int64 (the count is far below 2^63): the same value, without
    // the unsigned conversion's branches.
    const auto in_progress = static_cast<int64_t>(arrived_[decl] - ended_[decl]);
    in_progress_[decl].Set(now_, static_cast<double>(in_progress));
  }
  bool ReportDeadlock();
  // Stalls (engine_stall.cc): sessions that wait for units nothing left
  // can ever free. StallStops: true when some do now (the run stops):
  // the stall is dated, the replication run again up to that time into
  // `out`, and the stall reported. StallConfirmed, in that second run:
  // reports the stall found there.
  bool StallStops(results::Replication* out);
  bool StallConfirmed();
  struct StallSet;
  void CollectWaiters(StallSet* set) const;
  bool Stuck(StallSet* set, double until) const;
  double StallDate(StallSet* set) const;
  void ReportStall(const StallSet& set);
  std::string DescribeWait(const StallSet& set, uint32_t c) const;
  bool StallFound(StallSet* set) const;
  // Whether any session could be a waiter: one stands in a pool's line or
  // a step stage is blocked (StallFound's shortcut).
  bool AnyWaiter() const;
  bool Stalled(StallSet* set, results::Replication* out);
  // Grow and GrowNow: false (after reporting the runtime error) when
  // `units` more would make the session's growing hold larger than its cap.
  bool GrowthWithinCap(Session& s, SessionId session, double units);
  [[gnu::noinline]] Growth GrowSlow(SessionId session, double units);
  [[gnu::noinline]] Growth GrowNowSlow(SessionId session, double units);
  void Report(results::Replication* out);
  void Progress();
  // --max-events and --max-cpu, checked every 65536 events: false after
  // reporting the one exceeded.
  bool WithinRunLimits();
  // Without --max-events: false (after reporting it) when the replication's
  // progress so far, and its progress over the last stretch of events,
  // both say the horizon is more than kRunawayEvents events away.
  bool OnCourse();
  // --max-sessions when a workload starts one more session: false after
  // reporting it.
  bool SessionAllowed(uint32_t workload) {
    uint64_t live = sessions_.size() - free_sessions_.size();
    return ABSL_PREDICT_TRUE(live < options_.limits.max_sessions) || SessionRefused(workload, live);
  }
  [[gnu::noinline, gnu::cold]] bool SessionRefused(uint32_t workload, uint64_t live);
  // A limit of the run reached at event `e` (--max-events, the same-instant
  // guard): the error says what `e` was, located at its workload or session
  // when it has one.
  void FailLimit(const Event& e, const std::string& message);
  std::string DescribeEvent(const Event& e) const;

  // The sessions interpreter (interp.cc).
  SessionId NewSession();
  void Spawn(uint32_t workload, const double* row);
  void Execute(SessionId id);
  // Execute's failures, out of its way (its frame is set up twice an M/M/1
  // customer): the same-instant guard at `statement` after `steps`; a
  // repeat count `n` that is not finite.
  [[gnu::noinline, gnu::cold]] void TooManyStatements(uint32_t statement, uint64_t steps);
  [[gnu::noinline, gnu::cold]] void RepeatNotFinite(uint32_t statement, double n);
  bool ExecRun(SessionId id, const Instr& in);
  bool ExecPlainRun(Session& s, SessionId id, const Instr& in, const RunSite& r);
  // The work of a run is not >= 0 and finite: reports it, returns false.
  [[gnu::noinline, gnu::cold]] bool BadWork(uint32_t statement, double work);
  bool ExecChoose(Session& s, const Instr& in);
  bool ExecHold(SessionId id, const Instr& in);
  bool ExecHoldEnd(Session& s, const Instr& in);
  bool ExecRelease(Session& s, const Instr& in);
  bool ExecLoad(SessionId id, const Instr& in);
  void EndSession(SessionId id);
  [[gnu::noinline]] void EndHolds(SessionId id);
  // The session's innermost active hold on `pool` (what a load, a release
  // and a decode run `growing` act on): false when it has none.
  bool InnermostHold(const Session& s, uint32_t pool, HoldId* hold) const;
  // Inline: every session that ends holding no lease is freed.
  void FreeSession(SessionId id) {
    Session& s = sessions_[id];
    s.state = SessionState::kFree;
    s.leases.clear();
    free_sessions_.push_back(id);
  }
  // The prefix cache (engine_cache.cc). Sets a new session's block list
  // from its trace row (Mooncake's hash_ids).
  void SetBlocks(Session& s, uint32_t workload, const double* row);
  // `prefix (k, n);`: appends n blocks of family k. False after a runtime
  // error.
  bool ExecPrefix(Session& s, const Instr& in);
  // cached(P) (`cached`), else hit(P), in the current session.
  double CacheState(bool cached, uint32_t pool);

  EvalFrame FrameOf(const Session& s) const;
  double Eval(uint32_t node, const Session& s) { return evaluator_.Eval(node, FrameOf(s)); }
  bool Element(uint32_t ref, const Session& s, uint32_t* element) {
    return evaluator_.Element(ref, FrameOf(s), element);
  }

  // phi or tau of `station`'s stage in `frame`; false after reporting a
  // runtime error at it (`what` is "phi" or "tau"; `with` says what it was
  // evaluated with, built only for the message).
  bool EvalRate(uint32_t station, EvalFrame& frame, absl::string_view what,
                absl::FunctionRef<std::string()> with, double* rate);
  // The lets of `station`'s stage, in order, into rate_locals_ (frame's
  // locals); false after reporting a runtime error at one.
  bool EvalLets(uint32_t station, EvalFrame* frame);
  // EvalRate's and Tau's reports, out of their way (a step evaluates tau):
  // the rate `v` of `station` at `node` failed to evaluate or is not > 0;
  // tau `v` does not advance the time; a step's line of the trace.
  bool RateFailed(uint32_t station, uint32_t node, double v, absl::string_view what,
                  absl::FunctionRef<std::string()> with);
  bool TauTooSmall(uint32_t station, double v, const StepVars& vars);
  void LogStep(uint32_t station, double v, const StepVars& vars);

  // Names for messages: "kvD[1]", "P".
  std::string StationName(uint32_t station) const;
  std::string PoolName(uint32_t pool) const;
  std::string WorkloadName(uint32_t workload) const;  // "workload 'w'", "the workload"

  // Runtime errors: "at t=<now>, session <serial>: <message>" at `loc`, or
  // at `path` when the IR has no location. FailEval reports the
  // evaluator's error, falling back to statement `statement`'s place.
  void Fail(uint32_t line, uint32_t column, const std::string& path, const std::string& message);
  void FailAt(uint32_t statement, const std::string& message);
  void FailEval(uint32_t statement);
  void FailEvalAt(const std::string& path);
  bool failed() const { return failed_ || evaluator_.failed(); }

  // --trace
  void Log(const std::string& json);
  // engine_trace.cc, out of the hot functions' way: a session's `event`,
  // with a text field and a number field when their keys are given;
  // LogStation's text is the stage of the session's run; LogResume a
  // resumed session's line (an admission or a growth).
  void LogResume(const Session& s);
  void LogSession(const char* event, const Session& s, const char* text_key = nullptr,
                  absl::string_view text = {}, const char* number_key = nullptr,
                  double number = 0);
  void LogStation(const char* event, const Session& s, const char* number_key = nullptr,
                  double number = 0);
  // engine_trace.cc: `event` (admit, wait) for every pool of the session's
  // innermost hold; the release of an active hold (`by`: release, block,
  // end).
  void LogHolds(const char* event, const Session& s);
  void LogRelease(const Session& s, HoldId hold, const char* by);

  const Model& model_;
  uint32_t replication_;
  EngineOptions options_;
  Diagnostics* diags_;
  uint64_t stream_seed_;
  Random random_;
  Evaluator evaluator_;
  // Tau's frame, kept: a step sets its time and step variables only (the
  // rest, a tau cannot read, stays as constructed).
  EvalFrame tau_frame_;
  std::vector<double> rate_locals_;  // EvalLets' values
  EventQueue events_;
  size_t compact_at_ = 256;
  // The clock (events/clock.h): the current event's tick, and the same
  // instant in seconds (the double nearest to it), which the model reads.
  Ticks now_ticks_ = 0;
  double now_ = 0;
  bool failed_ = false;
  bool window_started_ = false;
  uint64_t events_processed_ = 0;
  uint64_t events_this_instant_ = 0;
  // The runaway bound (docs/cli.md §Limits): a replication that would need
  // more events than this to reach its horizon, judged after
  // kRunawayJudgedAfter events, stops. --max-events replaces it.
  static constexpr double kRunawayEvents = 1e12;
  static constexpr uint64_t kRunawayJudgedAfter = uint64_t{1} << 22;
  static constexpr uint64_t kRunawayStretch = uint64_t{1} << 20;
  double stretch_time_ = 0;  // now_ at the start of the current stretch
  // Stalls: the horizon of the figures (the model's, or a second pass's
  // stop_at); a check due at the next instant's start (every 65536
  // events); when each pool last freed units; since when each step
  // station has idled blocked (-1: it is not); the stall's time.
  double horizon_;
  bool stall_check_due_ = false;
  std::vector<double> pool_freed_at_;
  std::vector<double> blocked_since_;
  double stalled_at_ = -1;

  std::vector<std::unique_ptr<Station>> stations_;
  std::unique_ptr<SharedStages> shared_;
  Pools pools_;
  Arrivals arrivals_;

  // Per run site: a plain run, which ExecPlainRun takes: one stage
  // element named without an index, of a stage that is neither a step
  // stage nor shared and has no `serve by`; no `also`, no `growing`.
  std::vector<uint8_t> plain_runs_;
  std::vector<Session> sessions_;
  std::vector<SessionId> free_sessions_;
  uint64_t live_leases_ = 0;  // over every session, for --max-sessions
  SessionId current_ = 0;  // the session being executed, when has_current_
  bool has_current_ = false;
  uint64_t next_serial_ = 0;
  std::vector<uint64_t> arrived_;  // per session declaration
  std::vector<uint64_t> ended_;
  std::vector<uint64_t> arrived_window_;  // in [warmup, horizon]
  std::vector<uint64_t> ended_window_;
  // Prefill runs, and the tokens of prefill and decode runs, that
  // completed in the window (CountTokens).
  std::vector<uint64_t> prefills_window_;
  std::vector<double> prefill_tokens_window_;
  std::vector<double> decode_tokens_window_;
  std::vector<TimeAverage> in_progress_;  // per session declaration
  // A run without a horizon: each session declaration's last arrival and
  // its sessions in progress just after it.
  std::vector<double> last_arrival_;
  std::vector<uint64_t> in_progress_last_arrival_;
  static constexpr int kCheckpoints = 2;  // the window's first two thirds end
  int checkpoints_ = 0;                   // taken so far
  std::vector<double> station_integral_[kCheckpoints];  // per station
  std::vector<double> session_integral_[kCheckpoints];  // per session declaration
  std::vector<uint64_t> present_start_;                 // per station, at warmup
  // Per observation: its samples, or beyond report::kExactSamples a
  // summary in bounded memory (serq-report/summary.h).
  std::vector<report::ObservationRecorder> observations_;
  std::unique_ptr<SeriesRecorder> series_;    // run { sample DT; }

  std::vector<uint32_t> deferred_; // stations to flush after the current event
  std::vector<std::vector<uint32_t>> watchers_;  // per pool: stations waiting for its units
  std::vector<SessionId> done_;    // scratch: completed jobs of one event
  std::vector<uint32_t> pool_ids_; // scratch: a hold's pools
  std::vector<double> amounts_;    // scratch: a hold's amounts
  std::vector<double> key_;        // scratch: a serve by key
  std::vector<double> best_key_;   // scratch: choose
  // IR 11: per choose site, its copy of the deployment with `every`, or
  // null; and the earliest instant one of them is next refreshed.
  std::vector<std::unique_ptr<ChooseCopy>> copies_;
  Ticks next_copy_ = kNever;
  void RefreshCopies(Ticks now);
  std::optional<ProgressLine> progress_;  // of the replication running
};

}  // namespace serq::sim

#endif  // SERQ_SIM_ENGINE_ENGINE_H_
