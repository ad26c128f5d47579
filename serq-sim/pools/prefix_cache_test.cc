#include "serq-sim/pools/prefix_cache.h"

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"

namespace serq::sim {
namespace {

std::vector<BlockTag> Family(double k, int n, int from = 0) {
  std::vector<BlockTag> tags;
  for (int j = from; j < from + n; ++j) tags.push_back(BlockTag::Prefix(k, j));
  return tags;
}

std::vector<BlockTag> Cat(std::vector<BlockTag> a, const std::vector<BlockTag>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The depths of everything evictable, in eviction order (drains the cache).
std::vector<uint32_t> DrainDepths(PrefixCache& cache) {
  std::vector<uint32_t> depths;
  PrefixCache::Evicted e;
  while (cache.Evict(&e)) depths.push_back(e.depth);
  return depths;
}

TEST(BlockTagTest, FamiliesAndHashIdsAreApart) {
  EXPECT_EQ(BlockTag::Prefix(-0.0, 3), BlockTag::Prefix(0.0, 3));
  EXPECT_FALSE(BlockTag::Prefix(1, 3) == BlockTag::Prefix(1, 4));
  EXPECT_FALSE(BlockTag::Prefix(1, 3) == BlockTag::Prefix(2, 3));
  // A hash id never meets a family's tag, whatever the numbers.
  for (double k : {0.0, 1.0, -1.0, 7.0}) {
    for (int64_t j : {0, 1, 7}) {
      EXPECT_FALSE(BlockTag::Hashed(j) == BlockTag::Prefix(k, j));
    }
  }
  EXPECT_EQ(BlockTag::Hashed(46), BlockTag::Hashed(46));
}

TEST(PrefixCacheTest, EmptyCacheHasNothing) {
  PrefixCache cache;
  EXPECT_EQ(cache.Lookup(Family(7, 3)), 0u);
  EXPECT_EQ(cache.Lookup({}), 0u);
  EXPECT_FALSE(cache.Evict());
  EXPECT_EQ(cache.Blocks(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

TEST(PrefixCacheTest, FillRegistersAndLookupFindsTheLongestRun) {
  PrefixCache cache;
  auto a = Family(7, 3);
  PrefixCache::Holder h = cache.NewHolder();
  // Content covering 2 blocks, then 3: two registrations, then one.
  EXPECT_EQ(cache.Fill(h, a, 2), 2u);
  EXPECT_EQ(cache.Fill(h, a, 3), 1u);
  EXPECT_EQ(cache.Fill(h, a, 1), 0u);  // content never covers less: no change
  EXPECT_EQ(cache.References(h), 3u);
  EXPECT_EQ(cache.ReferencedBlocks(), 3u);
  EXPECT_EQ(cache.EvictableBlocks(), 0u);
  EXPECT_EQ(cache.Lookup(a), 3u);
  EXPECT_EQ(cache.Lookup(Family(7, 2)), 2u);
  // (7,0) (7,1) then (8,0): the run stops at the first block not cached.
  EXPECT_EQ(cache.Lookup(Cat(Family(7, 2), Family(8, 1))), 2u);
  EXPECT_EQ(cache.Lookup(Family(8, 3)), 0u);
  // Nothing referenced is evictable.
  EXPECT_FALSE(cache.Evict());
  EXPECT_EQ(cache.CheckInvariants(), "");
}

TEST(PrefixCacheTest, IdentityIsTheWholeChain) {
  PrefixCache cache;
  PrefixCache::Holder h = cache.NewHolder();
  cache.Fill(h, {BlockTag::Prefix(1, 0), BlockTag::Prefix(2, 0)}, 2);
  // The same second tag after another first one is another block.
  EXPECT_EQ(cache.Lookup({BlockTag::Prefix(3, 0), BlockTag::Prefix(2, 0)}), 0u);
  EXPECT_EQ(cache.Lookup({BlockTag::Prefix(2, 0)}), 0u);
  EXPECT_EQ(cache.Lookup({BlockTag::Prefix(1, 0), BlockTag::Prefix(2, 0)}), 2u);
}

TEST(PrefixCacheTest, ReleasedBlocksAreEvictedDeepestFirst) {
  PrefixCache cache;
  PrefixCache::Holder h = cache.NewHolder();
  cache.Fill(h, Family(7, 3), 3);
  EXPECT_EQ(cache.FreeHolder(h), 3u);
  EXPECT_EQ(cache.EvictableBlocks(), 3u);
  EXPECT_EQ(cache.ReferencedBlocks(), 0u);
  // Still cached: a later lookup finds all three.
  EXPECT_EQ(cache.Lookup(Family(7, 3)), 3u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  // Released in reverse (vLLM's free order): block 2, then 1, then 0.
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{2, 1, 0}));
  EXPECT_EQ(cache.Lookup(Family(7, 3)), 0u);
  EXPECT_EQ(cache.Blocks(), 0u);  // nothing needs the keys any more
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Two families released one after the other: the first released is evicted
// first; a hit takes its block out of the order.
TEST(PrefixCacheTest, EvictionOrderAcrossTwoFamiliesAndAHit) {
  PrefixCache cache;
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  cache.Fill(a, Family(1, 2), 2);
  cache.Fill(b, Family(2, 2), 2);
  cache.FreeHolder(a);  // order: A1 A0
  cache.FreeHolder(b);  // order: A1 A0 B1 B0
  PrefixCache::Holder c = cache.NewHolder();
  // C hits family 1's first block: it was evictable, and leaves the order.
  EXPECT_EQ(cache.Hit(c, Family(1, 1), 1), 1u);
  EXPECT_EQ(cache.References(c), 1u);
  EXPECT_EQ(cache.EvictableBlocks(), 3u);
  EXPECT_EQ(cache.ReferencedBlocks(), 1u);
  // Order now A1 B1 B0.
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{1, 1, 0}));
  EXPECT_EQ(cache.Lookup(Family(1, 2)), 1u);  // A0, held by C, survives
  EXPECT_EQ(cache.Lookup(Family(2, 2)), 0u);
  EXPECT_EQ(cache.FreeHolder(c), 1u);
  EXPECT_EQ(cache.EvictableBlocks(), 1u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// A hit on blocks a running holder references: shared, nothing was
// evictable; when the first ends only what nobody else references is
// released.
TEST(PrefixCacheTest, SharedBlocksAreReleasedByTheirLastHolder) {
  PrefixCache cache;
  auto tags = Family(5, 4);
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  cache.Fill(a, tags, 3);
  EXPECT_EQ(cache.Lookup(tags), 3u);
  EXPECT_EQ(cache.Hit(b, tags, 2), 0u);  // both referenced by A already
  EXPECT_EQ(cache.ReferencedBlocks(), 3u);
  EXPECT_EQ(cache.FreeHolder(a), 1u);  // only block 2: B references 0 and 1
  EXPECT_EQ(cache.EvictableBlocks(), 1u);
  // B's content reaches block 2's end: it is cached (evictable), so B's
  // block 2 is a duplicate, its own units; block 3 is registered.
  EXPECT_EQ(cache.Fill(b, tags, 4), 1u);
  EXPECT_EQ(cache.References(b), 3u);  // blocks 0, 1, 3
  EXPECT_EQ(cache.EvictableBlocks(), 1u);
  EXPECT_EQ(cache.FreeHolder(b), 3u);
  // Order: A's block 2, then B's 3, 1, 0.
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{2, 3, 1, 0}));
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Two sessions compute the same blocks at once (neither hit): the first to
// fill registers them, the second's are duplicates, not registered twice.
TEST(PrefixCacheTest, ADuplicateIsNotRegisteredTwice) {
  PrefixCache cache;
  auto tags = Family(3, 2);
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  EXPECT_EQ(cache.Fill(a, tags, 1), 1u);
  EXPECT_EQ(cache.Fill(b, tags, 2), 1u);  // block 0 a duplicate, block 1 new
  EXPECT_EQ(cache.Fill(a, tags, 2), 0u);  // block 1 is now B's
  EXPECT_EQ(cache.References(a), 1u);
  EXPECT_EQ(cache.References(b), 1u);
  EXPECT_EQ(cache.ReferencedBlocks(), 2u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  // A ends: block 0 evictable; evicted, it stays as a ghost (block 1 below
  // it, referenced by B, needs its key), and the run from 0 finds nothing.
  EXPECT_EQ(cache.FreeHolder(a), 1u);
  PrefixCache::Evicted e;
  ASSERT_TRUE(cache.Evict(&e));
  EXPECT_EQ(e.depth, 0u);
  EXPECT_EQ(cache.Lookup(tags), 0u);
  EXPECT_EQ(cache.Blocks(), 2u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  // A third computes block 0 again: the ghost is registered, and the run
  // reaches B's block 1 again.
  PrefixCache::Holder c = cache.NewHolder();
  EXPECT_EQ(cache.Fill(c, tags, 1), 1u);
  EXPECT_EQ(cache.Lookup(tags), 2u);
  cache.FreeHolder(b);
  cache.FreeHolder(c);
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(cache.Blocks(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Probe: the cached run capped, and how many of it are evictable, with no
// side effect. A fills 3 blocks and ends (all evictable); B hits 1 of them.
// Probing 3: 3 cached, 2 evictable (blocks 1, 2); capped at 2: 2 and 1.
// A hit past the cached run stops at it.
TEST(PrefixCacheTest, ProbeAndAHitStopAtTheCachedRun) {
  PrefixCache cache;
  auto tags = Family(8, 4);
  PrefixCache::Holder a = cache.NewHolder();
  cache.Fill(a, tags, 3);
  cache.FreeHolder(a);
  PrefixCache::Holder b = cache.NewHolder();
  cache.Hit(b, tags, 1);
  uint32_t unreferenced = 99;
  EXPECT_EQ(cache.Probe(tags, 10, &unreferenced), 3u);
  EXPECT_EQ(unreferenced, 2u);
  EXPECT_EQ(cache.Probe(tags, 2, &unreferenced), 2u);
  EXPECT_EQ(unreferenced, 1u);
  EXPECT_EQ(cache.EvictableBlocks(), 2u);  // no side effect
  PrefixCache::Holder c = cache.NewHolder();
  uint32_t hit = 0;
  EXPECT_EQ(cache.Hit(c, tags, 10, &hit), 2u);  // blocks 1 and 2 were evictable
  EXPECT_EQ(hit, 3u);
  EXPECT_EQ(cache.Depth(c), 3u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// HitProbed takes what Probe's path found: A fills 3 blocks and ends; B
// hits 1. A probe capped at 10 finds 3 (2 evictable) and its path; C's
// HitProbed of it references the 3, 2 of which were evictable, as Hit does.
TEST(PrefixCacheTest, AHitOfAProbesPathIsTheHit) {
  PrefixCache cache;
  auto tags = Family(8, 4);
  PrefixCache::Holder a = cache.NewHolder();
  cache.Fill(a, tags, 3);
  cache.FreeHolder(a);
  PrefixCache::Holder b = cache.NewHolder();
  cache.Hit(b, tags, 1);
  std::vector<uint32_t> path;
  uint32_t unreferenced = 0;
  EXPECT_EQ(cache.Probe(tags, 10, &unreferenced, &path), 3u);
  EXPECT_EQ(unreferenced, 2u);
  EXPECT_EQ(path.size(), 2u);  // two runs: block 0 (B's), blocks 1 and 2
  PrefixCache::Holder c = cache.NewHolder();
  EXPECT_EQ(cache.HitProbed(c, path, 3), 2u);
  EXPECT_EQ(cache.Depth(c), 3u);
  EXPECT_EQ(cache.References(c), 3u);
  EXPECT_EQ(cache.EvictableBlocks(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  // An empty path: nothing referenced, nothing covered.
  PrefixCache::Holder d = cache.NewHolder();
  EXPECT_EQ(cache.HitProbed(d, {}, 0), 0u);
  EXPECT_EQ(cache.Depth(d), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// A hold emptied by preemption covers nothing, its blocks evictable; its
// recompute hits them while they are not evicted.
TEST(PrefixCacheTest, AnEmptiedHolderHitsItsOwnBlocks) {
  PrefixCache cache;
  auto tags = Family(9, 3);
  PrefixCache::Holder h = cache.NewHolder();
  cache.Fill(h, tags, 3);
  EXPECT_EQ(cache.Empty(h), 3u);
  EXPECT_EQ(cache.Depth(h), 0u);
  EXPECT_EQ(cache.Lookup(tags), 3u);
  EXPECT_EQ(cache.Hit(h, tags, 3), 3u);  // all three were evictable
  EXPECT_EQ(cache.EvictableBlocks(), 0u);
  EXPECT_EQ(cache.Depth(h), 3u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

TEST(PrefixCacheTest, LeaseOnlyBlocksCountWhatEndingLeasesWouldFree) {
  PrefixCache cache;
  auto tags = Family(4, 2);
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  cache.Fill(a, tags, 2);
  EXPECT_EQ(cache.LeaseOnlyBlocks(), 0u);
  cache.ToLease(a);
  EXPECT_EQ(cache.LeaseOnlyBlocks(), 2u);
  cache.Hit(b, tags, 1);  // block 0 now also held by a hold
  EXPECT_EQ(cache.LeaseOnlyBlocks(), 1u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(cache.FreeHolder(a), 1u);  // the lease ends: block 1 evictable
  EXPECT_EQ(cache.LeaseOnlyBlocks(), 0u);
  EXPECT_EQ(cache.EvictableBlocks(), 1u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Runs: a list's blocks that follow one another are one node, and stay one
// while their states agree. A decode's growth adds its blocks to its own
// run; released, the run's blocks are evicted deepest first, as blocks one
// by one would be.
TEST(PrefixCacheTest, AGrowingListStaysOneRun) {
  PrefixCache cache;
  auto tags = Family(3, 5);
  PrefixCache::Holder h = cache.NewHolder();
  for (uint32_t blocks = 2; blocks <= 5; ++blocks) cache.Fill(h, tags, blocks);
  EXPECT_EQ(cache.Nodes(), 1u);
  EXPECT_EQ(cache.Blocks(), 5u);
  EXPECT_EQ(cache.References(h), 5u);
  EXPECT_EQ(cache.FreeHolder(h), 5u);
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(cache.Nodes(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// A hit that stops inside an evictable run splits it: the hit's head is
// referenced, the rest keeps its place in the eviction order. A fills 6
// blocks and ends (order 5 4 3 2 1 0); B hits 2 (blocks 0, 1 leave the
// order): 5 4 3 2 are evicted first, then, when B ends, 1 0.
TEST(PrefixCacheTest, AHitInsideARunSplitsIt) {
  PrefixCache cache;
  auto tags = Family(1, 6);
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  cache.Fill(a, tags, 6);
  cache.FreeHolder(a);
  EXPECT_EQ(cache.Nodes(), 1u);
  EXPECT_EQ(cache.Hit(b, tags, 2), 2u);
  EXPECT_EQ(cache.Nodes(), 2u);
  EXPECT_EQ(cache.EvictableBlocks(), 4u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{5, 4, 3, 2}));
  EXPECT_EQ(cache.FreeHolder(b), 2u);
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// A list that leaves an evictable run in its middle splits it there, and
// the run's blocks keep their order. A fills (1,0..5) and ends: order
// 5 4 3 2 1 0. B's list is (1,0) (1,1) (2,0): its first two are
// duplicates (cached, evictable, not referenced), the third new. The
// order is still A's six, then nothing; evicted, blocks 0 and 1 stay as
// keys (B's block 2 below them is cached), and the run from block 0 finds
// nothing. B ends: its block is evicted last, and no key is left.
TEST(PrefixCacheTest, AListLeavingARunInItsMiddleSplitsIt) {
  PrefixCache cache;
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder();
  cache.Fill(a, Family(1, 6), 6);
  cache.FreeHolder(a);
  auto mine = Cat(Family(1, 2), Family(2, 1));
  EXPECT_EQ(cache.Fill(b, mine, 3), 1u);
  EXPECT_EQ(cache.References(b), 1u);
  EXPECT_EQ(cache.Nodes(), 3u);  // (1,0..1), (1,2..5), (2,0)
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(cache.Lookup(mine), 0u);
  EXPECT_EQ(cache.Blocks(), 3u);  // two keys, B's block
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(cache.FreeHolder(b), 1u);
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{2}));
  EXPECT_EQ(cache.Blocks(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Two lists leave one evictable run at two places: its parts keep the
// run's order, each head waiting behind the part below it. A fills
// (1,0..5) and ends: order 5 4 3 2 1 0. B's list leaves it after block 2
// ((2,0) at depth 3), C's after block 3 ((3,0) at depth 4): the run is now
// three nodes, and evicted in A's order; B's and C's own blocks, held, stay.
TEST(PrefixCacheTest, AnEvictableRunLeftTwiceKeepsItsOrder) {
  PrefixCache cache;
  PrefixCache::Holder a = cache.NewHolder(), b = cache.NewHolder(), c = cache.NewHolder();
  cache.Fill(a, Family(1, 6), 6);
  cache.FreeHolder(a);
  EXPECT_EQ(cache.Fill(b, Cat(Family(1, 3), Family(2, 1)), 4), 1u);
  EXPECT_EQ(cache.Fill(c, Cat(Family(1, 4), Family(3, 1)), 5), 1u);
  EXPECT_EQ(cache.Nodes(), 5u);
  EXPECT_EQ(cache.EvictableBlocks(), 6u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(cache.ReferencedBlocks(), 2u);
  EXPECT_EQ(cache.CheckInvariants(), "");
  EXPECT_EQ(cache.FreeHolder(c), 1u);
  EXPECT_EQ(cache.FreeHolder(b), 1u);
  EXPECT_EQ(DrainDepths(cache), (std::vector<uint32_t>{4, 3}));
  EXPECT_EQ(cache.Blocks(), 0u);
  EXPECT_EQ(cache.CheckInvariants(), "");
}

// Random operations against a model that keeps chains as whole vectors of
// tags (the definition of identity), one entry a block: cached chains in a
// map with their references and the eviction order as a list. The cache
// keeps runs of blocks and splits them; the model knows nothing of runs, so
// every answer that agrees is the block-by-block semantics.
class Model {
 public:
  using Chain = std::vector<BlockTag>;
  struct Holder {
    Chain tags;
    uint32_t depth = 0;
    bool lease = false;
    std::vector<Chain> refs;
  };
  static bool Less(const Chain& a, const Chain& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](const BlockTag& x, const BlockTag& y) {
                                          return std::tie(x.family, x.index) <
                                                 std::tie(y.family, y.index);
                                        });
  }
  struct ChainLess {
    bool operator()(const Chain& a, const Chain& b) const { return Less(a, b); }
  };

  uint32_t Lookup(const Chain& tags, uint32_t most = UINT32_MAX) const {
    uint32_t n = 0;
    while (n < tags.size() && n < most && blocks_.count(Chain(tags.begin(), tags.begin() + n + 1))) ++n;
    return n;
  }
  // Of the first n blocks of tags (cached), those referenced by nobody.
  uint32_t Unreferenced(const Chain& tags, uint32_t n) const {
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; ++i) u += blocks_.at(Chain(tags.begin(), tags.begin() + i + 1)).refs == 0;
    return u;
  }
  void Hit(Holder& h, uint32_t blocks) {
    for (uint32_t i = 0; i < blocks; ++i) Reference(h, Chain(h.tags.begin(), h.tags.begin() + i + 1));
    h.depth = blocks;
  }
  uint32_t Fill(Holder& h, uint32_t blocks) {
    uint32_t registered = 0;
    for (uint32_t i = h.depth; i < blocks; ++i) {
      Chain c(h.tags.begin(), h.tags.begin() + i + 1);
      if (blocks_.count(c)) continue;
      blocks_[c] = {};
      Reference(h, c);
      ++registered;
    }
    h.depth = std::max(h.depth, blocks);
    return registered;
  }
  void ToLease(Holder& h) {
    h.lease = true;
    for (const Chain& c : h.refs) ++blocks_[c].lease_refs;
  }
  uint32_t Empty(Holder& h) {
    uint32_t released = 0;
    for (auto it = h.refs.rbegin(); it != h.refs.rend(); ++it) {
      Block& b = blocks_[*it];
      if (h.lease) --b.lease_refs;
      if (--b.refs == 0) {
        order_.push_back(*it);
        ++released;
      }
    }
    h.refs.clear();
    h.depth = 0;
    h.lease = false;
    return released;
  }
  bool Evict(uint32_t* depth) {
    if (order_.empty()) return false;
    *depth = order_.front().size() - 1;
    blocks_.erase(order_.front());
    order_.pop_front();
    return true;
  }
  uint32_t evictable() const { return order_.size(); }
  uint32_t referenced() const {
    uint32_t n = 0;
    for (const auto& [c, b] : blocks_) n += b.refs > 0;
    return n;
  }
  uint32_t lease_only() const {
    uint32_t n = 0;
    for (const auto& [c, b] : blocks_) n += b.refs > 0 && b.refs == b.lease_refs;
    return n;
  }

 private:
  struct Block {
    uint32_t refs = 0;
    uint32_t lease_refs = 0;
  };
  void Reference(Holder& h, const Chain& c) {
    Block& b = blocks_[c];
    if (b.refs++ == 0) {
      for (auto it = order_.begin(); it != order_.end(); ++it) {
        if (!Less(*it, c) && !Less(c, *it)) {
          order_.erase(it);
          break;
        }
      }
    }
    if (h.lease) ++b.lease_refs;
    h.refs.push_back(c);
  }
  std::map<Chain, Block, ChainLess> blocks_;  // cached chains
  std::list<Chain> order_;
};

TEST(PrefixCacheTest, RandomOperationsAgreeWithTheModel) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    PrefixCache cache;
    Model model;
    struct Pair {
      PrefixCache::Holder id;
      Model::Holder m;
    };
    std::vector<Pair> holders;
    std::vector<uint32_t> path;
    // Lists over few families and short lengths, so chains meet often and
    // runs split at every place; odd seeds make longer runs, some of hash
    // ids one after another.
    const uint32_t longest = seed % 2 ? 8 : 3;
    auto random_list = [&]() {
      Model::Chain tags;
      int parts = 1 + rng() % 3;
      for (int p = 0; p < parts; ++p) {
        uint32_t n = 1 + rng() % longest, from = rng() % 3;
        if (rng() % 5 == 0) {
          // From -2: some runs cross the wrap of the ids (-1, 0, 1 as uint64).
          for (uint32_t j = 0; j < n; ++j) tags.push_back(BlockTag::Hashed(int64_t{from} - 2 + j));
        } else {
          auto f = Family(static_cast<double>(rng() % 3), n, from);
          tags.insert(tags.end(), f.begin(), f.end());
        }
      }
      return tags;
    };
    for (int step = 0; step < 600; ++step) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " step " << step);
      int op = rng() % 9;
      if (op == 0 || holders.empty()) {
        Pair p{cache.NewHolder(), {}};
        p.m.tags = random_list();
        holders.push_back(std::move(p));
      } else if (op == 1 || op == 2) {  // a hit (or a probed one), covering nothing
        Pair& p = holders[rng() % holders.size()];
        if (p.m.depth == 0 && !p.m.lease) {
          uint32_t most = rng() % (p.m.tags.size() + 2);
          uint32_t found = model.Lookup(p.m.tags, most);
          ASSERT_EQ(cache.Lookup(p.m.tags), model.Lookup(p.m.tags));
          uint32_t unreferenced = 99;
          ASSERT_EQ(cache.Probe(p.m.tags, most, &unreferenced, &path), found);
          ASSERT_EQ(unreferenced, model.Unreferenced(p.m.tags, found));
          uint32_t before = model.evictable();
          model.Hit(p.m, found);
          uint32_t revived = 0, hit = 99;
          if (op == 1) {
            revived = cache.Hit(p.id, p.m.tags, most, &hit);
          } else {
            revived = cache.HitProbed(p.id, path, found);
            hit = found;
          }
          ASSERT_EQ(hit, found);
          ASSERT_EQ(revived, before - model.evictable());
          ASSERT_EQ(cache.Depth(p.id), found);
        }
      } else if (op == 3 || op == 4) {
        Pair& p = holders[rng() % holders.size()];
        if (!p.m.lease) {
          uint32_t to = p.m.depth + rng() % (p.m.tags.size() - p.m.depth + 1);
          uint32_t want = model.Fill(p.m, to);
          ASSERT_EQ(cache.Fill(p.id, p.m.tags, to), want);
        }
      } else if (op == 5) {
        Pair& p = holders[rng() % holders.size()];
        if (rng() % 2 == 0 && !p.m.lease) {
          model.ToLease(p.m);
          cache.ToLease(p.id);
        } else {
          uint32_t want = model.Empty(p.m);
          ASSERT_EQ(cache.Empty(p.id), want);
        }
      } else if (op == 6) {
        size_t i = rng() % holders.size();
        uint32_t want = model.Empty(holders[i].m);
        ASSERT_EQ(cache.FreeHolder(holders[i].id), want);
        holders.erase(holders.begin() + i);
      } else if (op == 7) {
        uint32_t want = 0;
        PrefixCache::Evicted e;
        bool any = model.Evict(&want);
        ASSERT_EQ(cache.Evict(&e), any);
        if (any) {
          ASSERT_EQ(e.depth, want);
        }
      } else {  // several at once
        uint32_t count = rng() % 6, done = 0, depth;
        while (done < count && model.Evict(&depth)) ++done;
        ASSERT_EQ(cache.EvictOldest(count), done);
      }
      ASSERT_EQ(cache.CheckInvariants(), "");
      ASSERT_EQ(cache.EvictableBlocks(), model.evictable());
      ASSERT_EQ(cache.ReferencedBlocks(), model.referenced());
      ASSERT_EQ(cache.LeaseOnlyBlocks(), model.lease_only());
      for (const Pair& p : holders) {
        ASSERT_EQ(cache.Lookup(p.m.tags), model.Lookup(p.m.tags));
        ASSERT_EQ(cache.References(p.id), p.m.refs.size());
        ASSERT_EQ(cache.Depth(p.id), p.m.depth);
      }
    }
  }
}

}  // namespace
}  // namespace serq::sim
