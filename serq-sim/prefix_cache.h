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
// order, least to most recently released. That order is an array of node
// numbers, not a list through the nodes: an eviction reads the next ones'
// numbers there and fetches their nodes ahead (they were released long ago:
// out of the caches), where a list would wait for each node to learn the
// next. A hit takes a node out by marking it; its stale entry is skipped,
// and dropped when the array is compacted.
//
// A node's first child is found without the table (`first_child`, its tag
// compared): a chain of blocks only one list has, the usual tail of a
// prompt, costs no hashing at all; only a node's further children (the
// requests' own blocks after a shared system prompt) go in the table.
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

  // Lookup(tags) capped at `most`, and in *unreferenced how many of those
  // blocks are evictable (what a hit of them would take out of the
  // eviction order), in one walk. No side effect.
  // With `path`, the nodes of those blocks, shallowest first, for
  // HitProbed.
  uint32_t Probe(absl::Span<const BlockTag> tags, uint32_t most, uint32_t* unreferenced,
                 std::vector<uint32_t>* path = nullptr) const;

  // A new holder, covering nothing.
  Holder NewHolder();
  // The holder covers nothing yet: it references the longest cached run of
  // `tags`, at most `blocks` (in *hit when given), and those that were
  // evictable leave the eviction order. Returns how many were evictable
  // (their units become used).
  uint32_t Hit(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks,
               uint32_t* hit = nullptr);
  // Hit of the blocks a Probe's `path` found, nothing having changed since:
  // the same, without walking the chain again.
  uint32_t HitProbed(Holder holder, absl::Span<const uint32_t> path);
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
  // Drops the `count` least recently released evictable blocks (all there
  // are when fewer): as many calls of Evict, in one pass. Returns how many.
  uint32_t EvictOldest(uint32_t count);

  // Cached blocks referenced by no holder.
  uint32_t EvictableBlocks() const { return evictable_; }
  // Cached blocks referenced by at least one holder.
  uint32_t ReferencedBlocks() const { return referenced_; }
  // Referenced blocks whose every reference is a lease's: what ending all
  // leases would make evictable.
  uint32_t LeaseOnlyBlocks() const { return lease_only_; }
  // Interned nodes (cached and ghosts), without the root: for tests and the
  // bench's memory figure.
  uint32_t Nodes() const { return live_nodes_; }

  // Checks the counts and lists against the nodes (for tests). Returns what
  // is wrong, or "".
  std::string CheckInvariants() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kRoot = 0;
  static constexpr uint64_t kUnlisted = UINT64_MAX;

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
  // One cache line a node (64 bytes, aligned): an eviction, a walk or a
  // registration touches one line per block, never two.
  struct alignas(64) Node {
    BlockTag tag{};           // its key with `parent`
    uint32_t parent = 0;
    uint32_t first_child = kNone;  // one child, outside the table
    uint32_t refs = 0;        // holders referencing it
    uint32_t lease_refs = 0;  // of which leases
    uint32_t keep = 0;        // nodes below it + holders standing on it
    uint64_t order = kUnlisted;  // its position in the eviction order, when evictable
    uint32_t indexed = 0;     // children in the table
    uint32_t depth = 0;
    bool cached = false;
    bool live = false;
    bool in_index = false;  // it is in the table (not its parent's first child)
  };
  struct HolderState {
    uint32_t tail = kRoot;  // the node of its deepest covered block (pinned)
    uint32_t depth = 0;     // blocks covered
    bool lease = false;
    std::vector<uint32_t> refs;  // nodes it references, shallowest first
  };

  uint32_t Find(uint32_t parent, const BlockTag& tag) const;
  // Find past the first child: the table.
  uint32_t FindIndexed(uint32_t parent, const BlockTag& tag) const;
  uint32_t CountFirstChildren() const;
  // A new node (parent, tag), which Find does not know: a ghost.
  uint32_t NewNode(uint32_t parent, const BlockTag& tag);
  // Caches ghost `node` (no reference, not listed), referenced by the holder.
  void Register(HolderState& h, uint32_t node);
  // Drops the least recently released evictable block (there is one).
  void EvictHead();
  // Erases `node` (a ghost nothing keeps), then the ghosts above it that
  // nothing keeps any more.
  void Erase(uint32_t node);
  // Moves the holder's pin from its tail to `node`.
  void Stand(HolderState& h, uint32_t node);
  void Reference(HolderState& h, uint32_t node);
  // The holder covering nothing references the run ending at `node` (its
  // `n` blocks, referenced already); stands on it.
  void Covered(HolderState& h, uint32_t node, uint32_t n);
  // Drops a keep of `node`; erases ghosts no longer needed, upwards.
  void Unkeep(uint32_t node);
  void SetLeaseOnly(const Node& n, bool before);
  bool IsLeaseOnly(const Node& n) const { return n.refs > 0 && n.refs == n.lease_refs; }
  // Takes `node` out of the eviction order (Empty appends to it).
  void Unlist(uint32_t node) { nodes_[node].order = kUnlisted; }
  // Before appending: drops the consumed entries when they are most of the
  // array (no renumbering), and compacts when the stale ones are.
  void Tidy();
  // Drops the stale entries of the eviction order, renumbering the live
  // ones (amortised: when they are at least half of it).
  void Compact();

  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  absl::flat_hash_map<Key, uint32_t> index_;  // children but first ones
  uint32_t live_nodes_ = 0;
  std::vector<HolderState> holders_;
  std::vector<Holder> free_holders_;
  // The eviction order: the live entries of order_[order_head_..], the
  // entry at index i live when its node's `order` is order_base_ + i. The
  // consumed entries before order_head_ are dropped now and then without
  // renumbering anything (the positions are absolute).
  std::vector<uint32_t> order_;
  uint64_t order_base_ = 0;
  uint32_t order_head_ = 0;
  uint32_t evictable_ = 0;
  uint32_t referenced_ = 0;
  uint32_t lease_only_ = 0;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_PREFIX_CACHE_H_
