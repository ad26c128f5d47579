// Pools with a prefix cache (docs/simulation.md §Prefix caches), without the engine: a small
// host gives each session its block list. Each scenario is worked by hand
// in its comments; units are tokens, blocks of B = 4.
#include <map>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/pools/pool.h"

namespace serq::sim {
namespace {

class CacheHost : public PoolHost {
 public:
  CacheHost() : PoolHost(&now_) {}
  bool EvictKey(const Lease& lease, std::vector<double>* key) override {
    *key = {lease.since};
    return true;
  }
  void Wake(SessionId session) override { woken.push_back(session); }
  void ScheduleExpiry(double, LeaseId, uint32_t) override {}
  void LeaseEnded(SessionId) override {}
  absl::Span<const BlockTag> Blocks(SessionId session) override { return blocks[session]; }
  void CacheEvicted(uint32_t, uint32_t n) override { evicted.push_back(n); }

  double now_ = 0;
  std::map<SessionId, std::vector<BlockTag>> blocks;
  std::vector<SessionId> woken;
  std::vector<uint32_t> evicted;  // per eviction, the blocks evicted
};

std::vector<BlockTag> Family(double k, int n) {
  std::vector<BlockTag> tags;
  for (int j = 0; j < n; ++j) tags.push_back(BlockTag::Prefix(k, j));
  return tags;
}

std::vector<BlockTag> Cat(std::vector<BlockTag> a, const std::vector<BlockTag>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

HoldId Admit(Pools& p, SessionId s, uint32_t pool, double amount) {
  std::vector<HoldId> holds;
  uint32_t pools[] = {pool};
  double amounts[] = {amount};
  EXPECT_TRUE(p.RequestHold(s, pools, amounts, &holds));
  return holds[0];
}

// docs/simulation.md §Prefix caches, case (a), at the pool: blocks (7,0..2) then
// one of the session's own. Session 0 fills 16 tokens: 4 blocks registered, used
// 16 (all of it in blocks). It ends: used 0, free 100, 16 units evictable.
// Session 1 hits 3 blocks (its 4th differs; the cap floor(15/4) = 3): content
// 12, used 12 (3 blocks revived), 4 still evictable (session 0's 4th); it fills
// its 4th: used 16.
TEST(PoolCacheTest, RegistrationReleaseAndHit) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false, 4);
  host.blocks[0] = Cat(Family(7, 3), Family(-1, 1));
  host.blocks[1] = Cat(Family(7, 3), Family(-2, 1));
  HoldId a = Admit(p, 0, kv, 0);
  EXPECT_EQ(p.Hit(a, host.blocks[0], 16), 0u);  // an empty cache: a lookup, no hit
  ASSERT_TRUE(p.Load(a, 16));
  EXPECT_EQ(p.used(kv), 16);
  EXPECT_EQ(p.hold(a).shared, 16);
  EXPECT_EQ(p.CachedFree(kv), 0);
  EXPECT_EQ(p.Cached(kv, host.blocks[0]), 4u);
  EXPECT_EQ(p.CheckInvariants(), "");
  host.now_ = 10;
  p.EndHold(a);
  EXPECT_EQ(p.used(kv), 0);
  EXPECT_EQ(p.free(kv), 100);
  EXPECT_EQ(p.CachedFree(kv), 16);
  EXPECT_EQ(p.Cached(kv, host.blocks[1]), 3u);
  EXPECT_EQ(p.CheckInvariants(), "");
  host.now_ = 20;
  HoldId b = Admit(p, 1, kv, 0);
  EXPECT_EQ(p.Hit(b, host.blocks[1], 16), 3u);
  EXPECT_EQ(p.hold(b).content, 12);
  EXPECT_EQ(p.used(kv), 12);
  EXPECT_EQ(p.loaded(kv), 12);
  EXPECT_EQ(p.CachedFree(kv), 4);
  ASSERT_TRUE(p.Load(b, 4));
  EXPECT_EQ(p.used(kv), 16);
  EXPECT_EQ(p.CachedFree(kv), 4);
  EXPECT_EQ(p.CheckInvariants(), "");
  host.now_ = 30;
  results::PoolStats stats;
  p.Report(kv, 30, 30, &stats);
  // Two lookups of 16 tokens, 12 hit; evictable 16 on [10, 20), 4 on
  // [20, 30): mean (160 + 40) / 30.
  EXPECT_EQ(stats.cache_block(), 4);
  EXPECT_EQ(stats.lookups(), 2u);
  EXPECT_EQ(stats.lookup_tokens(), 32);
  EXPECT_EQ(stats.hit_tokens(), 12);
  EXPECT_DOUBLE_EQ(stats.mean_evictable(), 200.0 / 30);
  EXPECT_EQ(stats.blocks_evicted(), 0u);
}

// docs/simulation.md §Prefix caches, case (c), at the pool, cap 16: family A
// fills 4 blocks and ends (16 evictable, order A3 A2 A1 A0). Family B fills 8
// tokens: no unit is physically free, so A3 then A2 are evicted (deepest first).
// B ends: order A1 A0 B1 B0. A again hits 2 (A2 is gone), reviving A0 A1; its
// next 8 tokens evict B1 and B0. 4 blocks evicted in all.
TEST(PoolCacheTest, EvictionLeastRecentlyReleasedDeepestFirst) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(16, false, 4);
  host.blocks[0] = Family(1, 4);
  host.blocks[1] = Family(2, 2);
  host.blocks[2] = Family(1, 4);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 16));
  p.EndHold(a);
  HoldId b = Admit(p, 1, kv, 0);
  EXPECT_EQ(p.Hit(b, host.blocks[1], 8), 0u);
  ASSERT_TRUE(p.Load(b, 8));
  EXPECT_EQ(host.evicted, (std::vector<uint32_t>{2}));
  EXPECT_EQ(p.Cached(kv, host.blocks[0]), 2u);
  EXPECT_EQ(p.CheckInvariants(), "");
  p.EndHold(b);
  HoldId c = Admit(p, 2, kv, 0);
  EXPECT_EQ(p.Hit(c, host.blocks[2], 16), 2u);
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CachedFree(kv), 8);
  ASSERT_TRUE(p.Load(c, 8));
  EXPECT_EQ(host.evicted, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(p.Cached(kv, host.blocks[1]), 0u);
  EXPECT_EQ(p.Cached(kv, host.blocks[2]), 4u);
  EXPECT_EQ(p.used(kv), 16);
  EXPECT_EQ(p.CheckInvariants(), "");
  results::PoolStats stats;
  p.Report(kv, 1, 1, &stats);
  EXPECT_EQ(stats.blocks_evicted(), 4u);
}

// Sharing: B hits the 2 blocks A references while A runs; they are counted
// once (used 8, both holds' own units 0). A ends: nothing is released (B
// references both). B ends: 8 evictable.
TEST(PoolCacheTest, SharedBlocksAreCountedOnce) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false, 4);
  host.blocks[0] = host.blocks[1] = Family(3, 3);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  HoldId b = Admit(p, 1, kv, 0);
  EXPECT_EQ(p.Hit(b, host.blocks[1], 12), 2u);  // floor(11 / 4) = 2
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.loaded(kv), 16);
  EXPECT_EQ(p.CheckInvariants(), "");
  p.EndHold(a);
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CachedFree(kv), 0);
  p.EndHold(b);
  EXPECT_EQ(p.used(kv), 0);
  EXPECT_EQ(p.CachedFree(kv), 8);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// Two sessions compute the same block at once: the first registers it, the
// second's 4 units stay its own (used 8: 4 in the block, 4 of B's).
TEST(PoolCacheTest, ADuplicateBlockIsTheHoldsOwn) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false, 4);
  host.blocks[0] = host.blocks[1] = Family(3, 1);
  HoldId a = Admit(p, 0, kv, 0), b = Admit(p, 1, kv, 0);
  ASSERT_TRUE(p.Load(a, 4));
  ASSERT_TRUE(p.Load(b, 4));
  EXPECT_EQ(p.hold(a).shared, 4);
  EXPECT_EQ(p.hold(b).shared, 0);
  EXPECT_EQ(p.used(kv), 8);
  p.EndHold(a);
  EXPECT_EQ(p.used(kv), 4);
  EXPECT_EQ(p.CachedFree(kv), 4);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// A hold of amount 16 hits 2 blocks: its own units are 16 - 8 = 8, and the
// pool's used is 8 + 8 = 16.
TEST(PoolCacheTest, AHitInsideTheAmount) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false, 4);
  host.blocks[0] = host.blocks[1] = Family(5, 2);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  p.EndHold(a);
  HoldId b = Admit(p, 1, kv, 16);
  EXPECT_EQ(p.used(kv), 16);
  EXPECT_EQ(p.Hit(b, host.blocks[1], 12), 2u);
  EXPECT_EQ(p.hold(b).size, 16);
  EXPECT_EQ(p.hold(b).shared, 8);
  EXPECT_EQ(p.used(kv), 16);
  EXPECT_EQ(p.CachedFree(kv), 0);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// A lease keeps its hold's references: the 2 blocks stay used (8), and a
// later session hits them; when the lease is released they stay
// referenced by that session; when it ends they become evictable.
TEST(PoolCacheTest, ALeaseKeepsItsBlocks) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(100, false, 4);
  host.blocks[0] = host.blocks[1] = Family(6, 3);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  LeaseRef lease = p.LeaseHold(a, INFINITY);
  EXPECT_EQ(p.lease(lease.id).units, 0);  // all its units are the blocks'
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CachedFree(kv), 0);
  HoldId b = Admit(p, 1, kv, 0);
  EXPECT_EQ(p.Hit(b, host.blocks[1], 12), 2u);
  EXPECT_EQ(p.used(kv), 8);
  p.ReleaseLease(lease);
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CheckInvariants(), "");
  p.EndHold(b);
  EXPECT_EQ(p.used(kv), 0);
  EXPECT_EQ(p.CachedFree(kv), 8);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// cap 8 with `evict by`: a lease referencing 2 blocks (8 units, none its
// own) is reclaimable: a hold of 8 ends the lease, whose blocks become
// evictable, and evicts them (evicted blocks before and after the lease).
TEST(PoolCacheTest, ALeasesBlocksAreReclaimed) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(8, true, 4);
  host.blocks[0] = Family(6, 2);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  p.LeaseHold(a, INFINITY);
  HoldId b = Admit(p, 1, kv, 8);
  EXPECT_EQ(p.used(kv), 8);
  EXPECT_EQ(p.CachedFree(kv), 0);
  EXPECT_EQ(p.Cached(kv, host.blocks[0]), 0u);
  EXPECT_EQ(host.evicted, (std::vector<uint32_t>{2}));
  results::PoolStats stats;
  p.Report(kv, 1, 1, &stats);
  EXPECT_EQ(stats.evicted(), 1u);
  EXPECT_EQ(stats.blocks_evicted(), 2u);
  EXPECT_EQ(p.CheckInvariants(), "");
  (void)b;
}

// Units that only evictable blocks hold are free: a hold of 10 on cap 12
// with 8 units evictable is admitted at once. Physically free are 4, so 6
// more are needed: both blocks of 4 are evicted.
TEST(PoolCacheTest, AdmissionEvictsBlocks) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(12, false, 4);
  host.blocks[0] = Family(2, 2);
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  p.EndHold(a);
  EXPECT_EQ(p.free(kv), 12);
  Admit(p, 1, kv, 10);
  EXPECT_EQ(host.evicted, (std::vector<uint32_t>{2}));
  EXPECT_EQ(p.used(kv), 10);
  EXPECT_EQ(p.CheckInvariants(), "");
}

// HitIfFits: HitFits and Hit in one walk. Cap 16, B = 4. Session 0 fills 8
// tokens (2 blocks) and ends: 8 units evictable. A prefill of 12 tokens
// (budget 8) may hit floor(11 / 4) = 2 blocks, both evictable; after it
// the chunk of min(12 - 8, 8) = 4 tokens needs 4 units. With session 2
// holding 5: used after the hit 5 + 8 = 13, 3 available: no (and nothing
// happens: no lookup counted, the blocks still evictable). Holding 4
// instead: 12 used, 4 available: yes, 2 blocks hit, content 8, used 12.
TEST(PoolCacheTest, HitIfFitsIsHitFitsThenHit) {
  CacheHost host;
  Pools p(&host);
  uint32_t kv = p.AddPool(16, false, 4);
  host.blocks[0] = Family(5, 2);
  host.blocks[1] = Cat(Family(5, 2), Family(-1, 1));
  HoldId a = Admit(p, 0, kv, 0);
  ASSERT_TRUE(p.Load(a, 8));
  p.EndHold(a);
  HoldId other = Admit(p, 2, kv, 5);
  HoldId b = Admit(p, 1, kv, 0);
  uint32_t hit = 99;
  EXPECT_FALSE(p.HitFits(b, host.blocks[1], 12, 8));
  EXPECT_FALSE(p.HitIfFits(b, host.blocks[1], 12, 8, &hit));
  EXPECT_EQ(hit, 99u);
  EXPECT_EQ(p.CachedFree(kv), 8);
  EXPECT_EQ(p.used(kv), 5);
  EXPECT_EQ(p.hold(b).content, 0);
  EXPECT_EQ(p.CheckInvariants(), "");
  p.EndHold(other);
  Admit(p, 3, kv, 4);
  EXPECT_TRUE(p.HitFits(b, host.blocks[1], 12, 8));
  EXPECT_TRUE(p.HitIfFits(b, host.blocks[1], 12, 8, &hit));
  EXPECT_EQ(hit, 2u);
  EXPECT_EQ(p.hold(b).content, 8);
  EXPECT_EQ(p.hold(b).shared, 8);
  EXPECT_EQ(p.used(kv), 12);
  EXPECT_EQ(p.CachedFree(kv), 0);
  EXPECT_EQ(p.CheckInvariants(), "");
  results::PoolStats stats;
  p.Report(kv, 0, 1, &stats);
  EXPECT_EQ(stats.lookups(), 1u);  // the one that fitted
  EXPECT_EQ(stats.hit_tokens(), 8);
}

}  // namespace
}  // namespace serq::sim
