#include "serq-sim/events/event_queue.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/random/random.h"

namespace serq::sim {
namespace {

TEST(EventQueueTest, EarliestFirst) {
  EventQueue q;
  q.Push(3, 0, 3, 0);
  q.Push(1, 0, 1, 0);
  q.Push(2, 0, 2, 0);
  EXPECT_EQ(q.Pop().target, 1u);
  EXPECT_EQ(q.Pop().target, 2u);
  EXPECT_EQ(q.Pop().target, 3u);
  EXPECT_TRUE(q.empty());
}

// Events due at the same time come out in the order they were scheduled,
// whatever their kind or target (language.md §7).
TEST(EventQueueTest, TiesInScheduleOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 50; ++i) q.Push(5, static_cast<uint8_t>(50 - i), i, 7);
  q.Push(4, 1, 999, 0);
  Event first = q.Pop();
  EXPECT_EQ(first.target, 999u);
  EXPECT_EQ(first.kind(), 1);
  for (uint32_t i = 0; i < 50; ++i) {
    Event e = q.Pop();
    EXPECT_EQ(e.target, i);
    EXPECT_EQ(e.kind(), 50 - i);
    EXPECT_EQ(e.tag, 7u);
  }
}

// An end-of-instant event waits for every ordinary event of its time, even
// one scheduled after it; among themselves such events keep schedule order.
TEST(EventQueueTest, EndOfInstantComesLast) {
  EventQueue q;
  q.Push(2, 0, 1, 0, /*end_of_instant=*/true);
  q.Push(2, 0, 2, 0);
  q.Push(2, 0, 3, 0, /*end_of_instant=*/true);
  q.Push(2, 0, 4, 0);
  q.Push(4, 0, 5, 0);
  q.Push(1, 0, 6, 0, /*end_of_instant=*/true);
  const uint32_t want[] = {6, 2, 4, 1, 3, 5};
  for (uint32_t w : want) {
    Event e = q.Pop();
    EXPECT_EQ(e.target, w);
    EXPECT_EQ(e.late(), w == 6 || w == 1 || w == 3);
  }
}

// Removing events keeps the others in their order.
TEST(EventQueueTest, RemoveIfKeepsOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 1000; ++i) q.Push(static_cast<Ticks>((i * 7919) % 101), 0, i, i % 3);
  q.RemoveIf([](const Event& e) { return e.tag == 1; });
  std::vector<std::pair<Ticks, uint32_t>> got, want;
  for (uint32_t i = 0; i < 1000; ++i) {
    if (i % 3 != 1) want.emplace_back(static_cast<Ticks>((i * 7919) % 101), i);
  }
  std::sort(want.begin(), want.end());  // same time: scheduled first, i.e. smaller i
  while (!q.empty()) {
    Event e = q.Pop();
    got.emplace_back(e.time, e.target);
  }
  EXPECT_EQ(got, want);
}

// Against a sort by (time, schedule order) on random interleavings of
// pushes and pops, with many equal times.
TEST(EventQueueTest, MatchesSortedOrder) {
  Random r(11);
  EventQueue q;
  std::vector<std::tuple<Ticks, uint64_t, uint32_t>> model;
  uint64_t seq = 0;
  uint32_t id = 0;
  Ticks now = 0;
  for (int step = 0; step < 100000; ++step) {
    if (model.empty() || r.Uniform01() < 0.55) {
      Ticks t = now + static_cast<Ticks>(r.Uniform(0, 20));
      q.Push(t, 0, id, 0);
      model.emplace_back(t, seq++, id++);
    } else {
      auto it = std::min_element(model.begin(), model.end());
      Event e = q.Pop();
      ASSERT_EQ(e.time, std::get<0>(*it));
      ASSERT_EQ(e.target, std::get<2>(*it));
      now = e.time;
      model.erase(it);
    }
  }
  EXPECT_EQ(q.size(), model.size());
}

// End-of-instant events (kept apart from the heap while they share their
// time) against a sort by (time, late, schedule order): random pushes, a
// third of them end of instant, at now (as a step's start) or later, pops
// and compactions, with many equal times.
TEST(EventQueueTest, EndOfInstantMatchesSortedOrder) {
  Random r(13);
  EventQueue q;
  std::vector<std::tuple<Ticks, bool, uint64_t, uint32_t>> model;
  uint64_t seq = 0;
  uint32_t id = 0;
  Ticks now = 0;
  for (int step = 0; step < 100000; ++step) {
    double u = r.Uniform01();
    if (model.empty() || u < 0.5) {
      bool late = r.Uniform01() < 0.35;
      Ticks t = r.Uniform01() < 0.5 ? now : now + static_cast<Ticks>(r.Uniform(0, 8));
      q.Push(t, 0, id, id % 5, late);
      model.emplace_back(t, late, seq++, id++);
    } else if (u < 0.505) {
      q.RemoveIf([](const Event& e) { return e.tag == 0; });
      model.erase(std::remove_if(model.begin(), model.end(),
                                 [](const auto& m) { return std::get<3>(m) % 5 == 0; }),
                  model.end());
      ASSERT_EQ(q.size(), model.size());
    } else {
      auto it = std::min_element(model.begin(), model.end());
      ASSERT_EQ(q.Top().target, std::get<3>(*it));
      Event e = q.Pop();
      ASSERT_EQ(e.time, std::get<0>(*it));
      ASSERT_EQ(e.late(), std::get<1>(*it));
      ASSERT_EQ(e.target, std::get<3>(*it));
      now = e.time;
      model.erase(it);
    }
  }
  EXPECT_EQ(q.size(), model.size());
  EXPECT_EQ(q.empty(), model.empty());
}

// A slot's event moved in place runs exactly where the old mechanism (push
// a new event, drop the old one as stale when it comes out) ran the new
// one: random pushes, pops, reschedules of 20 slots and cancels, with many
// equal times, against a model that keeps every slot's latest (time,
// sequence) and pops the least live entry. Compaction (RemoveIf) keeps
// the slots' places.
TEST(EventQueueTest, RescheduleAsPushAndDrop) {
  Random r(12);
  EventQueue q;
  constexpr uint32_t kSlots = 20;
  // (time, sequence, target, slotted); a slot's superseded entries are
  // erased from the model, which is what dropping them as stale amounts to.
  std::vector<std::tuple<Ticks, uint64_t, uint32_t, bool>> model;
  uint64_t seq = 0;
  uint32_t id = kSlots;
  Ticks now = 0;
  auto drop_slot = [&](uint32_t slot) {
    model.erase(std::remove_if(model.begin(), model.end(),
                               [&](const auto& m) {
                                 return std::get<3>(m) && std::get<2>(m) == slot;
                               }),
                model.end());
  };
  for (int step = 0; step < 100000; ++step) {
    double u = r.Uniform01();
    Ticks t = now + static_cast<Ticks>(r.Uniform(0, 20));
    if (model.empty() || u < 0.3) {
      q.Push(t, 1, id, 0);
      model.emplace_back(t, seq++, id++, false);
    } else if (u < 0.55) {
      uint32_t slot = static_cast<uint32_t>(r.Uniform(0, kSlots));
      q.Reschedule(t, 2, slot);
      drop_slot(slot);
      model.emplace_back(t, seq++, slot, true);
    } else if (u < 0.6) {
      uint32_t slot = static_cast<uint32_t>(r.Uniform(0, kSlots));
      q.Cancel(slot);
      drop_slot(slot);
    } else if (u < 0.61) {
      q.RemoveIf([](const Event& e) { return !e.slotted() && e.target % 2 == 0; });
      model.erase(std::remove_if(model.begin(), model.end(),
                                 [](const auto& m) {
                                   return !std::get<3>(m) && std::get<2>(m) % 2 == 0;
                                 }),
                  model.end());
    } else {
      auto it = std::min_element(model.begin(), model.end());
      Event e = q.Pop();
      ASSERT_EQ(e.time, std::get<0>(*it));
      ASSERT_EQ(e.target, std::get<2>(*it));
      ASSERT_EQ(e.slotted(), std::get<3>(*it));
      ASSERT_EQ(e.kind(), std::get<3>(*it) ? 2 : 1);
      now = e.time;
      model.erase(it);
    }
    ASSERT_EQ(q.size(), model.size());
  }
}

}  // namespace
}  // namespace serq::sim
