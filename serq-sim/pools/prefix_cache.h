// The prefix cache of one pool element (docs/simulation.md §Prefix caches): blocks of B units
// kept by identity, referenced by holds and leases, evicted least recently
// released first.
//
// A block's identity is the whole chain of tags up to and including it: two
// blocks are the same exactly when their sessions' lists agree up to them.
// The cache interns chains into a trie, so identity is decided by comparing
// tags, never by a hash of them: no collisions, and the node numbers (and
// so every output) are the same on every machine.
//
// A node of the trie is a *run*: blocks one after another in a chain, the
// tag of each the one before with its index plus one (`prefix (k, n)`
// makes such runs; so do consecutive hash_ids), all in the same state. A
// prompt of 100 blocks is two or three runs, not 100 nodes, and a hit, a
// registration, a release or an eviction costs per run, not per block. A
// run is split where its blocks' states would differ (a hit or a fill that
// stops inside it, a chain leaving it in the middle) and never merged. Its
// blocks are its `cached` leading ones, then *ghosts* (evicted, or never
// registered: a duplicate's place in a chain), kept while a node below or a
// holder standing on it needs their keys. A node's cached blocks are all
// referenced by the same holders, or by none: then they are *evictable*,
// and the node is in the eviction order. That order holds runs, least
// recently released first; a run's blocks are evicted deepest first, as
// vLLM frees a request's blocks in reverse, so a run's place in the order
// is exactly its blocks' places in an order of blocks. It is an array of
// node numbers, so an eviction fetches the next runs ahead; a run split
// while evictable leaves its head *behind* its tail, evicted right after
// it in its place (only a chain leaving a run in its middle does that).
//
// A node's first child is found without the table (`first_child`, its tag
// compared): only a node's further children (the requests' own blocks
// after a shared system prompt) go in the hash table, which finds a node
// from its (parent, first tag) key and is never iterated.
//
// A *holder* is a hold's (later its lease's) view of its session's chain:
// how many leading blocks of the list its content covers (its depth), a
// node at or below its deepest such block (pinned, so the chain above it
// stays interned), and the depths it covered as duplicates (already cached
// by another when it filled them: not referenced, their units stay the
// hold's own). Every other node its depth covers whole it references. It
// keeps the nodes it took; a split, which only moves a node's head into a
// new node just above it, changes no holder: the heads are found walking
// up from a node to the one taken before it.
//
// This library knows tags, nodes and holders, not pools, sessions or time,
// so it is tested and benchmarked (//bench:prefix_cache_bench) alone. The
// caller (Pools) turns counts of blocks into units. Not thread-safe.
#ifndef SERQ_SIM_POOLS_PREFIX_CACHE_H_
#define SERQ_SIM_POOLS_PREFIX_CACHE_H_

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
  // With `path`, the nodes holding those blocks, shallowest first, for
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
  // Hit of the blocks a Probe's `path` found, `blocks` exactly what that
  // Probe returned, nothing having changed since: the same, without
  // walking the chain again.
  uint32_t HitProbed(Holder holder, absl::Span<const uint32_t> path, uint32_t blocks);
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
  uint32_t References(Holder holder) const { return holders_[holder].refs; }
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
  // Interned blocks (cached and ghosts): for tests and the bench's memory
  // figure.
  uint32_t Blocks() const { return live_blocks_; }
  // Nodes (runs of blocks), without the root.
  uint32_t Nodes() const { return live_nodes_; }

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
  // A run of `len` blocks, the i-th tagged (tag.family, tag.index + i).
  // One cache line.
  struct alignas(64) Node {
    BlockTag tag{};                // its first block's; its key with `parent`
    uint32_t parent = 0;           // the node of the block before its first
    uint32_t first_child = kNone;  // one child of its last block, outside the table
    uint32_t depth = 0;            // its first block's index in the chain
    uint32_t len = 0;
    uint32_t cached = 0;      // leading blocks cached; the rest are ghosts
    uint32_t refs = 0;        // holders referencing its cached blocks
    uint32_t lease_refs = 0;  // of which leases
    uint32_t keep = 0;        // child nodes + holders pinned on it
    // When evictable: its entry in the eviction order, or (kNone there)
    // the child in `behind` whose blocks come just before its own.
    uint32_t order = kNone;
    uint32_t behind = kNone;
    uint32_t indexed = 0;  // children in the table
    bool live = false;
    bool in_index = false;  // it is in the table (not its parent's first child)
    uint32_t end() const { return depth + len; }
    BlockTag At(uint32_t i) const { return BlockTag{tag.family, tag.index + i}; }
  };
  struct HolderState {
    uint32_t pin = kRoot;  // a node at or below its deepest covered block
    uint32_t depth = 0;    // blocks covered
    uint32_t refs = 0;     // blocks referenced
    bool lease = false;
    // The depths covered as duplicates: [first, second) ranges, ascending,
    // none touching the next.
    std::vector<std::pair<uint32_t, uint32_t>> duplicates;
    // The nodes it referenced, shallowest first, as it took them: a split
    // since has put the head of one between it and the one before. What
    // ForEachReferenced walks, fetching ahead, not up from the pin.
    std::vector<uint32_t> nodes;
  };

  uint32_t Find(uint32_t parent, const BlockTag& tag) const;
  // Find past the first child: the table.
  uint32_t FindIndexed(uint32_t parent, const BlockTag& tag) const;
  // How many of tags[i..end) continue node `node`'s blocks from its block
  // `off` on (at most len - off).
  uint32_t Matching(const Node& n, uint32_t off, absl::Span<const BlockTag> tags, uint32_t i,
                    uint32_t end) const;
  // Lookup and Probe's walk: the cached run of tags, at most `most`,
  // calling visit(node, blocks of it) for each node it takes blocks of.
  template <typename Visit>
  uint32_t Walk(absl::Span<const BlockTag> tags, uint32_t most, Visit visit) const;
  // A node's number, from the free list or new; the caller sets it whole.
  uint32_t AllocateNode();
  // A new ghost run below `parent` (which Find does not know): the blocks
  // tags[i..end) that follow one another.
  uint32_t NewRun(uint32_t parent, absl::Span<const BlockTag> tags, uint32_t i, uint32_t end);
  // Splits `node` before its block `at` (0 < at < len): its first `at`
  // blocks move into a new node above it, which takes its place in the
  // trie and is returned. The node keeps its number and its children, its
  // state is copied. Evictable, the new node waits behind it (both parts
  // cached) or takes its entry (its part all the cached blocks).
  uint32_t Split(uint32_t node, uint32_t at);
  // The node holding the holder's deepest covered block (kRoot: none).
  uint32_t Deepest(const HolderState& h) const;
  void AddDuplicates(HolderState& h, uint32_t from, uint32_t to);
  // Calls visit(node) for each node the holder references, deepest first:
  // from its `nodes`, or (the definition, for CheckInvariants) walking up
  // from its pin.
  template <typename Visit>
  void ForEachReferenced(const HolderState& h, Visit visit) const;
  template <typename Visit>
  void ForEachCoveredWhole(const HolderState& h, Visit visit) const;
  // Ghost `node` (whole) becomes cached, referenced by the holder alone.
  void Register(HolderState& h, uint32_t node);
  // A holder's node can take more blocks of its list after its last.
  bool Extends(const HolderState& h, uint32_t node, const BlockTag& tag) const;
  void Reference(HolderState& h, uint32_t node);
  // The holder covering nothing now covers the `blocks` blocks ending in
  // `node`, referenced already.
  void Covered(HolderState& h, uint32_t node, uint32_t blocks);
  // Moves the holder's pin to `node`.
  void Pin(HolderState& h, uint32_t node);
  // Drops a keep of `node`; trims or erases what nothing keeps, upwards.
  void Unkeep(uint32_t node);
  // `node`, which nothing keeps, loses its ghosts (and, left with none, its
  // place: then its parent may follow).
  void Trim(uint32_t node);
  // Evicts up to `count` of the list's first node's blocks; returns how many.
  uint32_t EvictFromHead(uint32_t count);
  void LeaseCount(const Node& n, bool before);
  bool IsLeaseOnly(const Node& n) const { return n.refs > 0 && n.refs == n.lease_refs; }
  // Lists `node` last in the eviction order.
  void Append(uint32_t node);
  // Takes `node`, evictable and wholly referenced from now on, out of it.
  void Unlist(uint32_t node);
  // `node` is leaving its entry, or the order: the parent behind it takes
  // its place, or the entry is left stale.
  void Vacate(uint32_t node);
  // Before appending: drops the stale and consumed entries when they are
  // most of the array (amortised), renumbering the live ones.
  void Tidy();

  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  absl::flat_hash_map<Key, uint32_t> index_;  // children but first ones
  uint32_t live_nodes_ = 0;
  uint32_t live_blocks_ = 0;
  std::vector<HolderState> holders_;
  std::vector<Holder> free_holders_;
  std::vector<uint32_t> path_;  // Hit's probe
  // The eviction order: order_[order_head_..], the entry at index i live
  // when its node's `order` is i (a node unlisted leaves its entry stale).
  // An entry's node is evicted from, deepest block first; then the chain
  // of parents behind it, each in turn, in its place.
  std::vector<uint32_t> order_;
  uint32_t order_head_ = 0;
  // Blocks, not nodes.
  uint32_t evictable_ = 0;
  uint32_t referenced_ = 0;
  uint32_t lease_only_ = 0;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_POOLS_PREFIX_CACHE_H_
