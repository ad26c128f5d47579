// The lane of a step stage (stage_step.h): its leading decode jobs (with
// `preempt by` the running ones; without, the first decode jobs while
// every one is regular), stepped in aggregate.
//
// Most steps of a decode engine are alike: every leading decode job gets
// its token's unit, makes one token, and has one token fewer to go. The
// lane does that without reading or writing the jobs' entries or their
// holds: a job and its hold keep the state they had when it joined the
// lane, and k lane steps later it has k units more content and k tokens
// fewer to make, and its last token at the lane's last step. What a step
// needs is kept beside, in the lane's order: the jobs' slots, holds and
// sessions (the batch's first jobs, and the tokens' sessions), when each
// joined and when it completes, and the sum of their contents (the step's
// context); the pool grows its used and loaded for all of them at once
// (Pools::GrowLane) and a hold is given its units when its job leaves.
//
// The figures are the same to the bit as one job at a time. A job joins
// only when its content and work are whole numbers below 2^52 (and the
// contents' sum stays below 2^52) and each unit grows its hold's size by
// one or by none: then a sum of contents, k times +1 and k times -1 are
// exact, in any order. Jobs join at the end of the lane when they join
// the list after it, and leave it when they complete; anything else that
// changes it (a job ahead of the lane's last, a growth not granted, a
// preemption, a job that cannot join) ends the lane (DissolveLane), its
// jobs' state written back, and the next formation builds it again.

#include <algorithm>
#include <cmath>
#include <vector>

#include "serq-sim/stations/stage.h"
#include "serq-sim/stations/stage_step.h"

namespace serq::sim::step_internal {
void StepStation::KeepLane(StageHost& host) {
  // The lane's jobs still the list's first, in order: only what follows
  // them is read.
  const std::vector<uint32_t>& list = LaneList();
  if (lane_slots_.size() > list.size() ||
      !std::equal(lane_slots_.begin(), lane_slots_.end(), list.begin())) {
    DissolveLane(host);
  }
}

void StepStation::SyncLane(StageHost& host, size_t k) {
  KeepLane(host);
  ExtendLane(host, k);
}

void StepStation::RefreshLead(StageHost& host) {
  KeepLane(host);
  lead_holds_.clear();
  for (const LaneJob& job : lane_jobs_) lead_holds_.push_back(job.hold);
  for (size_t i = lead_holds_.size(); i < run_decode_.size(); ++i) {
    const Entry& e = slab_[run_decode_[i]];
    if (!e.growing) break;
    lead_holds_.push_back(e.hold);
  }
  ExtendLane(host, std::min(lead_holds_.size(), running_decode_limit_));
  lead_holds_stale_ = false;
}

void StepStation::ExtendLane(StageHost& host, size_t k) {
  const size_t n = lane_slots_.size();
  if (k <= n || !lanes_) return;
  const std::vector<uint32_t>& list = LaneList();
  if (n == 0) {
    lane_next_finish_ = UINT64_MAX;
    lane_content_ = 0;
    lane_units_ = 0;
    lane_fresh_ = 0;
    lane_started_ = true;
    lane_observation_ = slab_[list[0]].observation;
    lane_pool_ = slab_[list[0]].pool;
    lane_grain_ = static_cast<uint64_t>(host.PoolGrain(lane_pool_));
    lane_residues_.assign(lane_grain_, 0);
  }
  // Every job of the lead (up to the limit) is in the lane, or none: a
  // lead partly in it would step through both ways. A job that cannot
  // join ends the lane, those added before it included.
  double contents = static_cast<double>(lane_content_);
  for (size_t i = n; i < k; ++i) {
    const uint32_t slot = list[i];
    const Entry& e = slab_[slot];
    contents += e.content;  // whole numbers: exact while below 2^52
    const bool joins = e.growing && !e.stalled && !e.reserved && ExactWhole(e.content) &&
                       ExactWhole(e.remaining) && e.remaining >= 1 &&
                       e.observation == lane_observation_ && e.pool == lane_pool_ &&
                       contents < kExactWhole;
    const int kind = joins ? host.LaneHold(e.hold, e.remaining) : -1;
    if (kind < 0) {
      DissolveLane(host);
      return;
    }
    // A job with w tokens to go makes its last in its w-th step.
    const uint64_t finish = lane_clock_ + static_cast<uint64_t>(e.remaining);
    lane_slots_.push_back(slot);
    lane_sessions_.push_back(e.session);
    // Its content before the lane step c is content + (c - joined): it
    // passes a block's end when that is a multiple of the block.
    uint32_t residue = 0;
    if (lane_grain_ > 0 && kind == 1) {
      const uint64_t g = lane_grain_;
      residue = static_cast<uint32_t>(
          (static_cast<uint64_t>(e.content) % g + g - lane_clock_ % g) % g);
      ++lane_residues_[residue];
    }
    lane_jobs_.push_back(LaneJob{e.hold, kind == 1, residue, e.last_token, lane_clock_, finish});
    lane_units_ += kind == 1;
    lane_next_finish_ = std::min(lane_next_finish_, finish);
    if (!e.started) lane_started_ = false;
  }
  lane_content_ = static_cast<int64_t>(contents);
  lane_fresh_ += static_cast<uint32_t>(k - n);
}

bool StepStation::GrowLane(StageHost& host, size_t k) {
  const size_t n = lane_slots_.size();
  const double context = static_cast<double>(lane_content_ + static_cast<int64_t>(n));
  // On a block pool the jobs that take a block this step: those whose
  // content is a multiple of the block.
  const uint32_t units =
      lane_grain_ > 0
          ? lane_residues_[(lane_grain_ - lane_clock_ % lane_grain_) % lane_grain_]
          : lane_units_;
  if (n != 0 && n == k && context < kExactWhole &&
      host.GrowLane(lane_pool_, units, static_cast<uint32_t>(n), /*behind_line=*/!preempt_)) {
    return true;
  }
  DissolveLane(host);
  return false;
}

double StepStation::StepLane() {
  // Each job's context is its content plus this step's unit: the sum of
  // whole numbers, exact (GrowLane keeps it below 2^52).
  lane_stepping_ = true;
  batch_.assign(lane_slots_.begin(), lane_slots_.end());
  return static_cast<double>(lane_content_ + static_cast<int64_t>(lane_slots_.size()));
}

void StepStation::EndLaneStep(StageHost& host, double now, double* work, uint32_t* left,
                              ObservedTokens::Writer* observed, std::vector<SessionId>* done) {
  const size_t n = lane_slots_.size();
  const uint64_t before = lane_clock_;
  lane_stepping_ = false;
  ++lane_clock_;
  lane_content_ += static_cast<int64_t>(n);
  // One token fewer each: n times -1. From at least n - 1/2 down, each
  // subtraction is exact (Sterbenz's lemma at the last), so their result
  // is the exact one; otherwise one at a time.
  double w = *work;
  if (w >= static_cast<double>(n) - 0.5 && w < kExactWhole) {
    w -= static_cast<double>(n);
  } else {
    for (size_t i = 0; i < n; ++i) w -= 1;
  }
  *work = w;
  if (lane_observation_ >= 0) {
    if (lane_fresh_ == 0) {
      // Every job's last token was the lane's last step's.
      observed->AddSame(lane_sessions_.data(), n, lane_observation_,
                        OnClock(now - lane_last_end_));
    } else {
      // The jobs that joined since measure their gap from their own last
      // token: runs of equal gaps.
      auto gap = [&](size_t i) {
        const LaneJob& job = lane_jobs_[i];
        return OnClock(now - (job.joined == before ? job.last : lane_last_end_));
      };
      size_t i = 0;
      while (i < n) {
        const double g = gap(i);
        size_t j = i + 1;
        while (j < n && SameBits(gap(j), g)) ++j;
        observed->AddSame(lane_sessions_.data() + i, j - i, lane_observation_, g);
        i = j;
      }
    }
  }
  lane_fresh_ = 0;
  lane_last_end_ = now;
  if (lane_clock_ != lane_next_finish_) return;
  // Jobs made their last token: they leave the lane and complete, in its
  // order (the batch's); the others close up.
  const bool observes = lane_observation_ >= 0;
  size_t kept = 0;
  uint64_t next = UINT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    const LaneJob& job = lane_jobs_[i];
    if (job.finish == lane_clock_) {
      const uint32_t slot = lane_slots_[i];
      Entry& e = slab_[slot];
      const double steps = static_cast<double>(lane_clock_ - job.joined);
      host.CatchUpHold(job.hold, steps);
      e.remaining -= steps;  // 0
      e.content += steps;
      if (observes) e.last_token = now;
      lane_content_ -= static_cast<int64_t>(e.content);
      lane_units_ -= job.sized;
      if (lane_grain_ > 0 && job.sized) --lane_residues_[job.residue];
      e.recompute = false;
      Done(e, slot, done);
      --*left;
      continue;
    }
    next = std::min(next, job.finish);
    lane_slots_[kept] = lane_slots_[i];
    lane_sessions_[kept] = lane_sessions_[i];
    lane_jobs_[kept] = job;
    ++kept;
  }
  lane_slots_.resize(kept);
  lane_sessions_.resize(kept);
  lane_jobs_.resize(kept);
  lane_next_finish_ = next;
}

void StepStation::DissolveLane(StageHost& host) {
  if (lane_slots_.empty()) return;
  const bool observes = lane_observation_ >= 0;
  // In a step being formed or running, its growths were granted: each job
  // has the unit as the eager formation's leading jobs have it.
  const double unit = lane_stepping_ ? 1 : 0;
  for (size_t i = 0; i < lane_slots_.size(); ++i) {
    Entry& e = slab_[lane_slots_[i]];
    const LaneJob& job = lane_jobs_[i];
    const uint64_t steps = lane_clock_ - job.joined;
    host.CatchUpHold(job.hold, static_cast<double>(steps) + unit);
    e.remaining -= static_cast<double>(steps);
    e.content += static_cast<double>(steps);
    e.content += unit;
    if (observes && steps > 0) e.last_token = lane_last_end_;
  }
  lane_slots_.clear();
  lane_sessions_.clear();
  lane_jobs_.clear();
  lane_units_ = 0;
  lane_grain_ = 0;
  lane_residues_.clear();
  lane_stepping_ = false;
  lead_holds_stale_ = true;
}

}  // namespace serq::sim::step_internal
