// The prefix cache of one pool element (engine.md §3): blocks of B units
// kept by identity, referenced by holds and leases, evicted least recently
// released first.
//
// A block's identity is the whole chain of tags up to and including it: two
// blocks are the same exactly when their sessions' lists agree up to them.
// The cache interns (parent, tag) pairs into nodes of a trie, so identity is
// decided by comparing tags, never by a hash of them: no collisions, and the
// node numbers (and so every output) are the same on every machine. A hash
// table finds a node from its (parent, tag) key; it is never iterated.
//
// A node is *cached* (registered, its B units held by the pool) or a *ghost*
// (evicted, or never registered: a duplicate's place in a chain), kept only
// while a cached node below it or a holder standing on it needs its key. A
// cached node with no reference is *evictable*: it sits in the eviction
// order, a list from least to most recently released.
//
// A *holder* is a hold's (later its lease's) view of its session's chain:
// how many leading blocks of the list its content covers (its depth), the
// node of its deepest such block (pinned, so the chain below it stays
// interned), and the cached blocks it references. Blocks it covered as
// duplicates (already cached by another when it filled them) are not
// referenced: their units stay the hold's own.
//
// This library knows tags, nodes and holders, not pools, sessions or time,
// so it is tested and benchmarked (//bench:prefix_cache_bench) alone. The
// caller (Pools) turns counts of blocks into units. Not thread-safe.
#ifndef SERQ_SIM_PREFIX_CACHE_H_
#define SERQ_SIM_PREFIX_CACHE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"

namespace serq::sim {

// One entry of a session's block list. `prefix (k, n)` makes (k, j) for the
// family k (a finite number; -0 is 0) and the next n indices j; a Mooncake
// row's hash_ids make one Hashed tag each, in a space of their own.
struct BlockTag {
  uint64_t family = 0;
  uint64_t index = 0;
  static BlockTag Prefix(double family, uint64_t index);
  static BlockTag Hashed(int64_t hash_id);
  friend bool operator==(const BlockTag& a, const BlockTag& b) {
    return a.family == b.family && a.index == b.index;
  }
};

class PrefixCache {
 public:
  using Holder = uint32_t;

  // What Evict dropped, for the trace.
  struct Evicted {
    uint32_t depth = 0;  // its index in its chain (0: a first block)
  };

  PrefixCache();

  // The number of leading blocks of `tags` cached (referenced or
  // evictable). No side effect: `cached(P)` and the lookup of a hit.
  uint32_t Lookup(absl::Span<const BlockTag> tags) const;

  // A new holder, covering nothing.
  Holder NewHolder();
  // The holder's first `blocks` blocks of `tags` are cached (blocks <=
  // Lookup(tags)) and it covers nothing yet: it references them, and those
  // that were evictable leave the eviction order. Returns how many were
  // evictable (their units become used).
  uint32_t Hit(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks);
  // The holder's content now covers the first `blocks` blocks of `tags`
  // (blocks <= tags.size(); fewer than its depth: no change). Each newly
  // covered block not cached is registered, referenced by the holder; one
  // already cached is a duplicate: not registered again, not referenced.
  // Returns the blocks registered.
  uint32_t Fill(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks);
  // The holder now belongs to a lease (for LeaseOnlyBlocks).
  void ToLease(Holder holder);
  // Drops the holder's references, deepest block first; blocks left with
  // none join the end of the eviction order. It covers nothing afterwards
  // and may be filled again (a hold emptied by preemption). Returns the
  // blocks that became evictable.
  uint32_t Empty(Holder holder);
  // Empty, then the holder is recycled.
  uint32_t FreeHolder(Holder holder);

  // Blocks `holder` references.
  uint32_t References(Holder holder) const { return holders_[holder].refs.size(); }
  uint32_t Depth(Holder holder) const { return holders_[holder].depth; }

  // Drops the least recently released evictable block. False when none.
  bool Evict(Evicted* out = nullptr);

  // Cached blocks referenced by no holder.
  uint32_t EvictableBlocks() const { return evictable_; }
  // Cached blocks referenced by at least one holder.
  uint32_t ReferencedBlocks() const { return referenced_; }
  // Referenced blocks whose every reference is a lease's: what ending all
  // leases would make evictable.
  uint32_t LeaseOnlyBlocks() const { return lease_only_; }
  // Interned nodes (cached and ghosts), without the root: for tests and the
  // bench's memory figure.
  uint32_t Nodes() const { return index_.size(); }

  // Checks the counts and lists against the nodes (for tests). Returns what
  // is wrong, or "".
  std::string CheckInvariants() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kRoot = 0;

  struct Key {
    uint32_t parent;
    BlockTag tag;
    friend bool operator==(const Key& a, const Key& b) {
      return a.parent == b.parent && a.tag == b.tag;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.parent, k.tag.family, k.tag.index);
    }
  };
  struct Node {
    Key key{};
    uint32_t depth = 0;
    uint32_t refs = 0;        // holders referencing it
    uint32_t lease_refs = 0;  // of which leases
    uint32_t keep = 0;        // nodes below it + holders standing on it
    uint32_t prev = kNone, next = kNone;  // the eviction order, when evictable
    bool cached = false;
  };
  struct HolderState {
    uint32_t tail = kRoot;  // the node of its deepest covered block (pinned)
    uint32_t depth = 0;     // blocks covered
    bool lease = false;
    std::vector<uint32_t> refs;  // nodes it references, shallowest first
  };

  uint32_t Find(uint32_t parent, const BlockTag& tag) const;
  uint32_t Intern(uint32_t parent, const BlockTag& tag);
  // Moves the holder's pin from its tail to `node`.
  void Stand(HolderState& h, uint32_t node);
  void Reference(HolderState& h, uint32_t node);
  // Drops a keep of `node`; erases ghosts no longer needed, upwards.
  void Unkeep(uint32_t node);
  void SetLeaseOnly(const Node& n, bool before);
  bool IsLeaseOnly(const Node& n) const { return n.refs > 0 && n.refs == n.lease_refs; }
  void Append(uint32_t node);
  void Unlink(uint32_t node);

  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  absl::flat_hash_map<Key, uint32_t> index_;
  std::vector<HolderState> holders_;
  std::vector<Holder> free_holders_;
  uint32_t head_ = kNone, tail_ = kNone;  // least, most recently released
  uint32_t evictable_ = 0;
  uint32_t referenced_ = 0;
  uint32_t lease_only_ = 0;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_PREFIX_CACHE_H_
