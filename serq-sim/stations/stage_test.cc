// The stage kinds without the engine: a small host runs their events and
// records when each job completes. Expected values are derived by hand in
// the comments.
#include "serq-sim/stations/stage.h"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/events/event_queue.h"
#include "serq-sim/random/random.h"

namespace serq::sim {
namespace {

class TestHost : public StageHost {
 public:
  explicit TestHost(std::unique_ptr<Station> station)
      : StageHost(&now_, &ticks_), station_(std::move(station)) {}

  void Schedule(Ticks time, uint32_t, uint32_t tag, bool end_of_instant) override {
    events_.Push(time, 0, 0, tag, end_of_instant);
  }
  void Reschedule(double delay, uint32_t) override {
    events_.Reschedule(AddTicks(ticks_, ToTicksUp(delay)), 0, 0);
  }
  void Cancel(uint32_t) override { events_.Cancel(0); }
  void Defer(uint32_t) override { deferred_ = true; }
  bool Phi(uint32_t, double present, double* phi) override {
    *phi = phi_of_present(present);
    return *phi > 0;
  }
  void StartService(SessionId session) override { start_[session] = now_; }
  bool Tau(uint32_t, const StepVars& vars, double* tau) override {
    steps_.push_back(vars);
    step_starts_.push_back(now_);
    *tau = tau_of_step(vars);
    return *tau > 0;
  }
  Growth Grow(SessionId session, uint32_t, double) override { return grow(session); }
  // One Grow each by default, so that `grow` sees every growth;
  // `grow_each` says how many of a step's holds one call grants.
  size_t GrowEach(absl::Span<const uint32_t> holds, double) override {
    each_holds_.emplace_back(holds.begin(), holds.end());
    size_t n = std::min(grow_each(holds.size()), holds.size());
    each_granted_ += n;
    return n;
  }
  // Preemption is tested end to end (simulate_test), with real pools.
  Growth GrowNow(SessionId session, uint32_t, double) override { return grow(session); }
  bool PreemptKey(uint32_t, SessionId, double, std::vector<double>* key) override {
    key->clear();
    return true;
  }
  void Preempt(uint32_t, SessionId, SessionId, double) override {}
  void WatchPool(uint32_t, uint32_t) override {}
  void Tokens(absl::Span<const SessionId> sessions, absl::Span<const TokenRun> runs) override {
    size_t i = 0;
    for (const TokenRun& run : runs) {
      ++token_runs_;
      for (uint32_t k = 0; k < run.count; ++k) {
        tokens_.emplace_back(sessions[i++], now_);
        gaps_.emplace_back(run.observation, run.gap);
      }
    }
    EXPECT_EQ(i, sessions.size());
  }

  Station& station() { return *station_; }
  size_t pending() const { return events_.size(); }

  // Arrives job `session` with `work` (and `key`) at `time`, after running
  // every event before `time`.
  void ArriveAt(double time, SessionId session, double work, std::vector<double> key = {}) {
    Job job;
    job.session = session;
    job.work = work;
    job.key = key;
    ArriveJob(time, job);
  }
  void ArriveJob(double time, const Job& job) {
    RunUntil(time);
    SetNow(time);
    start_[job.session] = time;
    station_->Arrive(*this, job);
    Flush();
  }
  // A step job's stalled growth is granted at `time`.
  void GrantAt(double time, SessionId session) {
    RunUntil(time);
    SetNow(time);
    station_->GrowthGranted(*this, session);
    Flush();
  }

  // What the engine does after each event.
  void Flush() {
    if (deferred_) {
      deferred_ = false;
      station_->Flush(*this);
    }
  }

  // Runs every event due before `time` (all of them for infinity).
  void RunUntil(double time) {
    while (!events_.empty() && events_.Top().time < ToTicks(time)) {
      Event e = events_.Pop();
      ticks_ = e.time;
      now_ = ToSeconds(e.time);
      std::vector<SessionId> done;
      if (!station_->OnEvent(*this, e.tag, &done)) {
        ++stale_;
        continue;
      }
      Flush();
      for (SessionId s : done) {
        station_->RecordDone(now_ - start_[s]);
        completions_.emplace_back(s, now_);
      }
    }
  }

  std::function<double(double)> phi_of_present = [](double) { return 1.0; };
  std::function<double(const StepVars&)> tau_of_step = [](const StepVars&) { return 1.0; };
  std::function<Growth(SessionId)> grow = [](SessionId) { return Growth::kGranted; };
  std::function<size_t(size_t)> grow_each = [](size_t) { return size_t{0}; };
  size_t each_granted_ = 0;
  std::vector<std::vector<uint32_t>> each_holds_;  // GrowEach's holds, by call
  std::vector<StepVars> steps_;       // every step's variables, in order
  std::vector<double> step_starts_;   // and its start
  std::vector<std::pair<SessionId, double>> completions_;
  std::vector<std::pair<SessionId, double>> tokens_;  // Tokens(): each token's session, time
  std::vector<std::pair<int32_t, double>> gaps_;      // and its observation, gap
  int token_runs_ = 0;                                 // the runs they came in
  int stale_ = 0;

 private:
  std::unique_ptr<Station> station_;
  EventQueue events_;
  // The clock as the engine keeps it: a tick and its seconds.
  void SetNow(double time) {
    ticks_ = ToTicks(time);
    now_ = ToSeconds(ticks_);
  }
  Ticks ticks_ = 0;
  double now_ = 0;
  std::map<SessionId, double> start_;
  bool deferred_ = false;
};

using Completions = std::vector<std::pair<SessionId, double>>;

TEST(DelayStationTest, JobsInParallel) {
  TestHost h(MakeDelayStation(0));
  h.ArriveAt(0, 1, 1.0);
  h.ArriveAt(0, 2, 2.0);
  h.ArriveAt(0.5, 3, 0.25);
  // At 0.5: job 1 has 0.5 left, job 2 1.5, job 3 0.25.
  EXPECT_EQ(h.station().Queue(), 3u);
  EXPECT_EQ(h.station().Busy(), 3u);
  EXPECT_DOUBLE_EQ(h.station().Work(0.5), 2.25);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{3, 0.75}, {1, 1.0}, {2, 2.0}}));
  // Present: 2 on [0, 0.5), 3 on [0.5, 0.75), 2 on [0.75, 1), 1 on [1, 2):
  // 1 + 0.75 + 0.5 + 1 = 3.25 over the window [0, 2]; price (0.25+1+2)/3.
  results::StageStats stats;
  h.station().Report(2.0, 2.0, &stats);
  EXPECT_DOUBLE_EQ(stats.mean_present(), 3.25 / 2);
  EXPECT_EQ(stats.utilisation(), 0);
  EXPECT_EQ(stats.done(), 3u);
  EXPECT_DOUBLE_EQ(stats.service_sum(), 3.25);
  EXPECT_DOUBLE_EQ(h.station().Price(), 3.25 / 3);
  EXPECT_EQ(h.station().Work(2.0), 0);
}

// ps(1), two jobs of work 1 and 2 at 0: each is served at 1/2, so job 1
// has received 1 at t = 2; job 2 then has 1 left, alone at rate 1: ends at
// 3. Present 2 on [0, 2), 1 on [2, 3): mean 5/3 over [0, 3], busy all along.
TEST(PsStationTest, EqualShares) {
  TestHost h(MakePsStation(0, true, 1.0));
  h.ArriveAt(0, 1, 1.0);
  h.ArriveAt(0, 2, 2.0);
  EXPECT_DOUBLE_EQ(h.station().Work(0), 3.0);
  EXPECT_DOUBLE_EQ(h.station().Work(1), 2.0);  // each received 1/2
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 2.0}, {2, 3.0}}));
  results::StageStats stats;
  h.station().Report(3.0, 3.0, &stats);
  EXPECT_DOUBLE_EQ(stats.mean_present(), 5.0 / 3);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 1.0);
  EXPECT_DOUBLE_EQ(stats.service_sum(), 5.0);
}

// A arrives at 0 with 2, B at 1 with 1. Alone on [0, 1) A receives 1, so
// both have 1 left at t = 1 and share the rate: both end at 3, A first (it
// arrived first). The arrival of B moved A's end from 2 to 3, in place:
// one event pending, and no stale one.
TEST(PsStationTest, ArrivalMovesTheEnd) {
  TestHost h(MakePsStation(0, true, 1.0));
  h.ArriveAt(0, 1, 2.0);
  h.ArriveAt(1, 2, 1.0);
  EXPECT_EQ(h.pending(), 1u);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 3.0}, {2, 3.0}}));
  EXPECT_EQ(h.stale_, 0);
}

// phi(n) = min(n, 2) (two servers' worth): three jobs of 1 at 0 share 2,
// 2/3 each, and all end at 1.5. A fourth job at 1.5 is alone: phi(1) = 1.
TEST(PsStationTest, PhiReadsPresent) {
  TestHost h(MakePsStation(0, false, 0));
  h.phi_of_present = [](double n) { return std::min(n, 2.0); };
  h.ArriveAt(0, 1, 1.0);
  h.ArriveAt(0, 2, 1.0);
  h.ArriveAt(0, 3, 1.0);
  h.ArriveAt(1.5, 4, 0.5);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.5}, {2, 1.5}, {3, 1.5}, {4, 2.0}}));
}

// Against a direct reference: every job's remaining work kept explicitly,
// the next completion found by scanning. 2000 jobs of random work arrive at
// random times on ps(1) (up to a few hundred present at once); one in five
// arrives together with the previous one with the same work, so that their
// finish tags tie and they must end together, in arrival order. Completion
// order and times must agree.
TEST(PsStationTest, MatchesDirectReference) {
  TestHost h(MakePsStation(0, true, 1.0));
  Random r(7);
  struct Job {
    double arrival, work;
  };
  std::vector<Job> jobs;
  double t = 0;
  for (int i = 0; i < 2000; ++i) {
    bool twin = i > 0 && r.Uniform01() < 0.2;
    if (!twin) t += r.Exponential(0.9);
    double work = twin ? jobs.back().work : r.Exponential(1.0);
    jobs.push_back({t, work});
    h.ArriveAt(t, i, work);
  }
  h.RunUntil(INFINITY);
  // The reference: advance from event to event, serving n jobs at 1/n.
  std::vector<std::pair<double, int>> left;  // remaining work, job
  Completions want;
  double now = 0;
  size_t next = 0;
  while (next < jobs.size() || !left.empty()) {
    double end = INFINITY;
    if (!left.empty()) {
      double least = INFINITY;
      for (auto& [w, j] : left) least = std::min(least, w);
      end = now + least * left.size();
    }
    double arrive = next < jobs.size() ? jobs[next].arrival : INFINITY;
    double to = std::min(end, arrive);
    for (auto& [w, j] : left) w -= (to - now) / left.size();
    now = to;
    if (arrive <= end) {
      left.emplace_back(jobs[next].work, static_cast<int>(next));
      ++next;
    } else {
      // Every job whose remaining work is (nearly) zero ends now, by arrival.
      std::vector<std::pair<double, int>> still;
      for (auto& [w, j] : left) {
        if (w <= 1e-9) {
          want.emplace_back(j, now);
        } else {
          still.emplace_back(w, j);
        }
      }
      left = still;
    }
  }
  ASSERT_EQ(h.completions_.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(h.completions_[i].first, want[i].first) << i;
    EXPECT_NEAR(h.completions_[i].second, want[i].second, 1e-6) << i;
  }
}

// fifo(2): three jobs of work 2 at 0 take 1 s each: they end at 1, 2, 3
// and waited 0, 1, 2.
TEST(FifoStationTest, OrderOfArrival) {
  TestHost h(MakeFifoStation(0, true, 2.0));
  h.ArriveAt(0, 1, 2.0);
  h.ArriveAt(0, 2, 2.0);
  h.ArriveAt(0, 3, 2.0);
  EXPECT_EQ(h.station().Queue(), 3u);
  EXPECT_EQ(h.station().Busy(), 1u);
  // At 0.5 the first job has 1 s * 2 = ... half of its 2 left: 1 + 2 + 2.
  EXPECT_DOUBLE_EQ(h.station().Work(0.5), 5.0);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.0}, {2, 2.0}, {3, 3.0}}));
  results::StageStats stats;
  h.station().Report(3.0, 3.0, &stats);
  EXPECT_EQ(stats.waited(), 3u);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 3.0);
  // Present 3, 2, 1 on the three seconds: mean 2; never empty.
  EXPECT_DOUBLE_EQ(stats.mean_present(), 2.0);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 1.0);
  // Each is served for 1 s once its turn comes: the waits are not service.
  EXPECT_DOUBLE_EQ(stats.service_sum(), 1.0 + 1.0 + 1.0);
}

// serve by: job 1 (key 5) finds the stage idle and starts; of those that
// wait, the smallest key goes first, ties (jobs 3 and 4, key (1, 0)) by
// arrival; non-preemptive, so job 1 finishes first despite its key.
TEST(FifoStationTest, ServeByKey) {
  TestHost h(MakeFifoStation(0, true, 1.0));
  h.ArriveAt(0, 1, 1.0, {5, 0});
  h.ArriveAt(0, 2, 1.0, {3, 0});
  h.ArriveAt(0, 3, 1.0, {1, 0});
  h.ArriveAt(0, 4, 1.0, {1, 0});
  h.ArriveAt(0, 5, 1.0, {1, -1});
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_,
            (Completions{{1, 1.0}, {5, 2.0}, {3, 3.0}, {4, 4.0}, {2, 5.0}}));
}

// price(S): the mean of the last 16 services; 0 before any.
TEST(StationTest, PriceIsTheMeanOfTheLast16) {
  TestHost h(MakeDelayStation(0));
  EXPECT_EQ(h.station().Price(), 0);
  for (int i = 1; i <= 20; ++i) h.station().RecordDone(i);
  // The last 16 are 5..20: mean 12.5.
  EXPECT_DOUBLE_EQ(h.station().Price(), 12.5);
}

// A station of a program that never reads price(S) keeps no window (the
// engine clears keep_price): its completions still count.
TEST(StationTest, PriceNotKeptWhereNothingReadsIt) {
  TestHost h(MakeDelayStation(0));
  h.station().set_keep_price(false);
  for (int i = 1; i <= 20; ++i) h.station().RecordDone(i);
  EXPECT_EQ(h.station().Price(), 0);
  results::StageStats stats;
  h.station().Report(1.0, 1.0, &stats);
  EXPECT_EQ(stats.done(), 20u);
  EXPECT_DOUBLE_EQ(stats.service_sum(), 210);  // 1 + ... + 20
}

// A window started at warmup forgets what came before it.
TEST(StationTest, WindowRestartsCounts) {
  TestHost h(MakeFifoStation(0, true, 1.0));
  h.ArriveAt(0, 1, 1.0);
  h.ArriveAt(0, 2, 1.0);
  h.RunUntil(1.5);
  h.station().StartWindow(1.5);
  h.RunUntil(INFINITY);
  results::StageStats stats;
  h.station().Report(4.0, 2.5, &stats);
  // In [1.5, 4]: job 2 completes at 2 (its wait was recorded at 1, before
  // the window); present 1 on [1.5, 2): mean 0.5 / 2.5.
  EXPECT_EQ(stats.done(), 1u);
  EXPECT_EQ(stats.waited(), 0u);
  EXPECT_DOUBLE_EQ(stats.mean_present(), 0.2);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 0.2);
}


// ---------------------------------------------------------------- step

Job StepJob(SessionId session, ir::Statement::Run::Mode mode, double work) {
  Job job;
  job.session = session;
  job.mode = mode;
  job.work = work;
  return job;
}
constexpr auto kPrefill = ir::Statement::Run::PREFILL;
constexpr auto kDecode = ir::Statement::Run::DECODE;

// Chunked prefill: prompt 10, budget 4 tokens a step, tau = 1 + 0.1 tokens.
// Chunks min(10, 4) = 4, min(6, 4) = 4, min(2, 4) = 2: steps of 1.4, 1.4,
// 1.2 from 0, so the job completes at 1.4 + 1.4 + 1.2 = 4.0. context is the
// tokens processed including the chunk: 4, 8, 10.
TEST(StepStationTest, ChunkedPrefill) {
  TestHost h(MakeStepStation(0, INFINITY, 4));
  h.tau_of_step = [](const StepVars& v) { return 1 + 0.1 * v.tokens; };
  h.ArriveJob(0, StepJob(1, kPrefill, 10));
  h.RunUntil(INFINITY);
  ASSERT_EQ(h.steps_.size(), 3u);
  EXPECT_EQ(h.steps_[0].prefill, 4);
  EXPECT_EQ(h.steps_[1].prefill, 4);
  EXPECT_EQ(h.steps_[2].prefill, 2);
  EXPECT_EQ(h.steps_[0].context, 4);
  EXPECT_EQ(h.steps_[1].context, 8);
  EXPECT_EQ(h.steps_[2].context, 10);
  for (const StepVars& v : h.steps_) {
    EXPECT_EQ(v.tokens, v.prefill);
    EXPECT_EQ(v.decode, 0);
    EXPECT_EQ(v.seqs, 1);
  }
  EXPECT_DOUBLE_EQ(h.step_starts_[1], 1.4);
  EXPECT_DOUBLE_EQ(h.step_starts_[2], 2.8);
  ASSERT_EQ(h.completions_.size(), 1u);
  EXPECT_DOUBLE_EQ(h.completions_[0].second, 4.0);
  // Report: 3 steps of 1 job, 10 tokens; in a step all of [0, 4].
  results::StageStats stats;
  h.station().Report(4.0, 4.0, &stats);
  EXPECT_EQ(stats.steps(), 3u);
  EXPECT_EQ(stats.batch_jobs(), 3u);
  EXPECT_EQ(stats.batch_tokens(), 10u);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 1.0);
}

// Three requests arriving together on an idle engine form one batch: the
// step starts after every event of the instant. Prefills of 2, tau = 1:
// one step of seqs 3, tokens 6; all complete at 1.
TEST(StepStationTest, ArrivalsOfOneInstantFormOneBatch) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.ArriveJob(0, StepJob(1, kPrefill, 2));
  h.ArriveJob(0, StepJob(2, kPrefill, 2));
  h.ArriveJob(0, StepJob(3, kPrefill, 2));
  h.RunUntil(INFINITY);
  ASSERT_EQ(h.steps_.size(), 1u);
  EXPECT_EQ(h.steps_[0].seqs, 3);
  EXPECT_EQ(h.steps_[0].tokens, 6);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.0}, {2, 1.0}, {3, 1.0}}));
}

// seqs 2 leaves the third of three jobs for a later round: steps [0, 1)
// with jobs 1, 2 and [1, 2) with job 3, which waited 1. While the first
// step runs, queue 3 and busy 2; between the steps nothing is in service.
TEST(StepStationTest, SeqsLimitLeavesAJobForLater) {
  TestHost h(MakeStepStation(0, 2, INFINITY));
  h.ArriveJob(0, StepJob(1, kPrefill, 1));
  h.ArriveJob(0, StepJob(2, kPrefill, 1));
  h.ArriveJob(0, StepJob(3, kPrefill, 1));
  EXPECT_EQ(h.station().Busy(), 0u);  // the step starts at the end of the instant
  h.RunUntil(0.5);
  EXPECT_EQ(h.station().Queue(), 3u);
  EXPECT_EQ(h.station().Busy(), 2u);
  EXPECT_EQ(h.station().Work(0.5), 3);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.0}, {2, 1.0}, {3, 2.0}}));
  results::StageStats stats;
  h.station().Report(2.0, 2.0, &stats);
  EXPECT_EQ(stats.waited(), 3u);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 1.0);
  // Service from the first step to completion: 1 each.
  EXPECT_DOUBLE_EQ(stats.service_sum(), 3.0);
  // Present 3 on [0, 1), 1 on [1, 2): 4 / 2.
  EXPECT_DOUBLE_EQ(stats.mean_present(), 2.0);
  EXPECT_EQ(stats.batch_jobs(), 3u);
}

// Decode and prefill share the budget of 4: decode A (3 tokens) and
// prefill B (5) at 0. Decode jobs go first: step 1 is A's token and
// min(5, 3) = 3 of B (tokens 4); step 2 A's and B's last min(2, 3) = 2
// (tokens 3); step 3 A alone (tokens 1). tau = 1 + 0.1 tokens: 1.4, 1.3,
// 1.1, so B completes at 2.7 and A at 3.8. A decode job without growing
// has the context of the tokens generated, this step's included: 1, 2, 3;
// B's is 3 then 5.
TEST(StepStationTest, DecodeAndPrefillShareTheBudget) {
  TestHost h(MakeStepStation(0, INFINITY, 4));
  h.tau_of_step = [](const StepVars& v) { return 1 + 0.1 * v.tokens; };
  h.ArriveJob(0, StepJob(2, kPrefill, 5));  // arrives first, still after the decode job
  h.ArriveJob(0, StepJob(1, kDecode, 3));
  h.RunUntil(INFINITY);
  ASSERT_EQ(h.steps_.size(), 3u);
  EXPECT_EQ(h.steps_[0].decode, 1);
  EXPECT_EQ(h.steps_[0].prefill, 3);
  EXPECT_EQ(h.steps_[0].tokens, 4);
  EXPECT_EQ(h.steps_[0].context, 1 + 3);
  EXPECT_EQ(h.steps_[1].prefill, 2);
  EXPECT_EQ(h.steps_[1].tokens, 3);
  EXPECT_EQ(h.steps_[1].context, 2 + 5);
  EXPECT_EQ(h.steps_[2].tokens, 1);
  EXPECT_EQ(h.steps_[2].seqs, 1);
  EXPECT_EQ(h.steps_[2].context, 3);
  ASSERT_EQ(h.completions_.size(), 2u);
  EXPECT_EQ(h.completions_[0].first, 2u);
  EXPECT_DOUBLE_EQ(h.completions_[0].second, 2.7);
  EXPECT_EQ(h.completions_[1].first, 1u);
  EXPECT_DOUBLE_EQ(h.completions_[1].second, 3.8);
}

// A budget of 2 and three decode jobs: only two fit a step (one token
// each), in order of arrival; the third waits until one completes.
// Decodes of 2, 2, 1 tokens: steps {1, 2}, {1, 2}, {3}.
TEST(StepStationTest, BudgetLimitsDecodeJobs) {
  TestHost h(MakeStepStation(0, INFINITY, 2));
  h.ArriveJob(0, StepJob(1, kDecode, 2));
  h.ArriveJob(0, StepJob(2, kDecode, 2));
  h.ArriveJob(0, StepJob(3, kDecode, 1));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 2.0}, {2, 2.0}, {3, 3.0}}));
}

// Jobs that arrive during a step wait for the next; one that arrives at
// the instant a step ends takes part in the next step, which starts then.
// tau = 1: job 1 at 0 runs [0, 1); job 2 at 0.5 waits until 1; job 3 at 1
// (exactly the end) joins job 2 there. Decodes of 2: job 1 ends at 2, jobs
// 2 and 3 at 3.
TEST(StepStationTest, ArrivalsDuringAStepWaitForTheNext) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.ArriveJob(0, StepJob(1, kDecode, 2));
  h.ArriveJob(0.5, StepJob(2, kDecode, 2));
  h.ArriveJob(1, StepJob(3, kDecode, 2));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.step_starts_, (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(h.steps_[0].seqs, 1);
  EXPECT_EQ(h.steps_[1].seqs, 3);
  EXPECT_EQ(h.steps_[2].seqs, 2);
  EXPECT_EQ(h.completions_, (Completions{{1, 2.0}, {2, 3.0}, {3, 3.0}}));
  results::StageStats stats;
  h.station().Report(3.0, 3.0, &stats);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 0.5);  // job 2's; job 3 starts as it arrives
}

// serve by orders the batch: seqs 1, keys 3, 1, 2 arriving together run in
// the order 1, 2, 3 of their keys (sessions 2, 3, 1).
TEST(StepStationTest, ServeByOrdersTheBatch) {
  TestHost h(MakeStepStation(0, 1, INFINITY));
  std::vector<double> k3{3}, k1{1}, k2{2};
  Job a = StepJob(1, kPrefill, 1), b = StepJob(2, kPrefill, 1), c = StepJob(3, kPrefill, 1);
  a.key = k3;
  b.key = k1;
  c.key = k2;
  h.ArriveJob(0, a);
  h.ArriveJob(0, b);
  h.ArriveJob(0, c);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{2, 1.0}, {3, 2.0}, {1, 3.0}}));
}

// A decode job growing a hold whose content is 5: each token takes its
// unit when the job joins the batch, so the context is the content with
// this step's token: 6, 7, 8. The third growth stalls: the job is left out
// and the stage idles until the unit is granted at 4.5, when a step starts
// at once (with the reserved unit: no new growth asked).
TEST(StepStationTest, GrowthStallsAndResumes) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  int asked = 0;
  h.grow = [&](SessionId) {
    ++asked;
    return asked == 3 ? StageHost::Growth::kStalled : StageHost::Growth::kGranted;
  };
  Job job = StepJob(1, kDecode, 3);
  job.growing = true;
  job.content = 5;
  h.ArriveJob(0, job);
  h.RunUntil(4);
  EXPECT_EQ(h.step_starts_, (std::vector<double>{0, 1}));
  EXPECT_EQ(h.station().Queue(), 1u);
  EXPECT_EQ(h.station().Busy(), 0u);
  h.GrantAt(4.5, 1);
  h.RunUntil(INFINITY);
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(h.step_starts_, (std::vector<double>{0, 1, 4.5}));
  EXPECT_EQ(h.steps_[0].context, 6);
  EXPECT_EQ(h.steps_[1].context, 7);
  EXPECT_EQ(h.steps_[2].context, 8);
  EXPECT_EQ(h.completions_, (Completions{{1, 5.5}}));
  // In a step 3 of the 5.5 s; present all along.
  results::StageStats stats;
  h.station().Report(5.5, 5.5, &stats);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 3 / 5.5);
  EXPECT_DOUBLE_EQ(stats.mean_present(), 1.0);
}

// A stalled job does not hold the others back: job 1 stalls, job 2 (no
// growth) runs its two steps alone.
TEST(StepStationTest, StalledJobIsLeftOut) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.grow = [](SessionId s) {
    return s == 1 ? StageHost::Growth::kStalled : StageHost::Growth::kGranted;
  };
  Job a = StepJob(1, kDecode, 1);
  a.growing = true;
  h.ArriveJob(0, a);
  h.ArriveJob(0, StepJob(2, kDecode, 2));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{2, 2.0}}));
  EXPECT_EQ(h.steps_[0].seqs, 1);
  EXPECT_EQ(h.station().Queue(), 1u);
}

// docs/language.md §3.3: a step's attention is the sum over its jobs of
// t c - t (t - 1) / 2 (t its tokens, c its context after them). One step
// with a plain prefill of 4 (c = 4): 16 - 6 = 10; a growing decode whose
// hold had 4 (c = 5 with its token's unit) and one whose hold had 6 (7):
// 12; a growing prefill chunk of 3 whose hold had 2 (c = 5: 15 - 3 = 12)
// and a growing decode whose hold had 3 (4): 16. The context is summed as
// before (4; 12; 9).
TEST(StepStationTest, Attention) {
  struct Case {
    std::vector<Job> jobs;
    double attention, context;
  };
  auto growing = [](SessionId s, ir::Statement::Run::Mode mode, double work, double content) {
    Job j = StepJob(s, mode, work);
    j.growing = true;
    j.content = content;
    return j;
  };
  const Case cases[] = {
      {{StepJob(1, kPrefill, 4)}, 10, 4},
      {{growing(1, kDecode, 1, 4), growing(2, kDecode, 1, 6)}, 12, 12},
      {{growing(1, kPrefill, 3, 2), growing(2, kDecode, 1, 3)}, 16, 9},
  };
  for (const Case& c : cases) {
    TestHost h(MakeStepStation(0, INFINITY, INFINITY));
    for (const Job& j : c.jobs) h.ArriveJob(0, j);
    h.RunUntil(INFINITY);
    ASSERT_EQ(h.steps_.size(), 1u);
    EXPECT_EQ(h.steps_[0].attention, c.attention);
    EXPECT_EQ(h.steps_[0].context, c.context);
  }
}

// A decode job whose run observes each token tells the host at each
// token, with the gap since its last (the first: since its run started),
// a step's consecutive tokens of one observation and one gap in a run.
// Jobs 1 (decode 3) and 4 (decode 2) observe 4, job 2 nothing, all from 0
// on step(1); job 3 (decode 2, observing 7) arrives at 0.5, during the
// first step, and joins the second, [1, 2): its first gap is 2 - 0.5 =
// 1.5, then 1. At 1: jobs 1, 4 (4, gap 1): one run; at 2: 1, 4 (4, 1),
// then 3 (7, 1.5): two; at 3: 1 (4, 1), 3 (7, 1): two. Five runs.
TEST(StepStationTest, TokensObserved) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  auto observing = [](SessionId s, double work, int32_t observation) {
    Job j = StepJob(s, kDecode, work);
    j.observation = observation;
    return j;
  };
  h.ArriveJob(0, observing(1, 3, 4));
  h.ArriveJob(0, StepJob(2, kDecode, 2));  // not observed
  h.ArriveJob(0, observing(4, 2, 4));
  h.ArriveJob(0.5, observing(3, 2, 7));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.tokens_,
            (Completions{{1, 1.0}, {4, 1.0}, {1, 2.0}, {4, 2.0}, {3, 2.0}, {1, 3.0}, {3, 3.0}}));
  EXPECT_EQ(h.gaps_, (std::vector<std::pair<int32_t, double>>{
                         {4, 1.0}, {4, 1.0}, {4, 1.0}, {4, 1.0}, {7, 1.5}, {4, 1.0}, {7, 1.0}}));
  EXPECT_EQ(h.token_runs_, 5);
}

// A step's decode growths in one call (StageHost::GrowEach) that grants
// only the first two of four: jobs 1 and 2 join as granted; job 3's growth
// is then asked alone (Grow) and stalls, so it is left out with its content
// as it was; job 4 does not grow (its run is plain) and joins. Contents 10,
// 20, 30 and job 4's first token: context (10 + 1) + (20 + 1) + 1 = 33, as
// is the attention (t = 1 each); decode 3.
TEST(StepStationTest, GrowthsGrantedInPart) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.grow_each = [](size_t n) { return n == 3 ? size_t{2} : size_t{0}; };
  h.grow = [](SessionId s) {
    return s == 3 ? StageHost::Growth::kStalled : StageHost::Growth::kGranted;
  };
  for (SessionId s : {1u, 2u, 3u}) {
    Job j = StepJob(s, kDecode, 1);
    j.growing = true;
    j.content = 10.0 * s;
    h.ArriveJob(0, j);
  }
  h.ArriveJob(0, StepJob(4, kDecode, 1));
  h.RunUntil(2);
  ASSERT_GE(h.steps_.size(), 1u);
  EXPECT_EQ(h.each_granted_, 2u);
  EXPECT_EQ(h.steps_[0].seqs, 3);
  EXPECT_EQ(h.steps_[0].decode, 3);
  EXPECT_EQ(h.steps_[0].context, 33);
  EXPECT_EQ(h.steps_[0].attention, 33);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.0}, {2, 1.0}, {4, 1.0}}));
  // Job 3 waits for its unit; granted, it runs with content 30 + 1.
  h.GrantAt(3, 3);
  h.RunUntil(INFINITY);
  ASSERT_EQ(h.steps_.size(), 2u);
  EXPECT_EQ(h.steps_[1].context, 31);
  EXPECT_EQ(h.completions_.back(), (std::pair<SessionId, double>{3, 4.0}));
}

// Regular decode jobs (growing, neither stalled nor reserved) have their
// growths asked in one call; a stall or a lone grant makes a job
// irregular until its step ends (or its grant comes), and the calls then
// carry only the jobs that grow. Jobs 1, 2, 3 decode 3 tokens each, their
// holds' contents 0, 10, 20; tau = 1. Step 1 (t = 0): the call grants all
// three: context 1 + 11 + 21 = 33. Step 2 (t = 1): it grants job 1 only;
// job 2's growth asked alone is granted, job 3's stalls: 2 + 12 = 14.
// Step 3 (t = 2): job 3 still stalled, the call has jobs 1 and 2, both
// granted: 3 + 13 = 16; they complete at 3. Job 3's unit comes at 4: step 4
// with its reserved unit (no call): 22. Step 5 (t = 5): job 3 is regular
// again, one call of one hold: 23; it completes at 6.
TEST(StepStationTest, RegularJobsGrowInOneCall) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  std::vector<size_t> calls;
  h.grow_each = [&](size_t n) {
    calls.push_back(n);
    return calls.size() == 2 ? size_t{1} : n;
  };
  h.grow = [](SessionId s) {
    return s == 3 ? StageHost::Growth::kStalled : StageHost::Growth::kGranted;
  };
  for (SessionId s : {1u, 2u, 3u}) {
    Job j = StepJob(s, kDecode, 3);
    j.growing = true;
    j.content = 10.0 * (s - 1);
    h.ArriveJob(0, j);
  }
  h.RunUntil(3.5);
  EXPECT_EQ(h.station().Queue(), 1u);
  h.GrantAt(4, 3);
  h.RunUntil(INFINITY);
  std::vector<double> contexts;
  for (const StepVars& v : h.steps_) contexts.push_back(v.context);
  EXPECT_EQ(contexts, (std::vector<double>{33, 14, 16, 22, 23}));
  EXPECT_EQ(h.step_starts_, (std::vector<double>{0, 1, 2, 4, 5}));
  EXPECT_EQ(calls, (std::vector<size_t>{3, 3, 2, 1}));
  EXPECT_EQ(h.completions_, (Completions{{1, 3.0}, {2, 3.0}, {3, 6.0}}));
}

// With serve by, the holds of a step's one call follow the batch order:
// keys 3, 1, 2 (holds 11, 12, 13) give 12, 13, 11; a job arriving during
// the first step with key 0 (hold 14) goes first in the second: 14, 12,
// 13, 11. Decodes of 2 tokens (job 4: 1): all complete at 2.
TEST(StepStationTest, ServeByOrdersTheGrowths) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.grow_each = [](size_t n) { return n; };
  std::vector<double> keys[] = {{3}, {1}, {2}, {0}};
  auto job = [&](SessionId s, double work) {
    Job j = StepJob(s, kDecode, work);
    j.growing = true;
    j.hold = 10 + s;
    j.key = keys[s - 1];
    return j;
  };
  h.ArriveJob(0, job(1, 2));
  h.ArriveJob(0, job(2, 2));
  h.ArriveJob(0, job(3, 2));
  h.ArriveJob(0.5, job(4, 1));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.each_holds_, (std::vector<std::vector<uint32_t>>{{12, 13, 11}, {14, 12, 13, 11}}));
  EXPECT_EQ(h.completions_, (Completions{{4, 2.0}, {2, 2.0}, {3, 2.0}, {1, 2.0}}));
}

// A fractional token budget: tokens 2.5 takes two decode tokens (after
// two, 0.5 < 1 is left) and a prefill chunk of the 0.5 left: tokens 2.5,
// decode 2, prefill 0.5; the third decode job waits for the next step.
TEST(StepStationTest, FractionalBudget) {
  TestHost h(MakeStepStation(0, INFINITY, 2.5));
  h.ArriveJob(0, StepJob(1, kDecode, 1));
  h.ArriveJob(0, StepJob(2, kDecode, 1));
  h.ArriveJob(0, StepJob(3, kDecode, 1));
  h.ArriveJob(0, StepJob(4, kPrefill, 1));
  h.RunUntil(INFINITY);
  ASSERT_GE(h.steps_.size(), 2u);
  EXPECT_EQ(h.steps_[0].decode, 2);
  EXPECT_EQ(h.steps_[0].prefill, 0.5);
  EXPECT_EQ(h.steps_[0].tokens, 2.5);
  EXPECT_EQ(h.steps_[1].decode, 1);
  EXPECT_EQ(h.steps_[1].prefill, 0.5);
  EXPECT_EQ(h.completions_, (Completions{{1, 1.0}, {2, 1.0}, {3, 2.0}, {4, 2.0}}));
}

// A decode run of fractional work w takes ceil(w) steps: 2.5 takes 3.
TEST(StepStationTest, FractionalDecodeWork) {
  TestHost h(MakeStepStation(0, INFINITY, INFINITY));
  h.ArriveJob(0, StepJob(1, kDecode, 2.5));
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 3.0}}));
  EXPECT_EQ(h.station().Work(3), 0);
}

// The window restarts the step counts: two steps of a prefill of 2 with a
// budget of 1, the window starting between them.
TEST(StepStationTest, WindowRestartsSteps) {
  TestHost h(MakeStepStation(0, INFINITY, 1));
  h.ArriveJob(0, StepJob(1, kPrefill, 2));
  h.RunUntil(1.5);
  h.station().StartWindow(1.5);
  h.RunUntil(INFINITY);
  results::StageStats stats;
  h.station().Report(2.0, 0.5, &stats);
  // The step [1, 2) started before the window: no step counted, but the
  // window [1.5, 2] was spent in it.
  EXPECT_EQ(stats.steps(), 0u);
  EXPECT_EQ(stats.batch_jobs(), 0u);
  EXPECT_DOUBLE_EQ(stats.utilisation(), 1.0);
  EXPECT_EQ(stats.done(), 1u);
}

}  // namespace
}  // namespace serq::sim
