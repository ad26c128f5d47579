#include "serq-sim/event_queue.h"

namespace serq::sim {

Event EventQueue::Pop() {
  Event top = heap_.front();
  Event last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) {
    heap_.front() = last;
    SiftDown(0);
  }
  return top;
}

void EventQueue::SiftUp(size_t i) {
  Event e = heap_[i];
  while (i > 0) {
    size_t parent = (i - 1) / kArity;
    if (!e.Before(heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void EventQueue::SiftDown(size_t i) {
  const size_t n = heap_.size();
  Event e = heap_[i];
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

}  // namespace serq::sim
