// step(tau): an LLM engine with iteration-level (continuous) batching
// (language.md §3.3.1). The stage works in steps. At the start of a step
// the batch is formed from the jobs present, in order (arrival, or the
// ascending `serve by` key, ties by arrival): every decode job first, one
// token each, then prefill jobs, each taking min(remaining, budget left)
// tokens (chunked prefill), while the batch has fewer than `seqs` jobs and
// the `tokens` budget is not spent. The step lasts tau, evaluated with the
// step's variables; at its end every job's remaining work falls by its
// tokens and the jobs at 0 complete.
//
// Every step starts by an event after every other event of its instant
// (StageHost::Schedule with end_of_instant): on an idle stage, so that the
// requests arriving together are batched together; after a step, so that a
// job whose session comes back at once (prefill then decode on the same
// engine) or arrives at that instant takes part in the next step, which
// still starts at the same time. Jobs that arrive during a step wait for
// the next.
//
// A job `growing P` (a decode run, or a prefill run: docs/simulation.md §The LLM
// engine as vLLM runs it) takes the units its tokens fill when it joins a batch
// (as vLLM allocates a token's KV slot before the step): the host grows its hold
// by the tokens' units of content, the whole chunk or nothing. When they cannot
// be had, the job is stalled: its growth waits in the pool's line (growths go
// before holds waiting for admission) and the job is left out of batches until
// GrowthGranted, with its units then reserved for its next step.
//
// With `preempt by KEY` (docs/simulation.md §The LLM engine as vLLM runs it) a
// growth never stalls. Jobs are running (from their first step until they
// complete or are preempted) or waiting; the batch is formed from the running
// jobs (decode, then prefill), then, if no preemption happened while forming,
// the waiting ones: the preempted (most recently preempted first), then those
// that never ran (decode, then prefill). A running job's growth that does not
// fit preempts running jobs growing the same pool element, in KEY order, until
// it fits, or the job itself when it is next (and then no later running job
// joins); a waiting job's growth that does not fit stops the admission of
// waiting jobs for this step. A preempted job's hold is emptied and it waits as
// a recompute: a prefill of its content plus one token (a decode job, which then
// has one decode token fewer left) or plus its remaining prefill (a prefill
// job). This is vLLM v1's scheduler (vllm/v1/core/sched/scheduler.py):
// docs/simulation.md says where. With `recompute last`, a waiting decode
// job on received KV (Job::received) joins its first step with no growth:
// its token recomputes the last received one, in that token's unit (vLLM's
// decoder recomputes a fully loaded prompt's last token).
//
// With `async` (and `preempt by`), vLLM's async scheduling: vLLM forms
// step N+1 while step N runs, from what it knew when N started (N's tokens
// counted as made, AsyncScheduler's output placeholders). serq forms it
// when N ends, as vLLM would have formed it then: a job that arrived while
// N ran (but a decode continuing a job that completed with N) waits one
// step more; the units that holds of N's completed jobs give back at N's
// end are withheld (Withhold) from then until N+2's formation, which has
// them first (its pools' lines are examined after it); those jobs still
// take seats of `seqs` from the waiting (vLLM keeps them in `running`,
// skipped, until N's output comes) and may be FCFS victims. When nothing
// could join so, the step is formed as without `async` (vLLM's step N+1
// was empty and took no time). On an idle stage a job starts at once, as
// without it.
//
// The station is declared here for its two files: stage_step.cc (arrival,
// the plain formation, the step and its end) and stage_step_preempt.cc (the
// formation with `preempt by`, victims and preemption). Internal to them.
#ifndef SERQ_SIM_STATIONS_STAGE_STEP_H_
#define SERQ_SIM_STATIONS_STAGE_STEP_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "serq-sim/stations/stage.h"

namespace serq::sim::step_internal {

constexpr uint32_t kNone = UINT32_MAX;

class StepGroup;

class StepStation final : public Station {
 public:
  StepStation(uint32_t id, double seqs, double tokens, bool preempt, bool lanes, bool figures,
              StepRules rules = {});

  // `lockstep` (stage_step_group.cc): the station steps with the others of
  // `group`, which its stations own together.
  void JoinGroup(std::shared_ptr<StepGroup> group) { group_ = std::move(group); }

  void Arrive(StageHost& host, const Job& job) override;

  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) override {
    if (tag == kStart) {
      start_pending_ = false;
      if (group_ != nullptr) {
        GroupStart(host);  // the group's start, asked of its first station
      } else {
        Start(host);
      }
    } else {
      End(host, done);
    }
    return true;
  }

  void GrowthGranted(StageHost& host, SessionId session) override {
    // Without `preempt by` (the only stage whose growths stall): the
    // stalled job of the session, found without walking the jobs.
    if (auto it = stalled_.find(session); it != stalled_.end()) {
      const uint32_t slot = it->second;
      stalled_.erase(it);
      Entry& e = slab_[slot];
      e.stalled = false;
      e.reserved = true;
      e.content += e.reserved_units;
      if (!e.decode) Ready(slot);  // back in its place among the prefill jobs
    }
    if (!in_step_) ScheduleStart(host);
  }

  void UnitsFreed(StageHost& host) override {
    if (!in_step_ && !forming_) ScheduleStart(host);
  }

  std::string CheckInvariants(StageHost& host) override;

  bool Blocked(SessionId* session, double* units) const override {
    if (blocked_slot_ == kNone || in_step_) return false;
    *session = slab_[blocked_slot_].session;
    *units = blocked_units_;
    return true;
  }

  uint32_t Busy() const override { return in_step_ ? batch_.size() : 0; }
  // vLLM's running requests: with `preempt by` the running jobs; without,
  // those whose service has started. The others are waiting.
  uint32_t Running() const override {
    return preempt_ ? static_cast<uint32_t>(run_decode_.size() + run_prefill_.size())
                    : present() - unstarted_;
  }
  double Work(double) const override { return work_; }
  uint64_t Preemptions() const override { return preempted_total_; }

  void StartWindow(double now) override {
    Station::StartWindow(now);
    steps_ = 0;
    batch_jobs_ = 0;
    batch_tokens_ = 0;
    preempted_ = 0;
    recomputed_ = 0;
  }

  void Report(double now, double window, results::StageStats* out) const override {
    Station::Report(now, window, out);
    out->set_steps(steps_);
    out->set_batch_jobs(batch_jobs_);
    // Tokens are whole numbers unless a run's work is not; the report's
    // field counts them, so a fractional sum is rounded.
    out->set_batch_tokens(static_cast<uint64_t>(std::llround(batch_tokens_)));
    out->set_preempted(preempted_);
    out->set_recomputed(static_cast<uint64_t>(std::llround(recomputed_)));
    if (std::isfinite(seqs_)) out->set_step_seqs(seqs_);
    if (std::isfinite(tokens_)) out->set_step_tokens(tokens_);
  }

 private:
  enum : uint32_t { kStart = 0, kEnd = 1 };
  // With `preempt by`: which list a job is in.
  enum class Group : uint8_t { kNew, kRunning, kPreempted };

  // What every step reads first (one cache line), then the rest; 128
  // bytes, so that a slot's entry is a shift away (its key and its
  // session's serial are beside the slab).
  struct alignas(64) Entry {
    SessionId session = 0;
    uint32_t hold = 0;  // growing: its hold
    uint32_t pool = 0;  // and that hold's pool element
    int32_t observation = -1;  // a decode run's per-token observation (Job's)
    bool decode = false;
    bool growing = false;
    bool stalled = false;   // its growth waits in its pool's line
    bool reserved = false;  // the units of its next chunk (or token) are granted
    bool started = false;   // it has been in a batch (its service started)
    Group group = Group::kNew;
    // A recompute of a preempted decode job: its last step produces a
    // token, and `after` decode tokens follow.
    bool recompute_decode = false;
    bool recompute = false;  // a recompute prefill (for `recomputed`)
    bool looked_up = false;  // its hold's blocks were looked up (LookUp)
    // `recompute last`: a decode job that never ran, on received KV: its
    // first token takes no unit (StepRules::recompute_last).
    bool received = false;
    uint8_t indexed = 0;  // a waiting job: the indexes it is in (kHolder...)
    double remaining = 0;
    double content = 0;    // growing: its hold's content, the reserved units included
    // With an observation: when its run started, then its last token.
    double last_token = 0;
    double chunk = 0;      // its tokens in the current step
    // Tokens done in this run (prefill chunks, decode tokens): a job not
    // growing's context. Not kept for a regular decode job (it grows: its
    // context is its content).
    double processed = 0;
    double taken = 0;      // units of content it took for the step being formed
    double after = 0;
    double reserved_units = 0;  // the units of the stalled (then reserved) chunk
    double arrival = 0;
    double since = 0;  // when it last became running
    uint64_t sequence = 0;
    uint64_t preempted_at = 0;  // preemption order: the most recent goes first
  };
  static_assert(sizeof(Entry) == 128);

  struct Continued {
    uint64_t serial;  // not the session id, which a new session may reuse at once
    double since;
    uint64_t sequence;
  };

  uint32_t NewEntry() {
    if (!free_.empty()) {
      uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    slab_.emplace_back();
    keys_.emplace_back();
    serials_.emplace_back();
    return slab_.size() - 1;
  }

  bool Before(uint32_t a, uint32_t b) const {
    const Entry& x = slab_[a];
    const Entry& y = slab_[b];
    if (x.group == Group::kPreempted) return x.preempted_at > y.preempted_at;
    return ServedBefore(keys_[a], x.sequence, keys_[b], y.sequence);
  }

  // Keeps `list` in order: ascending key, then arrival (the preempted: the
  // most recently preempted first).
  // Returns its place.
  size_t Insert(std::vector<uint32_t>& list, uint32_t slot) {
    const Entry& e = slab_[slot];
    if (keys_[slot].empty() && e.group != Group::kPreempted &&
        (list.empty() || slab_[list.back()].sequence < e.sequence)) {
      list.push_back(slot);  // without serve by every key is empty: arrival order
      if (&list == &run_decode_) RunningDecodeChanged();
      return list.size() - 1;
    }
    auto at = std::upper_bound(list.begin(), list.end(), slot,
                               [this](uint32_t a, uint32_t b) { return Before(a, b); });
    size_t i = at - list.begin();
    list.insert(at, slot);
    if (&list == &run_decode_) RunningDecodeChanged();
    return i;
  }

  std::vector<uint32_t>& RunningList(const Entry& e) {
    return e.decode ? run_decode_ : run_prefill_;
  }

  // With `preempt by`: a job joins the running lists (kept in order in
  // vectors: they are the batch) or the waiting line (an index, below).
  void Enlist(StageHost& host, uint32_t slot) {
    if (slab_[slot].group == Group::kRunning) {
      Insert(RunningList(slab_[slot]), slot);
    } else {
      Wait(host, slot);
    }
  }

  // The waiting line (with `preempt by`) is kept as ordered sets of
  // Places, never walked whole (docs/internals.md §The simulator): the
  // line itself, in the batch order of waiting jobs (the preempted, the
  // most recently preempted first, then those that never ran, decode then
  // prefill, each by `serve by` key and arrival); the waiting jobs whose
  // holds take units (holders_: the only ones that may join past a
  // block-less head); those a prefix-cache lookup would change (lookups_:
  // the only ones a step with no budget left does anything to); and both
  // (holder_lookups_). A job's Place is fixed while it waits, and only
  // LookUp changes what indexes it is in (Reindex): nothing else changes
  // a waiting job's hold. The holders are indexed only once a formation
  // needs them (HoldersLive), until the line empties: most lines never
  // have a block-less head that does not fit, and the line's first walk
  // costs what keeping it would have (a job is walked once a busy period
  // of the line).
  struct Place {
    double key;    // its `serve by` key's first number; 0 without, and for the preempted
    uint64_t tie;  // the preempted: ~preempted_at (the latest first); the others: sequence
    uint32_t slot;
    uint8_t group;  // kPlacePreempted, kPlaceDecode, kPlacePrefill: the line's order
    bool more;      // its key has more numbers (keys_[slot]), compared when the first tie
  };
  enum : uint8_t { kPlacePreempted = 0, kPlaceDecode = 1, kPlacePrefill = 2, kPlaceEnd = 3 };
  // ServedBefore (Before) on Places: the key's numbers in order, then the
  // tie, without reading the entries (keys_ only when the first numbers
  // are equal and the key has more).
  struct PlaceOrder {
    const std::vector<std::vector<double>>* keys;
    bool operator()(const Place& a, const Place& b) const {
      if (a.group != b.group) return a.group < b.group;
      if (a.key < b.key) return true;
      if (b.key < a.key) return false;
      if (a.more && b.more && a.slot != b.slot) {
        const std::vector<double>& x = (*keys)[a.slot];
        const std::vector<double>& y = (*keys)[b.slot];
        const size_t n = std::min(x.size(), y.size());
        for (size_t i = 1; i < n; ++i) {
          if (x[i] < y[i]) return true;
          if (y[i] < x[i]) return false;
        }
        if (x.size() != y.size()) return x.size() < y.size();
      }
      return a.tie < b.tie;
    }
  };
  // An ordered set of Places that never empties: a last Place (group
  // kPlaceEnd) stays in it, so that its btree keeps its root node (a btree
  // frees it when it empties, and a short line empties at every step: a
  // malloc and a free a job) and a search never returns end().
  class PlaceIndex {
   public:
    using Iterator = absl::btree_set<Place, PlaceOrder>::const_iterator;
    explicit PlaceIndex(const std::vector<std::vector<double>>* keys) : set_(PlaceOrder{keys}) {
      Place end;
      end.key = 0;
      end.tie = 0;
      end.slot = kNone;
      end.group = kPlaceEnd;
      end.more = false;
      set_.insert(end);
    }
    // Most Places go last (an arrival) or first (a preemption), and most
    // leave first (a job that joins the batch): those cost no search.
    void insert(const Place& p) {
      ++version_;
      const Iterator last = std::prev(set_.end());  // the end Place
      if (set_.size() == 1 || set_.key_comp()(*std::prev(last), p)) {
        set_.insert(last, p);
      } else if (set_.key_comp()(p, *set_.begin())) {
        set_.insert(set_.begin(), p);
      } else {
        set_.insert(p);
      }
    }
    void erase(const Place& p) {
      ++version_;
      const Iterator first = set_.begin();
      set_.erase(first->slot == p.slot ? first : set_.find(p));  // not erase(p): its equal_range
    }
    // Changes at every insert and erase: an iterator from before is stale.
    uint64_t version() const { return version_; }
    bool empty() const { return set_.size() == 1; }
    size_t size() const { return set_.size() - 1; }
    // Iteration: begin(), ++, until Done.
    Iterator begin() const { return set_.begin(); }
    static bool Done(Iterator it) { return it->group == kPlaceEnd; }
    Iterator UpperBound(const Place& p) const { return set_.upper_bound(p); }
    Iterator LowerBound(const Place& p) const { return set_.lower_bound(p); }
    bool Contains(const Place& p) const { return set_.find(p) != set_.end(); }

   private:
    absl::btree_set<Place, PlaceOrder> set_;
    uint64_t version_ = 0;
  };
  enum : uint8_t { kHolder = 1, kLookup = 2, kHolderLookup = 4 };

  Place PlaceOf(uint32_t slot) const {
    const Entry& e = slab_[slot];
    Place p;
    p.slot = slot;
    if (e.group == Group::kPreempted) {
      p.group = kPlacePreempted;
      p.key = 0;
      p.more = false;
      p.tie = ~e.preempted_at;
    } else {
      const std::vector<double>& key = keys_[slot];
      p.group = e.decode ? kPlaceDecode : kPlacePrefill;
      p.key = key.empty() ? 0 : key[0];
      p.more = key.size() > 1;
      p.tie = e.sequence;
    }
    return p;
  }
  // The job in `slot` waits (preempted, or never ran): into the line and
  // its indexes.
  void Wait(StageHost& host, uint32_t slot) {
    waiting_.insert(PlaceOf(slot));
    slab_[slot].indexed = 0;
    Reindex(host, slot);
  }
  // It leaves the line (it runs).
  void Unwait(uint32_t slot) {
    Entry& e = slab_[slot];
    const Place p = PlaceOf(slot);
    waiting_.erase(p);
    if (e.indexed & kHolder) holders_.erase(p);
    if (e.indexed & kLookup) lookups_.erase(p);
    if (e.indexed & kHolderLookup) holder_lookups_.erase(p);
    e.indexed = 0;
    if (waiting_.empty()) holders_live_ = false;  // (holders_ is empty too)
  }
  // The holders indexed from now on (holders_ and holder_lookups_).
  void HoldersLive(StageHost& host) {
    if (holders_live_) return;
    holders_live_ = true;
    for (auto it = waiting_.begin(); !PlaceIndex::Done(it); ++it) Reindex(host, it->slot);
  }
  // The indexes a waiting job belongs in.
  uint8_t IndexesOf(StageHost& host, const Entry& e) const {
    uint8_t want = 0;
    if (holders_live_ && e.growing && host.HoldsUnits(e.hold)) want |= kHolder;
    // A lookup on a pool without a cache changes nothing (Engine::Lookup).
    if (!e.decode && e.growing && !e.looked_up && e.content == 0 && host.CachePool(e.pool)) {
      want |= kLookup;
    }
    if ((want & (kHolder | kLookup)) == (kHolder | kLookup)) want |= kHolderLookup;
    return want;
  }
  // The indexes of waiting job `slot` brought up to date with its state.
  void Reindex(StageHost& host, uint32_t slot) {
    Entry& e = slab_[slot];
    const uint8_t want = IndexesOf(host, e);
    const uint8_t change = want ^ e.indexed;
    if (change == 0) return;
    const Place p = PlaceOf(slot);
    auto toggle = [&](PlaceIndex& set, uint8_t bit) {
      if (!(change & bit)) return;
      if (want & bit) {
        set.insert(p);
      } else {
        set.erase(p);
      }
    };
    toggle(holders_, kHolder);
    toggle(lookups_, kLookup);
    toggle(holder_lookups_, kHolderLookup);
    e.indexed = want;
  }
  // FormPreempting's waiting pass: the next waiting job after `*at` (the
  // first when !started) that the step could do anything with, given the
  // budget left and whether only holders may still join; false when none
  // is left. What it passes over would have been passed over anyway
  // (docs/internals.md §The simulator).
  bool NextWaiting(StageHost& host, bool holders_only, bool started, Place* at);
  // Its last answer: the index and the iterator, current while the
  // index's version is (then the next is one step on, not a search).
  const PlaceIndex* next_index_ = nullptr;
  uint64_t next_version_ = 0;
  PlaceIndex::Iterator next_at_;

  // Without `preempt by`: the prefill jobs not stalled, in order (ready_),
  // which the formation walks from its first; a stalled job leaves it and
  // comes back to its place when its growth is granted.
  void Ready(uint32_t slot) { ready_.insert(PlaceOf(slot)); }
  void Unready(uint32_t slot) { ready_.erase(PlaceOf(slot)); }

  void Remove(std::vector<uint32_t>& list, uint32_t slot) {
    list.erase(std::find(list.begin(), list.end(), slot));
    if (&list == &run_decode_) RunningDecodeChanged();
  }

  // The running decode jobs changed: the lead's holds are brought up to
  // date at the next formation (RefreshLead), which keeps the lane while
  // its jobs are still the first.
  void RunningDecodeChanged() { lead_holds_stale_ = true; }

  void ScheduleStart(StageHost& host) {
    if (group_ != nullptr) {
      if (present() > 0) RequestGroupStart(host);
      return;
    }
    if (present() == 0) return;
    if (start_pending_) return;
    start_pending_ = true;
    host.Schedule(host.now_ticks(), id(), kStart, /*end_of_instant=*/true);
  }

  void Start(StageHost& host) {
    if (!Form(host) || batch_.empty()) {
      batch_.clear();
      return;
    }
    Gather();
    vars_.group_tokens = vars_.group_tokens_max = vars_.tokens;
    double tau;
    if (!host.Tau(id(), vars_, &tau)) return Abandon();
    Launch(host, tau);
  }

  // The batch of the step starting now (batch_; false after a runtime
  // error was reported).
  bool Form(StageHost& host) {
    batch_.clear();
    blocked_slot_ = kNone;
    return async_ ? FormAsync(host) : preempt_ ? FormPreempting(host) : FormPlain(host);
  }
  // The step's variables of the formed batch, in vars_ (but the group's).
  void Gather();
  // The step of the formed batch starts, to last `tau`.
  void Launch(StageHost& host, double tau);
  // The formed batch does not run (tau failed: a runtime error).
  void Abandon() {
    batch_.clear();
    recomputed_step_ = 0;
  }

  // Lockstep (stage_step_group.cc): a start asked of the group, the
  // group's start (its first station's event), this station's part of the
  // group's step ended.
  friend class StepGroup;
  void RequestGroupStart(StageHost& host);
  void GroupStart(StageHost& host);
  void GroupStepEnded(StageHost& host);
  // The end of the group's step in flight, or -1 when none is.
  double GroupStepEnd() const;
  std::shared_ptr<StepGroup> group_;

  // Without `preempt by`: decode jobs, then prefill jobs, in order.
  bool FormPlain(StageHost& host);
  // FormPlain's first decode jobs, when every decode job present is
  // regular (irregular_ == 0): their growths asked in one call, then those
  // granted join. Returns how many joined, *context their contexts' sum.
  size_t JoinRegular(StageHost& host, double* context);
  // The same for any decode jobs: those that would join if every growth
  // were granted join in one pass, as if granted; *next is where the
  // general way goes on.
  size_t JoinAsGranted(StageHost& host, double* context, size_t* next);

  // With `preempt by` (docs/simulation.md §The LLM engine as vLLM runs it).
  bool FormPreempting(StageHost& host);
  // With `async` (above): FormPreempting as vLLM's async scheduler forms
  // the step after the one that just ended; then the late jobs wait as
  // any job that never ran.
  bool FormAsync(StageHost& host);
  void AdmitLate(StageHost& host);
  // The stage has no job left: what it withholds is free (and its pools'
  // lines examined).
  void ReleaseWithheld(StageHost& host);
  // With `async`, a running job's growth on `pool` does not fit and the
  // next victim became running at `since`: vLLM's FCFS preemption pops the
  // tail of `running`, where a job that has just finished (its last token
  // not yet known to vLLM) may stand. When one such job, not gone on
  // here, became running after `since`, the latest is taken instead: its
  // withheld units are freed now, and it stays finished. True then.
  bool TakeFinished(StageHost& host, uint32_t pool, double since);

  // The lane (stage_step_lane.cc): the leading decode jobs (with
  // `preempt by` the running ones, run_decode_'s first; without,
  // decode_'s first, while every decode job is regular), while every one
  // of them is exact to advance in aggregate, step without their entries
  // or holds being read or written. SyncLane keeps the lane while its jobs
  // are still the list's first and adds the jobs after them, up to `k`
  // (ExtendLane); RefreshLead is SyncLane for FormPreempting's lead, its
  // holds brought up to date with run_decode_ (KeepLane: the part of
  // SyncLane that ends the lane unless its jobs are still the list's
  // first); StepLane makes the lane the
  // step's first jobs (the pool granted their growths, GrowLane) and
  // returns their contexts' sum; EndLaneStep is End's for them;
  // DissolveLane writes their state back to their entries and holds (and,
  // while the lane is in a step, that step's unit each, as the eager
  // formation has it) and ends the lane.
  std::vector<uint32_t>& LaneList() { return preempt_ ? run_decode_ : decode_; }
  void KeepLane(StageHost& host);
  void SyncLane(StageHost& host, size_t k);
  void RefreshLead(StageHost& host);
  void ExtendLane(StageHost& host, size_t k);
  // The lane of `k` jobs, its growths granted at once; false (the lane
  // ended) when it is not that.
  bool GrowLane(StageHost& host, size_t k);
  double StepLane();
  void EndLaneStep(StageHost& host, double now, double* work, uint32_t* left,
                   ObservedTokens::Writer* observed, std::vector<SessionId>* done);
  void DissolveLane(StageHost& host);

  // A prefill job growing a pool about to join with its hold's content 0
  // (a fresh hold, or one emptied by preemption) looks its blocks up once
  // (docs/simulation.md §Prefix caches): the hit is content it need not compute. Without
  // `preempt by` a chunk that then does not fit stalls in the pool's line,
  // the hit kept. With it (`only_if_fits`, a waiting job), a job whose chunk
  // would not fit after the hit does not join: nothing is looked up, and
  // *joins is false (vLLM's scheduler touches the hit blocks only when the
  // request is allocated).
  bool LookUp(StageHost& host, Entry& e, bool only_if_fits = false, bool* joins = nullptr);

  // The tokens job `e` would take in this step with the budget left.
  double Tokens(const Entry& e) const {
    if (e.decode) return budget_ >= 1 ? 1 : 0;
    return budget_ > 0 ? std::min({e.remaining, budget_, chunk_}) : 0;
  }

  // The next victim for a growth on pool element `pool`: the running job
  // growing that element with the smallest key; ties to the one that
  // became running later, then to the one later in the batch order.
  bool Victim(StageHost& host, uint32_t pool, uint32_t* victim);

  void Preempt(StageHost& host, uint32_t slot, SessionId cause);

  // Adds job `e`, which joins the batch with its chunk (a decode job: 1),
  // to the step's variables.
  void Account(Entry& e, StepVars* vars);
  // With `figures_`: the step's figures of the prefill and the decode jobs
  // apart, and its jobs, from the batch formed (after Account).
  void Figures(StepVars* vars);


  void End(StageHost& host, std::vector<SessionId>* done);
  // Job `e` in `slot` completed at the end of the step: its session goes to
  // `done`, and it is marked for removal.
  void Done(Entry& e, uint32_t slot, std::vector<SessionId>* done);
  // End's work for a decode job in the batch (both of its loops): its
  // token, and Done when it was the last.
  // `observed` gets its token when its run observes each.
  void EndDecodeStep(Entry& e, uint32_t slot, double now, double* work, uint32_t* left,
                     ObservedTokens::Writer* observed, std::vector<SessionId>* done);
  // Job `e`'s token now, observed.
  static void Observe(Entry& e, double now, ObservedTokens::Writer* observed) {
    // A gap between two ticks, on the clock (no representation noise).
    observed->Add(e.session, e.observation, OnClock(now - e.last_token));
    e.last_token = now;
  }

  const double seqs_;    // inf: unbounded
  const double tokens_;  // inf: unbounded
  const double chunk_;   // `chunk N`: a prefill job's most tokens a step; inf: none
  const bool reserve_prompt_;  // `reserve prompt`
  const bool async_;           // `async` (with `preempt by`)
  const bool recompute_last_;  // `recompute last` (with `preempt by`)
  const bool preempt_;
  const bool lanes_;  // its leading decode jobs may step as a lane
  const bool figures_;  // its tau reads the jobs' figures (StepVars' IR 10 part)
  std::vector<StepJob> jobs_;  // with figures_: the step's, for StepVars::jobs
  // The most decode jobs that join a batch in FormPlain's first pass (the
  // batch empty, k jobs in, the next joins while k < seqs_ and tokens_ - k
  // >= 1), computed once; and whether tokens_ - k is exactly the budget
  // left after k times -1 (tokens_ whole, or inf).
  const size_t decode_limit_;
  // FormPreempting's: its leading running decode jobs join while k < seqs_
  // and !(tokens_ - k >= 1) is false (with budget_exact_).
  const size_t running_decode_limit_;
  const bool budget_exact_;
  std::vector<Entry> slab_;
  std::vector<std::vector<double>> keys_;  // by slot: its job's `serve by` key
  std::vector<uint64_t> serials_;          // and its session's serial
  std::vector<uint32_t> free_;
  std::vector<uint8_t> gone_;  // by slot: completed in the step ending
  // Without preempt by: every decode job present, in order (the batch's
  // first jobs; a decode job present holds KV, so these are few), and
  // (ready_, above) the prefill jobs not stalled; the stalled jobs by
  // session (GrowthGranted), and the prefill jobs that completed in the
  // step ending (End).
  std::vector<uint32_t> decode_;
  PlaceIndex ready_{&keys_};
  absl::flat_hash_map<SessionId, uint32_t> stalled_;
  std::vector<uint32_t> gone_prefill_;
  // With preempt by: the waiting line and its indexes (above).
  PlaceIndex waiting_{&keys_};
  PlaceIndex holders_{&keys_};
  PlaceIndex lookups_{&keys_};
  PlaceIndex holder_lookups_{&keys_};
  bool holders_live_ = false;  // holders_ and holder_lookups_ are kept (HoldersLive)
  // Without preempt by: decode_'s holds, in its order (growing jobs'; 0
  // for the others), and how many of its jobs are not regular: a job is
  // regular when it grows its hold and is neither stalled nor reserved
  // (its next growth is asked when it joins). When all are, a step's
  // growths are decode_holds_'s first, asked without visiting the jobs.
  std::vector<uint32_t> decode_holds_;
  uint32_t irregular_ = 0;
  // The current batch's first jobs that JoinRegular made join (regular
  // decode jobs, which End knows are neither reserved nor recomputes), or
  // with preempt by FormPreempting's lead_ (decode jobs that grow, which
  // are never reserved there).
  size_t regular_in_batch_ = 0;
  // With preempt by: the batch's first jobs, the leading running decode
  // jobs granted at once (0 once a preemption changed the batch), and the
  // sum of their contexts.
  size_t lead_ = 0;
  double lead_context_ = 0;
  ObservedTokens observed_;  // End's
  // With preempt by: running jobs, and preempted ones not running again.
  std::vector<uint32_t> run_decode_;
  // The holds of run_decode_'s leading jobs that grow, in its order (a
  // job's hold and growing never change): FormPreempting's growths of a
  // step, rebuilt after run_decode_ changed (Insert and Remove say so).
  std::vector<uint32_t> lead_holds_;
  bool lead_holds_stale_ = true;
  // The lane: its jobs' slots (LaneList()'s first) and sessions, each
  // contiguous (the batch's first jobs, the tokens' sessions), and the
  // rest of what it keeps of each job. A job's entry and hold keep their
  // state as of the lane step it joined at; lane_clock_ - that steps later
  // it has that many units more content, that much less work, and (if
  // they observe tokens) its last token at lane_last_end_.
  struct LaneJob {
    uint32_t hold;
    bool sized;        // each unit grows its hold's size (else: within its amount)
    uint32_t residue;  // sized on a block pool: (content - joined) mod the block
    double last;       // its last token's time when it joined
    uint64_t joined;   // the lane step it joined at
    uint64_t finish;   // the lane step in which it completes
  };
  std::vector<uint32_t> lane_slots_;
  std::vector<SessionId> lane_sessions_;
  std::vector<LaneJob> lane_jobs_;
  uint64_t lane_clock_ = 0;       // lane steps, ever
  uint64_t lane_next_finish_ = 0; // the earliest of lane_finish_
  int64_t lane_content_ = 0;      // its jobs' contents, whole: their sum is exact
  int32_t lane_observation_ = -1; // every job's observation
  uint32_t lane_pool_ = 0;        // every job's hold's pool element
  uint32_t lane_units_ = 0;       // jobs whose units grow their hold's size
  // On a block pool (lane_grain_ > 0): the sized jobs by residue; those of
  // residue (-lane_clock_) mod the block take a block in the next step.
  uint64_t lane_grain_ = 0;
  std::vector<uint32_t> lane_residues_;
  uint32_t lane_fresh_ = 0;       // jobs that joined since its last step
  double lane_last_end_ = 0;      // its last step's end
  bool lane_stepping_ = false;    // in the step formed or running
  bool lane_started_ = false;     // every job of it has started its service
  std::vector<uint32_t> run_prefill_;
  std::vector<uint32_t> batch_;  // the current step's jobs
  std::vector<uint32_t> order_;  // scratch: the batch order being formed
  // Scratch of FormPlain's first pass: its decode jobs, the holds it grew,
  // the place of each among the jobs, and its content before.
  std::vector<uint32_t> candidates_, grow_holds_, grown_at_;
  std::vector<double> old_content_;
  StepVars vars_;           // the step being formed
  uint32_t unstarted_ = 0;  // jobs present whose service has not started
  std::vector<double> key_, best_key_;
  std::vector<Continued> continued_;  // jobs that completed at continued_time_
  double continued_time_ = -1;
  // With async_: the jobs that arrived during a step (or at its end, not
  // continuing one), not yet in the lists; the jobs that completed at
  // continued_time_ and how many of them went on as a new run here (the
  // others take seats); and each pool element those grew with the units
  // it had given back, ever, before their sessions went on.
  std::vector<uint32_t> late_;
  uint32_t finished_ = 0;
  uint32_t went_on_ = 0;
  uint32_t seats_ = 0;  // FormPreempting's seats taken from the waiting
  struct Released {
    uint32_t pool;
    double released;
  };
  std::vector<Released> released_;
  // The jobs that completed at continued_time_ growing a hold: what their
  // holds had, and when they became running. While a formation withholds
  // their units, they stand, as in vLLM's `running`, for victims
  // (TakeFinished).
  struct Finished {
    uint64_t serial;
    uint32_t pool;
    uint32_t hold;
    double units;
    double since;
  };
  std::vector<Finished> finished_jobs_;
  std::vector<uint64_t> went_on_serials_;
  // Per pool element, what FormAsync withholds, from its formation to the
  // next, and what End withholds until the formation that follows it;
  // the pools a formation changed (scratch).
  struct Withholding {
    uint32_t pool;
    double units;
    double pending;
  };
  std::vector<Withholding> withheld_;
  std::vector<uint32_t> touched_;
  Withholding& WithholdingOn(uint32_t pool) {
    for (Withholding& w : withheld_) {
      if (w.pool == pool) return w;
    }
    withheld_.push_back({pool, 0, 0});
    return withheld_.back();
  }
  double budget_ = 0;
  uint32_t blocked_slot_ = kNone;  // the waiting job whose growth did not fit
  double blocked_units_ = 0;
  bool forming_ = false;
  double work_ = 0;
  bool in_step_ = false;
  double step_end_ = 0;  // the end of the step in flight (in_step_)
  bool start_pending_ = false;
  uint64_t next_sequence_ = 0;
  uint64_t next_preemption_ = 0;
  uint64_t steps_ = 0;
  uint64_t batch_jobs_ = 0;
  double batch_tokens_ = 0;
  uint64_t preempted_ = 0;
  uint64_t preempted_total_ = 0;  // warmup included: the time series' count
  double recomputed_ = 0;
  double recomputed_step_ = 0;
};

}  // namespace serq::sim::step_internal

#endif  // SERQ_SIM_STATIONS_STAGE_STEP_H_
