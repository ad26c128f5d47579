#include "serq-sim/pools/pool.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

constexpr uint32_t kNoPool = UINT32_MAX;

}  // namespace

uint32_t Pools::AddPool(double cap, bool evictable, double cache_block, double grain) {
  Element e;
  e.cap = cap;
  e.grain = grain;
  e.evictable = evictable;
  if (cache_block > 0) {
    e.block = cache_block;
    e.cache = std::make_unique<PrefixCache>();
  }
  elements_.push_back(std::move(e));
  return elements_.size() - 1;
}

uint32_t Pools::NewRequest() {
  if (!free_requests_.empty()) {
    uint32_t r = free_requests_.back();
    free_requests_.pop_back();
    requests_[r].holds.clear();
    return r;
  }
  requests_.emplace_back();
  return requests_.size() - 1;
}

HoldId Pools::NewHold() {
  if (!free_holds_.empty()) {
    HoldId h = free_holds_.back();
    free_holds_.pop_back();
    return h;
  }
  holds_.emplace_back();
  return holds_.size() - 1;
}

LeaseId Pools::NewLease() {
  if (!free_leases_.empty()) {
    LeaseId l = free_leases_.back();
    free_leases_.pop_back();
    return l;
  }
  leases_.emplace_back();
  return leases_.size() - 1;
}

void Pools::Change(uint32_t pool, double used_delta, double loaded_delta) {
  Element& e = elements_[pool];
  e.used += used_delta;
  e.loaded += loaded_delta;
  // Units may be fractional: when nothing is held or leased the pool is
  // empty exactly, so rounding never accumulates across busy periods.
  if (e.active_holds == 0 && e.leases.empty()) e.used = e.loaded = 0;
  double now = host_->now();
  e.used_average.Set(now, e.used);
  e.loaded_average.Set(now, e.loaded);
  if (e.used > e.max_used) e.max_used = e.used;
  if (e.cache) CacheStatistics(e, now);
  if (notify_changes_ && (used_delta != 0 || loaded_delta != 0)) host_->PoolChanged(pool);
}

bool Pools::CanMakeRoom(uint32_t pool, double need) const {
  double cached = CachedFree(pool);
  if (Fits(pool, need - cached)) return true;
  const Element& e = elements_[pool];
  return e.evictable && !e.leases.empty() && Fits(pool, need - cached - Reclaimable(pool));
}

bool Pools::MakeRoom(uint32_t pool, double need) {
  if (Fits(pool, need)) return true;
  if (!CanMakeRoom(pool, need)) return false;
  if (EvictBlocks(pool, need)) {  // cached blocks before any lease
    host_->Freed(pool);  // a block's units beyond `need` are free now
    return true;
  }
  struct Candidate {
    std::vector<double> key;
    double since;
    uint64_t sequence;
    LeaseId id;
  };
  std::vector<Candidate> order;
  for (LeaseId id : elements_[pool].leases) {
    Candidate c;
    if (!host_->EvictKey(leases_[id], &c.key)) return false;
    c.since = leases_[id].since;
    c.sequence = leases_[id].sequence;
    c.id = id;
    order.push_back(std::move(c));
  }
  std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.key, a.since, a.sequence) < std::tie(b.key, b.since, b.sequence);
  });
  for (const Candidate& c : order) {
    if (Fits(pool, need)) break;
    ++elements_[pool].evicted;
    EndLease(c.id, LeaseEnd::kEvicted);
    EvictBlocks(pool, need);  // what only the lease referenced
  }
  // What the evictions freed beyond `need` is free now: a step stage
  // idling for units of this pool may start (its step starts at the end of
  // the instant, after the requester has taken its units).
  host_->Freed(pool);
  return Fits(pool, need);
}

bool Pools::TryAdmit(uint32_t request) {
  for (HoldId h : requests_[request].holds) {
    if (!CanMakeRoom(holds_[h].pool, holds_[h].amount)) return false;
  }
  for (HoldId h : requests_[request].holds) {
    if (!MakeRoom(holds_[h].pool, holds_[h].amount)) return false;
  }
  double now = host_->now();
  for (HoldId h : requests_[request].holds) {
    Hold& hold = holds_[h];
    Element& e = elements_[hold.pool];
    hold.state = Hold::State::kActive;
    hold.size = hold.amount;
    ++e.active_holds;
    ++e.admitted;
    e.wait_sum += now - requests_[request].since;
    Change(hold.pool, hold.amount, 0);
  }
  free_requests_.push_back(request);
  return true;
}

bool Pools::RequestHold(SessionId session, absl::Span<const uint32_t> pools,
                        absl::Span<const double> amounts, std::vector<HoldId>* holds) {
  uint32_t r = NewRequest();
  requests_[r].session = session;
  requests_[r].since = host_->now();
  bool clear = true;
  for (size_t i = 0; i < pools.size(); ++i) {
    HoldId h = NewHold();
    Hold& hold = holds_[h];
    hold = Hold();
    hold.pool = pools[i];
    hold.session = session;
    // Whole blocks from the start: the amount is what admission takes.
    hold.amount = Extent(elements_[pools[i]], amounts[i], 0);
    hold.request = r;
    requests_[r].holds.push_back(h);
    holds->push_back(h);
    const Element& e = elements_[pools[i]];
    if (!e.waiting.empty() || !e.growing.empty()) clear = false;
  }
  if (clear && TryAdmit(r)) return true;
  for (uint32_t pool : pools) elements_[pool].waiting.push_back(r);
  return false;
}

double Pools::SizeAfterLoad(HoldId hold, double units) const {
  const Hold& h = holds_[hold];
  return Extent(elements_[h.pool], h.amount, h.content + units);
}

bool Pools::GrowthFits(HoldId hold, double units) const {
  const Hold& h = holds_[hold];
  double need = SizeAfterLoad(hold, units) - h.size;
  return !(need > 0) || CanMakeRoom(h.pool, need);
}

void Pools::ApplyGrowth(const Growth& growth) {
  Hold& h = holds_[growth.hold];
  double size = Extent(elements_[h.pool], h.amount, growth.content);
  double used_delta = size - h.size;
  double loaded_delta = growth.content - h.content;
  h.size = size;
  h.content = growth.content;
  Change(h.pool, used_delta, loaded_delta);
  if (elements_[h.pool].cache) Register(growth.hold);
}

bool Pools::TryGrow(const Growth& growth) {
  const Hold& h = holds_[growth.hold];
  double need = Extent(elements_[h.pool], h.amount, growth.content) - h.size;
  if (need > 0 && !MakeRoom(h.pool, need)) return false;
  ApplyGrowth(growth);
  return true;
}

bool Pools::Load(HoldId hold, double units) {
  Growth growth{hold, holds_[hold].content + units};
  Element& e = elements_[holds_[hold].pool];
  if (e.growing.empty() && TryGrow(growth)) return true;
  e.growing.push_back(growth);
  ++e.growths_waiting;
  ++e.stalls;
  return false;
}

bool Pools::LoadNow(HoldId hold, double units) {
  return TryGrow(Growth{hold, holds_[hold].content + units});
}

void Pools::EmptyHold(HoldId hold) {
  Hold& h = holds_[hold];
  if (h.state != Hold::State::kActive) return;
  double freed = h.size - h.shared + ReleaseBlocks(h.pool, &h.holder);
  double content = h.content;
  h.amount = h.size = h.content = h.shared = 0;
  h.received = -1;
  Change(h.pool, -freed, -content);
  Pump(h.pool);
}

void Pools::ReturnHold(HoldId hold) {
  Hold& h = holds_[hold];
  if (h.state != Hold::State::kActive) return;
  h.state = Hold::State::kReturned;
  --elements_[h.pool].active_holds;
  double freed = h.size - h.shared + ReleaseBlocks(h.pool, &h.holder);
  elements_[h.pool].released += freed;
  Change(h.pool, -freed, -h.content);
  h.size = h.content = h.shared = 0;
  Pump(h.pool);
}

void Pools::FreeHold(HoldId hold) {
  holds_[hold].holder = UINT32_MAX;  // released, or now a lease's
  holds_[hold].shared = 0;
  holds_[hold].pool = kNoPool;
  holds_[hold].state = Hold::State::kReturned;
  free_holds_.push_back(hold);
}

void Pools::EndHold(HoldId hold) {
  uint32_t pool = holds_[hold].pool;
  bool active = holds_[hold].state == Hold::State::kActive;
  if (active) {
    Hold& h = holds_[hold];
    --elements_[pool].active_holds;
    double freed = h.size - h.shared + ReleaseBlocks(pool, &h.holder);
    elements_[pool].released += freed;
    Change(pool, -freed, -h.content);
  }
  FreeHold(hold);
  if (active) Pump(pool);
}

LeaseRef Pools::LeaseHold(HoldId hold, double duration) {
  const Hold h = holds_[hold];
  FreeHold(hold);
  LeaseId id = NewLease();
  Lease& l = leases_[id];
  Element& e = elements_[h.pool];
  l.pool = h.pool;
  l.owner = h.session;
  l.units = h.size - h.shared;  // its own: the cached blocks' stay counted once
  l.content = h.content;
  l.holder = h.holder;  // a lease keeps its hold's references
  if (l.holder != UINT32_MAX) e.cache->ToLease(l.holder);
  l.since = host_->now();
  l.sequence = next_lease_sequence_++;
  l.alive = true;
  l.expires = std::isfinite(duration);
  l.slot = e.leases.size();
  e.leases.push_back(id);
  e.leased += l.units;
  --e.active_holds;  // the units stay, now as a lease
  if (std::isfinite(duration)) host_->ScheduleExpiry(duration, id, l.generation);
  LeaseRef ref{id, l.generation, h.pool};
  host_->LeaseStarted(l, duration);  // before an eviction of it, for the trace
  // On a pool that evicts, the units just became reclaimable: the request
  // first in line may now be admitted by evicting this very lease.
  if (e.evictable) Pump(h.pool);
  return ref;
}

void Pools::EndLease(LeaseId id, LeaseEnd how) {
  host_->LeaseEnding(leases_[id], how);
  Lease& l = leases_[id];
  Element& e = elements_[l.pool];
  LeaseId moved = e.leases.back();
  e.leases[l.slot] = moved;
  leases_[moved].slot = l.slot;
  e.leases.pop_back();
  e.leased = e.leases.empty() ? 0 : e.leased - l.units;
  l.alive = false;
  ++l.generation;
  Change(l.pool, -l.units - ReleaseBlocks(l.pool, &l.holder), -l.content);
  free_leases_.push_back(id);
  host_->LeaseEnded(l.owner);
}

void Pools::ReleaseLease(const LeaseRef& ref) {
  if (!LeaseAlive(ref)) return;
  EndLease(ref.id, LeaseEnd::kReleased);
  Pump(ref.pool);
}

bool Pools::Expire(LeaseId lease, uint32_t generation) {
  const Lease& l = leases_[lease];
  if (!l.alive || l.generation != generation) return false;
  uint32_t pool = l.pool;
  ++elements_[pool].expired;
  EndLease(lease, LeaseEnd::kExpired);
  Pump(pool);
  return true;
}

void Pools::Pump(uint32_t pool) {
  worklist_.push_back(pool);
  while (!worklist_.empty()) {
    uint32_t p = worklist_.back();
    worklist_.pop_back();
    Element& e = elements_[p];
    while (!e.growing.empty()) {
      Growth g = e.growing.front();
      if (!TryGrow(g)) break;
      e.growing.pop_front();
      --e.growths_waiting;
      host_->Wake(holds_[g.hold].session);
    }
    if (!e.growing.empty()) {
      host_->Freed(p);
      continue;
    }
    while (!e.waiting.empty()) {
      uint32_t r = e.waiting.front();
      bool first_everywhere = true;
      for (HoldId h : requests_[r].holds) {
        const Element& q = elements_[holds_[h].pool];
        if (q.waiting.front() != r || !q.growing.empty()) first_everywhere = false;
      }
      if (!first_everywhere) break;
      SessionId session = requests_[r].session;
      std::vector<HoldId> holds = requests_[r].holds;
      if (!TryAdmit(r)) break;
      for (HoldId h : holds) {
        uint32_t q = holds_[h].pool;
        elements_[q].waiting.pop_front();
        if (q != p) worklist_.push_back(q);
      }
      host_->Wake(session);
    }
    host_->Freed(p);
  }
}

bool Pools::FirstInLine(uint32_t pool, SessionId* session) const {
  const Element& e = elements_[pool];
  if (!e.growing.empty()) {
    *session = holds_[e.growing.front().hold].session;
    return true;
  }
  if (e.waiting.empty()) return false;
  *session = requests_[e.waiting.front()].session;
  return true;
}

std::string Pools::DescribeUse(uint32_t pool) const {
  const Element& e = elements_[pool];
  std::string out = absl::StrCat("used ", e.used, " of cap ", e.cap);
  // Who holds the units, by session, in session order.
  std::map<SessionId, double> held, leased;
  for (const Hold& h : holds_) {
    if (h.pool == pool && h.state == Hold::State::kActive) held[h.session] += h.size - h.shared;
  }
  for (LeaseId id : e.leases) leased[leases_[id].owner] += leases_[id].units;
  std::vector<std::string> parts;
  for (const auto& [s, u] : held) parts.push_back(absl::StrCat("held by session ", s, ": ", u));
  for (const auto& [s, u] : leased) {
    parts.push_back(absl::StrCat("leased by session ", s, ": ", u));
  }
  if (e.cache && e.cache->ReferencedBlocks() > 0) {
    parts.push_back(absl::StrCat("cached blocks referenced: ", e.block * e.cache->ReferencedBlocks()));
  }
  if (parts.empty()) return out;
  constexpr size_t kShown = 4;
  absl::StrAppend(&out, " (");
  for (size_t i = 0; i < parts.size() && i < kShown; ++i) {
    absl::StrAppend(&out, i ? "; " : "", parts[i]);
  }
  if (parts.size() > kShown) absl::StrAppend(&out, "; and ", parts.size() - kShown, " more");
  absl::StrAppend(&out, ")");
  return out;
}

bool Pools::GrowLane(uint32_t pool, uint32_t units, uint32_t count, double now,
                     bool behind_line) {
  Element& e = elements_[pool];
  if (notify_changes_ || e.cache || count == 0) return false;
  if (behind_line && e.growths_waiting != 0) return false;
  // `units` holds grow by a unit each, or on a block pool by a block each.
  const double need = e.grain > 0 ? e.grain : 1;
  const double u = units * need;
  const double n = count;
  // Whole numbers plus whole numbers, below 2^52.
  if (!ExactWhole(e.used) || !ExactWhole(e.loaded) || !(e.used + u < kExactWhole) ||
      !(e.loaded + n < kExactWhole)) {
    return false;
  }
  // GrowEach's check of the last growth of a unit (or block): the earlier
  // ones ask the same of more room (the check is monotone in used); the
  // others ask for nothing.
  if (units > 0 && !(need <= e.cap - e.withheld - (e.used + (u - need)) + FitSlack(e.cap))) {
    return false;
  }
  e.used += u;
  e.loaded += n;
  e.lane_used += u;
  e.lane_loaded += n;
  Grown(e, now);
  return true;
}

int Pools::LaneHold(HoldId hold, double steps) const {
  const Hold& h = holds_[hold];
  // On a block pool a sized hold takes a block when its content passes the
  // end of its last (the lane counts those a step: LaneGrain); its blocks
  // are whole numbers of whole units, so the same arithmetic stays exact.
  const Element& e = elements_[h.pool];
  if (h.state != Hold::State::kActive || e.cache || !ExactWhole(h.content) ||
      e.grain > kMaxLaneGrain) {
    return -1;
  }
  if (h.amount <= h.content) return 1;
  return h.content + steps <= h.amount ? 0 : -1;
}

void Pools::CatchUp(HoldId hold, double units) {
  // Its size followed its content at every unit, or stayed its amount.
  Hold& h = holds_[hold];
  Element& e = elements_[h.pool];
  const double size = h.size;
  h.content += units;
  h.size = Extent(e, h.amount, h.content);
  e.lane_used -= h.size - size;
  e.lane_loaded -= units;
}

std::string Pools::CheckInvariants() const {
  std::vector<double> used(elements_.size(), 0), loaded(elements_.size(), 0);
  for (const Hold& h : holds_) {
    if (h.pool != kNoPool && h.state == Hold::State::kActive) {
      used[h.pool] += h.size - h.shared;
      loaded[h.pool] += h.content;
    }
  }
  for (const Lease& l : leases_) {
    if (l.alive) {
      used[l.pool] += l.units;
      loaded[l.pool] += l.content;
    }
  }
  for (uint32_t p = 0; p < elements_.size(); ++p) {
    if (std::string wrong = CheckCache(p); !wrong.empty()) return wrong;
    if (elements_[p].cache) used[p] += elements_[p].block * elements_[p].cache->ReferencedBlocks();
    // A lane's units, in used and loaded but not yet in its holds.
    used[p] += elements_[p].lane_used;
    loaded[p] += elements_[p].lane_loaded;
  }
  for (uint32_t p = 0; p < elements_.size(); ++p) {
    const Element& e = elements_[p];
    double slack = 1e-9 * std::max(1.0, std::isfinite(e.cap) ? e.cap : 1.0);
    if (std::fabs(e.used - used[p]) > slack) {
      return absl::StrCat("pool ", p, ": used ", e.used, " but holds and leases make ", used[p]);
    }
    if (std::fabs(e.loaded - loaded[p]) > slack) {
      return absl::StrCat("pool ", p, ": loaded ", e.loaded, " but contents make ", loaded[p]);
    }
    if (e.used + CachedFree(p) > e.cap + slack) {
      return absl::StrCat("pool ", p, ": used ", e.used, " and cached ", CachedFree(p), " > cap");
    }
    // What could be had: the free units, and on a pool that evicts the
    // leased ones too (a request that fits only by evicting is admitted by
    // evicting, so it must not be waiting either).
    auto available = [&](const Element& q) {
      uint32_t qp = &q - elements_.data();
      return q.cap - q.withheld - q.used + (q.evictable ? Reclaimable(qp) : 0) - slack;
    };
    if (!e.growing.empty()) {
      const Growth& g = e.growing.front();
      const Hold& h = holds_[g.hold];
      if (Extent(e, h.amount, g.content) - h.size <= available(e)) {
        return absl::StrCat("pool ", p, ": a growth first in line fits but waits");
      }
      continue;
    }
    if (e.waiting.empty()) continue;
    const Request& r = requests_[e.waiting.front()];
    bool first_everywhere = true, fits = true;
    for (HoldId h : r.holds) {
      const Element& q = elements_[holds_[h].pool];
      if (q.waiting.front() != e.waiting.front() || !q.growing.empty()) first_everywhere = false;
      if (holds_[h].amount > available(q)) fits = false;
    }
    if (first_everywhere && fits) {
      return absl::StrCat("pool ", p, ": a request first in line everywhere fits but waits");
    }
  }
  return "";
}

void Pools::StartWindow(double now) {
  for (Element& e : elements_) {
    e.used_average.Reset(now);
    e.loaded_average.Reset(now);
    e.max_used = e.used;
    e.admitted = 0;
    e.wait_sum = 0;
    e.evicted = 0;
    e.expired = 0;
    e.stalls = 0;
    e.evictable_average.Reset(now);
    e.lookups = 0;
    e.lookup_tokens = 0;
    e.hit_tokens = 0;
    e.blocks_evicted = 0;
  }
}

void Pools::Report(uint32_t pool, double now, double window, results::PoolStats* out) const {
  const Element& e = elements_[pool];
  out->set_cap(e.cap);
  out->set_mean_used(window > 0 ? e.used_average.Integral(now) / window : 0);
  out->set_max_used(e.max_used);
  out->set_mean_loaded(window > 0 ? e.loaded_average.Integral(now) / window : 0);
  out->set_admitted(e.admitted);
  out->set_wait_sum(e.wait_sum);
  out->set_evicted(e.evicted);
  out->set_expired(e.expired);
  out->set_stalls(e.stalls);
  if (e.cache) {
    out->set_cache_block(e.block);
    out->set_lookups(e.lookups);
    out->set_lookup_tokens(e.lookup_tokens);
    out->set_hit_tokens(e.hit_tokens);
    out->set_mean_evictable(window > 0 ? e.evictable_average.Integral(now) / window : 0);
    out->set_blocks_evicted(e.blocks_evicted);
  }
}

}  // namespace serq::sim
