// A stage element at run time (a "station"): each stage kind behind one
// small interface. A job (the run of one session) arrives with its work; the
// station schedules its own events through the host; when one fires it says
// which jobs completed; it answers the state functions queue, busy, work and
// price; and it keeps the statistics the report gives.
//
// The engine, not the station, resumes the sessions of completed jobs, after
// the station has finished updating itself: a session that runs again on
// the same station at once re-enters it in a consistent state.
//
// A step stage (stage_step.cc) needs three things more of its host: the
// step time tau with the step's variables, the growth of a decode job's hold
// by one unit (granted at once, or later through GrowthGranted), and events
// after every other event of their instant (a step's start).
#ifndef SERQ_SIM_STATIONS_STAGE_H_
#define SERQ_SIM_STATIONS_STAGE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/types/span.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "serq-sim/events/clock.h"

namespace serq::sim {

using SessionId = uint32_t;

// A piecewise-constant quantity and its integral over time.
class TimeAverage {
 public:
  void Set(double now, double value) {
    // Several changes at one instant (a step's tokens) add nothing: the
    // same sum as adding value_ * 0, without its latency on every change.
    if (now != last_) integral_ += value_ * (now - last_);
    last_ = now;
    value_ = value;
  }
  // Starts a new window at `now` (warmup): the integral restarts from 0.
  void Reset(double now) {
    integral_ = 0;
    last_ = now;
  }
  double Integral(double now) const { return integral_ + value_ * (now - last_); }
  double value() const { return value_; }

 private:
  double last_ = 0;
  double value_ = 0;
  double integral_ = 0;
};

// One job of a step, for the sums over a step's jobs (sum_prefill and its
// kin): its tokens in the step and its context after them.
struct StepJob {
  bool decode = false;
  double tokens = 0;
  double context = 0;
};

// The variables of a step stage's tau in one step (language.md §3.3.1).
struct StepVars {
  double tokens = 0;   // prefill chunk tokens + one per decode job
  double prefill = 0;  // prefill tokens
  double decode = 0;   // decode jobs
  double seqs = 0;     // jobs in the batch
  double context = 0;  // the sum of the jobs' contexts
  // The causal query-key pairs the step computes: the sum over the jobs of
  // t c - t (t - 1) / 2, t its tokens in the step and c its context.
  double attention = 0;
  // The prefill and the decode jobs apart (IR 10): how many prefill jobs,
  // and each kind's context before this step's tokens (kv: the KV there
  // already) and after them, summed and at most. Set only for a stage
  // whose tau reads them (StepStation's `figures`).
  double prefill_jobs = 0;
  double prefill_kv = 0;
  double prefill_kv_max = 0;
  double prefill_kv_min = 0;
  double prefill_context = 0;
  double prefill_context_max = 0;
  double prefill_context_min = 0;
  double decode_kv = 0;
  double decode_kv_max = 0;
  double decode_kv_min = 0;
  double decode_context = 0;
  double decode_context_max = 0;
  double decode_context_min = 0;
  // IR 11: the tokens of the step of the stage's lockstep group (`lockstep`:
  // every element's, an idle element's dummy step 1), summed and the
  // largest; without `lockstep` the step's own tokens (StepStation sets
  // them before tau, every step).
  double group_tokens = 0;
  double group_tokens_max = 0;
  // The step's jobs, in batch order (the same condition).
  const StepJob* jobs = nullptr;
  uint32_t job_count = 0;

  // The figures of a step whose only job is `job`: what a sum over a
  // step's jobs evaluates its expression with.
  static StepVars Of(const StepJob& job);

  // The batch's sums (tokens .. attention), which every step has, set from
  // `o` or cleared, the rest untouched: a step that gathers no job's
  // figures copies 6 numbers a step, not 30 (StepStation::Figures sets the
  // rest when its tau reads them).
  void SetBatch(const StepVars& o) {
    tokens = o.tokens, prefill = o.prefill, decode = o.decode, seqs = o.seqs;
    context = o.context, attention = o.attention;
  }
  void ClearBatch() { SetBatch(StepVars()); }
};

// Two samples are one run's when they have the same bits.
inline bool SameBits(double a, double b) {
  return absl::bit_cast<uint64_t>(a) == absl::bit_cast<uint64_t>(b);
}

// Whole numbers in [0, 2^52): sums and differences of them below 2^52 are
// exact, in any order (a step stage's lane advances k steps at once on
// that: stage_step_lane.cc, Pools::GrowLane). A round trip through an
// integer, cheaper than floor's call.
constexpr double kExactWhole = 4503599627370496.0;
inline bool ExactWhole(double x) {
  return x >= 0 && x < kExactWhole && static_cast<double>(static_cast<int64_t>(x)) == x;
}

// Tokens of decode jobs whose runs observe each token, consecutive in a
// step's batch, of one observation and with the same gap (the same bits):
// the time since each job's last token (the first: since its run
// started), the sample. A step's jobs that were in the step before share
// the step's length, so a step's tokens are a few runs.
struct TokenRun {
  int32_t observation;
  uint32_t count;
  double gap;
};

// A step's observed tokens as a station gathers them: the runs they make
// and, when the host reads them (StageHost::TokenSessions: --trace), each
// token's session, in batch order. A step's loop adds them through a
// Writer, a local that keeps the run being made in registers.
class ObservedTokens {
 public:
  class Writer {
   public:
    // observation >= 0: the first token starts a run (observation_ is -1
    // until then).
    void Add(SessionId session, int32_t observation, double gap) {
      if (session_ != nullptr) *session_++ = session;
      Extend(observation, gap, 1);
    }

    // `count` tokens of `sessions` with one observation and gap: the same
    // runs as that many Add calls.
    void AddSame(const SessionId* sessions, uint32_t count, int32_t observation, double gap) {
      if (count == 0) return;
      if (session_ != nullptr) session_ = std::copy(sessions, sessions + count, session_);
      Extend(observation, gap, count);
    }

   private:
    // `count` >= 1 tokens more: the run goes on, or a new one starts.
    void Extend(int32_t observation, double gap, uint32_t count) {
      if (observation == observation_ && SameBits(gap, gap_)) {
        count_ += count;
        return;
      }
      EndRun();
      observation_ = observation;
      gap_ = gap;
      count_ = count;
    }
    friend class ObservedTokens;
    void EndRun() {
      if (count_ != 0) *run_++ = TokenRun{observation_, count_, gap_};
    }
    SessionId* session_;  // null: the sessions are not kept
    TokenRun* run_;
    int32_t observation_ = -1;
    uint32_t count_ = 0;
    double gap_ = 0;
  };

  // A writer with room for `most` tokens, which keeps their sessions when
  // `sessions` is true; End takes what it wrote.
  Writer Begin(size_t most, bool sessions) {
    if (runs_.size() < most) runs_.resize(most);
    if (sessions && sessions_.size() < most) sessions_.resize(most);
    Writer w;
    w.session_ = sessions ? sessions_.data() : nullptr;
    w.run_ = runs_.data();
    return w;
  }
  void End(Writer& w) {
    w.EndRun();
    tokens_ = w.session_ == nullptr ? 0 : static_cast<size_t>(w.session_ - sessions_.data());
    run_count_ = static_cast<size_t>(w.run_ - runs_.data());
  }
  bool empty() const { return run_count_ == 0; }  // a run has a token at least
  absl::Span<const SessionId> sessions() const { return {sessions_.data(), tokens_}; }
  absl::Span<const TokenRun> runs() const { return {runs_.data(), run_count_}; }

 private:
  std::vector<SessionId> sessions_;
  std::vector<TokenRun> runs_;
  size_t tokens_ = 0;
  size_t run_count_ = 0;
};

// What a station needs from the engine.
class StageHost {
 public:
  virtual ~StageHost() = default;
  // The simulated time, the host's clock read without a call (a station
  // asks for it several times a step).
  double now() const { return *clock_; }
  // The same instant in the clock's ticks (events/clock.h).
  Ticks now_ticks() const { return *ticks_; }
  // The tick `duration` seconds after now: the duration rounded to whole
  // ticks once, then added exactly, so that the end of a run of steps
  // falls on the tick of the arrival it meets (docs/internals.md §The
  // clock). Seconds(...) of it is what `now` will read then.
  Ticks After(double duration) const { return AddTicks(*ticks_, ToTicks(duration)); }
  // Schedules the station's event `tag` at tick `time` (>= now). With
  // `end_of_instant` it runs after every other event due at that time.
  virtual void Schedule(Ticks time, uint32_t station, uint32_t tag,
                        bool end_of_instant = false) = 0;
  // The station's one movable event (a ps station's next completion, tag
  // 0): scheduled `delay` seconds from now (at the first tick at or after:
  // continuous work is done when its event runs), or moved there in place
  // if it is pending, as a new event would be (it runs after the events
  // already scheduled for that time). Cancel removes it. No stale copy is
  // left in the queue.
  virtual void Reschedule(double delay, uint32_t station) = 0;
  virtual void Cancel(uint32_t station) = 0;
  // Asks for the station's Flush once the current event is done (with
  // every session it resumed): a station whose next completion moves
  // several times in one event (a job ends, its session runs again at
  // once) schedules it once.
  virtual void Defer(uint32_t station) = 0;
  // phi of the station's stage with `present` jobs. Returns false after
  // reporting a runtime error (phi not > 0, NaN, a division by zero...);
  // the station must then leave its state consistent and return.
  virtual bool Phi(uint32_t station, double present, double* phi) = 0;
  // The job of `session` was taken in by the stage at `time` (IR 11's
  // `queued`): a step stage calls it as a job arrives (the end of the step
  // in flight, or now), but for a run that continues the session's job.
  virtual void Queued(SessionId session, double time) {}
  // The job of `session` starts its service now (it waited until now). A
  // run's service time (for done, the mean service and price(S)) counts
  // from here; stations that serve every job from its arrival (delay, ps)
  // never call it.
  virtual void StartService(SessionId session) = 0;

  // Step stages. tau of the station's stage in a step with `vars`. Returns
  // false after reporting a runtime error (tau not > 0, NaN...).
  virtual bool Tau(uint32_t station, const StepVars& vars, double* tau) = 0;
  enum class Growth { kGranted, kStalled, kFailed };
  // Grows the hold of `session`'s job (Job::growing) by `units` of content
  // (a decode token's 1, a prefill chunk's tokens). kStalled: the growth
  // waits in its pool's line, and the station's GrowthGranted is called
  // when it is granted; kFailed: a runtime error was reported.
  virtual Growth Grow(SessionId session, uint32_t hold, double units) = 0;
  // Grows `holds`, in order, by `units` each, as Grow would grant them at
  // once without evicting; stops at the first that would need more (to be
  // asked of Grow) and returns how many it granted. A step's decode tokens
  // in one call.
  virtual size_t GrowEach(absl::Span<const uint32_t> holds, double units) = 0;
  // GrowNow's fast path on each of `holds` in order, as GrowEach: a
  // preempting step's running decode tokens in one call. 0 by default.
  virtual size_t GrowEachNow(absl::Span<const uint32_t> holds, double units) { return 0; }
  // A step stage's lane (stage_step_lane.cc): `count` holds of pool
  // element `pool`, each of which LaneHold admitted, grow by a unit of
  // content each, `units` of them by a unit of size too, all or none, as
  // GrowEach (`behind_line`: a stage without `preempt by`) or GrowEachNow
  // would grant them; the holds are given their units later, k at a time
  // (CatchUpHold). LaneHold says whether a hold may be in a lane for
  // `steps` steps, and whether each step grows its size (1) or not (0);
  // -1: it may not. No lanes by default.
  virtual bool GrowLane(uint32_t pool, uint32_t units, uint32_t count, bool behind_line) {
    return false;
  }
  virtual int LaneHold(uint32_t hold, double steps) { return -1; }
  virtual void CatchUpHold(uint32_t hold, double units) {}

  // Step stages with `preempt by`. GrowNow grows as Grow does, but never
  // waits: kStalled means it does not fit (nothing changed).
  virtual Growth GrowNow(SessionId session, uint32_t hold, double units) = 0;
  // The `preempt by` key of the station's stage, evaluated in `session`
  // with `since`. False after reporting a runtime error.
  virtual bool PreemptKey(uint32_t station, SessionId session, double since,
                          std::vector<double>* key) = 0;
  // The job of `victim` is preempted for the growth of `cause`'s: its hold
  // is emptied (its units return to the pool); `content` is what the hold
  // had, this step's growth not counted (for --trace).
  virtual void Preempt(uint32_t station, SessionId victim, SessionId cause, double content) = 0;
  // Call the station's UnitsFreed once units of `pool` are freed.
  virtual void WatchPool(uint32_t pool, uint32_t station) = 0;
  // Decode jobs whose runs observe each token (Job::observation) produced
  // these tokens now, in batch order: a step's tokens in one call.
  // `runs` partition `sessions` in order when TokenSessions() is true;
  // otherwise `sessions` is empty (a step does not copy what is not read).
  virtual void Tokens(absl::Span<const SessionId> sessions, absl::Span<const TokenRun> runs) = 0;
  virtual bool TokenSessions() const { return true; }
  // A prefill job `growing` (Job::growing) about to join a batch with its hold's
  // content 0 looks its blocks up in the pool's prefix cache (docs/simulation.md
  // §Prefix caches; serq-sim/engine/engine_cache.cc): *tokens is the hit, a whole
  // number of blocks at most work - 1, now the hold's content (0 on a pool without
  // a cache). With `only_if_fits`, when its first chunk (of at most `budget`
  // tokens) would not fit after the hit, nothing is done and *tokens is -1. False
  // after reporting a runtime error.
  virtual bool Lookup(SessionId session, double work, double budget, bool only_if_fits,
                      double* tokens) {
    *tokens = 0;
    return true;
  }
  // Whether growing hold `hold` by `units` of content would fit now (free
  // units, evicting what a growth may evict), without a change.
  virtual bool GrowthFits(uint32_t hold, double units) { return true; }
  // Whether active hold `hold` takes units of its pool now.
  virtual bool HoldsUnits(uint32_t hold) { return false; }
  // Whether pool element `pool` keeps a prefix cache (`cache B`): Lookup
  // does nothing on one that does not.
  virtual bool CachePool(uint32_t pool) { return false; }
  // The block of pool element `pool` (`block G`), 0 when it has none.
  virtual double PoolGrain(uint32_t pool) { return 0; }
  // Step stages with `async`: the units holds on `pool` gave back when they
  // ended or were returned, ever; the units active hold `hold` takes now;
  // until Withhold(pool, 0), `units` of `pool` that every fit counts as
  // used (Pools::Withhold, which leaves the pool's lines as they are);
  // ExaminePool examines them.
  virtual double Released(uint32_t pool) { return 0; }
  virtual double HoldUnits(uint32_t hold) { return 0; }
  virtual void Withhold(uint32_t pool, double units) {}
  virtual void ExaminePool(uint32_t pool) {}

 protected:
  // `clock` is the host's time in seconds and `ticks` the same instant in
  // ticks, which outlive the host's use of them.
  StageHost(const double* clock, const Ticks* ticks) : clock_(clock), ticks_(ticks) {}

 private:
  const double* clock_;
  const Ticks* ticks_;
};

// A job arriving at a station: one session's run.
struct Job {
  SessionId session = 0;
  uint64_t serial = 0;  // the session's serial (ids are reused, serials not)
  double work = 0;  // > 0: runs of work 0 never reach a station
  ir::Statement::Run::Mode mode = ir::Statement::Run::PLAIN;
  // A decode run `growing P`: its session's hold on P grows a unit a token
  // (StageHost::Grow), and `content` is that hold's content at arrival.
  bool growing = false;
  double content = 0;
  uint32_t hold = 0;     // growing: that hold (the pools' HoldId)
  uint32_t pool = 0;     // and its pool element
  // growing: the hold's content is all a `load` brought (Hold::received),
  // none of it computed since: with `recompute last`, a decode job's
  // first token is the last received token's, recomputed in its unit.
  bool received = false;
  // decode: the observation (its index in the model) that records the gap
  // before each of its tokens (StageHost::Tokens), or -1.
  int32_t observation = -1;
  // The ascending `serve by` key, evaluated in the session at arrival
  // (empty: order of arrival).
  absl::Span<const double> key;
};

class Station {
 public:
  explicit Station(uint32_t id) : id_(id) {}
  virtual ~Station() = default;
  Station(const Station&) = delete;
  Station& operator=(const Station&) = delete;

  uint32_t id() const { return id_; }

  // The job arrives at host.now().
  virtual void Arrive(StageHost& host, const Job& job) = 0;
  // The station's event `tag` fired at host.now(). Appends the sessions
  // whose jobs completed, in completion order, to `done`. Returns false
  // when the event was stale (scheduled before a change that moved it), or
  // is not an event of the model (nothing completed, nothing started).
  virtual bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) = 0;
  // Called after the event in which the station asked host.Defer().
  virtual void Flush(StageHost& host) {}
  // The growth of `session`'s job that StageHost::Grow left stalled has been
  // granted (step stations only).
  virtual void GrowthGranted(StageHost& host, SessionId session) {}
  // Units of a pool the station watches (StageHost::WatchPool) were freed.
  virtual void UnitsFreed(StageHost& host) {}
  // For deadlock reports: the job that waits for units of a pool at a step
  // stage with `preempt by` while the stage idles (false: none), with the
  // units its growth needs.
  virtual bool Blocked(SessionId* session, double* units) const { return false; }
  // Tests (SimOptions.check_pools): what is wrong with the station's
  // indexes, or "" (a step stage's, stage_step.h).
  virtual std::string CheckInvariants(StageHost& host) { return ""; }

  // The state functions.
  virtual uint32_t Queue() const { return present(); }  // jobs present
  virtual uint32_t Busy() const = 0;                  // jobs in service
  // Preemptions since the start, warmup included (a step stage with
  // `preempt by`; 0 elsewhere): what the time series counts an interval.
  virtual uint64_t Preemptions() const { return 0; }
  // running(S) and waiting(S) (IR 11): vLLM's running requests (a step
  // stage's: stage_step.h) and the rest of the jobs present. Elsewhere the
  // jobs in service.
  virtual uint32_t Running() const { return Busy(); }
  uint32_t Waiting() const { return Queue() - Running(); }
  virtual double Work(double now) const = 0;          // remaining work
  double Price() const { return price_count_ == 0 ? 0 : price_sum_ / price_count_; }

  // A job of this station completed after `service` seconds (start to end).
  void RecordDone(double service) {
    ++done_;
    service_sum_ += service;
    if (keep_price_) KeepPrice(service);
  }
  // Whether price(S) is kept: only a program that reads it pays for its
  // window at every completion (Price() is 0 otherwise).
  void set_keep_price(bool keep) { keep_price_ = keep; }
  // A job waited `wait` seconds before its service started.
  void RecordWait(double wait) {
    ++waited_;
    wait_sum_ += wait;
  }
  // The job of `session`, here since `arrival`, starts its service now (at
  // the stations that make jobs wait: fifo, step).
  void BeginService(StageHost& host, SessionId session, double arrival) {
    RecordWait(host.now() - arrival);
    host.StartService(session);
  }

  // The integral of the jobs present over [window start, now].
  virtual double PresentIntegral(double now) const { return present_.Integral(now); }

  // Starts the measured window at `now`: counts and integrals restart.
  virtual void StartWindow(double now);
  // The station's figures over [window start, now].
  virtual void Report(double now, double window, results::StageStats* out) const;

 protected:
  // Every change in the jobs present (and in service) goes through here.
  void SetPresent(double now, uint32_t present, bool busy) {
    present_count_ = present;
    present_.Set(now, present);
    busy_.Set(now, busy ? 1 : 0);
  }
  uint32_t present() const { return present_count_; }

  // The order of service with `serve by`: ascending key (lexicographic),
  // ties by arrival (`sequence`). Without serve by every key is empty.
  static bool ServedBefore(absl::Span<const double> key_a, uint64_t sequence_a,
                           absl::Span<const double> key_b, uint64_t sequence_b) {
    if (key_a != key_b) {
      return std::lexicographical_compare(key_a.begin(), key_a.end(), key_b.begin(), key_b.end());
    }
    return sequence_a < sequence_b;
  }

  TimeAverage present_;
  TimeAverage busy_;  // 1 while not empty: the utilisation of ps and fifo

 private:
  uint32_t present_count_ = 0;
  static constexpr int kPriceWindow = 16;

  uint32_t id_;
  uint64_t done_ = 0;
  double service_sum_ = 0;
  uint64_t waited_ = 0;
  double wait_sum_ = 0;
  void KeepPrice(double service);
  bool keep_price_ = true;
  // The last 16 services, for price(S).
  double price_ring_[kPriceWindow] = {};
  int price_next_ = 0;
  int price_count_ = 0;
  double price_sum_ = 0;
};

// The kinds served without shared stages. `phi_constant` says phi does not
// read `present`: then `phi` is its value and the host is never asked.
std::unique_ptr<Station> MakeDelayStation(uint32_t id);
std::unique_ptr<Station> MakePsStation(uint32_t id, bool phi_constant, double phi);
std::unique_ptr<Station> MakeFifoStation(uint32_t id, bool phi_constant, double phi);
// A step stage: at most `seqs` jobs and `tokens` tokens a step (inf:
// unbounded). With `lanes`, its leading decode jobs step as a lane where
// they can (stage_step_lane.cc). With `figures`, each step's variables
// include the prefill and the decode jobs apart and the jobs themselves
// (a lane keeps no job's figures: `figures` steps without one).
// vLLM's scheduler options of a step stage (language.md §3.3.1).
struct StepRules {
  // `chunk N`: the most tokens of one job's prefill in a step (vLLM's
  // long_prefill_token_threshold); inf: the budget's.
  double chunk = std::numeric_limits<double>::infinity();
  // `reserve prompt`: a waiting prefill job joins only if its whole
  // remaining prefill fits (vLLM's scheduler_reserve_full_isl).
  bool reserve_prompt = false;
  // `async`: a step is formed while the one before it runs (vLLM's async
  // scheduling; stage_step.h says what that changes).
  bool async = false;
  // `recompute last`: a waiting decode job whose hold's content was
  // received (Job::received) makes its first token by recomputing the last
  // received token, in the unit that token already has: it joins without
  // a growth (vLLM's _update_waiting_for_remote_kv).
  bool recompute_last = false;
};

std::unique_ptr<Station> MakeStepStation(uint32_t id, double seqs, double tokens,
                                         bool preempt = false, bool lanes = true,
                                         bool figures = false, StepRules rules = {});

// `lockstep` (IR 11): the step stations of one stage's elements, made by
// MakeStepStation, step together from now on (stage_step_group.cc): a step
// starts on all of them at once, an element with no job running a dummy
// step of one decode token, and lasts the longest of their step times.
void JoinLockstep(absl::Span<Station* const> stations);

}  // namespace serq::sim

#endif  // SERQ_SIM_STATIONS_STAGE_H_
