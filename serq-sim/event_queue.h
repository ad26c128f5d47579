// The pending events: an array-based 4-ary min-heap of small entries
// ordered by (time, sequence). The sequence number is handed out when an
// event is scheduled, so events due at the same time run in the order they
// were scheduled (language.md §7) and nothing depends on addresses.
//
// An entry carries no payload beyond a kind, a target and a tag: the engine
// knows what a (kind, target) is, and a tag that no longer matches the
// target's current one marks the entry stale (a rescheduled stage, an
// ended lease) — such entries are dropped when they come out, which is
// cheaper than removing them from the middle of the heap.
#ifndef SERQ_SIM_EVENT_QUEUE_H_
#define SERQ_SIM_EVENT_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace serq::sim {

struct Event {
  double time;
  // late << 63 | sequence << 8 | kind: an end-of-instant event comes after
  // every ordinary event of its time, then the sequence decides; the kind
  // rides along.
  uint64_t order;
  uint32_t target;  // what the event is for (a station, a session, a lease...)
  uint32_t tag;     // checked against the target's current tag

  uint8_t kind() const { return static_cast<uint8_t>(order & 0xff); }
  uint64_t sequence() const { return (order << 1) >> 9; }
  bool late() const { return (order >> 63) != 0; }
  bool Before(const Event& other) const {
    return time < other.time || (time == other.time && order < other.order);
  }
};

class EventQueue {
 public:
  // Schedules an event; `time` must not be NaN. An event pushed with
  // `end_of_instant` runs after every other event due at the same time,
  // including those scheduled after it (a step that starts on an idle
  // stage waits so that requests arriving together are batched together).
  void Push(double time, uint8_t kind, uint32_t target, uint32_t tag,
            bool end_of_instant = false) {
    uint64_t order = (next_sequence_++ << 8) | kind;
    if (end_of_instant) order |= uint64_t{1} << 63;
    heap_.push_back(Event{time, order, target, tag});
    SiftUp(heap_.size() - 1);
  }

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& Top() const { return heap_.front(); }

  // Removes and returns the earliest event.
  Event Pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0, last);
    return top;
  }

  // Drops every event for which `stale(event)` is true and rebuilds the
  // heap in O(n). The survivors keep their sequence numbers, so their order
  // does not change.
  template <typename Stale>
  void RemoveIf(Stale stale) {
    size_t kept = 0;
    for (const Event& e : heap_) {
      if (!stale(e)) heap_[kept++] = e;
    }
    heap_.resize(kept);
    for (size_t i = heap_.size() / kArity + 1; i-- > 0;) {
      if (i < heap_.size()) SiftDown(i, heap_[i]);
    }
  }

  void Clear() {
    heap_.clear();
    next_sequence_ = 0;
  }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  static constexpr size_t kArity = 4;

  // Inline: the engine pushes and pops once or twice per event.
  void SiftUp(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!e.Before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` at the hole `i` or below it.
  void SiftDown(size_t i, Event e) {
    const size_t n = heap_.size();
    for (;;) {
      size_t first = i * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      size_t end = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (heap_[c].Before(heap_[best])) best = c;
      }
      if (!heap_[best].Before(e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_EVENT_QUEUE_H_
