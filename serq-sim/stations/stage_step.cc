// The step stage (stage_step.h says what it does): arrival, the formation
// of a batch without `preempt by`, the step and its end.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "serq-sim/stations/stage.h"
#include "serq-sim/stations/stage_step.h"

namespace serq::sim {
namespace step_internal {
namespace {

// The first k = 0, 1, 2, ... at which a batch of k decode jobs takes no
// more (`full`: k >= seqs or tokens - k < 1, as FormPlain tests it, in
// floating point). Both sides only become true as k grows (a rounded
// subtraction is monotonic in k), so a bisection over the whole numbers up
// to 2^53 finds it; SIZE_MAX when there is none.
template <typename Full>
size_t FirstFull(Full full) {
  double lo = 0, hi = 9007199254740992.0;  // 2^53
  if (full(lo)) return 0;
  if (!full(hi)) return SIZE_MAX;
  while (hi - lo > 1) {  // full(hi), !full(lo)
    double mid = std::floor((lo + hi) / 2);
    (full(mid) ? hi : lo) = mid;
  }
  return static_cast<size_t>(hi);
}

size_t DecodeLimit(double seqs, double tokens) {
  return FirstFull([&](double k) { return k >= seqs || tokens - k < 1; });
}

// FormPreempting's test for its leading running decode jobs, k >= seqs or
// !(budget >= 1), with the budget tokens - k (exact when tokens is whole).
size_t RunningDecodeLimit(double seqs, double tokens) {
  return FirstFull([&](double k) { return k >= seqs || !(tokens - k >= 1); });
}

}  // namespace

StepStation::StepStation(uint32_t id, double seqs, double tokens, bool preempt, bool lanes,
                         bool figures, StepRules rules)
    : Station(id),
      seqs_(seqs),
      tokens_(tokens),
      chunk_(rules.chunk),
      reserve_prompt_(rules.reserve_prompt),
      async_(rules.async && preempt),
      recompute_last_(rules.recompute_last && preempt),
      preempt_(preempt),
      lanes_(lanes),
      figures_(figures),
      decode_limit_(DecodeLimit(seqs, tokens)),
      running_decode_limit_(RunningDecodeLimit(seqs, tokens)),
      budget_exact_(std::isinf(tokens) ||
                    (tokens == std::floor(tokens) && std::fabs(tokens) <= 9007199254740992.0)) {}

void StepStation::Arrive(StageHost& host, const Job& job) {
  double now = host.now();
  uint32_t slot = NewEntry();
  Entry& e = slab_[slot];
  e = Entry();
  e.session = job.session;
  serials_[slot] = job.serial;
  e.decode = job.mode == ir::Statement::Run::DECODE;
  e.growing = job.growing;
  e.hold = job.hold;
  e.pool = job.pool;
  e.observation = job.observation;
  e.remaining = job.work;
  e.content = job.content;
  e.arrival = now;
  e.last_token = now;
  e.sequence = next_sequence_++;
  keys_[slot].assign(job.key.begin(), job.key.end());
  work_ += job.work;
  ++unstarted_;
  // `queued`: vLLM's engine reads new requests between steps (and stamps
  // them queued then), so a job that comes during a step (the group's, with
  // `lockstep`) is taken in at its end; a run that continues the session's
  // job, which completed here at this instant, keeps the job's.
  bool continues = false;
  if (continued_time_ == now) {
    for (const Continued& c : continued_) continues = continues || c.serial == job.serial;
  }
  if (!continues) {
    const double end = group_ != nullptr ? GroupStepEnd() : in_step_ ? step_end_ : -1;
    host.Queued(job.session, end > now ? end : now);
  }
  if (preempt_) {
    // The session's previous run on this stage completed at this very
    // instant (a decode right after its prefill): the same running job
    // goes on, keeping its `since` and its place among the running.
    bool went_on = false;
    if (continued_time_ == now) {
      for (const Continued& c : continued_) {
        if (c.serial != job.serial) continue;
        e.group = Group::kRunning;
        e.since = c.since;
        e.sequence = c.sequence;
        went_on = true;
        ++went_on_;
        if (async_) went_on_serials_.push_back(job.serial);
        break;
      }
    }
    // A new job on received KV (a continued one is running: its hold's
    // content is this stage's work).
    e.received = recompute_last_ && !went_on && e.decode && e.growing && job.received;
    if (async_ && !went_on && (in_step_ || continued_time_ == now)) {
      // vLLM formed the next step before it knew of this job (async):
      // it waits for the one after (FormAsync).
      late_.push_back(slot);
    } else {
      Enlist(host, slot);
    }
  } else if (e.decode) {
    size_t at = Insert(decode_, slot);
    decode_holds_.insert(decode_holds_.begin() + at, e.growing ? e.hold : 0);
    if (!e.growing) ++irregular_;
  } else {
    Ready(slot);
  }
  SetPresent(now, present() + 1, in_step_);
  if (!in_step_) ScheduleStart(host);
}

size_t StepStation::JoinRegular(StageHost& host, double* context) {
  // The first decode jobs up to the limit; with none stalled, the same
  // candidates as JoinAsGranted's, and with none reserved or not growing,
  // the same holds, so the same call grants the same growths. Only the
  // granted jobs are touched (no content to put back).
  const size_t k = std::min(decode_.size(), decode_limit_);
  if (k > 0) {
    // The first k as a lane, when they can be one (stage_step_lane.cc).
    SyncLane(host, k);
    if (GrowLane(host, k)) {
      *context = StepLane();
      return k;
    }
  }
  size_t granted = k == 0 ? 0 : host.GrowEach(absl::MakeConstSpan(decode_holds_.data(), k), 1);
  const uint32_t* order = decode_.data();
  Entry* slab = slab_.data();
  double sum = 0;
  for (size_t i = 0; i < granted; ++i) {
    Entry& e = slab[order[i]];
    e.content += 1;
    sum += e.content;
  }
  *context = sum;
  batch_.assign(order, order + granted);
  return granted;
}

size_t StepStation::JoinAsGranted(StageHost& host, double* context, size_t* next) {
  // The jobs from the first not granted on are put back as they were
  // (their content restored, not recomputed) and the context is added
  // again over the jobs before it, in the same order; those go the general
  // way, one at a time (FormPlain). The same grants, in the same order, and
  // the same sums, as asking each.
  size_t first = 0;
  const size_t decodes = decode_.size();
  candidates_.resize(decodes);
  grow_holds_.resize(decodes);
  grown_at_.resize(decodes);
  old_content_.resize(decodes);
  uint32_t* candidates = candidates_.data();
  uint32_t* holds = grow_holds_.data();
  uint32_t* grown_at = grown_at_.data();
  double* old_content = old_content_.data();
  size_t nc = 0, nh = 0;
  double sum = 0;
  {
    const uint32_t* order = decode_.data();
    Entry* slab = slab_.data();
    const size_t most = decode_limit_;
    for (; first < decodes && nc < most; ++first) {
      const uint32_t slot = order[first];
      Entry& e = slab[slot];
      if (e.stalled) continue;
      double c;
      if (e.growing) {
        if (!e.reserved) {
          holds[nh] = e.hold;
          grown_at[nh] = nc;
          old_content[nh] = e.content;
          ++nh;
          e.content += 1;
        }
        c = e.content;
      } else {
        c = e.processed + 1;
      }
      sum += c;
      candidates[nc++] = slot;
    }
  }
  size_t granted = nh == 0 ? 0 : host.GrowEach(absl::MakeConstSpan(holds, nh), 1);
  size_t joined = nc;
  if (granted < nh) {
    joined = grown_at[granted];
    for (size_t g = granted; g < nh; ++g) slab_[candidates[grown_at[g]]].content = old_content[g];
    sum = 0;
    for (size_t i = 0; i < joined; ++i) {
      const Entry& e = slab_[candidates[i]];
      sum += e.growing ? e.content : e.processed + 1;
    }
    first = std::find(decode_.begin(), decode_.end(), candidates[joined]) - decode_.begin();
  }
  *context = sum;
  *next = first;
  batch_.assign(candidates, candidates + joined);
  return joined;
}

bool StepStation::FormPlain(StageHost& host) {
  double budget = tokens_;
  // The step's variables are kept in locals (in registers) while the batch
  // forms, and stored in vars_ at the end; the same additions in the same
  // order as Account on vars_.
  StepVars vars;
  // The decode jobs that would join if every growth were granted at once
  // join first, their growths asked in one call (the common case: all
  // granted); from the first not granted on, the general way below.
  //
  // Those first jobs keep only what differs from job to job. They are the
  // batch's first, so the step's decode is their count (integer additions
  // from 0, exact) and its attention their contexts' sum, the same
  // additions as context's (t c - t (t - 1) / 2 is c for t = 1). A grown
  // job is not marked reserved: End clears the mark of every job of the
  // batch, and nothing reads it in between. A decode job's chunk is 1,
  // which Account and End know, so it is not stored.
  double context = 0;
  size_t first, joined;
  if (irregular_ == 0) {
    joined = first = JoinRegular(host, &context);
    regular_in_batch_ = joined;
  } else {
    DissolveLane(host);  // JoinAsGranted reads every decode job's entry
    joined = JoinAsGranted(host, &context, &first);
    regular_in_batch_ = 0;
  }
  vars.decode = static_cast<double>(joined);
  vars.context = context;
  vars.attention = context;
  if (budget_exact_) {
    budget -= static_cast<double>(joined);  // tokens_ is whole (or inf): exact
  } else {
    for (size_t i = 0; i < joined; ++i) budget -= 1;
  }
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
          ++irregular_;  // regular until now: growing, neither stalled nor reserved
          break;
        case StageHost::Growth::kStalled:
          e.stalled = true;
          e.reserved_units = 1;
          stalled_[e.session] = slot;
          ++irregular_;
          continue;
        case StageHost::Growth::kFailed:
          return false;
      }
    }
    e.chunk = 1;
    budget -= 1;
    batch_.push_back(slot);
    Account(e, &vars);
  }
  // The prefill jobs not stalled (ready_), in order: each one joins,
  // stalls (and leaves ready_) or ends the batch, so the walk is as long
  // as what it changes. An iterator is stale once ready_ changed (a stall
  // here, a growth granted meanwhile): the next is then found after the
  // last one's place.
  PlaceIndex::Iterator it = ready_.begin();
  Place at;
  uint64_t version = ready_.version();
  for (bool first = true;; first = false) {
    if (!first) it = version == ready_.version() ? std::next(it) : ready_.UpperBound(at);
    if (PlaceIndex::Done(it)) break;
    if (batch_.size() >= seqs_ || !(budget > 0)) break;
    at = *it;
    version = ready_.version();
    const uint32_t slot = at.slot;
    Entry& e = slab_[slot];
    if (e.growing) {
      if (e.reserved) {
        // Its chunk's units are granted: that chunk, whole, or nothing.
        if (e.reserved_units > budget) break;
        e.chunk = e.reserved_units;
      } else {
        if (!LookUp(host, e)) return false;
        e.chunk = std::min({e.remaining, budget, chunk_});
        switch (host.Grow(e.session, e.hold, e.chunk)) {
          case StageHost::Growth::kGranted:
            e.content += e.chunk;
            break;
          case StageHost::Growth::kStalled:
            e.stalled = true;
            e.reserved_units = e.chunk;
            stalled_[e.session] = slot;
            Unready(slot);
            continue;
          case StageHost::Growth::kFailed:
            return false;
        }
      }
    } else {
      e.chunk = std::min({e.remaining, budget, chunk_});
    }
    budget -= e.chunk;
    batch_.push_back(slot);
    Account(e, &vars);
  }
  vars_.SetBatch(vars);
  return true;
}

void StepStation::Figures(StepVars* vars) {
  // Without a lane every job's entry is up to date when the step starts:
  // its content (growing) or the tokens it processed before, as Account
  // read them.
  jobs_.clear();
  StepVars zero;
  zero.SetBatch(*vars);
  *vars = zero;  // the figures gathered below from 0, the batch's sums kept
  uint32_t job_count_decode = 0;
  for (uint32_t slot : batch_) {
    const Entry& e = slab_[slot];
    StepJob job;
    job.decode = e.decode;
    job.tokens = e.decode ? 1 : e.chunk;
    job.context = e.growing ? e.content : e.processed + job.tokens;
    const double kv = job.context - job.tokens;
    if (e.decode) {
      // A kind's first job sets its minima (they are 0 with no job).
      if (job_count_decode == 0) {
        vars->decode_kv_min = kv;
        vars->decode_context_min = job.context;
      }
      vars->decode_kv_min = std::min(vars->decode_kv_min, kv);
      vars->decode_context_min = std::min(vars->decode_context_min, job.context);
      ++job_count_decode;
      vars->decode_kv += kv;
      vars->decode_kv_max = std::max(vars->decode_kv_max, kv);
      vars->decode_context += job.context;
      vars->decode_context_max = std::max(vars->decode_context_max, job.context);
    } else {
      if (vars->prefill_jobs == 0) {
        vars->prefill_kv_min = kv;
        vars->prefill_context_min = job.context;
      }
      vars->prefill_kv_min = std::min(vars->prefill_kv_min, kv);
      vars->prefill_context_min = std::min(vars->prefill_context_min, job.context);
      vars->prefill_jobs += 1;
      vars->prefill_kv += kv;
      vars->prefill_kv_max = std::max(vars->prefill_kv_max, kv);
      vars->prefill_context += job.context;
      vars->prefill_context_max = std::max(vars->prefill_context_max, job.context);
    }
    jobs_.push_back(job);
  }
  vars->jobs = jobs_.data();
  vars->job_count = jobs_.size();
}

void StepStation::Account(Entry& e, StepVars* vars) {
  double c;
  if (e.decode) {
    vars->decode += 1;
    // This step's token counts: its KV slot is the reserved unit. Its
    // chunk is 1: t c - t (t - 1) / 2 is c - 0, c to the bit.
    c = e.growing ? e.content : e.processed + 1;
    vars->context += c;
    vars->attention += c;
  } else {
    double t = e.chunk;
    vars->prefill += t;
    c = e.growing ? e.content : e.processed + t;
    if (e.recompute) recomputed_step_ += t;
    vars->context += c;
    vars->attention += t * c - t * (t - 1) / 2;
  }
  e.taken = 0;
}

void StepStation::Gather() {
  if (preempt_) {
    // The leading decode jobs FormPreempting summed (lead_, when no
    // preemption took one out): the same additions, from 0, as Account
    // on each (decode one each, exact; attention c each, as context), so
    // Account goes on from the first after them. Their `taken` is not
    // reset: it is only read (Preempt) for a job of the batch being
    // formed, which sets it first.
    vars_.ClearBatch();
    size_t from = lead_;
    if (from > 0) {
      vars_.decode = static_cast<double>(from);
      vars_.context = lead_context_;
      vars_.attention = lead_context_;
    }
    for (size_t k = from; k < batch_.size(); ++k) Account(slab_[batch_[k]], &vars_);
  }
  StepVars& vars = vars_;
  vars.tokens = vars.prefill + vars.decode;
  vars.seqs = batch_.size();
  if (figures_) Figures(&vars);
}

void StepStation::Launch(StageHost& host, double tau) {
  const double now = host.now();
  const StepVars& vars = vars_;
  in_step_ = true;
  // The step's end on the clock's ticks: tau rounded to whole ticks, added
  // exactly (StageHost::After), so a run of steps meets an arrival on the
  // same tick however many steps led there.
  const Ticks end = host.After(tau);
  step_end_ = ToSeconds(end);
  ++steps_;
  batch_jobs_ += batch_.size();
  batch_tokens_ += vars.tokens;
  recomputed_ += recomputed_step_;
  recomputed_step_ = 0;
  SetPresent(now, present(), true);
  // The jobs in their first step start their service (a separate pass,
  // only while some job present has not started: most steps have none).
  // A lane whose jobs have all started (after its first step) is passed.
  size_t first = 0;
  if (lane_stepping_ && lane_started_) first = lane_slots_.size();
  lane_started_ = lane_started_ || lane_stepping_;
  for (size_t k = first; unstarted_ > 0 && k < batch_.size(); ++k) {
    Entry& e = slab_[batch_[k]];
    if (e.started) continue;
    e.started = true;
    --unstarted_;
    BeginService(host, e.session, e.arrival);
  }
  host.Schedule(end, id(), kEnd);
}

void StepStation::Done(Entry& e, uint32_t slot, std::vector<SessionId>* done) {
  done->push_back(e.session);
  continued_.push_back(Continued{serials_[slot], e.since, e.sequence});
  if (async_ && e.growing) {
    // Its pool's units given back from now on, at this instant, are not
    // free to the step formed now (FormAsync); the count is read at the
    // end of End, before the sessions go on.
    bool known = false;
    for (const Released& r : released_) known = known || r.pool == e.pool;
    if (!known) released_.push_back(Released{e.pool, 0});
    finished_jobs_.push_back(Finished{serials_[slot], e.pool, e.hold, 0, e.since});
  }
  e.remaining = -1;
  if (!preempt_ && !e.decode) gone_prefill_.push_back(slot);  // End takes it out of ready_
  if (gone_.size() < slab_.size()) gone_.resize(slab_.size(), 0);
  gone_[slot] = 1;  // marks it for removal at the end of End
}

// Inlined into both of End's loops: work and left stay in registers.
__attribute__((always_inline)) inline void StepStation::EndDecodeStep(
    Entry& e, uint32_t slot, double now, double* work, uint32_t* left,
    ObservedTokens::Writer* observed, std::vector<SessionId>* done) {
  // Its chunk is 1 (FormPlain does not store it), and a decode job is no
  // recompute. A decode job of fractional work w takes ceil(w) steps.
  double fall = std::min(1.0, e.remaining);
  e.remaining -= fall;
  *work -= fall;
  if (e.observation >= 0) Observe(e, now, observed);
  if (e.remaining > 0) return;
  e.recompute = false;
  Done(e, slot, done);
  --*left;
}

void StepStation::End(StageHost& host, std::vector<SessionId>* done) {
  double now = host.now();
  in_step_ = false;
  uint32_t left = present();
  if (continued_time_ != now) {
    continued_.clear();
    continued_time_ = now;
  }
  if (async_) {  // Done names the pools and jobs of this step's
    released_.clear();
    finished_jobs_.clear();
    went_on_serials_.clear();
  }
  // work_ in a local (a register) through the loop: the same
  // subtractions in the same order.
  double work = work_;
  // JoinRegular's jobs: decode jobs that grow, not reserved (chunk 1, no
  // recompute, their processed not kept).
  const uint32_t* batch = batch_.data();
  Entry* slab = slab_.data();
  const size_t regular = regular_in_batch_;
  // The observed tokens, at most one a job, in batch order.
  ObservedTokens::Writer observed = observed_.Begin(batch_.size(), host.TokenSessions());
  if (lane_stepping_) {
    EndLaneStep(host, now, &work, &left, &observed, done);  // the lane is the first `regular`
  } else {
    for (size_t i = 0; i < regular; ++i) {
      const uint32_t slot = batch[i];
      EndDecodeStep(slab[slot], slot, now, &work, &left, &observed, done);
    }
  }
  for (size_t i = regular; i < batch_.size(); ++i) {
    const uint32_t slot = batch_[i];
    Entry& e = slab_[slot];
    bool token;
    if (e.decode) {
      // Reserved (granted alone, or after a stall): regular again.
      if (!preempt_ && e.reserved) --irregular_;
      e.processed += 1;
      e.reserved = false;
      EndDecodeStep(e, slot, now, &work, &left, &observed, done);
      continue;
    }
    double fall = std::min(e.chunk, e.remaining);
    e.remaining -= fall;
    e.processed += e.chunk;
    e.reserved = false;
    work -= fall;
    token = false;
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
    if (token && e.observation >= 0) Observe(e, now, &observed);
    if (e.remaining <= 0) {
      Done(e, slot, done);
      --left;
    }
  }
  work_ = work;
  batch_.clear();
  regular_in_batch_ = 0;
  // The step's tokens, in batch order, in one call: nothing above reads
  // what recording them changes.
  observed_.End(observed);
  if (!observed_.empty()) host.Tokens(observed_.sessions(), observed_.runs());
  if (left < present()) {
    auto gone = [this](uint32_t slot) {
      if (!gone_[slot]) return false;
      gone_[slot] = 0;
      keys_[slot].clear();
      free_.push_back(slot);
      return true;
    };
    if (preempt_) {
      // Only running jobs take part in steps.
      auto drop = [&](std::vector<uint32_t>& list) {
        list.erase(std::remove_if(list.begin(), list.end(), gone), list.end());
      };
      size_t running_decode = run_decode_.size();
      drop(run_decode_);
      if (run_decode_.size() != running_decode) RunningDecodeChanged();
      drop(run_prefill_);
    } else {
      // decode_holds_ in step (a job not growing leaves the irregular).
      size_t kept = 0;
      for (size_t i = 0; i < decode_.size(); ++i) {
        uint32_t slot = decode_[i];
        bool growing = slab_[slot].growing;
        if (gone(slot)) {
          if (!growing) --irregular_;
          continue;
        }
        decode_[kept] = slot;
        decode_holds_[kept] = decode_holds_[i];
        ++kept;
      }
      decode_.resize(kept);
      decode_holds_.resize(kept);
      for (uint32_t slot : gone_prefill_) {  // in batch order, as they were in ready_
        Unready(slot);
        gone(slot);
      }
      gone_prefill_.clear();
    }
  }
  if (async_) {
    finished_ = present() - left;
    went_on_ = 0;
    for (Released& r : released_) r.released = host.Released(r.pool);
    if (left == 0) {
      ReleaseWithheld(host);  // no step follows: nothing to withhold from
    } else {
      // What the completed jobs' holds have is withheld from now on, from
      // the pools' lines too, before their sessions give it back: vLLM
      // frees it for the step after the next (FormAsync sets it to what
      // they gave back).
      for (Finished& f : finished_jobs_) {
        f.units = host.HoldUnits(f.hold);
        WithholdingOn(f.pool).pending += f.units;
      }
      for (const Withholding& w : withheld_) host.Withhold(w.pool, w.units + w.pending);
    }
  }
  // No rounding carries over an empty stage.
  if (left == 0) work_ = 0;
  SetPresent(now, left, false);
  if (group_ != nullptr) return GroupStepEnded(host);
  ScheduleStart(host);
}

}  // namespace step_internal

std::unique_ptr<Station> MakeStepStation(uint32_t id, double seqs, double tokens, bool preempt,
                                         bool lanes, bool figures, StepRules rules) {
  return std::make_unique<step_internal::StepStation>(id, seqs, tokens, preempt,
                                                      lanes && !figures, figures, rules);
}

}  // namespace serq::sim
