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
// A job `growing P` (a decode run, or a prefill run: engine.md §1) takes
// the units its tokens fill when it joins a batch (as vLLM allocates a
// token's KV slot before the step): the host grows its hold by the
// tokens' units of content, the whole chunk or nothing. When they cannot
// be had, the job is stalled: its growth waits in the pool's line (growths
// go before holds waiting for admission) and the job is left out of
// batches until GrowthGranted, with its units then reserved for its next
// step.
//
// With `preempt by KEY` (engine.md §2) a growth never stalls. Jobs are
// running (from their first step until they complete or are preempted) or
// waiting; the batch is formed from the running jobs (decode, then
// prefill), then, if no preemption happened while forming, the waiting
// ones: the preempted (most recently preempted first), then those that
// never ran (decode, then prefill). A running job's growth that does not
// fit preempts running jobs growing the same pool element, in KEY order,
// until it fits, or the job itself when it is next (and then no later
// running job joins); a waiting job's growth that does not fit stops the
// admission of waiting jobs for this step. A preempted job's hold is
// emptied and it waits as a recompute: a prefill of its content plus one
// token (a decode job, which then has one decode token fewer left) or plus
// its remaining prefill (a prefill job). This is vLLM v1's scheduler
// (vllm/v1/core/sched/scheduler.py): docs/simulation.md says where.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "serq-sim/stage.h"

namespace serq::sim {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

class StepStation final : public Station {
 public:
  StepStation(uint32_t id, double seqs, double tokens, bool preempt)
      : Station(id), seqs_(seqs), tokens_(tokens), preempt_(preempt) {}

  void Arrive(StageHost& host, const Job& job) override {
    double now = host.now();
    uint32_t slot = NewEntry();
    Entry& e = slab_[slot];
    e = Entry();
    e.session = job.session;
    e.serial = job.serial;
    e.decode = job.mode == ir::Statement::Run::DECODE;
    e.growing = job.growing;
    e.hold = job.hold;
    e.pool = job.pool;
    e.observe = job.observe;
    e.remaining = job.work;
    e.content = job.content;
    e.arrival = now;
    e.sequence = next_sequence_++;
    e.key.assign(job.key.begin(), job.key.end());
    work_ += job.work;
    if (preempt_) {
      // The session's previous run on this stage completed at this very
      // instant (a decode right after its prefill): the same running job
      // goes on, keeping its `since` and its place among the running.
      if (continued_time_ == now) {
        for (const Continued& c : continued_) {
          if (c.serial != job.serial) continue;
          e.group = Group::kRunning;
          e.since = c.since;
          e.sequence = c.sequence;
          break;
        }
      }
      Insert(ListOf(e), slot);
    } else {
      Insert(e.decode ? decode_ : prefill_, slot);
    }
    SetPresent(now, present() + 1, in_step_);
    if (!in_step_) ScheduleStart(host);
  }

  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) override {
    if (tag == kStart) {
      start_pending_ = false;
      Start(host);
    } else {
      End(host, done);
    }
    return true;
  }

  void GrowthGranted(StageHost& host, SessionId session) override {
    for (std::vector<uint32_t>* list : {&decode_, &prefill_}) {
      for (uint32_t slot : *list) {
        Entry& e = slab_[slot];
        if (e.session != session || !e.stalled) continue;
        e.stalled = false;
        e.reserved = true;
        e.content += e.reserved_units;
        if (!in_step_) ScheduleStart(host);
        return;
      }
    }
    if (!in_step_) ScheduleStart(host);
  }

  void UnitsFreed(StageHost& host) override {
    if (!in_step_ && !forming_) ScheduleStart(host);
  }

  bool Blocked(SessionId* session, double* units) const override {
    if (blocked_slot_ == kNone || in_step_) return false;
    *session = slab_[blocked_slot_].session;
    *units = blocked_units_;
    return true;
  }

  uint32_t Busy() const override { return in_step_ ? batch_.size() : 0; }
  double Work(double) const override { return work_; }

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

  // What every step reads first (one cache line), then the rest.
  struct Entry {
    SessionId session = 0;
    uint32_t hold = 0;  // growing: its hold
    uint32_t pool = 0;  // and that hold's pool element
    bool decode = false;
    bool growing = false;
    bool stalled = false;   // its growth waits in its pool's line
    bool reserved = false;  // the units of its next chunk (or token) are granted
    bool started = false;   // it has been in a batch (its service started)
    bool observe = false;   // a decode run observing each token
    Group group = Group::kNew;
    // A recompute of a preempted decode job: its last step produces a
    // token, and `after` decode tokens follow.
    bool recompute_decode = false;
    bool recompute = false;  // a recompute prefill (for `recomputed`)
    bool looked_up = false;  // its hold's blocks were looked up (LookUp)
    double remaining = 0;
    double processed = 0;  // tokens done in this run (prefill chunks, decode tokens)
    double content = 0;    // growing: its hold's content, the reserved units included
    double chunk = 0;      // its tokens in the current step
    double taken = 0;      // units of content it took for the step being formed
    double after = 0;
    double reserved_units = 0;  // the units of the stalled (then reserved) chunk
    double arrival = 0;
    double since = 0;  // when it last became running
    uint64_t sequence = 0;
    uint64_t serial = 0;        // its session's
    uint64_t preempted_at = 0;  // preemption order: the most recent goes first
    std::vector<double> key;
  };

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
    return slab_.size() - 1;
  }

  bool Before(uint32_t a, uint32_t b) const {
    const Entry& x = slab_[a];
    const Entry& y = slab_[b];
    if (x.group == Group::kPreempted) return x.preempted_at > y.preempted_at;
    return ServedBefore(x.key, x.sequence, y.key, y.sequence);
  }

  // Keeps `list` in order: ascending key, then arrival (the preempted: the
  // most recently preempted first).
  void Insert(std::vector<uint32_t>& list, uint32_t slot) {
    const Entry& e = slab_[slot];
    if (e.key.empty() && e.group != Group::kPreempted &&
        (list.empty() || slab_[list.back()].sequence < e.sequence)) {
      list.push_back(slot);  // without serve by every key is empty: arrival order
      return;
    }
    auto at = std::upper_bound(list.begin(), list.end(), slot,
                               [this](uint32_t a, uint32_t b) { return Before(a, b); });
    list.insert(at, slot);
  }

  std::vector<uint32_t>& ListOf(const Entry& e) {
    switch (e.group) {
      case Group::kRunning: return e.decode ? run_decode_ : run_prefill_;
      case Group::kPreempted: return preempted_list_;
      default: return e.decode ? decode_ : prefill_;
    }
  }

  void Remove(std::vector<uint32_t>& list, uint32_t slot) {
    list.erase(std::find(list.begin(), list.end(), slot));
  }

  void ScheduleStart(StageHost& host) {
    if (start_pending_ || present() == 0) return;
    start_pending_ = true;
    host.Schedule(host.now(), id(), kStart, /*end_of_instant=*/true);
  }

  void Start(StageHost& host) {
    batch_.clear();
    blocked_slot_ = kNone;
    bool ok = preempt_ ? FormPreempting(host) : FormPlain(host);
    if (!ok || batch_.empty()) {
      batch_.clear();
      return;
    }
    Run(host);
  }

  // Without `preempt by`: decode jobs, then prefill jobs, in order.
  bool FormPlain(StageHost& host) {
    double budget = tokens_;
    // The step's variables and its unstarted jobs are kept in locals (in
    // registers) while the batch forms, and stored in vars_ at the end;
    // the same additions in the same order as Account on vars_.
    StepVars vars;
    uint32_t unstarted = 0;
    // The decode jobs that would join if every growth were granted at
    // once join in one pass, as if granted, their growths then asked in
    // one call (the common case: all granted). When one is not, the jobs
    // from it on are put back as they were (their content restored, not
    // recomputed) and the step's sums are added again over the jobs before
    // it, in the same order; those go the general way, one at a time, as
    // below. The same grants, in the same order, and the same sums, as
    // asking each.
    size_t first = 0;
    const size_t decodes = decode_.size();
    candidates_.resize(decodes);
    grow_holds_.resize(decodes);
    old_content_.resize(decodes);
    grew_.resize(decodes);
    uint32_t* candidates = candidates_.data();
    uint32_t* holds = grow_holds_.data();
    double* old_content = old_content_.data();
    uint8_t* grew = grew_.data();
    size_t nc = 0, nh = 0;
    {
      const uint32_t* order = decode_.data();
      Entry* slab = slab_.data();
      double k = 0;  // candidates so far (the batch is empty; budget is tokens_)
      for (; first < decodes; ++first) {
        if (k >= seqs_ || tokens_ - k < 1) break;
        Entry& e = slab[order[first]];
        if (e.stalled) continue;
        bool grows = e.growing && !e.reserved;
        grew[nc] = grows;
        if (grows) {
          holds[nh++] = e.hold;
          old_content[nc] = e.content;
          e.reserved = true;
          e.content += 1;
        }
        candidates[nc++] = order[first];
        k += 1;
        e.chunk = 1;
        budget -= 1;
        AccountDecode(e, &vars, &unstarted);
      }
    }
    size_t granted = nh == 0 ? 0 : host.GrowEach(absl::MakeConstSpan(holds, nh), 1);
    size_t joined = nc;
    if (granted < nh) {
      size_t g = 0;
      for (joined = 0; joined < nc; ++joined) {
        if (!grew[joined]) continue;
        if (g == granted) break;
        ++g;
      }
      for (size_t i = joined; i < nc; ++i) {
        if (!grew[i]) continue;
        Entry& e = slab_[candidates[i]];
        e.content = old_content[i];
        e.reserved = false;
      }
      vars = StepVars();
      unstarted = 0;
      budget = tokens_;
      for (size_t i = 0; i < joined; ++i) {
        budget -= 1;
        AccountDecode(slab_[candidates[i]], &vars, &unstarted);
      }
      first = std::find(decode_.begin(), decode_.end(), candidates[joined]) - decode_.begin();
    }
    batch_.assign(candidates, candidates + joined);
    for (size_t i = first; i < decode_.size(); ++i) {
      uint32_t slot = decode_[i];
      if (batch_.size() >= seqs_ || budget < 1) break;
      Entry& e = slab_[slot];
      if (e.stalled) continue;
      if (e.growing && !e.reserved) {
        switch (host.Grow(e.session, e.hold, 1)) {
          case StageHost::Growth::kGranted:
            e.reserved = true;
            e.content += 1;
            break;
          case StageHost::Growth::kStalled:
            e.stalled = true;
            e.reserved_units = 1;
            continue;
          case StageHost::Growth::kFailed:
            return false;
        }
      }
      e.chunk = 1;
      budget -= 1;
      batch_.push_back(slot);
      Account(e, &vars, &unstarted);
    }
    for (uint32_t slot : prefill_) {
      if (batch_.size() >= seqs_ || !(budget > 0)) break;
      Entry& e = slab_[slot];
      if (e.stalled) continue;
      if (e.growing) {
        if (e.reserved) {
          // Its chunk's units are granted: that chunk, whole, or nothing.
          if (e.reserved_units > budget) break;
          e.chunk = e.reserved_units;
        } else {
          if (!LookUp(host, e)) return false;
          e.chunk = std::min(e.remaining, budget);
          switch (host.Grow(e.session, e.hold, e.chunk)) {
            case StageHost::Growth::kGranted:
              e.content += e.chunk;
              break;
            case StageHost::Growth::kStalled:
              e.stalled = true;
              e.reserved_units = e.chunk;
              continue;
            case StageHost::Growth::kFailed:
              return false;
          }
        }
      } else {
        e.chunk = std::min(e.remaining, budget);
      }
      budget -= e.chunk;
      batch_.push_back(slot);
      Account(e, &vars, &unstarted);
    }
    vars_ = vars;
    unstarted_ = unstarted;
    return true;
  }

  // With `preempt by` (engine.md §2).
  bool FormPreempting(StageHost& host) {
    forming_ = true;
    bool ok = true;
    for (;;) {
      batch_.clear();
      budget_ = tokens_;
      bool preempted = false;
      // The running jobs, decode then prefill; a snapshot, as victims
      // leave the lists.
      order_.assign(run_decode_.begin(), run_decode_.end());
      order_.insert(order_.end(), run_prefill_.begin(), run_prefill_.end());
      // The leading running decode jobs growing their holds by a token:
      // their growths in one call, as far as they are granted at once
      // without a victim; the loop below goes on from the first that is
      // not (the same grants, in the same order, as GrowNow on each).
      size_t start = 0;
      {
        grow_holds_.clear();
        double b = budget_;
        size_t k = 0;
        for (; k < order_.size(); ++k) {
          const Entry& e = slab_[order_[k]];
          if (e.group != Group::kRunning || !e.decode || !e.growing) break;
          if (static_cast<double>(k) >= seqs_ || !(b >= 1)) break;
          grow_holds_.push_back(e.hold);
          b -= 1;
        }
        size_t granted = k == 0 ? 0 : host.GrowEachNow(grow_holds_, 1);
        for (; start < granted; ++start) {
          uint32_t slot = order_[start];
          Entry& e = slab_[slot];
          e.content += 1;
          e.taken = 1;
          e.chunk = 1;
          budget_ -= 1;
          batch_.push_back(slot);
        }
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
      // whose growth does not fit stops them (it preempts nothing).
      if (!preempted) {
        order_.clear();
        for (auto it = preempted_list_.begin(); it != preempted_list_.end(); ++it) {
          order_.push_back(*it);
        }
        order_.insert(order_.end(), decode_.begin(), decode_.end());
        order_.insert(order_.end(), prefill_.begin(), prefill_.end());
        size_t joined = batch_.size();
        for (uint32_t slot : order_) {
          if (batch_.size() >= seqs_) break;
          Entry& e = slab_[slot];
          bool joins;
          if (!LookUp(host, e, /*only_if_fits=*/true, &joins)) {
            ok = false;
            break;
          }
          double t = Tokens(e);
          if (!(t > 0)) continue;
          if (!joins) {
            blocked_slot_ = slot;
            blocked_units_ = t;
            break;
          }
          if (e.growing) {
            StageHost::Growth g = host.GrowNow(e.session, e.hold, t);
            if (g == StageHost::Growth::kFailed) {
              ok = false;
              break;
            }
            if (g == StageHost::Growth::kStalled) {
              blocked_slot_ = slot;
              blocked_units_ = t;
              break;
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
          Remove(ListOf(e), slot);
          e.group = Group::kRunning;
          e.since = host.now();
          Insert(ListOf(e), slot);
        }
      }
      // A batch that preemption left empty is formed again at once.
      if (batch_.empty() && preempted) continue;
      break;
    }
    forming_ = false;
    if (!ok) return false;
    if (batch_.empty() && blocked_slot_ != kNone) {
      host.WatchPool(slab_[blocked_slot_].pool, id());
    }
    if (!batch_.empty()) blocked_slot_ = kNone;
    return true;
  }

  // A prefill job growing a pool about to join with its hold's content 0
  // (a fresh hold, or one emptied by preemption) looks its blocks up once
  // (engine.md §3): the hit is content it need not compute. Without
  // `preempt by` a chunk that then does not fit stalls in the pool's line,
  // the hit kept. With it (`only_if_fits`, a waiting job), a job whose chunk
  // would not fit after the hit does not join: nothing is looked up, and
  // *joins is false (vLLM's scheduler touches the hit blocks only when the
  // request is allocated).
  bool LookUp(StageHost& host, Entry& e, bool only_if_fits = false, bool* joins = nullptr) {
    if (joins != nullptr) *joins = true;
    if (e.decode || !e.growing || e.looked_up || e.content != 0) return true;
    double hit;
    if (!host.Lookup(e.session, e.remaining, budget_, only_if_fits, &hit)) return false;
    if (hit < 0) {
      *joins = false;
      return true;
    }
    e.looked_up = true;
    e.content = hit;
    e.remaining -= hit;
    work_ -= hit;
    return true;
  }

  // The tokens job `e` would take in this step with the budget left.
  double Tokens(const Entry& e) const {
    if (e.decode) return budget_ >= 1 ? 1 : 0;
    return budget_ > 0 ? std::min(e.remaining, budget_) : 0;
  }

  // The next victim for a growth on pool element `pool`: the running job
  // growing that element with the smallest key; ties to the one that
  // became running later, then to the one later in the batch order.
  bool Victim(StageHost& host, uint32_t pool, uint32_t* victim) {
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

  void Preempt(StageHost& host, uint32_t slot, SessionId cause) {
    Entry& e = slab_[slot];
    Remove(ListOf(e), slot);  // a running job's list
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
    Insert(preempted_list_, slot);
    ++preempted_;
  }

  // Account for a decode job (its chunk is 1): t c - t (t - 1) / 2 with
  // t = 1 is c - 0, which is c to the bit.
  void AccountDecode(Entry& e, StepVars* vars, uint32_t* unstarted) {
    vars->decode += 1;
    double c = e.growing ? e.content : e.processed + 1;
    vars->context += c;
    vars->attention += c;
    e.taken = 0;
    *unstarted += !e.started;
  }

  // Adds job `e`, which joins the batch with its chunk, to the step's
  // variables.
  void Account(Entry& e, StepVars* vars, uint32_t* unstarted) {
    double t = e.chunk;
    double c;
    if (e.decode) {
      vars->decode += 1;
      // This step's token counts: its KV slot is the reserved unit.
      c = e.growing ? e.content : e.processed + 1;
    } else {
      vars->prefill += t;
      c = e.growing ? e.content : e.processed + t;
      if (e.recompute) recomputed_step_ += t;
    }
    vars->context += c;
    vars->attention += t * c - t * (t - 1) / 2;
    e.taken = 0;
    *unstarted += !e.started;
  }

  // Starts the step of the formed batch (FormPlain added its jobs to vars_
  // as they joined; a preempting formation, whose jobs may leave, here).
  void Run(StageHost& host) {
    double now = host.now();
    if (preempt_) {
      vars_ = StepVars();
      unstarted_ = 0;
      for (uint32_t slot : batch_) Account(slab_[slot], &vars_, &unstarted_);
    }
    StepVars& vars = vars_;
    uint32_t unstarted = unstarted_;
    vars.tokens = vars.prefill + vars.decode;
    vars.seqs = batch_.size();
    double tau;
    if (!host.Tau(id(), vars, &tau)) {
      batch_.clear();
      recomputed_step_ = 0;
      return;
    }
    in_step_ = true;
    ++steps_;
    batch_jobs_ += batch_.size();
    batch_tokens_ += vars.tokens;
    recomputed_ += recomputed_step_;
    recomputed_step_ = 0;
    SetPresent(now, present(), true);
    // The jobs in their first step start their service (a separate pass:
    // most steps have none, and the pass above stays free of calls).
    for (size_t k = 0; unstarted > 0 && k < batch_.size(); ++k) {
      Entry& e = slab_[batch_[k]];
      if (e.started) continue;
      e.started = true;
      --unstarted;
      BeginService(host, e.session, e.arrival);
    }
    host.Schedule(now + tau, id(), kEnd);
  }

  void End(StageHost& host, std::vector<SessionId>* done) {
    double now = host.now();
    in_step_ = false;
    uint32_t left = present();
    if (continued_time_ != now) {
      continued_.clear();
      continued_time_ = now;
    }
    // work_ in a local (a register) through the loop: the same
    // subtractions in the same order.
    double work = work_;
    for (uint32_t slot : batch_) {
      Entry& e = slab_[slot];
      // A decode job of fractional work w takes ceil(w) steps.
      double fall = std::min(e.chunk, e.remaining);
      e.remaining -= fall;
      e.processed += e.chunk;
      e.reserved = false;
      work -= fall;
      bool token = e.decode;
      if (e.remaining <= 0 && e.recompute_decode) {
        // The recompute's last step makes the token the decode job was
        // about to make; then its decode tokens left, if any.
        token = true;
        e.recompute_decode = false;
        e.recompute = false;
        if (e.after > 0) {
          Remove(run_prefill_, slot);
          e.decode = true;
          e.remaining = e.after;
          e.after = 0;
          Insert(run_decode_, slot);
        }
      } else if (e.remaining <= 0) {
        e.recompute = false;
      }
      if (token && e.observe) host.Token(e.session);
      if (e.remaining <= 0) {
        done->push_back(e.session);
        if (preempt_) continued_.push_back(Continued{e.serial, e.since, e.sequence});
        e.remaining = -1;
        if (gone_.size() < slab_.size()) gone_.resize(slab_.size(), 0);
        gone_[slot] = 1;  // marks it for removal below
        --left;
      }
    }
    work_ = work;
    batch_.clear();
    if (left < present()) {
      auto gone = [this](uint32_t slot) {
        if (!gone_[slot]) return false;
        gone_[slot] = 0;
        slab_[slot].key.clear();
        free_.push_back(slot);
        return true;
      };
      if (preempt_) {
        // Only running jobs take part in steps.
        auto drop = [&](std::vector<uint32_t>& list) {
          list.erase(std::remove_if(list.begin(), list.end(), gone), list.end());
        };
        drop(run_decode_);
        drop(run_prefill_);
      } else {
        decode_.erase(std::remove_if(decode_.begin(), decode_.end(), gone), decode_.end());
        prefill_.erase(std::remove_if(prefill_.begin(), prefill_.end(), gone), prefill_.end());
      }
    }
    // No rounding carries over an empty stage.
    if (left == 0) work_ = 0;
    SetPresent(now, left, false);
    ScheduleStart(host);
  }

  const double seqs_;    // inf: unbounded
  const double tokens_;  // inf: unbounded
  const bool preempt_;
  std::vector<Entry> slab_;
  std::vector<uint32_t> free_;
  std::vector<uint8_t> gone_;  // by slot: completed in the step ending
  // Without preempt by: every decode and prefill job present, in order.
  // With it: the jobs that never ran.
  std::vector<uint32_t> decode_;
  std::vector<uint32_t> prefill_;
  // With preempt by: running jobs, and preempted ones not running again.
  std::vector<uint32_t> run_decode_;
  std::vector<uint32_t> run_prefill_;
  std::vector<uint32_t> preempted_list_;
  std::vector<uint32_t> batch_;  // the current step's jobs
  std::vector<uint32_t> order_;  // scratch: the batch order being formed
  std::vector<uint32_t> candidates_, grow_holds_;  // scratch: FormPlain's decode jobs
  std::vector<double> old_content_;                // and their content before the pass
  std::vector<uint8_t> grew_;                      // whether the pass grew them
  StepVars vars_;           // the step being formed
  uint32_t unstarted_ = 0;  // its jobs in their first step
  std::vector<double> key_, best_key_;
  std::vector<Continued> continued_;  // jobs that completed at continued_time_
  double continued_time_ = -1;
  double budget_ = 0;
  uint32_t blocked_slot_ = kNone;  // the waiting job whose growth did not fit
  double blocked_units_ = 0;
  bool forming_ = false;
  double work_ = 0;
  bool in_step_ = false;
  bool start_pending_ = false;
  uint64_t next_sequence_ = 0;
  uint64_t next_preemption_ = 0;
  uint64_t steps_ = 0;
  uint64_t batch_jobs_ = 0;
  double batch_tokens_ = 0;
  uint64_t preempted_ = 0;
  double recomputed_ = 0;
  double recomputed_step_ = 0;
};

}  // namespace

std::unique_ptr<Station> MakeStepStation(uint32_t id, double seqs, double tokens, bool preempt) {
  return std::make_unique<StepStation>(id, seqs, tokens, preempt);
}

}  // namespace serq::sim
