// The pending events: an array-based 4-ary min-heap of small entries
// ordered by (time, sequence). The sequence number is handed out when an
// event is scheduled, so events due at the same time run in the order they
// were scheduled (language.md §7) and nothing depends on addresses.
//
// An entry carries no payload beyond a kind, a target and a tag: the engine
// knows what a (kind, target) is. A target that has at most one pending
// event whose time keeps moving (a ps station's next completion) owns a
// slot: Reschedule moves its event in place, with a new sequence number, so
// it runs exactly where a fresh Push would put it and no stale copy is
// left behind. Other stale events (an expiry of an ended lease) carry a tag
// that no longer matches their target's; they are dropped when they come
// out, which is cheaper than removing them from the middle of the heap.
//
// End-of-instant events (a step's start, pushed at the instant it is due)
// pushed for the time of those already waiting, or when none waits, go to
// a list of their own instead of the heap: they share their time and come
// in sequence order, so the list is sorted as the heap would sort them, and
// the earliest event is the earlier of the heap's top and the list's first.
// The same events come out in the same order, without sifting an event
// through the heap that will come out within the instant.
#ifndef SERQ_SIM_EVENTS_EVENT_QUEUE_H_
#define SERQ_SIM_EVENTS_EVENT_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "serq-sim/events/clock.h"

namespace serq::sim {

// 32 bytes, a power of 2: the queue's sizes and indices are shifts, not
// divisions by 24 (the loop asks for them several times an event).
// Aligned, so passed by reference (GCC notes the ABI of passing an
// over-aligned type by value).
struct alignas(32) Event {
  Ticks time;  // the clock's ticks (clock.h): equal instants compare equal
  // late << 63 | sequence << 8 | slotted << 7 | kind: an end-of-instant
  // event comes after every ordinary event of its time, then the sequence
  // decides; whether it is its target's slot event, and the kind, ride
  // along.
  uint64_t order;
  uint32_t target;  // what the event is for (a station, a session, a lease...)
  uint32_t tag;     // checked against the target's current tag

  uint8_t kind() const { return static_cast<uint8_t>(order & 0x7f); }
  bool slotted() const { return (order & 0x80) != 0; }
  uint64_t sequence() const { return (order << 1) >> 9; }
  bool late() const { return (order >> 63) != 0; }
  bool Before(const Event& other) const {
    return time < other.time || (time == other.time && order < other.order);
  }
};

class EventQueue {
 public:
  // Kinds are below 128: the kind's byte also holds the slot flag.
  static constexpr uint8_t kMaxKind = 0x7f;

  // Schedules an event at tick `time`. An event pushed with
  // `end_of_instant` runs after every other event due at the same time,
  // including those scheduled after it (a step that starts on an idle
  // stage waits so that requests arriving together are batched together).
  // Inline (always: GCC would not): the engine pushes once or twice an
  // event, and a call's frame was a third of a push.
  [[gnu::always_inline]] void Push(Ticks time, uint8_t kind, uint32_t target, uint32_t tag,
                                   bool end_of_instant = false) {
    if (end_of_instant && (late_next_ == late_.size() || late_.back().time == time)) {
      PushLate(time, kind, target, tag);
      return;
    }
    // The new event's fields go to SiftUp in registers, never as an Event
    // on the stack: one stored there a field at a time and read back whole
    // (16 bytes at a time) waits for the stores to reach the cache (a
    // store-forwarding stall: a third of an M/M/1 push's cycles).
    const uint64_t order = Order(kind, end_of_instant);
    SiftUp(heap_.push_hole(), time, order, target, tag);
  }

  // The one event of slot `target` (an ordinary event, not end of instant):
  // scheduled, or moved in place if it is pending. It takes a new sequence
  // number, as if its old event were dropped and a new one pushed.
  void Reschedule(Ticks time, uint8_t kind, uint32_t target, uint32_t tag = 0) {
    Event e = Make(time, kind, target, tag, false);
    e.order |= kSlotted;
    if (target >= slot_pos_.size()) slot_pos_.resize(target + 1, kNone);
    size_t i = slot_pos_[target];
    if (i == kNone) {
      heap_.push_back(e);
      SiftUp(heap_.size() - 1, e);
    } else if (e.Before(heap_[i])) {
      SiftUp(i, e);
    } else {
      SiftDown(i, e);
    }
  }
  // Removes slot `target`'s event, if one is pending.
  void Cancel(uint32_t target) {
    if (target >= slot_pos_.size() || slot_pos_[target] == kNone) return;
    size_t i = slot_pos_[target];
    slot_pos_[target] = kNone;
    Event last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    if (i > 0 && last.Before(heap_[(i - 1) / kArity])) {
      SiftUp(i, last);
    } else {
      SiftDown(i, last);
    }
  }

  bool empty() const { return heap_.empty() && late_next_ == late_.size(); }
  size_t size() const { return heap_.size() + (late_.size() - late_next_); }
  const Event& Top() const { return LateFirst() ? late_[late_next_] : heap_.front(); }

  // Removes and returns the earliest event.
  Event Pop() {
    if (LateFirst()) return late_[late_next_++];
    Event top = heap_.front();
    if (top.slotted()) slot_pos_[top.target] = kNone;
    Event last = heap_.back();
    heap_.pop_back();
    // A heap left with one event (an M/M/1's: the next arrival or the
    // next completion) has nothing to sift through: no call.
    if (heap_.size() == 1) {
      Place(0, last);
    } else if (!heap_.empty()) {
      SiftDown(0, last);
    }
    return top;
  }

  // Drops every event for which `stale(event)` is true and rebuilds the
  // heap in O(n). The survivors keep their sequence numbers, so their order
  // does not change.
  template <typename Stale>
  void RemoveIf(Stale stale) {
    size_t late_kept = 0;
    for (size_t i = late_next_; i < late_.size(); ++i) {
      if (!stale(late_[i])) late_[late_kept++] = late_[i];
    }
    late_.resize(late_kept);
    late_next_ = 0;
    size_t kept = 0;
    for (const Event& e : heap_) {
      if (e.slotted()) slot_pos_[e.target] = kNone;
      if (!stale(e)) heap_[kept++] = e;
    }
    heap_.resize(kept);
    for (size_t i = 0; i < kept; ++i) {
      if (heap_[i].slotted()) slot_pos_[heap_[i].target] = i;
    }
    for (size_t i = heap_.size() / kArity + 1; i-- > 0;) {
      if (i < heap_.size()) {
        const Event e = heap_[i];  // a copy: the sift moves what heap_[i] holds
        SiftDown(i, e);
      }
    }
  }

  void Clear() {
    heap_.clear();
    late_.clear();
    late_next_ = 0;
    slot_pos_.clear();
    next_sequence_ = 0;
  }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  static constexpr size_t kArity = 4;
  static constexpr uint64_t kSlotted = 0x80;
  static constexpr size_t kNone = SIZE_MAX;

  // Push's end-of-instant list, out of its way (a step's start).
  [[gnu::noinline]] void PushLate(Ticks time, uint8_t kind, uint32_t target, uint32_t tag) {
    if (late_next_ == late_.size()) {
      late_.clear();
      late_next_ = 0;
    }
    late_.push_back(Make(time, kind, target, tag, true));
  }

  // The list's first event comes before the heap's top.
  bool LateFirst() const {
    return late_next_ != late_.size() && (heap_.empty() || late_[late_next_].Before(heap_.front()));
  }
  // A new event's order: its sequence number, kind and lateness.
  uint64_t Order(uint8_t kind, bool end_of_instant) {
    uint64_t order = (next_sequence_++ << 8) | (kind & kMaxKind);
    if (end_of_instant) order |= uint64_t{1} << 63;
    return order;
  }
  Event Make(Ticks time, uint8_t kind, uint32_t target, uint32_t tag, bool end_of_instant) {
    return Event{time, Order(kind, end_of_instant), target, tag};
  }
  // Every move goes through here, so a slot always knows where its event is.
  void Place(size_t i, const Event& e) {
    heap_[i] = e;
    if (e.slotted()) slot_pos_[e.target] = i;
  }
  // Inline: the engine pushes and pops once or twice per event. Both sifts
  // move a hole and write `e` once, where it belongs.
  // `e` is not in the heap (the sifts write over the heap's slots).
  void SiftUp(size_t i, const Event& e) { SiftUp(i, e.time, e.order, e.target, e.tag); }
  // The same, the event given by its fields (Push: see there).
  void SiftUp(size_t i, Ticks time, uint64_t order, uint32_t target, uint32_t tag) {
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      const Event& p = heap_[parent];
      if (!(time < p.time || (time == p.time && order < p.order))) break;
      Place(i, p);
      i = parent;
    }
    Event& to = heap_[i];
    to.time = time;
    to.order = order;
    to.target = target;
    to.tag = tag;
    if ((order & kSlotted) != 0) slot_pos_[target] = i;
  }
  // Places `e` at the hole `i` or below it.
  void SiftDown(size_t i, const Event& e) {
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
      Place(i, heap_[best]);
      i = best;
    }
    Place(i, e);
  }

  // The heap's array: a vector kept at its capacity, with a size of its
  // own, so that a push is a comparison and a store in place (GCC kept
  // vector::push_back out of line: a call a push). The same events in the
  // same places as a vector's.
  class Array {
   public:
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Event& operator[](size_t i) { return slots_[i]; }
    const Event& operator[](size_t i) const { return slots_[i]; }
    const Event& front() const { return slots_[0]; }
    const Event& back() const { return slots_[size_ - 1]; }
    void push_back(const Event& e) { slots_[push_hole()] = e; }
    // One more slot at the end, its content left for the caller to set;
    // returns its index.
    size_t push_hole() {
      if (size_ == slots_.size()) Grow();
      return size_++;
    }
    void pop_back() { --size_; }
    void resize(size_t n) {
      if (n > slots_.size()) slots_.resize(n);
      size_ = n;
    }
    void clear() { size_ = 0; }
    void reserve(size_t n) {
      if (n > slots_.size()) slots_.resize(n);
    }
    Event* begin() { return slots_.data(); }
    Event* end() { return slots_.data() + size_; }
    const Event* begin() const { return slots_.data(); }
    const Event* end() const { return slots_.data() + size_; }

   private:
    [[gnu::noinline]] void Grow() { slots_.resize(slots_.empty() ? 16 : 2 * slots_.size()); }
    std::vector<Event> slots_;  // every slot from size_ on is unused
    size_t size_ = 0;
  };

  Array heap_;
  std::vector<size_t> slot_pos_;  // slot (target) -> its event's index, or kNone
  // End-of-instant events of one time, in sequence order, from late_next_.
  std::vector<Event> late_;
  size_t late_next_ = 0;
  uint64_t next_sequence_ = 0;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_EVENTS_EVENT_QUEUE_H_
