#include "serq-sim/prefix_cache.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

// The family of Mooncake's hash_ids: a NaN's bits, which no finite family
// of `prefix` has, so the two spaces never meet.
constexpr uint64_t kHashedFamily = 0x7ff8'5e71'ca11'0000ull;

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
  auto it = index_.find(Key{parent, tag});
  return it == index_.end() ? kNone : it->second;
}

uint32_t PrefixCache::Intern(uint32_t parent, const BlockTag& tag) {
  auto [it, inserted] = index_.try_emplace(Key{parent, tag}, 0);
  if (!inserted) return it->second;
  uint32_t id;
  if (!free_nodes_.empty()) {
    id = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    id = nodes_.size();
    nodes_.emplace_back();
  }
  Node& n = nodes_[id];
  n = Node();
  n.key = Key{parent, tag};
  n.depth = parent == kRoot ? 0 : nodes_[parent].depth + 1;
  ++nodes_[parent].keep;
  it->second = id;
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
  while (node != kRoot) {
    Node& n = nodes_[node];
    if (--n.keep > 0 || n.cached) return;
    uint32_t parent = n.key.parent;
    index_.erase(n.key);
    free_nodes_.push_back(node);
    node = parent;
  }
  --nodes_[kRoot].keep;
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
    if (n.prev != kNone || head_ == node) {
      Unlink(node);
      --evictable_;
    }
    ++referenced_;
  }
  ++n.refs;
  if (h.lease) ++n.lease_refs;
  SetLeaseOnly(n, before);
  h.refs.push_back(node);
}

uint32_t PrefixCache::Hit(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks) {
  HolderState& h = holders_[holder];
  uint32_t was_evictable = 0;
  uint32_t node = kRoot;
  for (uint32_t i = 0; i < blocks; ++i) {
    node = Find(node, tags[i]);
    if (nodes_[node].refs == 0) ++was_evictable;
    Reference(h, node);
  }
  if (blocks > 0) Stand(h, node);
  h.depth = blocks;
  return was_evictable;
}

uint32_t PrefixCache::Fill(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks) {
  HolderState& h = holders_[holder];
  uint32_t registered = 0;
  uint32_t node = h.tail;
  for (uint32_t i = h.depth; i < blocks; ++i) {
    node = Intern(node, tags[i]);
    Node& n = nodes_[node];
    if (n.cached) continue;  // a duplicate: the first stays, the units stay the hold's
    n.cached = true;
    ++registered;
    Reference(h, node);
  }
  if (blocks > h.depth) {
    Stand(h, node);
    h.depth = blocks;
  }
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
  for (auto it = h.refs.rbegin(); it != h.refs.rend(); ++it) {
    Node& n = nodes_[*it];
    bool before = IsLeaseOnly(n);
    --n.refs;
    if (h.lease) --n.lease_refs;
    SetLeaseOnly(n, before);
    if (n.refs == 0) {
      --referenced_;
      ++evictable_;
      ++released;
      Append(*it);
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

void PrefixCache::Append(uint32_t node) {
  Node& n = nodes_[node];
  n.prev = tail_;
  n.next = kNone;
  if (tail_ == kNone) {
    head_ = node;
  } else {
    nodes_[tail_].next = node;
  }
  tail_ = node;
}

void PrefixCache::Unlink(uint32_t node) {
  Node& n = nodes_[node];
  if (n.prev == kNone) {
    head_ = n.next;
  } else {
    nodes_[n.prev].next = n.next;
  }
  if (n.next == kNone) {
    tail_ = n.prev;
  } else {
    nodes_[n.next].prev = n.prev;
  }
  n.prev = n.next = kNone;
}

bool PrefixCache::Evict(Evicted* out) {
  if (head_ == kNone) return false;
  uint32_t node = head_;
  Unlink(node);
  --evictable_;
  Node& n = nodes_[node];
  if (out != nullptr) out->depth = n.depth;
  n.cached = false;
  // A ghost stays while a node below it or a holder needs its key.
  ++n.keep;
  Unkeep(node);
  return true;
}

std::string PrefixCache::CheckInvariants() const {
  uint32_t evictable = 0, referenced = 0, lease_only = 0, listed = 0;
  std::vector<uint32_t> keep(nodes_.size(), 0), refs(nodes_.size(), 0);
  keep[kRoot] = 1;
  std::vector<bool> live(nodes_.size(), false);
  for (const auto& [key, id] : index_) {
    live[id] = true;
    if (!(nodes_[id].key == key)) return absl::StrCat("node ", id, ": key differs from its index");
    ++keep[key.parent];
  }
  std::vector<bool> free_holder(holders_.size(), false);
  for (Holder h : free_holders_) free_holder[h] = true;
  for (Holder id = 0; id < holders_.size(); ++id) {
    if (free_holder[id]) continue;
    const HolderState& h = holders_[id];
    ++keep[h.tail];
    for (uint32_t node : h.refs) ++refs[node];
  }
  for (uint32_t node = head_, prev = kNone; node != kNone; prev = node, node = nodes_[node].next) {
    if (nodes_[node].prev != prev) return absl::StrCat("node ", node, ": broken eviction list");
    if (!live[node] || !nodes_[node].cached || nodes_[node].refs != 0) {
      return absl::StrCat("node ", node, ": listed but not evictable");
    }
    if (++listed > nodes_.size()) return "eviction list loops";
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
