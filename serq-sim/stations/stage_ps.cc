// ps(phi): processor sharing. The n jobs present are each served at rate
// phi(n)/n, phi evaluated with present = n whenever n changes.
//
// By virtual time: V is the service every job present has received since
// the stage was last empty, growing at phi(n)/n. A job arriving with work w
// gets the finish tag V + w and completes when V reaches it, so the job
// with the smallest tag completes first and one event (the station's next
// completion) is pending at a time: O(log n) per arrival or completion. A
// change of n moves that event in place (StageHost::Reschedule), once per
// engine event (StageHost::Defer), so a completion whose session runs again
// at once on the same stage moves it once, not twice.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "serq-sim/stations/stage.h"

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

// A 4-ary min-heap of 16-byte tags by (finish, sequence). Pop moves the
// hole down to a leaf along the least children (Floyd), choosing among four
// without jumps (comparisons of random tags mispredict), then sifts the last
// tag up from there, which is usually short. With 10^4 jobs it measured 10%
// faster than std::pop_heap here (bench/sim_bench.cc).
//
// The children of slot i are slots 4i+1 .. 4i+4. Slot k is stored at
// k + 3 of a buffer aligned to 64 bytes, so those four children (at
// 4i+4 .. 4i+7) fill exactly one cache line and a level of the descent
// touches one line, not two: 10% fewer ns per ps event at 10^4 jobs.
class TagHeap {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const Tag& top() const { return slots()[0]; }

  void Push(Tag tag) {
    if (size_ + kOffset >= lines_.size() * kPerLine) lines_.resize(std::max<size_t>(4, 2 * lines_.size()));
    ++size_;
    SiftUp(size_ - 1, tag);
  }

  Tag Pop() {
    Tag* heap = slots();
    Tag top = heap[0];
    Tag last = heap[size_ - 1];
    const size_t n = --size_;
    if (n == 0) return top;
    size_t i = 0;
    for (;;) {
      size_t c = 4 * i + 1;
      if (c + 4 > n) break;
      const Tag* k = &heap[c];
      size_t a = c + static_cast<size_t>(Before(k[1], k[0]));
      size_t b = c + 2 + static_cast<size_t>(Before(k[3], k[2]));
      size_t best = Before(heap[b], heap[a]) ? b : a;
      heap[i] = heap[best];
      i = best;
    }
    size_t c = 4 * i + 1;
    if (c < n) {  // a last node with fewer than four children
      size_t best = c;
      for (size_t k = c + 1; k < n; ++k) {
        if (Before(heap[k], heap[best])) best = k;
      }
      heap[i] = heap[best];
      i = best;
    }
    SiftUp(i, last);
    return top;
  }

 private:
  static constexpr size_t kPerLine = 4;
  static constexpr size_t kOffset = 3;
  struct alignas(64) Line {
    Tag tag[kPerLine];
  };
  static_assert(sizeof(Line) == kPerLine * sizeof(Tag), "a line is four tags, no padding");

  Tag* slots() { return reinterpret_cast<Tag*>(lines_.data()) + kOffset; }
  const Tag* slots() const { return reinterpret_cast<const Tag*>(lines_.data()) + kOffset; }

  // Without short-circuits, so that the compiler can select without jumps.
  static bool Before(const Tag& a, const Tag& b) {
    return (a.finish < b.finish) | ((a.finish == b.finish) & (a.sequence < b.sequence));
  }
  void SiftUp(size_t i, Tag tag) {
    Tag* heap = slots();
    while (i > 0) {
      size_t parent = (i - 1) / 4;
      if (!Before(tag, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = tag;
  }

  std::vector<Line> lines_;  // over-aligned: allocated on 64-byte boundaries
  size_t size_ = 0;
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

  bool OnEvent(StageHost& host, uint32_t, std::vector<SessionId>* done) override {
    if (tags_.empty()) return false;
    double now = host.now();
    Advance(now);
    // The event was computed for the smallest tag: V has reached it, up to
    // rounding, or passed it by the part of a tick the clock rounded the
    // completion up by (StageHost::Reschedule), which V keeps: pulling it
    // back would take that service from every job at every completion.
    // Tags equal to it up to a relative 1e-12 complete with it (jobs that
    // end together in exact arithmetic), and those it passed.
    virtual_time_ = std::max(virtual_time_, tags_.top().finish);
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

  uint32_t Busy() const override { return present(); }
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
    if (tags_.empty() || rate_ <= 0) {
      host.Cancel(id());
      return;
    }
    double left = std::max(0.0, tags_.top().finish - virtual_time_);
    host.Reschedule(left / rate_, id());
  }

  bool phi_constant_;
  double phi_;
  TagHeap tags_;
  double virtual_time_ = 0;
  double updated_ = 0;  // when virtual_time_ was last brought up to date
  double rate_ = 0;     // phi(n) / n
  double finish_sum_ = 0;
  uint32_t next_sequence_ = 0;  // from 0 in each busy period
  bool deferred_ = false;
};

}  // namespace

std::unique_ptr<Station> MakePsStation(uint32_t id, bool phi_constant, double phi) {
  return std::make_unique<PsStation>(id, phi_constant, phi);
}

}  // namespace serq::sim
