// An indexed min-heap, the one data structure of the flow solver that is not
// specific to it: the fill levels of stages and the end times of flows.
#ifndef SERQ_SIM_FLOW_INDEXED_HEAP_H_
#define SERQ_SIM_FLOW_INDEXED_HEAP_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace serq::flow {

// A 4-ary min-heap of small integer ids keyed by (key, tie), with each id's
// position kept so that a key can change, or an id leave, in place. The tie
// makes the order total, so the pop order never depends on the order of
// insertion or on the heap's layout. The comparisons are written without
// branches (the keys are close to random, so a branch on them is a coin toss).
template <typename Tie>
class IndexedHeap {
 public:
  void Grow(int ids) {
    if (static_cast<int>(pos_.size()) < ids) pos_.resize(ids, -1);
  }
  bool empty() const { return heap_.empty(); }
  bool Contains(int id) const { return pos_[id] >= 0; }
  int Top() const { return heap_[0].id; }
  double TopKey() const { return heap_[0].key; }

  void Push(int id, double key, Tie tie) {
    heap_.push_back({key, tie, id});
    SiftUp(heap_.size() - 1, heap_.back());
  }
  // Appends without ordering; Heapify() must follow before any other call.
  void Append(int id, double key, Tie tie) {
    pos_[id] = static_cast<int>(heap_.size());
    heap_.push_back({key, tie, id});
  }
  void Heapify() {
    for (size_t i = heap_.size() / kArity + 1; i-- > 0;) {
      if (i < heap_.size()) SiftDown(i, heap_[i]);
    }
  }
  void Update(int id, double key) {
    size_t i = pos_[id];
    Entry e = heap_[i];
    bool up = key < e.key;
    e.key = key;
    if (up) {
      SiftUp(i, e);
    } else {
      SiftDown(i, e);
    }
  }
  // The hole left at the top goes down along the smallest children to a
  // leaf, and the last entry is sifted up from there (usually not at all):
  // no comparison with the entry on the way down.
  void Pop() {
    pos_[heap_[0].id] = -1;
    Entry last = heap_.back();
    heap_.pop_back();
    size_t n = heap_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      size_t child = SmallestChild(i, n);
      if (child >= n) break;
      Place(i, heap_[child]);
      i = child;
    }
    SiftUp(i, last);
  }
  void Remove(int id) {
    size_t i = pos_[id];
    pos_[id] = -1;
    Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    if (i > 0 && Less(last, heap_[(i - 1) / kArity])) {
      SiftUp(i, last);
    } else {
      SiftDown(i, last);
    }
  }

 private:
  // Four children a node: half the depth of a binary heap.
  static constexpr size_t kArity = 4;

  struct Entry {
    double key;
    Tie tie;
    int id;
  };
  // The smallest child of node i, or n if it has none.
  size_t SmallestChild(size_t i, size_t n) const {
    size_t first = kArity * i + 1;
    if (first >= n) return n;
    size_t last = std::min(first + kArity, n);
    size_t best = first;
    for (size_t c = first + 1; c < last; ++c) best = Less(heap_[c], heap_[best]) ? c : best;
    return best;
  }
  static bool Less(const Entry& a, const Entry& b) {
    return (a.key < b.key) | ((a.key == b.key) & (a.tie < b.tie));
  }
  void Place(size_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.id] = static_cast<int>(i);
  }
  // Both sifts move a hole and write `e` once, where it belongs.
  void SiftUp(size_t i, Entry e) {
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!Less(e, heap_[parent])) break;
      Place(i, heap_[parent]);
      i = parent;
    }
    Place(i, e);
  }
  void SiftDown(size_t i, Entry e) {
    size_t n = heap_.size();
    for (;;) {
      size_t child = SmallestChild(i, n);
      if (child >= n || !Less(heap_[child], e)) break;
      Place(i, heap_[child]);
      i = child;
    }
    Place(i, e);
  }

  std::vector<Entry> heap_;
  std::vector<int> pos_;
};

}  // namespace serq::flow

#endif  // SERQ_SIM_FLOW_INDEXED_HEAP_H_
