// Pools without the engine: a small host records wake-ups and runs expiry
// events. Each scenario is worked by hand in its comments.
#include "serq-sim/pools/pool.h"

#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/events/event_queue.h"
#include "serq-sim/random/random.h"

namespace serq::sim {
namespace {

class TestPoolHost : public PoolHost {
 public:
  TestPoolHost() : PoolHost(&now_) {}
  bool EvictKey(const Lease& lease, std::vector<double>* key) override {
    *key = evict_key(lease);
    return true;
  }
  void Wake(SessionId session) override { woken.emplace_back(session, now_); }
  void ScheduleExpiry(double duration, LeaseId lease, uint32_t generation) override {
    events.Push(ToTicks(now_ + duration), 0, lease, generation);
  }
  void LeaseEnded(SessionId owner) override { ++ended[owner]; }

  void RunUntil(double time, Pools& pools) {
    while (!events.empty() && events.Top().time <= ToTicks(time)) {
      Event e = events.Pop();
      now_ = ToSeconds(e.time);
      pools.Expire(e.target, e.tag);
    }
    now_ = time;
  }

  double now_ = 0;
  std::function<std::vector<double>(const Lease&)> evict_key = [](const Lease& l) {
    return std::vector<double>{l.since};
  };
  std::vector<std::pair<SessionId, double>> woken;
  std::map<SessionId, int> ended;
  EventQueue events;
};

using Woken = std::vector<std::pair<SessionId, double>>;

// One pool, one amount: a shorthand.
bool Ask(Pools& p, SessionId s, uint32_t pool, double amount, std::vector<HoldId>* holds) {
  uint32_t pools[] = {pool};
  double amounts[] = {amount};
  return p.RequestHold(s, pools, amounts, holds);
}

// cap 10: session 0 holds 8; session 1 asks 5 and waits; session 2 asks 1,
// which would fit, but waits behind session 1 (no overtaking). When 0
// returns its 8, 1 and then 2 are admitted, in that order.
TEST(PoolTest, AdmissionWithoutOvertaking) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0, h1, h2;
  EXPECT_TRUE(Ask(p, 0, kv, 8, &h0));
  host.now_ = 1;
  EXPECT_FALSE(Ask(p, 1, kv, 5, &h1));
  EXPECT_FALSE(Ask(p, 2, kv, 1, &h2));
  EXPECT_EQ(p.used(kv), 8);
  host.now_ = 3;
  p.EndHold(h0[0]);
  EXPECT_EQ(host.woken, (Woken{{1, 3}, {2, 3}}));
  EXPECT_EQ(p.used(kv), 6);
  results::PoolStats stats;
  p.Report(kv, 4, 4, &stats);
  // Admitted 3 holds, waits 0 + 2 + 2; used 8 on [0, 3), 6 on [3, 4).
  EXPECT_EQ(stats.admitted(), 3u);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 4);
  EXPECT_DOUBLE_EQ(stats.mean_used(), (8 * 3 + 6 * 1) / 4.0);
  EXPECT_EQ(stats.max_used(), 8);
}

// Pools A and B of cap 10. Session 0 holds 8 of A. Session 1 asks 5 of A
// and 5 of B: it waits, and takes nothing of B meanwhile. Session 2 asks 6
// of B, which is empty, and still waits: session 1 is first in line on B.
// When A frees, session 1 gets both; session 2 then does not fit (5 + 6 >
// 10) and keeps waiting until session 1 returns B.
TEST(PoolTest, MultiPoolHoldAllAtOnce) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t a = p.AddPool(10, false), b = p.AddPool(10, false);
  std::vector<HoldId> h0, h1, h2;
  EXPECT_TRUE(Ask(p, 0, a, 8, &h0));
  uint32_t both[] = {a, b};
  double fives[] = {5, 5};
  EXPECT_FALSE(p.RequestHold(1, both, fives, &h1));
  EXPECT_EQ(p.used(b), 0);
  EXPECT_FALSE(Ask(p, 2, b, 6, &h2));
  host.now_ = 2;
  p.EndHold(h0[0]);
  EXPECT_EQ(host.woken, (Woken{{1, 2}}));
  EXPECT_EQ(p.used(a), 5);
  EXPECT_EQ(p.used(b), 5);
  host.now_ = 3;
  p.EndHold(h1[1]);  // session 1 returns B
  EXPECT_EQ(host.woken, (Woken{{1, 2}, {2, 3}}));
  EXPECT_EQ(p.used(b), 6);
}

// A lease keeps the units for its duration, then expires by an event.
// cap 10: session 0 holds 6 and leases it for 5 s at t = 1; session 1 asks
// 6 at t = 2 and is admitted when the lease expires at t = 6.
TEST(PoolTest, LeaseExpiry) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0, h1;
  EXPECT_TRUE(Ask(p, 0, kv, 6, &h0));
  host.now_ = 1;
  LeaseRef lease = p.LeaseHold(h0[0], 5);
  EXPECT_EQ(p.used(kv), 6);
  host.now_ = 2;
  EXPECT_FALSE(Ask(p, 1, kv, 6, &h1));
  host.RunUntil(10, p);
  EXPECT_EQ(host.woken, (Woken{{1, 6}}));
  EXPECT_FALSE(p.LeaseAlive(lease));
  EXPECT_EQ(host.ended[0], 1);
  results::PoolStats stats;
  p.Report(kv, 10, 10, &stats);
  EXPECT_EQ(stats.expired(), 1u);
  EXPECT_EQ(stats.evicted(), 0u);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 4);  // 2 -> 6
}

// A released lease ends at once; its expiry event is then stale.
TEST(PoolTest, ReleasedLeaseExpiryIsStale) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0;
  EXPECT_TRUE(Ask(p, 0, kv, 6, &h0));
  LeaseRef lease = p.LeaseHold(h0[0], 5);
  host.now_ = 1;
  p.ReleaseLease(lease);
  EXPECT_EQ(p.used(kv), 0);
  Event e = host.events.Pop();
  EXPECT_FALSE(p.Expire(e.target, e.tag));
}

// Leases of 4, 3 and 3 units fill a pool of cap 10 that evicts by a key.
// A hold of 5 needs 5 units: in increasing key order the pool ends the
// lease of key 1 (3 free), then the one of key 2 (6 free), and stops: the
// lease of key 3 stays.
TEST(PoolTest, EvictionInKeyOrder) {
  TestPoolHost host;
  std::map<SessionId, double> key = {{1, 3}, {2, 1}, {3, 2}};
  host.evict_key = [&](const Lease& l) { return std::vector<double>{key[l.owner]}; };
  Pools p(&host);
  uint32_t kv = p.AddPool(10, true);
  std::vector<HoldId> h;
  LeaseRef l1, l2, l3;
  ASSERT_TRUE(Ask(p, 1, kv, 4, &h));
  l1 = p.LeaseHold(h.back(), INFINITY);
  ASSERT_TRUE(Ask(p, 2, kv, 3, &h));
  l2 = p.LeaseHold(h.back(), INFINITY);
  ASSERT_TRUE(Ask(p, 3, kv, 3, &h));
  l3 = p.LeaseHold(h.back(), INFINITY);
  EXPECT_EQ(p.used(kv), 10);
  EXPECT_TRUE(Ask(p, 4, kv, 5, &h));
  EXPECT_TRUE(p.LeaseAlive(l1));
  EXPECT_FALSE(p.LeaseAlive(l2));
  EXPECT_FALSE(p.LeaseAlive(l3));
  EXPECT_EQ(p.used(kv), 4 + 5);
  results::PoolStats stats;
  p.Report(kv, 1, 1, &stats);
  EXPECT_EQ(stats.evicted(), 2u);
  // Releasing a lease the pool evicted changes nothing.
  p.ReleaseLease(l2);
  EXPECT_EQ(p.used(kv), 9);
}

// evict by (since): least recently started first; equal keys go by the
// lease's start, then by creation. Leases: A started at 2, B at 1, C at 1
// made after B, all of 2 units, with the key 0 for all in the second case.
TEST(PoolTest, EvictionBySinceAndTies) {
  for (bool constant_key : {false, true}) {
    TestPoolHost host;
    if (constant_key) host.evict_key = [](const Lease&) { return std::vector<double>{0}; };
    Pools p(&host);
    uint32_t kv = p.AddPool(6, true);
    std::vector<HoldId> h;
    host.now_ = 0;
    ASSERT_TRUE(Ask(p, 0, kv, 2, &h));  // becomes A at t = 2
    ASSERT_TRUE(Ask(p, 1, kv, 2, &h));  // B at t = 1
    ASSERT_TRUE(Ask(p, 2, kv, 2, &h));  // C at t = 1
    host.now_ = 1;
    LeaseRef b = p.LeaseHold(h[1], INFINITY);
    LeaseRef c = p.LeaseHold(h[2], INFINITY);
    host.now_ = 2;
    LeaseRef a = p.LeaseHold(h[0], INFINITY);
    // Ask 2: one lease goes, B (earliest start, made first).
    ASSERT_TRUE(Ask(p, 3, kv, 2, &h));
    EXPECT_FALSE(p.LeaseAlive(b));
    EXPECT_TRUE(p.LeaseAlive(c));
    EXPECT_TRUE(p.LeaseAlive(a));
    // Ask 2 more: C goes, then A is the last.
    ASSERT_TRUE(Ask(p, 4, kv, 2, &h));
    EXPECT_FALSE(p.LeaseAlive(c));
    EXPECT_TRUE(p.LeaseAlive(a));
  }
}

// Nothing is evicted for a request that would not fit even then: cap 10,
// a hold of 8 and a lease of 2; asking 5 would need 3 more than the lease
// gives, so the lease stays and the request waits. Without `evict by`,
// nothing is ever evicted.
TEST(PoolTest, NoUselessEviction) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, true);
  uint32_t plain = p.AddPool(4, false);
  std::vector<HoldId> h;
  ASSERT_TRUE(Ask(p, 0, kv, 8, &h));
  ASSERT_TRUE(Ask(p, 1, kv, 2, &h));
  LeaseRef l = p.LeaseHold(h[1], INFINITY);
  EXPECT_FALSE(Ask(p, 2, kv, 5, &h));
  EXPECT_TRUE(p.LeaseAlive(l));
  ASSERT_TRUE(Ask(p, 3, plain, 4, &h));
  LeaseRef l2 = p.LeaseHold(h.back(), INFINITY);
  EXPECT_FALSE(Ask(p, 4, plain, 1, &h));
  EXPECT_TRUE(p.LeaseAlive(l2));
  // When the hold of 8 returns, the waiting 5 fits (8 free of 10) with the
  // lease still there.
  p.EndHold(h[0]);
  EXPECT_EQ(host.woken, (Woken{{2, 0}}));
  EXPECT_TRUE(p.LeaseAlive(l));
}

// A hold's size is max(amount, content). cap 10: session 0 holds 4 and
// loads 3 (size 4) then 3 (size 6, two more units). Session 1 holds 4: full.
// Session 0 loads 2 more (content 8): it needs 2 and waits. Session 2 asks
// 0.5 and waits behind the growth. Session 1 returns its 4: the growth
// takes 2 (used 8), then session 2's 0.5 fits (used 8.5).
TEST(PoolTest, LoadGrowsAndWaits) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0, h1, h2;
  ASSERT_TRUE(Ask(p, 0, kv, 4, &h0));
  EXPECT_TRUE(p.Load(h0[0], 3));
  EXPECT_EQ(p.used(kv), 4);
  EXPECT_EQ(p.loaded(kv), 3);
  EXPECT_TRUE(p.Load(h0[0], 3));
  EXPECT_EQ(p.used(kv), 6);
  ASSERT_TRUE(Ask(p, 1, kv, 4, &h1));
  EXPECT_EQ(p.SizeAfterLoad(h0[0], 2), 8);
  EXPECT_FALSE(p.Load(h0[0], 2));
  EXPECT_FALSE(Ask(p, 2, kv, 0.5, &h2));  // 0 free anyway
  host.now_ = 5;
  p.EndHold(h1[0]);
  EXPECT_EQ(host.woken, (Woken{{0, 5}, {2, 5}}));
  EXPECT_EQ(p.used(kv), 8.5);
  EXPECT_EQ(p.loaded(kv), 8);
  EXPECT_EQ(p.hold(h0[0]).size, 8);
  // One growth waited in the line (the load of 2 at 0): one stall; the
  // grants at once are none, nor is the hold that waited (an admission).
  results::PoolStats stats;
  p.Report(kv, 5, 5, &stats);
  EXPECT_EQ(stats.stalls(), 1u);
  // A window started after it counts only what waits in it: h0 (8) grows
  // by 2 with 10 - 8.5 = 1.5 free, a second stall, the window's one.
  p.StartWindow(5);
  EXPECT_FALSE(p.Load(h0[0], 2));
  results::PoolStats window;
  p.Report(kv, 6, 1, &window);
  EXPECT_EQ(window.stalls(), 1u);
}

// A growth waiting blocks new holds even when they would fit: cap 10,
// session 0 holds 9 and wants to grow to 11 (2 more, 1 free): it waits.
// Session 1 asks 1, which fits, but the growth is in line first.
TEST(PoolTest, GrowthBeforeNewHolds) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(12, false);
  std::vector<HoldId> h0, h1, hx;
  ASSERT_TRUE(Ask(p, 0, kv, 9, &h0));
  ASSERT_TRUE(Ask(p, 9, kv, 2, &hx));
  EXPECT_FALSE(p.Load(h0[0], 11));  // size 11: needs 2, 1 free
  EXPECT_FALSE(Ask(p, 1, kv, 1, &h1));
  p.EndHold(hx[0]);  // 3 free: the growth takes 2, then the hold 1
  EXPECT_EQ(host.woken, (Woken{{0, 0}, {1, 0}}));
  EXPECT_EQ(p.used(kv), 12);
}

// Returning a hold early (release inside the hold) frees its units at once.
TEST(PoolTest, ReturnHoldEarly) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0, h1;
  ASSERT_TRUE(Ask(p, 0, kv, 10, &h0));
  EXPECT_FALSE(Ask(p, 1, kv, 10, &h1));
  host.now_ = 2;
  p.ReturnHold(h0[0]);
  EXPECT_EQ(host.woken, (Woken{{1, 2}}));
  p.FreeHold(h0[0]);  // the block's end finds it returned
  EXPECT_EQ(p.used(kv), 10);
}

// Fractional units: ten holds of 0.1 fill cap 1, and once all are returned
// the pool is exactly empty again, so a hold of 1 fits.
TEST(PoolTest, FractionalUnitsDoNotDrift) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(1, false);
  std::vector<HoldId> h;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(Ask(p, i, kv, 0.1, &h));
  for (HoldId id : h) p.EndHold(id);
  EXPECT_EQ(p.used(kv), 0);
  std::vector<HoldId> big;
  EXPECT_TRUE(Ask(p, 20, kv, 1, &big));
}

// Random operations on three pools (one that evicts): holds of one or two
// pools, loads, early returns, ends, leases, releases, expiries. After
// every operation the invariants hold: used is what the holds and leases
// make, never above the cap, and nothing that fits is left waiting.
TEST(PoolTest, RandomOperationsKeepInvariants) {
  TestPoolHost host;
  Pools p(&host);
  std::vector<uint32_t> pools = {p.AddPool(10, false), p.AddPool(7, true), p.AddPool(4, false)};
  Random r(3);
  struct Active {
    SessionId session;
    std::vector<HoldId> holds;
  };
  std::vector<Active> active;     // admitted, not blocked
  std::map<SessionId, std::vector<HoldId>> waiting;
  std::vector<LeaseRef> leases;
  std::map<SessionId, bool> blocked;  // waiting to grow
  SessionId next = 0;
  int waited = 0, grew_late = 0;
  auto wake = [&] {
    // Sessions the pools woke become active again.
    for (auto& [s, t] : host.woken) {
      if (waiting.count(s)) {
        active.push_back({s, waiting[s]});
        waiting.erase(s);
      } else {
        blocked.erase(s);
      }
    }
    host.woken.clear();
  };
  for (int step = 0; step < 20000; ++step) {
    host.now_ += r.Exponential(0.1);
    host.RunUntil(host.now_, p);
    wake();
    double u = r.Uniform01();
    if (u < 0.3 || active.empty()) {
      SessionId s = next++;
      std::vector<uint32_t> which = {pools[r.Uniform01() * 3]};
      if (r.Uniform01() < 0.3) {
        uint32_t other = pools[r.Uniform01() * 3];
        if (other != which[0]) which.push_back(other);
      }
      std::vector<double> amounts;
      for (uint32_t q : which) amounts.push_back(std::floor(r.Uniform(0, p.cap(q) + 1)));
      std::vector<HoldId> holds;
      if (p.RequestHold(s, which, amounts, &holds)) {
        active.push_back({s, holds});
      } else {
        waiting[s] = holds;
        ++waited;
      }
    } else {
      size_t i = r.Uniform01() * active.size();
      Active a = active[i];
      if (blocked.count(a.session)) continue;
      HoldId h = a.holds[r.Uniform01() * a.holds.size()];
      double v = r.Uniform01();
      if (v < 0.3 && p.hold(h).state == Hold::State::kActive) {
        double more = std::floor(r.Uniform(0, 4));
        uint32_t pool = p.hold(h).pool;
        double need = p.SizeAfterLoad(h, more) - p.hold(h).size;
        // One growth waiting at a time (a growth that fits still waits
        // behind one in line): two that wait for each other's units would
        // stop the run (a deadlock the engine reports).
        if (blocked.empty() && need <= p.cap(pool) - p.hold(h).size && !p.Load(h, more)) {
          blocked[a.session] = true;
          ++grew_late;
        }
      } else if (v < 0.4) {
        p.ReturnHold(h);
      } else {
        // The block ends: some holds become leases, the others end.
        for (HoldId x : a.holds) {
          if (p.hold(x).state == Hold::State::kActive && r.Uniform01() < 0.4) {
            leases.push_back(p.LeaseHold(x, r.Uniform01() < 0.9 ? r.Exponential(2) : INFINITY));
          } else {
            p.EndHold(x);
          }
        }
        active.erase(active.begin() + i);
      }
    }
    if (!leases.empty() && r.Uniform01() < 0.3) {
      size_t i = r.Uniform01() * leases.size();
      p.ReleaseLease(leases[i]);
      leases.erase(leases.begin() + i);
    }
    wake();
    ASSERT_EQ(p.CheckInvariants(), "") << "step " << step;
  }
  // The run went through every case: waits, growths that waited,
  // evictions and expiries.
  results::PoolStats evicting, plain;
  p.Report(pools[1], host.now_, host.now_, &evicting);
  p.Report(pools[0], host.now_, host.now_, &plain);
  EXPECT_GT(waited, 100);
  EXPECT_GT(grew_late, 10);
  EXPECT_GT(evicting.evicted(), 10u);
  EXPECT_GT(plain.expired() + evicting.expired(), 10u);
}

// The bug of issue 8: a hold that becomes a lease on a pool that evicts
// makes its units reclaimable, so the line is examined again. cap 10,
// evict by since: session 0 holds 8; at t = 1 session 1 asks 5 and waits
// (2 free, no lease to evict). At t = 5 session 0's hold becomes a lease:
// 2 free + 8 leased >= 5, so session 1 is admitted at once by evicting it
// (used 5, one eviction, the lease's owner told it ended).
TEST(PoolTest, HoldBecomingALeaseAdmitsTheLine) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, true);
  std::vector<HoldId> h0, h1;
  EXPECT_TRUE(Ask(p, 0, kv, 8, &h0));
  host.now_ = 1;
  EXPECT_FALSE(Ask(p, 1, kv, 5, &h1));
  host.now_ = 5;
  LeaseRef lease = p.LeaseHold(h0[0], INFINITY);
  EXPECT_EQ(host.woken, (Woken{{1, 5}}));
  EXPECT_FALSE(p.LeaseAlive(lease));
  EXPECT_EQ(host.ended[0], 1);
  EXPECT_EQ(p.used(kv), 5);
  EXPECT_EQ(p.CheckInvariants(), "");
  results::PoolStats stats;
  p.Report(kv, 5, 5, &stats);
  EXPECT_EQ(stats.evicted(), 1u);
  EXPECT_DOUBLE_EQ(stats.wait_sum(), 4);  // 1 -> 5
}

// The same for a growth in line: session 1 holds 1 and loads 3 (content 3,
// size 3: 2 more units, 1 free after session 0's 8), so it waits. When
// session 0's hold becomes a lease the growth evicts it and is granted.
TEST(PoolTest, HoldBecomingALeaseGrantsTheGrowth) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, true);
  std::vector<HoldId> h0, h1;
  EXPECT_TRUE(Ask(p, 0, kv, 8, &h0));
  EXPECT_TRUE(Ask(p, 1, kv, 1, &h1));
  host.now_ = 1;
  EXPECT_FALSE(p.Load(h1[0], 3));
  host.now_ = 2;
  p.LeaseHold(h0[0], INFINITY);
  EXPECT_EQ(host.woken, (Woken{{1, 2}}));
  EXPECT_EQ(p.used(kv), 3);
  EXPECT_EQ(p.hold(h1[0]).content, 3);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// Without evict by a lease keeps its units: nothing changes for the line
// (session 1 still waits; the invariants hold).
TEST(PoolTest, HoldBecomingALeaseWithoutEvictByKeepsTheUnits) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(10, false);
  std::vector<HoldId> h0, h1;
  EXPECT_TRUE(Ask(p, 0, kv, 8, &h0));
  EXPECT_FALSE(Ask(p, 1, kv, 5, &h1));
  p.LeaseHold(h0[0], INFINITY);
  EXPECT_TRUE(host.woken.empty());
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// A request over two pools, one of which evicts: session 0 holds 8 of A
// (evicts); session 1 asks 5 of A and 5 of B and waits. A's hold becoming
// a lease admits it on both at once.
TEST(PoolTest, HoldBecomingALeaseAdmitsAMultiPoolRequest) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t a = p.AddPool(10, true), b = p.AddPool(10, false);
  std::vector<HoldId> h0, h1;
  EXPECT_TRUE(Ask(p, 0, a, 8, &h0));
  uint32_t both[] = {a, b};
  double fives[] = {5, 5};
  EXPECT_FALSE(p.RequestHold(1, both, fives, &h1));
  host.now_ = 3;
  p.LeaseHold(h0[0], 10);
  EXPECT_EQ(host.woken, (Woken{{1, 3}}));
  EXPECT_EQ(p.used(a), 5);
  EXPECT_EQ(p.used(b), 5);
  EXPECT_EQ(p.CheckInvariants(), "");
}

TEST(PoolTest, DescribeUse) {
  TestPoolHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false);
  std::vector<HoldId> h;
  ASSERT_TRUE(Ask(p, 3, kv, 50, &h));
  ASSERT_TRUE(Ask(p, 1, kv, 10, &h));
  p.LeaseHold(h[1], INFINITY);
  EXPECT_EQ(p.DescribeUse(kv), "used 60 of cap 100 (held by session 3: 50; leased by session 1: 10)");
}

}  // namespace
}  // namespace serq::sim
