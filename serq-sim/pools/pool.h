// Pools at run time (language.md §3.2, §5.4): holds, leases, admission,
// growth of a hold's content, eviction and expiry of leases.
//
// Admission is first come, first served per pool, without overtaking: only
// the request first in line on a pool may be admitted there, and a request
// over several pools is admitted when it is first in line on each of them
// and every amount fits, all at once. A hold's content growing beyond its
// amount (`load`, and later a decode run's growth) has priority over holds
// waiting for admission: the session already holds the pool, like a running
// request allocating its next KV block before a waiting one is admitted.
// Growths wait in their own line, in order.
//
// Every change that makes units free or reclaimable (a hold ending or
// returned, a hold becoming a lease on a pool that evicts, a lease
// released or expiring, a hold emptied or a growth given back) re-examines
// the pool's lines (Pump): growths first, then the requests in order.
//
// Eviction: when the request first in line (a hold on every pool of it, or
// a growth) does not fit on a pool that has `evict by`, and the free units
// plus every lease of that pool would make it fit, the pool ends leases in
// increasing key order (ties by the lease's start, then its creation) until
// it fits. Nothing is evicted for a request that would not fit even then,
// nor for one that is not first in line on all its pools.
//
// A pool with `cache B` keeps a prefix cache (prefix_cache.h, docs/simulation.md §Prefix caches;
// the cache's part of Pools is pool_cache.cc): a hold's content that fills
// a block of its session's list registers it, referenced by the hold; a
// prefill's hit references cached blocks. A cached block's B units count
// once in `used`, however many holds and leases reference it; a hold's own
// units are its size minus those of the blocks it references (Hold::shared).
// A block no one references is evictable: free for free() and not in
// used(), but physically there, so that what fits is judged against
// cap - used - evictable; evictable blocks are evicted (least recently
// released first) before any lease, whether or not the pool has `evict by`.
//
// A pool with `block G` hands out units G at a time (vLLM's KV blocks): a
// hold's size is max(amount, content) rounded up to a whole number of
// blocks (Extent), so a growth takes a new block only when its content
// passes the end of its last one, and a release or preemption frees every
// block. What a hold asks and grows is otherwise unchanged.
#ifndef SERQ_SIM_POOLS_POOL_H_
#define SERQ_SIM_POOLS_POOL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "proto/results.pb.h"
#include "serq-sim/pools/prefix_cache.h"
#include "serq-sim/stations/stage.h"

namespace serq::sim {

using HoldId = uint32_t;
using LeaseId = uint32_t;

// 64 bytes: a step grows a hold a token at random, one line each, a shift
// away.
struct alignas(64) Hold {
  enum class State { kWaiting, kActive, kReturned };
  uint32_t pool = 0;
  SessionId session = 0;
  double amount = 0;
  double content = 0;
  double size = 0;  // max(amount, content) once active
  State state = State::kWaiting;
  uint32_t request = 0;  // the request it waits in, while waiting
  // A cache pool: its place in the cache (kNoHolder until it needs one) and
  // the units of the cached blocks it references, counted once in the pool.
  uint32_t holder = UINT32_MAX;
  double shared = 0;
  // The content its last `load` of some units brings it to, or -1 (none
  // since it was admitted or emptied): while its content is still that, a
  // decode run growing it starts on received KV (Job::received).
  double received = -1;
};
static_assert(sizeof(Hold) == 64);

struct Lease {
  uint32_t pool = 0;
  SessionId owner = 0;
  double units = 0;
  double content = 0;
  double since = 0;        // when it started
  uint64_t sequence = 0;   // creation order, the last tie-break of eviction
  uint32_t generation = 0; // bumped when it ends: expiry events of an older one are stale
  bool alive = false;
  bool expires = false;    // a finite duration: an expiry event will end it
  uint32_t slot = 0;       // its place in its pool's list of leases
  uint32_t holder = UINT32_MAX;  // a cache pool: its hold's references, kept
};

// A session's reference to a lease it made: valid while the generation
// matches and the lease is alive; otherwise the pool ended it.
struct LeaseRef {
  LeaseId id = 0;
  uint32_t generation = 0;
  uint32_t pool = 0;
};

// Why a lease ended (for the trace).
enum class LeaseEnd { kReleased, kExpired, kEvicted };

class PoolHost {
 public:
  virtual ~PoolHost() = default;
  // The simulated time, the host's clock read without a call (as
  // StageHost's: a step's growths ask for it).
  double now() const { return *clock_; }
  // The `evict by` key of `lease` on its pool (since = lease.since, the
  // owner's variables). Returns false after reporting a runtime error (the
  // engine then stops after the current event).
  virtual bool EvictKey(const Lease& lease, std::vector<double>* key) = 0;
  // A hold request or a growth of `session` that waited has been granted.
  virtual void Wake(SessionId session) = 0;
  // Lease `lease` runs out `duration` seconds from now (on the clock's
  // ticks, as a step's end): call Pools::Expire(lease, generation) then.
  virtual void ScheduleExpiry(double duration, LeaseId lease, uint32_t generation) = 0;
  // A lease of `owner` ended (released, evicted or expired).
  virtual void LeaseEnded(SessionId owner) = 0;
  // For the trace: `lease` started (a hold's units became a lease of
  // `duration`, inf: until released); `lease` is about to end, `how`; the
  // used or loaded units of `pool` changed (only after NotifyChanges()).
  virtual void LeaseStarted(const Lease& lease, double duration) {}
  virtual void LeaseEnding(const Lease& lease, LeaseEnd how) {}
  virtual void PoolChanged(uint32_t pool) {}
  // The block list of `session` (docs/simulation.md §Prefix caches): what a hold's content on a
  // cache pool registers as it fills blocks.
  virtual absl::Span<const BlockTag> Blocks(SessionId session) { return {}; }
  // `blocks` cached blocks of `pool` were evicted to make room (--trace).
  virtual void CacheEvicted(uint32_t pool, uint32_t blocks) {}
  // Units of `pool` were freed or became reclaimable, after its lines were
  // examined (a step stage with `preempt by` idling for them starts a step).
  virtual void Freed(uint32_t pool) {}

 protected:
  // `clock` is the host's time, which outlives the host's use of it.
  explicit PoolHost(const double* clock) : clock_(clock) {}

 private:
  const double* clock_;
};

class Pools {
 public:
  explicit Pools(PoolHost* host) : host_(host) {}

  // Adds pool element `count()`. Only before the first request.
  // `cache_block` > 0: the pool keeps a prefix cache of blocks of that many
  // units. `grain` > 0: its holds take whole blocks of that many units.
  uint32_t AddPool(double cap, bool evictable, double cache_block = 0, double grain = 0);
  uint32_t count() const { return elements_.size(); }
  // Calls host->PoolChanged at every change of used or loaded (--trace).
  void NotifyChanges() { notify_changes_ = true; }

  double cap(uint32_t pool) const { return elements_[pool].cap; }
  double used(uint32_t pool) const { return elements_[pool].used; }
  double free(uint32_t pool) const { return elements_[pool].cap - elements_[pool].used; }
  double loaded(uint32_t pool) const { return elements_[pool].loaded; }
  // `block G`: the units a hold takes at a time; 0: one unit, exactly.
  double grain(uint32_t pool) const { return elements_[pool].grain; }
  // The largest block a step stage's lane steps (it keeps a counter for
  // each residue of a block).
  static constexpr double kMaxLaneGrain = 4096;
  // What a hold of `amount` units with `content` takes on `pool`.
  double ExtentOn(uint32_t pool, double amount, double content) const {
    return Extent(elements_[pool], amount, content);
  }

  // The prefix cache (pool_cache.cc). The block size; 0: no cache.
  double cache_block(uint32_t pool) const { return elements_[pool].block; }
  // Units of evictable blocks (inside free(pool)).
  double CachedFree(uint32_t pool) const;
  // `cached(P)`: the leading blocks of `tags` cached in `pool`, no side effect.
  uint32_t Cached(uint32_t pool, absl::Span<const BlockTag> tags) const;
  // The lookup of a prefill of `work` tokens whose active hold `hold` on a
  // cache pool has content 0: hits the longest cached run of `tags`, at most
  // floor((work - 1) / B) blocks; the hold references them and its content
  // becomes hits * B. Counted in the pool's lookups. Returns the blocks hit.
  uint32_t Hit(HoldId hold, absl::Span<const BlockTag> tags, double work);
  // Whether, after that hit, the first chunk of min(work - hit, budget)
  // tokens would fit (evicting other evictable blocks, and leases on a pool
  // with `evict by`), the hit's blocks no longer counting as free. No side
  // effect.
  bool HitFits(HoldId hold, absl::Span<const BlockTag> tags, double work, double budget) const;
  // HitFits, then Hit when it fits, walking the cached run once: false
  // (nothing done) when it does not fit; else *hit is what Hit returns.
  bool HitIfFits(HoldId hold, absl::Span<const BlockTag> tags, double work, double budget,
                 uint32_t* hit);
  // Asks for `amount` units of each pool in `pools` (distinct, each amount
  // <= its cap, checked by the caller) for `session`. The holds, one per
  // pool in the order given, are appended to `holds`. Returns true when
  // admitted at once; otherwise the request waits and host->Wake(session)
  // is called when it is admitted. An evict-by key that fails reports its
  // runtime error through the host and evicts nothing; the engine stops.
  bool RequestHold(SessionId session, absl::Span<const uint32_t> pools,
                   absl::Span<const double> amounts, std::vector<HoldId>* holds);

  // Adds `units` of content to active hold `hold`. The hold's size becomes
  // max(amount, content); growing it takes free units, evicts leases, or
  // waits (returns false; host->Wake(session) when granted). The caller
  // checks that the new size is at most the cap.
  bool Load(HoldId hold, double units);
  // A `load` statement is about to ask Load(hold, units): the content it
  // brings is received (Hold::received), not computed.
  void NoteReceived(HoldId hold, double units) {
    if (units > 0) holds_[hold].received = holds_[hold].content + units;
  }
  // The size hold `hold` would have after loading `units` more.
  double SizeAfterLoad(HoldId hold, double units) const;
  // Whether loading `units` more into active hold `hold` would be granted
  // now (free units, evicting what a growth may evict). No side effect.
  bool GrowthFits(HoldId hold, double units) const;
  // The per-token path of Load and LoadNow (a step's growth), inline: the
  // growth is granted at `now` when it needs no eviction (within the hold's
  // size, or in free units), the pool keeps no cache and nobody watches its
  // changes, and, with `behind_line`, no growth waits on the pool; false
  // otherwise (nothing changed: take the general path). The
  // arithmetic is Load's, so the figures are the same to the bit.
  bool GrowFast(HoldId hold, double units, double now, bool behind_line) {
    Hold& h = holds_[hold];
    Element& e = elements_[h.pool];
    if (behind_line && e.growths_waiting != 0) return false;
    // A cache pool registers blocks as content grows, and --trace wants
    // every change: those take the general path.
    if (e.cache || notify_changes_) return false;
    double content = h.content + units;
    double size = Extent(e, h.amount, content);
    double need = size - h.size;
    if (need > 0 && !Fits(h.pool, need)) return false;
    double used_delta = size - h.size;
    double loaded_delta = content - h.content;
    h.size = size;
    h.content = content;
    e.used += used_delta;
    e.loaded += loaded_delta;
    Grown(e, now);
    return true;
  }
  // GrowFast (with `behind_line`) on each of `holds` in order, stopping
  // at the first it would not grant; returns how many it granted (a step's decode tokens). The
  // same arithmetic, in the same order, as that many GrowFast calls; a run
  // of holds on one element keeps its used and loaded in registers and sets
  // their time averages once (the calls at one instant would add nothing
  // but the first's, the same product), and its max_used at the end (used
  // only grows here).
  size_t GrowEach(absl::Span<const HoldId> holds, double units, double now,
                  bool behind_line = true) {
    if (notify_changes_) return 0;
    size_t n = 0;
    while (n < holds.size()) {
      const uint32_t pool = holds_[holds[n]].pool;
      Element& e = elements_[pool];
      if ((behind_line && e.growths_waiting != 0) || e.cache) break;
      const double cap = e.cap - e.withheld;
      const double grain = e.grain;
      const double slack = FitSlack(e.cap);
      double used = e.used;
      double loaded = e.loaded;
      size_t m = n;
      bool full = false;
      // Each hold's address computed once (the loop as the compiler
      // rotates it otherwise reads the next id twice).
      Hold* const all = holds_.data();
      const HoldId* ids = holds.data();
      const size_t end = holds.size();
      Hold* h = &all[ids[m]];
      while (h->pool == pool) {
        const double old_content = h->content;
        const double content = old_content + units;
        const double size = grain > 0 ? Extent(grain, h->amount, content)
                                      : std::max(h->amount, content);
        const double need = size - h->size;
        // Fits(pool, need) without a cache: need <= cap - used - 0 + slack.
        if (need > 0 && !(need <= cap - used + slack)) {
          full = true;
          break;
        }
        used += need;
        loaded += content - old_content;
        h->size = size;
        h->content = content;
        if (++m == end) break;
        h = &all[ids[m]];
      }
      if (m > n) {
        e.used = used;
        e.loaded = loaded;
        Grown(e, now);
      }
      n = m;
      if (full) break;
    }
    return n;
  }
  // A step stage's lane (stage_step_lane.cc): `count` active holds of
  // `pool` that LaneHold admits each grow by a unit of content, `units` of
  // them by a unit of size too, or by a block on a pool with `block G`
  // (the others within their amount or their last block), granted
  // as that many GrowFast calls would grant them, all or none: when they
  // fit and used and loaded are whole numbers below 2^52 (so that growing
  // them at once is exact), used grows by `units`, loaded by `count`, and
  // true is returned; the holds themselves are not touched: CatchUp(hold,
  // k) gives a hold the k units of content it was granted so. False,
  // nothing changed, otherwise.
  bool GrowLane(uint32_t pool, uint32_t units, uint32_t count, double now, bool behind_line);
  // Whether hold `hold` may grow a unit of content a step in a lane for
  // `steps` steps: active, on a pool that keeps no cache (and whose block,
  // if any, is at most kMaxLaneGrain), its content a whole number below
  // 2^52, and each unit growing its size by one (on a block pool: by a
  // block when the content passes the end of its last) (1: its amount at
  // most its content) or by none (0: content + steps within its amount);
  // -1 otherwise.
  int LaneHold(HoldId hold, double steps) const;
  void CatchUp(HoldId hold, double units);

  // Adds `units` of content to active hold `hold` now or not at all: with
  // free units or by evicting leases, never waiting in the growth line (a
  // job's growth at a step stage with `preempt by`, which preempts instead;
  // it goes before the holds waiting for admission, as any growth does).
  // False when it does not fit; nothing changes then.
  bool LoadNow(HoldId hold, double units);
  // Empties active hold `hold` (preemption): amount, content and size to 0,
  // its units returned to the pool and its lines examined. It stays active.
  void EmptyHold(HoldId hold);

  // Returns an active hold's units early (release inside the hold).
  void ReturnHold(HoldId hold);
  // The units holds on `pool` gave back when they ended or were returned,
  // ever (not a preemption's, not a hold becoming a lease).
  double released(uint32_t pool) const { return elements_[pool].released; }
  // Until Withhold(pool, 0), every fit on `pool` counts `units` more as
  // used, though no hold has them: a step stage with `async`, whose
  // finished jobs' units vLLM does not yet know are free. The lines are
  // not examined (the stage forms its step first, as vLLM schedules its
  // running requests before the waiting ones): Examine does that.
  void Withhold(uint32_t pool, double units) { elements_[pool].withheld = units; }
  void Examine(uint32_t pool) { Pump(pool); }
  // At the end of the hold block: the hold becomes a lease of `duration`
  // seconds (inf: until released), keeping its units and content.
  LeaseRef LeaseHold(HoldId hold, double duration);
  // Drops the record of a returned or never-admitted hold whose block ended.
  void FreeHold(HoldId hold);
  // Ends an active hold and drops its record (end of block, end of session).
  void EndHold(HoldId hold);

  // True when `ref` still names a live lease.
  bool LeaseAlive(const LeaseRef& ref) const {
    const Lease& l = leases_[ref.id];
    return l.alive && l.generation == ref.generation;
  }
  const Lease& lease(LeaseId id) const { return leases_[id]; }
  // The live leases on `pool`, in no order.
  absl::Span<const LeaseId> leases(uint32_t pool) const { return elements_[pool].leases; }
  const Hold& hold(HoldId id) const { return holds_[id]; }
  // Releases a live lease.
  void ReleaseLease(const LeaseRef& ref);
  // False when an expiry event for (lease, generation) is stale.
  bool ExpiryCurrent(LeaseId lease, uint32_t generation) const {
    return leases_[lease].alive && leases_[lease].generation == generation;
  }
  // An expiry event fired. Returns false when it was stale.
  bool Expire(LeaseId lease, uint32_t generation);

  // What blocks pool `pool` now, for deadlock reports: "used 90 of cap 100:
  // held by session 0 (50), leased by session 2 (40)".
  std::string DescribeUse(uint32_t pool) const;
  // The session first in `pool`'s lines (its growth line first), for stall
  // reports; false when nobody waits there.
  bool FirstInLine(uint32_t pool, SessionId* session) const;

  // Checks the pools' invariants (for tests): every element's used is the
  // sum of its active holds and live leases and at most its cap; no request
  // first in line everywhere would fit everywhere (counting, on a pool that
  // evicts, its leased units as available) without being admitted (no
  // growth first in line would fit so without being granted). Returns what
  // is wrong, or "".
  std::string CheckInvariants() const;

  void StartWindow(double now);
  void Report(uint32_t pool, double now, double window, results::PoolStats* out) const;

 private:
  struct Request {
    SessionId session = 0;
    double since = 0;
    std::vector<HoldId> holds;
  };
  struct Growth {
    HoldId hold;
    double content;  // the content once granted
  };
  // The fields a growth reads and writes first (a step's tokens), then
  // the lines and the rest.
  struct Element {
    double cap = 0;
    double used = 0;
    double loaded = 0;
    double grain = 0;  // `block G`; 0: none
    // Units that count as used in every fit check though no hold has them
    // (Withhold), and the units holds ending or returned gave back, ever.
    double withheld = 0;
    double released = 0;
    uint32_t growths_waiting = 0;  // growing.size(), read where the deque is not
    TimeAverage used_average;
    TimeAverage loaded_average;
    double max_used = 0;
    bool evictable = false;
    std::deque<uint32_t> waiting;  // requests, first in line first
    std::deque<Growth> growing;    // growths of active holds, in order
    std::vector<LeaseId> leases;   // alive leases, in no order
    double leased = 0;             // their units
    double lane_used = 0;          // granted by GrowLane, not yet caught up
    double lane_loaded = 0;
    uint32_t active_holds = 0;
    // Statistics over the window.
    uint64_t admitted = 0;
    double wait_sum = 0;
    uint64_t evicted = 0;
    uint64_t expired = 0;
    uint64_t stalls = 0;  // growths that waited in the line (Load)
    // The prefix cache (block > 0) and its window's figures.
    double block = 0;
    std::unique_ptr<PrefixCache> cache;
    TimeAverage evictable_average;
    uint64_t lookups = 0;
    double lookup_tokens = 0;
    double hit_tokens = 0;
    uint64_t blocks_evicted = 0;
  };

  // max(amount, content), in whole blocks of `grain` when it is > 0.
  static double Extent(double grain, double amount, double content) {
    const double s = std::max(amount, content);
    return grain > 0 ? std::ceil(s / grain) * grain : s;
  }
  static double Extent(const Element& e, double amount, double content) {
    return Extent(e.grain, amount, content);
  }
  void Change(uint32_t pool, double used_delta, double loaded_delta);
  // After growths of `e`'s holds at `now`: its time averages and max_used
  // (used only grew).
  static void Grown(Element& e, double now) {
    e.used_average.Set(now, e.used);
    e.loaded_average.Set(now, e.loaded);
    if (e.used > e.max_used) e.max_used = e.used;
  }
  double Evictable(uint32_t pool) const;
  // Frees at least `need` units on `pool`, evicting when allowed and
  // enough; false when it cannot (nothing is evicted then).
  bool MakeRoom(uint32_t pool, double need);
  bool CanMakeRoom(uint32_t pool, double need) const;
  // A relative slack of 1e-12 of the cap absorbs the rounding of fractional
  // units (ten holds of 0.1 fill a pool of cap 1); every fit check adds it.
  static double FitSlack(double cap) {
    return std::isfinite(cap) ? 1e-12 * std::max(1.0, cap) : 0;
  }
  bool Fits(uint32_t pool, double need) const {
    const Element& e = elements_[pool];
    // Evictable cached blocks are not in used but do occupy units.
    return need <= e.cap - e.withheld - e.used - (e.cache ? CachedFree(pool) : 0) +
                       FitSlack(e.cap);
  }
  bool TryAdmit(uint32_t request);
  bool TryGrow(const Growth& growth);
  void ApplyGrowth(const Growth& growth);
  void EndLease(LeaseId id, LeaseEnd how);
  // The cache's hooks (pool_cache.cc). Registers the blocks a growth of the
  // hold's content filled.
  void Register(HoldId hold);
  // Drops a holder's references: the units an ending hold or lease gives
  // back beyond its own, those of the blocks it left evictable.
  double ReleaseBlocks(uint32_t pool, uint32_t* holder);
  // Evicts cached blocks, least recently released first, until `need`
  // fits or none is left. Fits afterwards?
  bool EvictBlocks(uint32_t pool, double need);
  // The most blocks a prefill of `work` tokens may hit: floor((work - 1) / B).
  uint32_t MostHit(uint32_t pool, double work) const;
  // The units ending every lease of `pool` would make available: their own
  // and those of the blocks only leases reference.
  double Reclaimable(uint32_t pool) const;
  void CacheStatistics(Element& e, double now);
  // HitFits's arithmetic, for a probe of `hit` blocks, `unreferenced` of
  // them evictable.
  bool HitWouldFit(const Hold& h, uint32_t hit, uint32_t unreferenced, double work,
                   double budget) const;
  // Hit's accounting, after the cache referenced `hit` blocks, `revived`
  // of them evictable before.
  uint32_t Counted(HoldId hold, uint32_t hit, uint32_t revived, double work);
  // The cache's part of CheckInvariants: "" or what is wrong.
  std::string CheckCache(uint32_t pool) const;
  // Admits what can be admitted after units were freed on `pool`.
  void Pump(uint32_t pool);

  uint32_t NewRequest();
  HoldId NewHold();
  LeaseId NewLease();

  PoolHost* host_;
  bool notify_changes_ = false;
  std::vector<Element> elements_;
  std::vector<uint32_t> probed_;  // HitIfFits's path (only its storage kept)
  std::vector<Hold> holds_;
  std::vector<HoldId> free_holds_;
  std::vector<Lease> leases_;
  std::vector<LeaseId> free_leases_;
  uint64_t next_lease_sequence_ = 0;
  std::vector<Request> requests_;
  std::vector<uint32_t> free_requests_;
  std::vector<uint32_t> worklist_;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_POOLS_POOL_H_
