#include "serq-sim/prefix_cache.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

// The family of Mooncake's hash_ids: a NaN's bits, which no finite family
// of `prefix` has, so the two spaces never meet.
constexpr uint64_t kHashedFamily = 0x7ff8'5e71'ca11'0000ull;

// How far ahead a pass over nodes in a known order (evictions, a holder's
// release, a compaction) fetches the nodes it will touch: they were last
// touched long ago, out of the caches.
constexpr uint32_t kAhead = 8;

}  // namespace

BlockTag BlockTag::Prefix(double family, uint64_t index) {
  if (family == 0) family = 0;  // -0 and 0 are one family
  BlockTag t;
  std::memcpy(&t.family, &family, sizeof family);
  t.index = index;
  return t;
}

BlockTag BlockTag::Hashed(int64_t hash_id) {
  BlockTag t;
  t.family = kHashedFamily;
  t.index = static_cast<uint64_t>(hash_id);
  return t;
}

PrefixCache::PrefixCache() {
  nodes_.emplace_back();  // the root: the empty chain, never cached
  nodes_[kRoot].keep = 1;
}

uint32_t PrefixCache::Find(uint32_t parent, const BlockTag& tag) const {
  const Node& p = nodes_[parent];
  uint32_t child = p.first_child;
  if (child != kNone && nodes_[child].tag == tag) return child;
  if (p.indexed == 0) return kNone;
  return FindIndexed(parent, tag);
}

uint32_t PrefixCache::FindIndexed(uint32_t parent, const BlockTag& tag) const {
  auto it = index_.find(Key{parent, tag});
  return it == index_.end() ? kNone : it->second;
}

uint32_t PrefixCache::NewNode(uint32_t parent, const BlockTag& tag) {
  uint32_t id;
  if (!free_nodes_.empty()) {
    id = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    id = nodes_.size();
    nodes_.emplace_back();
  }
  // Field by field: a freed node is one nothing keeps (no child, no
  // reference, not listed), so only its key and flags change, and no
  // temporary Node is built and copied.
  Node& n = nodes_[id];
  Node& p = nodes_[parent];
  n.tag = tag;
  n.parent = parent;
  n.first_child = kNone;
  n.refs = n.lease_refs = n.keep = n.indexed = 0;
  n.order = kUnlisted;
  n.depth = parent == kRoot ? 0 : p.depth + 1;
  n.cached = false;
  n.live = true;
  ++live_nodes_;
  ++p.keep;
  if (p.first_child == kNone) {
    p.first_child = id;
    n.in_index = false;
  } else {
    n.in_index = true;
    ++p.indexed;
    index_.emplace(Key{parent, tag}, id);
  }
  return id;
}

uint32_t PrefixCache::Lookup(absl::Span<const BlockTag> tags) const {
  uint32_t node = kRoot;
  uint32_t n = 0;
  for (const BlockTag& tag : tags) {
    node = Find(node, tag);
    if (node == kNone || !nodes_[node].cached) break;
    ++n;
  }
  return n;
}

uint32_t PrefixCache::Probe(absl::Span<const BlockTag> tags, uint32_t most,
                            uint32_t* unreferenced, std::vector<uint32_t>* path) const {
  uint32_t node = kRoot, n = 0;
  *unreferenced = 0;
  if (path != nullptr) path->clear();
  for (; n < most && n < tags.size(); ++n) {
    node = Find(node, tags[n]);
    if (node == kNone || !nodes_[node].cached) break;
    if (nodes_[node].refs == 0) ++*unreferenced;
    if (path != nullptr) path->push_back(node);
  }
  return n;
}

PrefixCache::Holder PrefixCache::NewHolder() {
  Holder id;
  if (!free_holders_.empty()) {
    id = free_holders_.back();
    free_holders_.pop_back();
  } else {
    id = holders_.size();
    holders_.emplace_back();
  }
  HolderState& h = holders_[id];
  h.tail = kRoot;
  h.depth = 0;
  h.lease = false;
  h.refs.clear();
  ++nodes_[kRoot].keep;
  return id;
}

void PrefixCache::Stand(HolderState& h, uint32_t node) {
  ++nodes_[node].keep;
  uint32_t old = h.tail;
  h.tail = node;
  Unkeep(old);
}

void PrefixCache::Unkeep(uint32_t node) {
  Node& n = nodes_[node];
  if (--n.keep > 0 || n.cached || node == kRoot) return;
  Erase(node);
}

void PrefixCache::Erase(uint32_t node) {
  for (;;) {
    Node& n = nodes_[node];
    uint32_t parent = n.parent;
    Node& p = nodes_[parent];
    if (n.in_index) {
      index_.erase(Key{parent, n.tag});
      --p.indexed;
    } else {
      p.first_child = kNone;
    }
    n.live = false;
    --live_nodes_;
    free_nodes_.push_back(node);
    if (--p.keep > 0 || p.cached || parent == kRoot) return;
    node = parent;
  }
}

void PrefixCache::SetLeaseOnly(const Node& n, bool before) {
  bool after = IsLeaseOnly(n);
  if (before != after) {
    if (after) {
      ++lease_only_;
    } else {
      --lease_only_;
    }
  }
}

void PrefixCache::Reference(HolderState& h, uint32_t node) {
  Node& n = nodes_[node];
  bool before = IsLeaseOnly(n);
  if (n.refs == 0) {
    // Cached and referenced by nobody: evictable, so listed.
    Unlist(node);
    --evictable_;
    ++referenced_;
  }
  ++n.refs;
  if (h.lease) ++n.lease_refs;
  SetLeaseOnly(n, before);
  h.refs.push_back(node);
}

void PrefixCache::Register(HolderState& h, uint32_t node) {
  Node& n = nodes_[node];
  n.cached = true;
  n.refs = 1;
  ++referenced_;
  if (h.lease) {
    n.lease_refs = 1;
    ++lease_only_;
  }
  h.refs.push_back(node);
}

uint32_t PrefixCache::Hit(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks,
                          uint32_t* hit) {
  HolderState& h = holders_[holder];
  uint32_t was_evictable = 0;
  uint32_t node = kRoot, n = 0;
  for (; n < blocks && n < tags.size(); ++n) {
    uint32_t next = Find(node, tags[n]);
    if (next == kNone || !nodes_[next].cached) break;
    node = next;
    if (nodes_[node].refs == 0) ++was_evictable;
    Reference(h, node);
  }
  Covered(h, node, n);
  if (hit != nullptr) *hit = n;
  return was_evictable;
}

uint32_t PrefixCache::HitProbed(Holder holder, absl::Span<const uint32_t> path) {
  HolderState& h = holders_[holder];
  uint32_t was_evictable = 0;
  for (uint32_t node : path) {
    if (nodes_[node].refs == 0) ++was_evictable;
    Reference(h, node);
  }
  Covered(h, path.empty() ? kRoot : path.back(), path.size());
  return was_evictable;
}

void PrefixCache::Covered(HolderState& h, uint32_t node, uint32_t n) {
  if (n > 0) Stand(h, node);
  h.depth = n;
}

uint32_t PrefixCache::Fill(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks) {
  HolderState& h = holders_[holder];
  if (blocks <= h.depth) return 0;
  uint32_t node = h.tail;
  uint32_t i = h.depth;
  // The blocks interned already: duplicates (cached: the first stays, the
  // units stay the hold's) or ghosts, registered again.
  uint32_t registered = 0;
  for (; i < blocks; ++i) {
    uint32_t found = Find(node, tags[i]);
    if (found == kNone) break;
    node = found;
    if (nodes_[node].cached) continue;
    Register(h, node);
    ++registered;
  }
  // The rest are new, each below the one before, which has no other child:
  // no look-up, no duplicate (the usual tail of a prompt: a run of blocks
  // only this list has).
  for (; i < blocks; ++i) {
    node = NewNode(node, tags[i]);
    Register(h, node);
    ++registered;
  }
  Stand(h, node);
  h.depth = blocks;
  return registered;
}

void PrefixCache::ToLease(Holder holder) {
  HolderState& h = holders_[holder];
  h.lease = true;
  for (uint32_t node : h.refs) {
    Node& n = nodes_[node];
    bool before = IsLeaseOnly(n);
    ++n.lease_refs;
    SetLeaseOnly(n, before);
  }
}

uint32_t PrefixCache::Empty(Holder holder) {
  HolderState& h = holders_[holder];
  uint32_t released = 0;
  // Deepest first, as vLLM frees a request's blocks in reverse: its tail is
  // evicted before its head.
  // Lease-only counts, from refs r and lease refs L before (r >= 1): a
  // hold's release makes the block lease-only when r - 1 == L > 0; a
  // lease's unmakes it when it was (r == L) and was the last (r == 1).
  bool lease = h.lease;
  Tidy();
  const uint32_t* refs = h.refs.data();
  for (size_t i = h.refs.size(); i-- > 0;) {
    // Its nodes were filled a while ago: fetched ahead, as evictions do.
    if (i >= kAhead) __builtin_prefetch(&nodes_[refs[i - kAhead]]);
    uint32_t node = refs[i];
    Node& n = nodes_[node];
    uint32_t r = n.refs--;
    if (lease) {
      if (r == 1 && n.lease_refs == 1) --lease_only_;
      --n.lease_refs;
    } else if (n.lease_refs != 0 && r - 1 == n.lease_refs) {
      ++lease_only_;
    }
    if (r == 1) {
      --referenced_;
      ++evictable_;
      ++released;
      n.order = order_base_ + order_.size();  // appended to the eviction order
      order_.push_back(node);
    }
  }
  h.refs.clear();
  h.lease = false;
  h.depth = 0;
  Stand(h, kRoot);
  return released;
}

uint32_t PrefixCache::FreeHolder(Holder holder) {
  uint32_t released = Empty(holder);
  --nodes_[kRoot].keep;
  free_holders_.push_back(holder);
  return released;
}


void PrefixCache::Tidy() {
  if (order_head_ >= 4096 && 2 * static_cast<size_t>(order_head_) >= order_.size()) {
    order_.erase(order_.begin(), order_.begin() + order_head_);
    order_base_ += order_head_;
    order_head_ = 0;
  }
  if (order_.size() - order_head_ >= 2 * static_cast<size_t>(evictable_) + 1024) Compact();
}

void PrefixCache::Compact() {
  uint32_t out = 0;
  for (uint32_t i = order_head_; i < order_.size(); ++i) {
    if (i + kAhead < order_.size()) __builtin_prefetch(&nodes_[order_[i + kAhead]]);
    uint32_t node = order_[i];
    if (nodes_[node].order != order_base_ + i) continue;
    nodes_[node].order = order_base_ + out;
    order_[out++] = node;
  }
  order_.resize(out);
  order_head_ = 0;
}

bool PrefixCache::Evict(Evicted* out) {
  if (evictable_ == 0) return false;
  while (nodes_[order_[order_head_]].order != order_base_ + order_head_) ++order_head_;
  if (out != nullptr) out->depth = nodes_[order_[order_head_]].depth;
  EvictHead();
  return true;
}

uint32_t PrefixCache::EvictOldest(uint32_t count) {
  uint32_t done = 0;
  for (; done < count && evictable_ > 0; ++done) EvictHead();
  return done;
}

void PrefixCache::EvictHead() {
  uint32_t node;
  for (;;) {
    uint32_t ahead = order_head_ + kAhead;
    if (ahead < order_.size()) __builtin_prefetch(&nodes_[order_[ahead]]);
    node = order_[order_head_];
    if (nodes_[node].order == order_base_ + order_head_) break;
    ++order_head_;  // stale: a hit took it out
  }
  ++order_head_;
  Node& n = nodes_[node];
  n.order = kUnlisted;
  --evictable_;
  n.cached = false;
  // A ghost stays while a node below it or a holder needs its key.
  if (n.keep == 0) Erase(node);
  if (evictable_ == 0) {  // nothing live left: start the array again
    order_base_ += order_.size();
    order_.clear();
    order_head_ = 0;
  }
}

uint32_t PrefixCache::CountFirstChildren() const {
  uint32_t n = 0;
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    if ((id == kRoot || nodes_[id].live) && nodes_[id].first_child != kNone) ++n;
  }
  return n;
}

std::string PrefixCache::CheckInvariants() const {
  uint32_t evictable = 0, referenced = 0, lease_only = 0, listed = 0;
  std::vector<uint32_t> keep(nodes_.size(), 0), refs(nodes_.size(), 0);
  keep[kRoot] = 1;
  std::vector<bool> live(nodes_.size(), false);
  std::vector<uint32_t> indexed(nodes_.size(), 0);
  uint32_t count = 0;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (!n.live) continue;
    live[id] = true;
    ++count;
    ++keep[n.parent];
    if (n.in_index) {
      ++indexed[n.parent];
      auto it = index_.find(Key{n.parent, n.tag});
      if (it == index_.end() || it->second != id) {
        return absl::StrCat("node ", id, ": not in the table");
      }
    } else if (nodes_[n.parent].first_child != id) {
      return absl::StrCat("node ", id, ": neither in the table nor its parent's first child");
    }
    if (Find(n.parent, n.tag) != id) return absl::StrCat("node ", id, ": not found");
  }
  if (count != live_nodes_ || index_.size() + CountFirstChildren() != count) {
    return absl::StrCat("nodes: ", live_nodes_, " counted, ", count, " live, ", index_.size(),
                        " in the table");
  }
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    if ((id == kRoot || live[id]) && nodes_[id].indexed != indexed[id]) {
      return absl::StrCat("node ", id, ": ", nodes_[id].indexed, " children in the table, not ",
                          indexed[id]);
    }
  }
  std::vector<bool> free_holder(holders_.size(), false);
  for (Holder h : free_holders_) free_holder[h] = true;
  for (Holder id = 0; id < holders_.size(); ++id) {
    if (free_holder[id]) continue;
    const HolderState& h = holders_[id];
    ++keep[h.tail];
    for (uint32_t node : h.refs) ++refs[node];
  }
  if (order_head_ > order_.size()) return "eviction order: head past the end";
  for (uint32_t i = order_head_; i < order_.size(); ++i) {
    uint32_t node = order_[i];
    if (node >= nodes_.size()) return absl::StrCat("eviction order: entry ", i, " names no node");
    if (nodes_[node].order != order_base_ + i) continue;  // stale
    if (!live[node] || !nodes_[node].cached || nodes_[node].refs != 0) {
      return absl::StrCat("node ", node, ": listed but not evictable");
    }
    ++listed;
  }
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    if (!live[id]) continue;
    const Node& n = nodes_[id];
    bool is_evictable = n.cached && n.refs == 0;
    bool listed_here = n.order != kUnlisted && n.order >= order_base_ + order_head_ &&
                       n.order < order_base_ + order_.size() && order_[n.order - order_base_] == id;
    if (is_evictable != listed_here) {
      return absl::StrCat("node ", id, is_evictable ? ": evictable but not listed" : ": listed wrongly");
    }
  }
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    if (!live[id]) continue;
    const Node& n = nodes_[id];
    if (n.refs != refs[id]) {
      return absl::StrCat("node ", id, ": refs ", n.refs, " but holders make ", refs[id]);
    }
    if (n.keep != keep[id]) {
      return absl::StrCat("node ", id, ": keep ", n.keep, " but nodes and holders make ", keep[id]);
    }
    if (!n.cached && n.keep == 0) return absl::StrCat("node ", id, ": a ghost nothing needs");
    if (!n.cached && n.refs > 0) return absl::StrCat("node ", id, ": referenced but not cached");
    if (n.cached && n.refs == 0) ++evictable;
    if (n.refs > 0) ++referenced;
    if (IsLeaseOnly(n)) ++lease_only;
  }
  if (nodes_[kRoot].keep != keep[kRoot]) return "root: keep differs";
  if (evictable != evictable_ || listed != evictable_) {
    return absl::StrCat("evictable ", evictable_, " but nodes make ", evictable, ", list ", listed);
  }
  if (referenced != referenced_) return absl::StrCat("referenced ", referenced_, " but ", referenced);
  if (lease_only != lease_only_) return absl::StrCat("lease only ", lease_only_, " but ", lease_only);
  return "";
}

}  // namespace serq::sim
