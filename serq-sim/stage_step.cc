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
// A decode job `growing P` takes the unit its token fills when it joins a
// batch (as vLLM allocates a token's KV slot before the step): the host
// grows its hold by one unit of content. When the unit cannot be had, the
// job is stalled: its growth waits in the pool's line (growths go before
// holds waiting for admission) and the job is left out of batches until
// GrowthGranted, with its unit then reserved for its next step.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "serq-sim/stage.h"

namespace serq::sim {
namespace {

class StepStation final : public Station {
 public:
  StepStation(uint32_t id, double seqs, double tokens)
      : Station(id), seqs_(seqs), tokens_(tokens) {}

  void Arrive(StageHost& host, const Job& job) override {
    uint32_t slot = NewEntry();
    Entry& e = slab_[slot];
    e = Entry();
    e.session = job.session;
    e.decode = job.mode == ir::Statement::Run::DECODE;
    e.growing = e.decode && job.growing;
    e.remaining = job.work;
    e.content = job.content;
    e.arrival = host.now();
    e.sequence = next_sequence_++;
    e.key.assign(job.key.begin(), job.key.end());
    Insert(e.decode ? decode_ : prefill_, slot);
    work_ += job.work;
    SetPresent(host.now(), present() + 1, in_step_);
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
    for (uint32_t slot : decode_) {
      Entry& e = slab_[slot];
      if (e.session != session || !e.stalled) continue;
      e.stalled = false;
      e.reserved = true;
      e.content += 1;
      break;
    }
    if (!in_step_) ScheduleStart(host);
  }

  uint32_t Busy() const override { return in_step_ ? batch_.size() : 0; }
  double Work(double) const override { return work_; }

  void StartWindow(double now) override {
    Station::StartWindow(now);
    steps_ = 0;
    batch_jobs_ = 0;
    batch_tokens_ = 0;
  }

  void Report(double now, double window, results::StageStats* out) const override {
    Station::Report(now, window, out);
    out->set_steps(steps_);
    out->set_batch_jobs(batch_jobs_);
    // Tokens are whole numbers unless a run's work is not; the report's
    // field counts them, so a fractional sum is rounded.
    out->set_batch_tokens(static_cast<uint64_t>(std::llround(batch_tokens_)));
    if (std::isfinite(seqs_)) out->set_step_seqs(seqs_);
    if (std::isfinite(tokens_)) out->set_step_tokens(tokens_);
  }

 private:
  enum : uint32_t { kStart = 0, kEnd = 1 };

  struct Entry {
    SessionId session = 0;
    bool decode = false;
    bool growing = false;
    bool stalled = false;   // its growth waits in its pool's line
    bool reserved = false;  // the unit of its next token is granted
    bool started = false;   // it has been in a batch (its service started)
    double remaining = 0;
    double processed = 0;  // tokens done in this run (prefill chunks, decode tokens)
    double content = 0;    // growing: its hold's content, the reserved unit included
    double chunk = 0;      // its tokens in the current step
    double arrival = 0;
    uint64_t sequence = 0;
    std::vector<double> key;
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

  // Keeps `list` in order: ascending key, then arrival.
  void Insert(std::vector<uint32_t>& list, uint32_t slot) {
    const Entry& e = slab_[slot];
    if (e.key.empty()) {
      list.push_back(slot);  // without serve by every key is empty: arrival order
      return;
    }
    auto at = std::upper_bound(list.begin(), list.end(), slot, [this](uint32_t a, uint32_t b) {
      return ServedBefore(slab_[a].key, slab_[a].sequence, slab_[b].key, slab_[b].sequence);
    });
    list.insert(at, slot);
  }

  void ScheduleStart(StageHost& host) {
    if (start_pending_ || present() == 0) return;
    start_pending_ = true;
    host.Schedule(host.now(), id(), kStart, /*end_of_instant=*/true);
  }

  // Forms the batch and starts the step, or leaves the stage idle when no
  // job can take part (none present, or every one stalled).
  void Start(StageHost& host) {
    double now = host.now();
    batch_.clear();
    StepVars vars;
    double budget = tokens_;
    for (uint32_t slot : decode_) {
      if (batch_.size() >= seqs_ || budget < 1) break;
      Entry& e = slab_[slot];
      if (e.stalled) continue;
      if (e.growing && !e.reserved) {
        switch (host.Grow(e.session)) {
          case StageHost::Growth::kGranted:
            e.reserved = true;
            e.content += 1;
            break;
          case StageHost::Growth::kStalled:
            e.stalled = true;
            continue;
          case StageHost::Growth::kFailed:
            batch_.clear();
            return;
        }
      }
      e.chunk = 1;
      budget -= 1;
      vars.decode += 1;
      // This step's token counts: its KV slot is the reserved unit.
      vars.context += e.growing ? e.content : e.processed + 1;
      batch_.push_back(slot);
    }
    for (uint32_t slot : prefill_) {
      if (batch_.size() >= seqs_ || !(budget > 0)) break;
      Entry& e = slab_[slot];
      e.chunk = std::min(e.remaining, budget);
      budget -= e.chunk;
      vars.prefill += e.chunk;
      vars.context += e.processed + e.chunk;
      batch_.push_back(slot);
    }
    if (batch_.empty()) return;
    vars.tokens = vars.prefill + vars.decode;
    vars.seqs = batch_.size();
    double tau;
    if (!host.Tau(id(), vars, &tau)) {
      batch_.clear();
      return;
    }
    in_step_ = true;
    ++steps_;
    batch_jobs_ += batch_.size();
    batch_tokens_ += vars.tokens;
    SetPresent(now, present(), true);
    for (uint32_t slot : batch_) {
      Entry& e = slab_[slot];
      if (e.started) continue;
      e.started = true;
      BeginService(host, e.session, e.arrival);
    }
    host.Schedule(now + tau, id(), kEnd);
  }

  void End(StageHost& host, std::vector<SessionId>* done) {
    double now = host.now();
    in_step_ = false;
    uint32_t left = present();
    for (uint32_t slot : batch_) {
      Entry& e = slab_[slot];
      // A decode job of fractional work w takes ceil(w) steps.
      double fall = std::min(e.chunk, e.remaining);
      e.remaining -= fall;
      e.processed += e.chunk;
      e.reserved = false;
      work_ -= fall;
      if (e.remaining <= 0) {
        done->push_back(e.session);
        e.remaining = -1;  // marks it for removal below
        --left;
      }
    }
    batch_.clear();
    if (left < present()) {
      auto gone = [this](uint32_t slot) {
        if (slab_[slot].remaining >= 0) return false;
        slab_[slot].key.clear();
        free_.push_back(slot);
        return true;
      };
      decode_.erase(std::remove_if(decode_.begin(), decode_.end(), gone), decode_.end());
      prefill_.erase(std::remove_if(prefill_.begin(), prefill_.end(), gone), prefill_.end());
    }
    // No rounding carries over an empty stage.
    if (left == 0) work_ = 0;
    SetPresent(now, left, false);
    ScheduleStart(host);
  }

  const double seqs_;    // inf: unbounded
  const double tokens_;  // inf: unbounded
  std::vector<Entry> slab_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> decode_;   // present decode jobs, in order
  std::vector<uint32_t> prefill_;  // present prefill jobs, in order
  std::vector<uint32_t> batch_;    // the current step's jobs
  double work_ = 0;
  bool in_step_ = false;
  bool start_pending_ = false;
  uint64_t next_sequence_ = 0;
  uint64_t steps_ = 0;
  uint64_t batch_jobs_ = 0;
  double batch_tokens_ = 0;
};

}  // namespace

std::unique_ptr<Station> MakeStepStation(uint32_t id, double seqs, double tokens) {
  return std::make_unique<StepStation>(id, seqs, tokens);
}

}  // namespace serq::sim
