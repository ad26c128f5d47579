// The stage kinds without the engine: a small host runs their events and
// records when each job completes. Expected values are derived by hand in
// the comments.
#include "serq-sim/stage.h"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/event_queue.h"
#include "serq-sim/random.h"

namespace serq::sim {
namespace {

class TestHost : public StageHost {
 public:
  explicit TestHost(std::unique_ptr<Station> station) : station_(std::move(station)) {}

  double now() const override { return now_; }
  void Schedule(double time, uint32_t, uint32_t tag, bool end_of_instant) override {
    events_.Push(time, 0, 0, tag, end_of_instant);
  }
  void Defer(uint32_t) override { deferred_ = true; }
  bool Phi(uint32_t, double present, double* phi) override {
    *phi = phi_of_present(present);
    return *phi > 0;
  }
  void StartService(SessionId session) override { start_[session] = now_; }

  Station& station() { return *station_; }

  // Arrives job `session` with `work` (and `key`) at `time`, after running
  // every event before `time`.
  void ArriveAt(double time, SessionId session, double work, std::vector<double> key = {}) {
    RunUntil(time);
    now_ = time;
    start_[session] = time;
    Job job;
    job.session = session;
    job.work = work;
    job.key = key;
    station_->Arrive(*this, job);
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
    while (!events_.empty() && events_.Top().time < time) {
      Event e = events_.Pop();
      now_ = e.time;
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
  std::vector<std::pair<SessionId, double>> completions_;
  int stale_ = 0;

 private:
  std::unique_ptr<Station> station_;
  EventQueue events_;
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
// arrived first). The arrival of B moved A's end from 2 to 3: one stale
// event.
TEST(PsStationTest, ArrivalMovesTheEnd) {
  TestHost h(MakePsStation(0, true, 1.0));
  h.ArriveAt(0, 1, 2.0);
  h.ArriveAt(1, 2, 1.0);
  h.RunUntil(INFINITY);
  EXPECT_EQ(h.completions_, (Completions{{1, 3.0}, {2, 3.0}}));
  EXPECT_EQ(h.stale_, 1);
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

}  // namespace
}  // namespace serq::sim
