// The step stage with `preempt by` (docs/simulation.md §The LLM engine as vLLM
// runs it; stage_step.h): the formation of a batch from the running jobs, then
// the waiting ones; the victims of a growth that does not fit, and their
// preemption.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "serq-sim/stations/stage.h"
#include "serq-sim/stations/stage_step.h"

namespace serq::sim::step_internal {

bool StepStation::FormPreempting(StageHost& host) {
  forming_ = true;
  bool ok = true;
  for (;;) {
    batch_.clear();
    budget_ = tokens_;
    bool preempted = false;
    lead_ = 0;
    // The leading running decode jobs growing their holds by a token:
    // their growths in one call, as far as they are granted at once
    // without a victim; the loop below goes on from the first that is
    // not (the same grants, in the same order, as GrowNow on each).
    size_t start = 0;
    {
      // Through local pointers, the budget in a register: the same
      // subtractions in the same order.
      const uint32_t* running = run_decode_.data();
      const size_t n = run_decode_.size();
      Entry* slab = slab_.data();
      const uint32_t* holds;
      size_t k = 0;
      if (budget_exact_) {
        // The first not growing (or the limit, computed once) ends the
        // run.
        if (lead_holds_stale_) RefreshLead(host);
        holds = lead_holds_.data();
        k = std::min(lead_holds_.size(), running_decode_limit_);
      } else {
        if (grow_holds_.size() < n) grow_holds_.resize(n);  // room, never shrunk
        uint32_t* each = grow_holds_.data();
        holds = each;
        double b = budget_;
        for (; k < n; ++k) {
          const Entry& e = slab[running[k]];
          if (!e.growing) break;
          if (static_cast<double>(k) >= seqs_ || !(b >= 1)) break;
          each[k] = e.hold;
          b -= 1;
        }
      }
      size_t granted;
      double context = 0;
      if (budget_exact_ && GrowLane(host, k)) {
        // The lane is the lead (RefreshLead made it run_decode_'s first
        // k), every growth granted at once: its jobs step without their
        // entries and their holds.
        granted = k;
        context = StepLane();
        start = granted;
      } else {
        granted = k == 0 ? 0 : host.GrowEachNow(absl::MakeConstSpan(holds, k), 1);
        // They join in their order: the batch starts as run_decode_ does.
        batch_.assign(running, running + granted);
        // Their chunk is 1 and what they took is 1: Preempt writes both
        // when it takes one of them out, not every step.
        for (; start < granted; ++start) {
          Entry& e = slab[running[start]];
          e.content += 1;
          context += e.content;
        }
      }
      if (budget_exact_) {
        budget_ -= static_cast<double>(granted);  // whole (or inf) less whole: exact
      } else {
        for (size_t j = 0; j < granted; ++j) budget_ -= 1;
      }
      // The batch's first jobs, as Run would account them (decode jobs
      // growing: their context is their content), unless a preemption
      // below takes one of them out (Preempt clears lead_).
      lead_ = granted;
      lead_context_ = context;
    }
    // The other running jobs, decode then prefill, from the first not
    // granted: a snapshot, as victims leave the lists (none when every
    // running job was granted, the common step).
    if (start < run_decode_.size() || !run_prefill_.empty()) {
      order_.assign(run_decode_.begin(), run_decode_.end());
      order_.insert(order_.end(), run_prefill_.begin(), run_prefill_.end());
    } else {
      order_.clear();
    }
    for (size_t i = start; i < order_.size(); ++i) {
      uint32_t slot = order_[i];
      Entry& e = slab_[slot];
      if (e.group != Group::kRunning) continue;  // a victim already
      if (batch_.size() >= seqs_) break;
      if (!LookUp(host, e)) {
        ok = false;
        break;
      }
      double t = Tokens(e);
      if (!(t > 0)) continue;
      bool self = false;
      while (e.growing) {
        StageHost::Growth g = host.GrowNow(e.session, e.hold, t);
        if (g == StageHost::Growth::kFailed) {
          ok = false;
          break;
        }
        if (g == StageHost::Growth::kGranted) {
          e.content += t;
          e.taken = t;
          break;
        }
        uint32_t victim;
        if (!Victim(host, e.pool, &victim)) {
          ok = false;
          break;
        }
        preempted = true;
        if (async_ && TakeFinished(host, e.pool, slab_[victim].since)) continue;
        Preempt(host, victim, e.session);
        if (victim == slot) {
          self = true;
          break;
        }
      }
      if (!ok) break;
      // The growing job preempted itself: no later running job joins.
      if (self) break;
      e.chunk = t;
      budget_ -= t;
      batch_.push_back(slot);
    }
    if (!ok) break;
    // Waiting jobs join only in a step without a preemption; the first
    // whose growth does not fit stops them (it preempts nothing). They are
    // looked at in the line's order, but only those that could join or
    // be looked up (NextWaiting): the walk is as long as what it changes,
    // not as the line.
    if (!preempted && !waiting_.empty()) {
      size_t joined = batch_.size();
      // Once a waiting job that holds no units of its pool has not fit,
      // only jobs that hold units may still join, in order: a request
      // holding blocks does not queue behind one holding none (vLLM PR
      // 57841; without it a decoder full of received prompts waits for a
      // preempted request that their blocks keep out, forever).
      bool holders_only = false;
      auto stops = [&](uint32_t slot, double t) {
        if (!holders_only) {  // the first that did not fit: what the stage waits for
          blocked_slot_ = slot;
          blocked_units_ = t;
        }
        const Entry& b = slab_[slot];
        if (holders_only || (b.growing && host.HoldsUnits(b.hold))) return true;
        holders_only = true;
        return false;
      };
      Place at;
      for (bool started = false;; started = true) {
        if (batch_.size() + seats_ >= seqs_) break;
        // (Past a block-less head NextWaiting gives only holders.)
        if (!NextWaiting(host, holders_only, started, &at)) break;
        const uint32_t slot = at.slot;
        Entry& e = slab_[slot];
        bool joins;
        if (!LookUp(host, e, /*only_if_fits=*/true, &joins)) {
          ok = false;
          break;
        }
        double t = Tokens(e);
        if (!(t > 0)) continue;
        // `reserve prompt`: its whole remaining prefill must fit, not just
        // this step's chunk (vLLM's allocate_slots with
        // full_sequence_must_fit); a cache hit was judged so by LookUp.
        // What it waits for is then that whole prefill, which a stall's
        // report names (not the chunk: a prompt larger than the pool
        // waits for more than the pool has, not for units it has free).
        // (LookUp judged a job with a cache lookup to make the same way.)
        const bool whole = reserve_prompt_ && e.growing && !e.decode;
        if (joins && whole && !host.GrowthFits(e.hold, e.remaining)) joins = false;
        const double waits_for = whole ? e.remaining : t;
        if (!joins) {
          if (stops(slot, waits_for)) break;
          continue;
        }
        if (e.received) {
          // `recompute last`: its token recomputes the last received
          // one, whose unit its hold has (vLLM allocated the whole
          // prompt's blocks when it admitted the remote load, and sets
          // num_computed_tokens to num_tokens - 1 once it is there).
          e.received = false;
          e.taken = 0;
        } else if (e.growing) {
          StageHost::Growth g = host.GrowNow(e.session, e.hold, t);
          if (g == StageHost::Growth::kFailed) {
            ok = false;
            break;
          }
          if (g == StageHost::Growth::kStalled) {
            if (stops(slot, t)) break;
            continue;
          }
          e.content += t;
          e.taken = t;
        }
        e.chunk = t;
        budget_ -= t;
        batch_.push_back(slot);
      }
      if (!ok) break;
      // They are running from this step on.
      for (size_t k = joined; k < batch_.size(); ++k) {
        uint32_t slot = batch_[k];
        Entry& e = slab_[slot];
        Unwait(slot);
        e.group = Group::kRunning;
        e.since = host.now();
        Insert(RunningList(e), slot);
      }
    }
    // A batch that preemption left empty is formed again at once.
    if (batch_.empty() && preempted) continue;
    break;
  }
  forming_ = false;
  // Without a preemption in the batch formed last, its first jobs are the
  // leading running decode jobs: End knows what they need.
  regular_in_batch_ = lead_;
  if (!ok) return false;
  if (batch_.empty() && blocked_slot_ != kNone) {
    host.WatchPool(slab_[blocked_slot_].pool, id());
  }
  if (!batch_.empty()) blocked_slot_ = kNone;
  return true;
}

bool StepStation::FormAsync(StageHost& host) {
  // vLLM forms this step while the step that just ended (if one did, at
  // this instant) was running: the units its completed jobs gave back are
  // not free to it (End withheld them), and those that did not go on here
  // still take seats. Units withheld so from the step before are free
  // now, to this formation first (running jobs, then waiting ones), and
  // only then to the pools' lines (ExaminePool), as vLLM schedules its
  // waiting requests, remote KV included, after its running ones.
  const bool after_step = continued_time_ == host.now();
  forming_ = true;  // the units examined below wake no start of this stage
  touched_.clear();
  for (Withholding& w : withheld_) {
    touched_.push_back(w.pool);
    w.units = 0;
  }
  if (after_step) {
    for (const Released& r : released_) {
      Withholding& w = WithholdingOn(r.pool);
      // What they gave back, not what a hold that went on or became a
      // lease keeps.
      w.units = std::min(w.pending, host.Released(r.pool) - r.released);
      if (!(w.units > 0)) w.units = 0;
    }
    // The jobs that went on here keep their holds: never taken as victims.
    finished_jobs_.erase(
        std::remove_if(finished_jobs_.begin(), finished_jobs_.end(),
                       [&](const Finished& f) {
                         return std::find(went_on_serials_.begin(), went_on_serials_.end(),
                                          f.serial) != went_on_serials_.end();
                       }),
        finished_jobs_.end());
    seats_ = finished_ > went_on_ ? finished_ - went_on_ : 0;
  } else {
    AdmitLate(host);  // no step ended now: vLLM forms this one knowing all
    finished_jobs_.clear();
  }
  bool withheld = false;
  for (Withholding& w : withheld_) {
    w.pending = 0;
    host.Withhold(w.pool, w.units);
    withheld = withheld || w.units > 0;
  }
  const bool restricted = withheld || seats_ > 0 || !late_.empty();
  bool ok = FormPreempting(host);
  forming_ = true;
  seats_ = 0;
  finished_ = went_on_ = 0;
  released_.clear();
  finished_jobs_.clear();
  AdmitLate(host);
  if (ok && batch_.empty() && restricted) {
    // vLLM's step formed so was empty and took no time: the next is
    // formed now, knowing all.
    for (Withholding& w : withheld_) host.Withhold(w.pool, w.units = 0);
    blocked_slot_ = kNone;
    ok = FormPreempting(host);
    forming_ = true;
  }
  if (batch_.empty()) {
    // An idle stage withholds nothing.
    for (Withholding& w : withheld_) host.Withhold(w.pool, w.units = 0);
  }
  withheld_.erase(std::remove_if(withheld_.begin(), withheld_.end(),
                                 [](const Withholding& w) { return !(w.units > 0); }),
                  withheld_.end());
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  for (uint32_t pool : touched_) host.ExaminePool(pool);
  forming_ = false;
  // Examining a pool told its watchers, this stage among them, which then
  // ignored it: an idle stage blocked by a pool watches it again.
  if (ok && batch_.empty() && blocked_slot_ != kNone && !touched_.empty()) {
    host.WatchPool(slab_[blocked_slot_].pool, id());
  }
  return ok;
}

void StepStation::ReleaseWithheld(StageHost& host) {
  if (withheld_.empty()) return;
  const bool forming = forming_;
  forming_ = true;  // what examining the pools frees wakes no start here
  touched_.clear();
  for (const Withholding& w : withheld_) {
    host.Withhold(w.pool, 0);
    touched_.push_back(w.pool);
  }
  withheld_.clear();
  for (uint32_t pool : touched_) host.ExaminePool(pool);
  forming_ = forming;
}

bool StepStation::TakeFinished(StageHost& host, uint32_t pool, double since) {
  Withholding* w = nullptr;
  for (Withholding& x : withheld_) {
    if (x.pool == pool) w = &x;
  }
  if (w == nullptr || !(w->units > 0)) return false;
  // The latest to become running, ties to the one finished last.
  size_t best = finished_jobs_.size();
  for (size_t i = 0; i < finished_jobs_.size(); ++i) {
    const Finished& f = finished_jobs_[i];
    if (f.pool != pool || !(f.units > 0) || !(f.since > since)) continue;
    if (best == finished_jobs_.size() || f.since >= finished_jobs_[best].since) best = i;
  }
  if (best == finished_jobs_.size()) return false;
  // Freed to this formation at once (the pool's lines are examined after it).
  w->units = std::max(0.0, w->units - finished_jobs_[best].units);
  host.Withhold(pool, w->units);
  finished_jobs_.erase(finished_jobs_.begin() + best);
  ++preempted_;
  ++preempted_total_;
  return true;
}

void StepStation::AdmitLate(StageHost& host) {
  for (uint32_t slot : late_) Enlist(host, slot);
  late_.clear();
}

bool StepStation::NextWaiting(StageHost& host, bool holders_only, bool started, Place* at) {
  // The walk of the whole line gave every job in turn the chance to
  // join; these are the only ones for which it could make a difference:
  //   - with no budget left (!(budget_ > 0)) every job's tokens are 0, so
  //     a job is passed over, after LookUp: only those a lookup changes
  //     (lookups_; past a block-less head, holder_lookups_);
  //   - with less than a token left (budget_ < 1) a decode job is passed
  //     over, and LookUp does nothing to one: the line's decode jobs are
  //     skipped at once;
  //   - past a block-less head only holders may join (holders_).
  // The budget only falls during the walk, and `seqs` is checked by the
  // caller before each job, as before.
  const bool no_budget = !(budget_ > 0);
  if (holders_only) HoldersLive(host);
  const PlaceIndex& set = no_budget ? (holders_only ? holder_lookups_ : lookups_)
                                    : (holders_only ? holders_ : waiting_);
  PlaceIndex::Iterator it;
  if (!started) {
    it = set.begin();
  } else if (&set == next_index_ && set.version() == next_version_) {
    it = std::next(next_at_);  // *at's iterator is current
  } else {
    it = set.UpperBound(*at);
  }
  if (it->group == kPlaceDecode && !(budget_ >= 1)) {
    Place prefill;  // before every prefill job
    prefill.group = kPlacePrefill;
    prefill.key = -std::numeric_limits<double>::infinity();
    prefill.tie = 0;
    prefill.slot = kNone;
    prefill.more = false;
    it = set.LowerBound(prefill);
  }
  next_index_ = &set;
  next_version_ = set.version();
  next_at_ = it;
  if (PlaceIndex::Done(it)) return false;
  *at = *it;
  return true;
}

bool StepStation::LookUp(StageHost& host, Entry& e, bool only_if_fits, bool* joins) {
  if (joins != nullptr) *joins = true;
  if (e.decode || !e.growing || e.looked_up || e.content != 0) return true;
  double hit;
  // With `reserve prompt` a waiting job's hit must leave room for all the
  // rest of its prefill, not only for this step's chunk.
  const double room_for =
      only_if_fits && reserve_prompt_ ? std::numeric_limits<double>::infinity() : budget_;
  if (!host.Lookup(e.session, e.remaining, room_for, only_if_fits, &hit)) return false;
  if (hit < 0) {
    *joins = false;
    return true;
  }
  e.looked_up = true;
  e.content = hit;
  e.remaining -= hit;
  work_ -= hit;
  // A waiting job's hold may take units now, and it needs no lookup.
  if (preempt_ && e.group != Group::kRunning) Reindex(host, &e - slab_.data());
  return true;
}

bool StepStation::Victim(StageHost& host, uint32_t pool, uint32_t* victim) {
  bool found = false;
  size_t best_pos = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    const Entry& e = slab_[order_[i]];
    if (e.group != Group::kRunning || !e.growing || e.pool != pool) continue;
    if (!host.PreemptKey(id(), e.session, e.since, &key_)) return false;
    bool better = !found;
    if (found) {
      const Entry& b = slab_[order_[best_pos]];
      if (key_ != best_key_) {
        better = std::lexicographical_compare(key_.begin(), key_.end(), best_key_.begin(),
                                              best_key_.end());
      } else {
        better = e.since > b.since || (e.since == b.since && i > best_pos);
      }
    }
    if (better) {
      found = true;
      best_pos = i;
      best_key_ = key_;
    }
  }
  // The growing job itself is running and grows `pool`: there is one.
  *victim = order_[best_pos];
  return found;
}

void StepStation::Preempt(StageHost& host, uint32_t slot, SessionId cause) {
  Entry& e = slab_[slot];
  // The batch may lose a job: Run accounts for every job, and its leading
  // decode jobs get their state back (the lane's), and the chunk and the
  // unit that FormPreempting left implicit.
  DissolveLane(host);
  for (size_t k = 0; k < lead_; ++k) {
    Entry& lead = slab_[batch_[k]];
    lead.chunk = 1;
    lead.taken = 1;
  }
  lead_ = 0;
  Remove(RunningList(e), slot);
  auto in_batch = std::find(batch_.begin(), batch_.end(), slot);
  if (in_batch != batch_.end()) {
    // It leaves the batch: its tokens return to the budget, and what it
    // took for this step is not part of what it had.
    batch_.erase(in_batch);
    budget_ += e.chunk;
    e.content -= e.taken;
  }
  e.taken = 0;
  double c = e.content;
  host.Preempt(id(), e.session, cause, c);
  e.content = 0;
  e.reserved = false;
  e.looked_up = false;  // its recompute looks its blocks up again
  // A decode job recomputes its KV and its last token's; a prefill job
  // its KV and what it had left (its own `after` is kept: a recompute
  // preempted again).
  if (e.decode) {
    e.after = e.remaining - 1;
    e.remaining = c + 1;
    e.decode = false;
    e.recompute_decode = true;
  } else {
    e.remaining = c + e.remaining;
  }
  e.recompute = true;
  work_ += c;
  e.group = Group::kPreempted;
  e.preempted_at = next_preemption_++;
  Wait(host, slot);  // first in the line (the latest preempted)
  ++preempted_;
  ++preempted_total_;
}

std::string StepStation::CheckInvariants(StageHost& host) {
  // The indexes hold exactly what they stand for, at their places.
  auto placed = [&](const Place& p) {
    const Place q = PlaceOf(p.slot);
    return q.group == p.group && SameBits(q.key, p.key) && q.tie == p.tie && q.more == p.more;
  };
  if (!preempt_) {
    size_t stalled_prefill = 0;
    for (const auto& [session, slot] : stalled_) {
      const Entry& e = slab_[slot];
      if (!e.stalled || e.session != session) return "a job of stalled_ that is not stalled";
      if (!e.decode) ++stalled_prefill;
    }
    for (auto it = ready_.begin(); !PlaceIndex::Done(it); ++it) {
      const Place& p = *it;
      const Entry& e = slab_[p.slot];
      if (e.stalled || e.decode || !placed(p)) return "a job of ready_ stalled, decode or moved";
    }
    if (decode_.size() + ready_.size() + stalled_prefill != present()) {
      return "decode_, ready_ and the stalled prefill jobs are not the jobs present";
    }
    return "";
  }
  size_t holders = 0, lookups = 0, both = 0;
  for (auto it = waiting_.begin(); !PlaceIndex::Done(it); ++it) {
    const Place& p = *it;
    const Entry& e = slab_[p.slot];
    if (e.group == Group::kRunning || !placed(p)) return "a job of waiting_ running or moved";
    if (IndexesOf(host, e) != e.indexed) return "a waiting job's indexes are not its state's";
    holders += (e.indexed & kHolder) != 0;
    lookups += (e.indexed & kLookup) != 0;
    both += (e.indexed & kHolderLookup) != 0;
  }
  for (const PlaceIndex* set : {&holders_, &lookups_, &holder_lookups_}) {
    for (auto it = set->begin(); !PlaceIndex::Done(it); ++it) {
      if (!waiting_.Contains(*it)) return "an index holds a job not waiting";
    }
  }
  if (holders != holders_.size() || lookups != lookups_.size() || both != holder_lookups_.size()) {
    return "an index's size is not the count of its waiting jobs";
  }
  if (waiting_.size() + run_decode_.size() + run_prefill_.size() + late_.size() != present()) {
    return "the running, waiting and late jobs are not the jobs present";
  }
  return "";
}

}  // namespace serq::sim::step_internal
