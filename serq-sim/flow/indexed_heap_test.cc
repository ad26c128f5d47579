#include "serq-sim/flow/indexed_heap.h"

#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"

namespace serq::flow {
namespace {

// Random pushes, appends (then one heapify), key changes both ways, removals
// and pops against a std::set of (key, tie, id): the heap must pop exactly
// the set's order. Keys come from a small set so that ties are common and
// the tie decides (ties are unique, as the solver's are: stage ids, start
// order).
TEST(IndexedHeap, PopsInKeyThenTieOrder) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    constexpr int kIds = 64;
    IndexedHeap<uint64_t> heap;
    heap.Grow(kIds);
    std::set<std::tuple<double, uint64_t, int>> ref;
    std::vector<double> key(kIds);
    std::vector<uint64_t> tie(kIds);
    auto draw_key = [&] { return static_cast<double>(rng() % 8) / 4; };
    // A batch of appends, then heapify.
    for (int id = 0; id < kIds / 2; ++id) {
      key[id] = draw_key();
      tie[id] = (rng() % 16) * kIds + id;  // ties are unique in use
      heap.Append(id, key[id], tie[id]);
      ref.insert({key[id], tie[id], id});
    }
    heap.Heapify();
    for (int step = 0; step < 400; ++step) {
      int id = static_cast<int>(rng() % kIds);
      switch (rng() % 4) {
        case 0:  // push or change
          if (heap.Contains(id)) {
            ref.erase({key[id], tie[id], id});
            key[id] = draw_key();
            heap.Update(id, key[id]);
          } else {
            key[id] = draw_key();
            tie[id] = (rng() % 16) * kIds + id;  // ties are unique in use
            heap.Push(id, key[id], tie[id]);
          }
          ref.insert({key[id], tie[id], id});
          break;
        case 1:  // remove
          if (heap.Contains(id)) {
            heap.Remove(id);
            ref.erase({key[id], tie[id], id});
          }
          break;
        default:  // pop
          if (ref.empty()) {
            ASSERT_TRUE(heap.empty());
            break;
          }
          ASSERT_FALSE(heap.empty());
          auto [k, t, i] = *ref.begin();
          ASSERT_EQ(heap.Top(), i);
          ASSERT_EQ(heap.TopKey(), k);
          heap.Pop();
          ref.erase(ref.begin());
          ASSERT_FALSE(heap.Contains(i));
      }
    }
    while (!ref.empty()) {
      ASSERT_EQ(heap.Top(), std::get<2>(*ref.begin()));
      heap.Pop();
      ref.erase(ref.begin());
    }
    EXPECT_TRUE(heap.empty());
  }
}

}  // namespace
}  // namespace serq::flow
