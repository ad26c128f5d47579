// ps(phi): processor sharing. The n jobs present are each served at rate
// phi(n)/n, phi evaluated with present = n whenever n changes.
//
// By virtual time: V is the service every job present has received since
// the stage was last empty, growing at phi(n)/n. A job arriving with work w
// gets the finish tag V + w and completes when V reaches it, so the job
// with the smallest tag completes first and one event (the station's next
// completion) is pending at a time: O(log n) per arrival or completion. A
// change of n moves that event; the old one is then stale (its tag is an
// older version). The new event is scheduled once per engine event
// (StageHost::Defer), so a completion whose session runs again at once on
// the same stage moves it once, not twice.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "serq-sim/stage.h"

namespace serq::sim {
namespace {

struct Tag {
  double finish;
  // Arrival order in the busy period breaks ties of equal tags. (It wraps
  // after 2^32 arrivals without the stage ever emptying; the order of equal
  // tags is then still deterministic, if no longer by arrival.)
  uint32_t sequence;
  SessionId session;
};

// A min-heap of 16-byte tags by (finish, sequence). The standard binary
// heap with an inlined comparison measured faster here than a 4-ary one
// (bench/sim_bench.cc): its pop moves the hole down with one comparison a
// level, and the comparisons of random tags mispredict either way.
class TagHeap {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Tag& top() const { return heap_.front(); }

  void Push(Tag tag) {
    heap_.push_back(tag);
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }
  Tag Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    Tag top = heap_.back();
    heap_.pop_back();
    return top;
  }

 private:
  struct Later {
    bool operator()(const Tag& a, const Tag& b) const {
      return a.finish > b.finish || (a.finish == b.finish && a.sequence > b.sequence);
    }
  };
  std::vector<Tag> heap_;
};

class PsStation final : public Station {
 public:
  PsStation(uint32_t id, bool phi_constant, double phi)
      : Station(id), phi_constant_(phi_constant), phi_(phi) {}

  void Arrive(StageHost& host, const Job& job) override {
    double now = host.now();
    Advance(now);
    double finish = virtual_time_ + job.work;
    tags_.Push(Tag{finish, next_sequence_++, job.session});
    finish_sum_ += finish;
    SetPresent(now, tags_.size(), true);
    Reschedule(host);
  }

  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) override {
    if (tag != version_ || tags_.empty()) return false;
    double now = host.now();
    Advance(now);
    // The event was computed for the smallest tag: V has reached it, up to
    // rounding. Tags equal to it up to a relative 1e-12 complete with it
    // (jobs that end together in exact arithmetic).
    virtual_time_ = tags_.top().finish;
    double limit = virtual_time_ + 1e-12 * std::max(1.0, std::fabs(virtual_time_));
    while (!tags_.empty() && tags_.top().finish <= limit) {
      Tag tag = tags_.Pop();
      finish_sum_ -= tag.finish;
      done->push_back(tag.session);
    }
    SetPresent(now, tags_.size(), !tags_.empty());
    Reschedule(host);
    return true;
  }

  uint32_t Queue() const override { return tags_.size(); }
  uint32_t Busy() const override { return tags_.size(); }
  double Work(double now) const override {
    if (tags_.empty()) return 0;
    double v = virtual_time_ + (now - updated_) * rate_;
    double w = finish_sum_ - tags_.size() * v;
    return w > 0 ? w : 0;
  }

 private:

  void Advance(double now) {
    if (!tags_.empty()) virtual_time_ += (now - updated_) * rate_;
    updated_ = now;
  }

  // After a change of n: the new rate now, the new next completion once the
  // engine's event is done (Flush).
  void Reschedule(StageHost& host) {
    if (!deferred_) {
      deferred_ = true;
      host.Defer(id());
    }
    if (tags_.empty()) {
      // A new busy period starts from V = 0, which keeps V small and the
      // sums exact.
      virtual_time_ = 0;
      finish_sum_ = 0;
      rate_ = 0;
      next_sequence_ = 0;
      return;
    }
    double n = tags_.size();
    double phi = phi_;
    if (!phi_constant_ && !host.Phi(id(), n, &phi)) {
      rate_ = 0;
      return;
    }
    rate_ = phi / n;
  }

  void Flush(StageHost& host) override {
    deferred_ = false;
    ++version_;  // whatever was scheduled before is stale now
    if (tags_.empty() || rate_ <= 0) return;
    double left = std::max(0.0, tags_.top().finish - virtual_time_);
    host.Schedule(host.now() + left / rate_, id(), version_);
  }

  bool phi_constant_;
  double phi_;
  TagHeap tags_;
  double virtual_time_ = 0;
  double updated_ = 0;  // when virtual_time_ was last brought up to date
  double rate_ = 0;     // phi(n) / n
  double finish_sum_ = 0;
  uint32_t next_sequence_ = 0;  // from 0 in each busy period
  uint32_t version_ = 0;
  bool deferred_ = false;
};

}  // namespace

std::unique_ptr<Station> MakePsStation(uint32_t id, bool phi_constant, double phi) {
  return std::make_unique<PsStation>(id, phi_constant, phi);
}

}  // namespace serq::sim
