// The prefix cache's part of Pools (docs/simulation.md §Prefix caches): the cache of a pool
// element is a PrefixCache, which counts blocks; here they become units.
//
//   used   = the holds' and leases' own units + B * (referenced blocks)
//   free   = cap - used                 (evictable blocks count as free)
//   fits   = need <= cap - used - B * (evictable blocks)
//
// A hold's own units are max(amount, content) - shared, `shared` being B per
// cached block it references: a block is counted once however many holds
// share it. Registration moves B units of a hold from its own to the
// block's (used unchanged); a hit references blocks that were evictable or
// already referenced (used grows by the first kind only); an ending hold
// or lease gives back its own units and the blocks it alone referenced.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "serq-sim/pools/pool.h"

namespace serq::sim {

double Pools::CachedFree(uint32_t pool) const {
  const Element& e = elements_[pool];
  return e.cache ? e.block * e.cache->EvictableBlocks() : 0;
}

double Pools::Reclaimable(uint32_t pool) const {
  const Element& e = elements_[pool];
  return e.leased + (e.cache ? e.block * e.cache->LeaseOnlyBlocks() : 0);
}

uint32_t Pools::Cached(uint32_t pool, absl::Span<const BlockTag> tags) const {
  const Element& e = elements_[pool];
  return e.cache ? e.cache->Lookup(tags) : 0;
}

uint32_t Pools::MostHit(uint32_t pool, double work) const {
  const Element& e = elements_[pool];
  // At least one token is computed (vLLM: the last token's logits).
  double most = std::floor((work - 1) / e.block);
  return most > 0 ? static_cast<uint32_t>(std::min<double>(most, UINT32_MAX)) : 0;
}

bool Pools::HitFits(HoldId hold, absl::Span<const BlockTag> tags, double work,
                    double budget) const {
  const Hold& h = holds_[hold];
  const Element& e = elements_[h.pool];
  uint32_t unreferenced;
  uint32_t hit = e.cache->Probe(tags, MostHit(h.pool, work), &unreferenced);
  return HitWouldFit(h, hit, unreferenced, work, budget);
}

bool Pools::HitWouldFit(const Hold& h, uint32_t hit, uint32_t unreferenced, double work,
                        double budget) const {
  const Element& e = elements_[h.pool];
  double shared = hit * e.block;
  double chunk = std::min(work - shared, budget);
  // After the hit: its evictable blocks used, the hold's own units
  // max(amount, hB) - hB. Then the chunk needs max(amount, hB + chunk) -
  // max(amount, hB) more, out of everything not used (evictable blocks
  // can be evicted) and, with `evict by`, the leases.
  double used = e.used + unreferenced * e.block +
                (Extent(e, h.amount, shared) - shared) - (h.size - h.shared);
  double need = Extent(e, h.amount, shared + chunk) - Extent(e, h.amount, shared);
  double available = e.cap - e.withheld - used + (e.evictable ? Reclaimable(h.pool) : 0);
  return need <= available + FitSlack(e.cap);
}

bool Pools::HitIfFits(HoldId hold, absl::Span<const BlockTag> tags, double work, double budget,
                      uint32_t* hit) {
  Hold& h = holds_[hold];
  Element& e = elements_[h.pool];
  uint32_t unreferenced;
  uint32_t found = e.cache->Probe(tags, MostHit(h.pool, work), &unreferenced, &probed_);
  if (!HitWouldFit(h, found, unreferenced, work, budget)) return false;
  // Nothing changed since the probe (a new holder covers nothing and
  // moves no block): its path is what Hit would walk.
  if (h.holder == UINT32_MAX) h.holder = e.cache->NewHolder();
  uint32_t revived = e.cache->HitProbed(h.holder, probed_, found);
  *hit = Counted(hold, found, revived, work);
  return true;
}

uint32_t Pools::Hit(HoldId hold, absl::Span<const BlockTag> tags, double work) {
  Hold& h = holds_[hold];
  Element& e = elements_[h.pool];
  if (h.holder == UINT32_MAX) h.holder = e.cache->NewHolder();
  uint32_t hit;
  uint32_t revived = e.cache->Hit(h.holder, tags, MostHit(h.pool, work), &hit);
  return Counted(hold, hit, revived, work);
}

uint32_t Pools::Counted(HoldId hold, uint32_t hit, uint32_t revived, double work) {
  Hold& h = holds_[hold];
  Element& e = elements_[h.pool];
  ++e.lookups;
  e.lookup_tokens += work;
  e.hit_tokens += hit * e.block;
  if (hit == 0) return 0;
  double own_before = h.size - h.shared;
  h.content = hit * e.block;
  h.shared = hit * e.block;
  h.size = Extent(e, h.amount, h.content);
  // The hold's own units shrink (its amount now partly covered by shared
  // blocks); blocks that were evictable become used.
  Change(h.pool, (h.size - h.shared) - own_before + revived * e.block, h.content);
  return hit;
}

void Pools::Register(HoldId hold) {
  Hold& h = holds_[hold];
  Element& e = elements_[h.pool];
  absl::Span<const BlockTag> tags = host_->Blocks(h.session);
  uint32_t full = std::min<double>(std::floor(h.content / e.block), tags.size());
  if (full == 0) return;
  if (h.holder == UINT32_MAX) h.holder = e.cache->NewHolder();
  if (full <= e.cache->Depth(h.holder)) return;
  // Each block registered moves B of the hold's own units to the block:
  // used is unchanged.
  h.shared += e.block * e.cache->Fill(h.holder, tags, full);
}

double Pools::ReleaseBlocks(uint32_t pool, uint32_t* holder) {
  if (*holder == UINT32_MAX) return 0;
  Element& e = elements_[pool];
  uint32_t released = e.cache->FreeHolder(*holder);
  *holder = UINT32_MAX;
  return released * e.block;
}

bool Pools::EvictBlocks(uint32_t pool, double need) {
  Element& e = elements_[pool];
  if (!e.cache) return Fits(pool, need);
  if (Fits(pool, need)) return true;
  // Evicting one block at a time until `need` fits, in one pass: k, the
  // fewest blocks after whose eviction Fits holds, is estimated from the
  // deficit, then settled by Fits's own arithmetic with k fewer evictable
  // blocks (monotone in k: rounding is), so it is the loop's count exactly.
  uint32_t evictable = e.cache->EvictableBlocks();
  double slack = FitSlack(e.cap);
  auto fits_after = [&](uint32_t k) {
    return need <= e.cap - e.withheld - e.used - e.block * (evictable - k) + slack;  // Fits
  };
  double deficit = need - (e.cap - e.withheld - e.used - e.block * evictable + slack);
  double guess = std::ceil(deficit / e.block);
  uint32_t k = !(guess >= 1) ? 1 : guess >= evictable ? evictable : static_cast<uint32_t>(guess);
  while (k > 1 && fits_after(k - 1)) --k;
  while (k < evictable && !fits_after(k)) ++k;
  uint32_t evicted = e.cache->EvictOldest(k);
  // Should the estimate have fallen short, the loop finishes the work.
  while (!Fits(pool, need) && e.cache->Evict()) ++evicted;
  if (evicted > 0) {
    e.blocks_evicted += evicted;
    CacheStatistics(e, host_->now());
    host_->CacheEvicted(pool, evicted);
  }
  return Fits(pool, need);
}

void Pools::CacheStatistics(Element& e, double now) {
  e.evictable_average.Set(now, e.block * e.cache->EvictableBlocks());
}

std::string Pools::CheckCache(uint32_t pool) const {
  const Element& e = elements_[pool];
  if (!e.cache) return "";
  if (std::string wrong = e.cache->CheckInvariants(); !wrong.empty()) {
    return absl::StrCat("pool ", pool, ": cache: ", wrong);
  }
  for (const Hold& h : holds_) {
    if (h.pool != pool || h.state != Hold::State::kActive) continue;
    double refs = h.holder == UINT32_MAX ? 0 : e.cache->References(h.holder);
    if (h.shared != refs * e.block) {
      return absl::StrCat("pool ", pool, ": a hold of session ", h.session, " shares ", h.shared,
                          " units but references ", refs, " blocks");
    }
  }
  return "";
}

}  // namespace serq::sim
