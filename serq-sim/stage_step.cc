// The step stage (stage_step.h says what it does): arrival, the formation
// of a batch without `preempt by`, the step and its end.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "serq-sim/stage.h"
#include "serq-sim/stage_step.h"

namespace serq::sim {
namespace step_internal {

void StepStation::Arrive(StageHost& host, const Job& job) {
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

bool StepStation::FormPlain(StageHost& host) {
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

void StepStation::Account(Entry& e, StepVars* vars, uint32_t* unstarted) {
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

void StepStation::AccountDecode(Entry& e, StepVars* vars, uint32_t* unstarted) {
  vars->decode += 1;
  double c = e.growing ? e.content : e.processed + 1;
  vars->context += c;
  vars->attention += c;
  e.taken = 0;
  *unstarted += !e.started;
}

void StepStation::Run(StageHost& host) {
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

void StepStation::End(StageHost& host, std::vector<SessionId>* done) {
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

}  // namespace step_internal

std::unique_ptr<Station> MakeStepStation(uint32_t id, double seqs, double tokens, bool preempt) {
  return std::make_unique<step_internal::StepStation>(id, seqs, tokens, preempt);
}

}  // namespace serq::sim
