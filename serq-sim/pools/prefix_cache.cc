#include "serq-sim/pools/prefix_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

// How far ahead an eviction fetches the runs it will take next: they were
// released long ago, out of the caches.
constexpr uint32_t kAhead = 8;

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
  nodes_[kRoot].live = true;
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

uint32_t PrefixCache::Matching(const Node& n, uint32_t off, absl::Span<const BlockTag> tags,
                               uint32_t i, uint32_t end) const {
  uint32_t most = std::min(n.len - off, end - i);
  uint64_t index = n.tag.index + off;
  uint32_t k = 0;
  while (k < most && tags[i + k].family == n.tag.family && tags[i + k].index == index + k) ++k;
  return k;
}

uint32_t PrefixCache::AllocateNode() {
  if (free_nodes_.empty()) {
    nodes_.emplace_back();
    return nodes_.size() - 1;
  }
  uint32_t id = free_nodes_.back();
  free_nodes_.pop_back();
  return id;
}

uint32_t PrefixCache::NewRun(uint32_t parent, absl::Span<const BlockTag> tags, uint32_t i,
                             uint32_t end) {
  uint32_t len = 1;
  while (i + len < end && tags[i + len].family == tags[i].family &&
         tags[i + len].index == tags[i].index + len) {
    ++len;
  }
  uint32_t id = AllocateNode();
  Node& n = nodes_[id];
  Node& p = nodes_[parent];
  n = Node();
  n.tag = tags[i];
  n.parent = parent;
  n.depth = p.end();
  n.len = len;
  n.live = true;
  ++live_nodes_;
  live_blocks_ += len;
  ++p.keep;
  if (p.first_child == kNone) {
    p.first_child = id;
  } else {
    n.in_index = true;
    ++p.indexed;
    index_.emplace(Key{parent, n.tag}, id);
  }
  return id;
}

uint32_t PrefixCache::Split(uint32_t node, uint32_t at) {
  uint32_t id = AllocateNode();
  Node& head = nodes_[id];
  Node& tail = nodes_[node];
  head = tail;  // the state, the key and the place in the trie
  head.len = at;
  head.cached = std::min(tail.cached, at);
  head.first_child = node;
  head.indexed = 0;
  head.keep = 1;  // the tail below it
  head.order = head.behind = kNone;
  Node& parent = nodes_[tail.parent];
  if (tail.in_index) {
    index_[Key{tail.parent, tail.tag}] = id;
  } else {
    parent.first_child = id;
  }
  tail.tag = tail.At(at);
  tail.parent = id;
  tail.depth += at;
  tail.len -= at;
  tail.cached -= head.cached;
  tail.in_index = false;
  ++live_nodes_;
  // Whoever was behind the node is behind its head now (its new parent).
  if (parent.behind == node) parent.behind = id;
  if (tail.refs == 0 && head.cached > 0) {
    if (tail.cached > 0) {
      // Both evictable: the tail's blocks are deeper, evicted before the
      // head's, which wait behind it.
      head.behind = node;
    } else {
      // A tail of ghosts (a node with ghosts is never behind another):
      // the head takes its entry.
      head.order = tail.order;
      order_[head.order] = id;
      tail.order = kNone;
    }
  }
  return id;
}

uint32_t PrefixCache::Deepest(const HolderState& h) const {
  if (h.depth == 0) return kRoot;
  // A cover that ends in a block it references ends in its last node (a
  // split since left the deepest blocks under that number).
  bool ends_duplicate = !h.duplicates.empty() && h.duplicates.back().second == h.depth;
  if (!ends_duplicate && !h.nodes.empty()) return h.nodes.back();
  uint32_t node = h.pin;
  while (nodes_[node].depth >= h.depth) node = nodes_[node].parent;
  return node;
}

void PrefixCache::AddDuplicates(HolderState& h, uint32_t from, uint32_t to) {
  if (!h.duplicates.empty() && h.duplicates.back().second == from) {
    h.duplicates.back().second = to;
  } else {
    h.duplicates.emplace_back(from, to);
  }
}

template <typename Visit>
void PrefixCache::ForEachCoveredWhole(const HolderState& h, Visit visit) const {
  // Up from the pin: the nodes the holder covers whole, but its duplicates.
  // Its duplicate ranges are walked down from the deepest alongside.
  size_t d = h.duplicates.size();
  for (uint32_t node = h.pin; node != kRoot;) {
    const Node& n = nodes_[node];
    uint32_t parent = n.parent;
    if (n.end() <= h.depth) {
      while (d > 0 && h.duplicates[d - 1].first > n.depth) --d;
      if (d == 0 || n.depth >= h.duplicates[d - 1].second) visit(node);
    }
    node = parent;
  }
}

template <typename Visit>
void PrefixCache::ForEachReferenced(const HolderState& h, Visit visit) const {
  size_t d = h.duplicates.size();
  for (size_t i = h.nodes.size(); i-- > 0;) {
    // Taken a while ago: fetched ahead, as evictions do.
    if (i >= kAhead) __builtin_prefetch(&nodes_[h.nodes[i - kAhead]]);
    uint32_t node = h.nodes[i];
    uint32_t before = i > 0 ? h.nodes[i - 1] : kRoot;
    uint32_t up = nodes_[node].parent;
    visit(node);
    // Between it and the one before: heads split off it (referenced, just
    // above it), then duplicates only, not walked.
    for (; up != before; up = nodes_[up].parent) {
      const Node& n = nodes_[up];
      while (d > 0 && h.duplicates[d - 1].first > n.depth) --d;
      if (d > 0 && n.depth < h.duplicates[d - 1].second) break;
      visit(up);
    }
  }
}

template <typename Visit>
uint32_t PrefixCache::Walk(absl::Span<const BlockTag> tags, uint32_t most, Visit visit) const {
  uint32_t end = std::min<size_t>(most, tags.size());
  uint32_t node = kRoot, i = 0;
  while (i < end) {
    node = Find(node, tags[i]);
    if (node == kNone) break;
    const Node& n = nodes_[node];
    uint32_t k = std::min(Matching(n, 0, tags, i, end), n.cached);
    if (k == 0) break;
    visit(node, k);
    i += k;
    if (k < n.len) break;
  }
  return i;
}

uint32_t PrefixCache::Lookup(absl::Span<const BlockTag> tags) const {
  return Walk(tags, UINT32_MAX, [](uint32_t, uint32_t) {});
}

uint32_t PrefixCache::Probe(absl::Span<const BlockTag> tags, uint32_t most,
                            uint32_t* unreferenced, std::vector<uint32_t>* path) const {
  *unreferenced = 0;
  if (path != nullptr) path->clear();
  return Walk(tags, most, [&](uint32_t node, uint32_t k) {
    if (nodes_[node].refs == 0) *unreferenced += k;
    if (path != nullptr) path->push_back(node);
  });
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
  h.pin = kRoot;
  h.depth = 0;
  h.refs = 0;
  h.lease = false;
  h.duplicates.clear();
  h.nodes.clear();
  ++nodes_[kRoot].keep;
  return id;
}

void PrefixCache::Pin(HolderState& h, uint32_t node) {
  if (node == h.pin) return;
  ++nodes_[node].keep;
  uint32_t old = h.pin;
  h.pin = node;
  Unkeep(old);
}

void PrefixCache::Unkeep(uint32_t node) {
  if (--nodes_[node].keep == 0 && node != kRoot) Trim(node);
}

void PrefixCache::Trim(uint32_t node) {
  for (;;) {
    Node& n = nodes_[node];
    live_blocks_ -= n.len - n.cached;
    n.len = n.cached;
    if (n.cached > 0) return;
    // No block left: its place goes, and its parent may be kept by
    // nothing any more.
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
    if (--p.keep > 0 || parent == kRoot) return;
    node = parent;
  }
}

void PrefixCache::LeaseCount(const Node& n, bool before) {
  bool after = IsLeaseOnly(n);
  if (after && !before) lease_only_ += n.cached;
  if (before && !after) lease_only_ -= n.cached;
}

void PrefixCache::Reference(HolderState& h, uint32_t node) {
  Node& n = nodes_[node];
  bool before = IsLeaseOnly(n);
  if (n.refs == 0) {  // evictable: it leaves the order
    Unlist(node);
    evictable_ -= n.cached;
    referenced_ += n.cached;
  }
  ++n.refs;
  if (h.lease) ++n.lease_refs;
  LeaseCount(n, before);
  h.refs += n.cached;
  h.nodes.push_back(node);
}

void PrefixCache::Register(HolderState& h, uint32_t node) {
  Node& n = nodes_[node];
  n.cached = n.len;
  n.refs = 1;
  n.lease_refs = h.lease ? 1 : 0;
  referenced_ += n.len;
  if (h.lease) lease_only_ += n.len;
  h.refs += n.len;
  h.nodes.push_back(node);
}

uint32_t PrefixCache::Hit(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks,
                          uint32_t* hit) {
  uint32_t unreferenced;
  uint32_t n = Probe(tags, blocks, &unreferenced, &path_);
  HitProbed(holder, path_, n);
  if (hit != nullptr) *hit = n;
  return unreferenced;
}

uint32_t PrefixCache::HitProbed(Holder holder, absl::Span<const uint32_t> path, uint32_t blocks) {
  uint32_t was_evictable = 0;
  uint32_t last = kRoot;
  for (uint32_t node : path) {
    // The last node may hold more than the hit takes: its head is split off.
    if (nodes_[node].end() > blocks) node = Split(node, blocks - nodes_[node].depth);
    if (nodes_[node].refs == 0) was_evictable += nodes_[node].cached;
    Reference(holders_[holder], node);
    last = node;
  }
  Covered(holders_[holder], last, blocks);
  return was_evictable;
}

void PrefixCache::Covered(HolderState& h, uint32_t node, uint32_t blocks) {
  Pin(h, node);
  h.depth = blocks;
}

bool PrefixCache::Extends(const HolderState& h, uint32_t node, const BlockTag& tag) const {
  const Node& n = nodes_[node];
  // Its own (referenced by it alone, not a duplicate), whole and with
  // nothing below: more of the same list's blocks can join it.
  // It ends the holder's cover, so of the duplicates only the deepest
  // range can hold it.
  bool duplicate = !h.duplicates.empty() && h.duplicates.back().first <= n.depth &&
                   n.depth < h.duplicates.back().second;
  return node != kRoot && n.first_child == kNone && n.indexed == 0 && n.cached == n.len &&
         n.refs == 1 && n.lease_refs == 0 && !h.lease && tag == n.At(n.len) && !duplicate;
}

uint32_t PrefixCache::Fill(Holder holder, absl::Span<const BlockTag> tags, uint32_t blocks) {
  HolderState& h = holders_[holder];
  if (blocks <= h.depth) return 0;
  uint32_t node = Deepest(h);
  uint32_t i = h.depth;
  uint32_t registered = 0;
  while (i < blocks) {
    if (i == nodes_[node].end()) {  // block i is a child of the node's last
      uint32_t child = Find(node, tags[i]);
      if (child != kNone) {
        node = child;
        continue;
      }
      if (Extends(h, node, tags[i])) {
        // The usual tail of a prompt, and a decode's growth: blocks only
        // this list has, after its own.
        Node& n = nodes_[node];
        uint32_t k = 1;
        while (i + k < blocks && tags[i + k] == n.At(n.len + k)) ++k;
        n.len += k;
        n.cached += k;
        live_blocks_ += k;
        referenced_ += k;
        h.refs += k;
        registered += k;
        i += k;
        continue;
      }
      node = NewRun(node, tags, i, blocks);
      Register(h, node);
      registered += nodes_[node].len;
      i += nodes_[node].len;
      continue;
    }
    // Block i is inside the node.
    uint32_t off = i - nodes_[node].depth;
    uint32_t k = Matching(nodes_[node], off, tags, i, blocks);
    if (k == 0) {  // the list leaves the run here: a branch after its head
      node = Split(node, off);
      continue;
    }
    if (off < nodes_[node].cached) {  // cached already: duplicates
      k = std::min(k, nodes_[node].cached - off);
      AddDuplicates(h, i, i + k);
      i += k;
      continue;
    }
    // Ghosts: the k of them are registered, in a node of their own.
    if (off > 0) Split(node, off);
    if (k < nodes_[node].len) node = Split(node, k);
    Register(h, node);
    registered += k;
    i += k;
  }
  Pin(h, node);
  h.depth = blocks;
  return registered;
}

void PrefixCache::ToLease(Holder holder) {
  HolderState& h = holders_[holder];
  h.lease = true;
  ForEachReferenced(h, [&](uint32_t node) {
    Node& n = nodes_[node];
    bool before = IsLeaseOnly(n);
    ++n.lease_refs;
    LeaseCount(n, before);
  });
}

uint32_t PrefixCache::Empty(Holder holder) {
  HolderState& h = holders_[holder];
  uint32_t released = 0;
  bool lease = h.lease;
  // Deepest first, as vLLM frees a request's blocks in reverse: its tail is
  // evicted before its head.
  Tidy();
  ForEachReferenced(h, [&](uint32_t node) {
    Node& n = nodes_[node];
    bool before = IsLeaseOnly(n);
    --n.refs;
    if (lease) --n.lease_refs;
    LeaseCount(n, before);
    if (n.refs == 0) {
      referenced_ -= n.cached;
      evictable_ += n.cached;
      released += n.cached;
      Append(node);
    }
  });
  h.refs = 0;
  h.lease = false;
  h.depth = 0;
  h.duplicates.clear();
  h.nodes.clear();
  Pin(h, kRoot);
  return released;
}

uint32_t PrefixCache::FreeHolder(Holder holder) {
  uint32_t released = Empty(holder);
  --nodes_[kRoot].keep;
  free_holders_.push_back(holder);
  return released;
}

void PrefixCache::Append(uint32_t node) {
  nodes_[node].order = order_.size();
  order_.push_back(node);
}

void PrefixCache::Vacate(uint32_t node) {
  Node& n = nodes_[node];
  Node& p = nodes_[n.parent];
  if (p.behind == node) {
    p.behind = kNone;
    p.order = n.order;
    order_[n.order] = n.parent;
  }
  n.order = kNone;
}

void PrefixCache::Unlist(uint32_t node) {
  Node& n = nodes_[node];
  // A hit references a chain from its top, so a parent behind the node
  // left before it: the node is an entry (then stale), or behind a child.
  if (n.order != kNone) {
    Vacate(node);
  } else {
    n.behind = kNone;
  }
}

void PrefixCache::Tidy() {
  // Live entries are at most the evictable blocks: compact when the
  // consumed entries are most of the array, or the stale ones are (each
  // compaction follows as many appends or evictions as it moves entries).
  size_t waiting = order_.size() - order_head_;
  bool consumed = order_head_ >= 4096 && 2 * static_cast<size_t>(order_head_) >= order_.size();
  if (!consumed && waiting < 2 * static_cast<size_t>(evictable_) + 1024) return;
  uint32_t out = 0;
  for (uint32_t i = order_head_; i < order_.size(); ++i) {
    uint32_t node = order_[i];
    if (nodes_[node].order != i) continue;
    nodes_[node].order = out;
    order_[out++] = node;
  }
  order_.resize(out);
  order_head_ = 0;
}

uint32_t PrefixCache::EvictFromHead(uint32_t count) {
  uint32_t node;
  for (;;) {  // stale entries: nodes a hit took out
    node = order_[order_head_];
    if (nodes_[node].order == order_head_) break;
    ++order_head_;
  }
  // The entries after it were released long ago: fetched ahead.
  if (order_head_ + kAhead < order_.size()) __builtin_prefetch(&nodes_[order_[order_head_ + kAhead]]);
  Node& n = nodes_[node];
  uint32_t k = std::min(count, n.cached);
  n.cached -= k;
  evictable_ -= k;
  if (n.cached == 0) {
    Vacate(node);  // the parent behind it, if any, is next, in its place
    if (order_[order_head_] == node) ++order_head_;
  }
  // Ghosts stay while a node below or a holder pinned on it needs them.
  if (n.keep == 0) Trim(node);
  if (evictable_ == 0) {  // nothing live left: start the array again
    order_.clear();
    order_head_ = 0;
  }
  return k;
}

bool PrefixCache::Evict(Evicted* out) {
  if (evictable_ == 0) return false;
  while (nodes_[order_[order_head_]].order != order_head_) ++order_head_;
  const Node& n = nodes_[order_[order_head_]];
  if (out != nullptr) out->depth = n.depth + n.cached - 1;
  EvictFromHead(1);
  return true;
}

uint32_t PrefixCache::EvictOldest(uint32_t count) {
  uint32_t done = 0;
  while (done < count && evictable_ > 0) done += EvictFromHead(count - done);
  return done;
}

std::string PrefixCache::CheckInvariants() const {
  const uint32_t size = nodes_.size();
  std::vector<uint32_t> keep(size, 0), refs(size, 0), lease_refs(size, 0), indexed(size, 0);
  keep[kRoot] = 1;
  uint32_t count = 0, blocks = 0, first_children = 0;
  if (nodes_[kRoot].len != 0 || nodes_[kRoot].cached != 0) return "root: holds blocks";
  for (uint32_t id = 0; id < size; ++id) {
    const Node& n = nodes_[id];
    if (!n.live) continue;
    if (n.first_child != kNone) ++first_children;
    if (id == kRoot) continue;
    ++count;
    blocks += n.len;
    if (n.parent >= size || !nodes_[n.parent].live) return absl::StrCat("node ", id, ": no parent");
    const Node& p = nodes_[n.parent];
    ++keep[n.parent];
    if (n.depth != p.end()) return absl::StrCat("node ", id, ": depth ", n.depth, " not ", p.end());
    if (n.len == 0 || n.cached > n.len) return absl::StrCat("node ", id, ": len ", n.len, " cached ", n.cached);
    if (n.in_index) {
      ++indexed[n.parent];
      auto it = index_.find(Key{n.parent, n.tag});
      if (it == index_.end() || it->second != id) return absl::StrCat("node ", id, ": not in the table");
    } else if (p.first_child != id) {
      return absl::StrCat("node ", id, ": neither in the table nor its parent's first child");
    }
    if (Find(n.parent, n.tag) != id) return absl::StrCat("node ", id, ": not found");
  }
  if (count != live_nodes_ || blocks != live_blocks_ || index_.size() + first_children != count) {
    return absl::StrCat("nodes: ", live_nodes_, " counted, ", count, " live, ", index_.size(),
                        " in the table; blocks ", live_blocks_, " counted, ", blocks, " live");
  }
  for (uint32_t id = 0; id < size; ++id) {
    if (nodes_[id].live && nodes_[id].indexed != indexed[id]) {
      return absl::StrCat("node ", id, ": ", nodes_[id].indexed, " children in the table, not ",
                          indexed[id]);
    }
  }
  std::vector<bool> free_holder(holders_.size(), false);
  for (Holder h : free_holders_) free_holder[h] = true;
  for (Holder id = 0; id < holders_.size(); ++id) {
    if (free_holder[id]) continue;
    const HolderState& h = holders_[id];
    if (!nodes_[h.pin].live) return absl::StrCat("holder ", id, ": pinned on no node");
    ++keep[h.pin];
    if (h.depth > 0 && nodes_[h.pin].end() < h.depth) {
      return absl::StrCat("holder ", id, ": pinned above its deepest block");
    }
    uint32_t referenced = 0;
    std::string wrong;
    ForEachReferenced(h, [&](uint32_t node) {
      const Node& n = nodes_[node];
      if (n.cached != n.len && wrong.empty()) wrong = absl::StrCat("holder ", id, ": references ghosts of node ", node);
      ++refs[node];
      if (h.lease) ++lease_refs[node];
      referenced += n.cached;
    });
    if (!wrong.empty()) return wrong;
    std::vector<uint32_t> fast, walked;
    ForEachReferenced(h, [&](uint32_t node) { fast.push_back(node); });
    ForEachCoveredWhole(h, [&](uint32_t node) { walked.push_back(node); });
    if (fast != walked) return absl::StrCat("holder ", id, ": its nodes are not what it covers");
    if (referenced != h.refs) {
      return absl::StrCat("holder ", id, ": references ", referenced, " blocks, counted ", h.refs);
    }
  }
  uint32_t evictable = 0, referenced = 0, lease_only = 0, listed = 0, evictable_nodes = 0;
  if (order_head_ > order_.size()) return "eviction order: head past the end";
  for (uint32_t i = 0; i < order_.size(); ++i) {
    uint32_t node = order_[i];
    if (node >= size) return absl::StrCat("eviction order: entry ", i, " names no node");
    if (nodes_[node].order != i) continue;  // stale
    if (i < order_head_) return absl::StrCat("node ", node, ": listed before the head");
    // The entry, then the parents behind it.
    for (uint32_t at = node, below = kNone; at != kNone; below = at, at = nodes_[at].parent) {
      const Node& n = nodes_[at];
      if (below != kNone && n.behind != below) break;
      if (!n.live || n.cached == 0 || n.refs != 0) return absl::StrCat("node ", at, ": listed but not evictable");
      if (below != kNone && n.cached != n.len) return absl::StrCat("node ", at, ": behind with ghosts");
      ++listed;
      if (at == kRoot) return "root: listed";
    }
  }
  for (uint32_t id = 1; id < size; ++id) {
    const Node& n = nodes_[id];
    if (!n.live) continue;
    if (n.order != kNone && (n.order >= order_.size() || order_[n.order] != id)) {
      return absl::StrCat("node ", id, ": its entry names another");
    }
    if (n.order != kNone && n.behind != kNone) return absl::StrCat("node ", id, ": both listed and behind");
    if (n.behind != kNone && (n.behind >= size || !nodes_[n.behind].live || nodes_[n.behind].parent != id)) {
      return absl::StrCat("node ", id, ": behind a node not its child");
    }
  }
  for (uint32_t id = 1; id < size; ++id) {
    const Node& n = nodes_[id];
    if (!n.live) continue;
    if (n.refs != refs[id]) return absl::StrCat("node ", id, ": refs ", n.refs, " but holders make ", refs[id]);
    if (n.lease_refs != lease_refs[id]) return absl::StrCat("node ", id, ": lease refs differ");
    if (n.keep != keep[id]) {
      return absl::StrCat("node ", id, ": keep ", n.keep, " but nodes and holders make ", keep[id]);
    }
    if (n.keep == 0 && n.cached < n.len) return absl::StrCat("node ", id, ": ghosts nothing needs");
    if (n.refs > 0 && n.cached == 0) return absl::StrCat("node ", id, ": referenced but not cached");
    if (n.cached > 0 && n.refs == 0) {
      evictable += n.cached;
      ++evictable_nodes;
    }
    if (n.refs > 0) referenced += n.cached;
    if (IsLeaseOnly(n)) lease_only += n.cached;
  }
  if (nodes_[kRoot].keep != keep[kRoot]) return "root: keep differs";
  if (evictable != evictable_ || listed != evictable_nodes) {
    return absl::StrCat("evictable ", evictable_, " but nodes make ", evictable, ", list ", listed,
                        " of ", evictable_nodes);
  }
  if (referenced != referenced_) return absl::StrCat("referenced ", referenced_, " but ", referenced);
  if (lease_only != lease_only_) return absl::StrCat("lease only ", lease_only_, " but ", lease_only);
  return "";
}

}  // namespace serq::sim
