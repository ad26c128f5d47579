// `lockstep` (docs/language.md §3.3): the elements of a step stage step
// together, as vLLM's data-parallel engines of a mixture-of-experts model
// do. vLLM keeps those engines in a "wave": once any of them has a request,
// every engine runs a forward pass at every step (the experts' all-to-all
// of each layer waits for all of them), and an engine with nothing
// scheduled runs a dummy batch of one decode token (DPEngineCoreProc's
// busy loop, execute_dummy_batch). So here:
//
// - a step of the group starts on every element at once: each forms its
//   batch as it would alone (at the group's start, after every other event
//   of that instant); when no element has a batch, the group is idle;
// - an element with no batch runs the dummy step: its tau is evaluated
//   with one decode job of context 1 (tokens, decode, seqs 1; decode_kv 0),
//   its jobs, if any, wait, and it is not busy;
// - every element's tau reads the group's figures, group_tokens (the sum of
//   the elements' tokens, a dummy's 1) and group_tokens_max (the largest);
// - the step lasts the longest tau, and ends on every element with a batch
//   at that time; the next step of the group starts after the last of them
//   has ended (the ends of one instant, then the start after every other
//   event of it).
//
// The group is a small object the elements own together; the first element
// carries the group's start event.
#include <algorithm>
#include <memory>
#include <vector>

#include "serq-sim/stations/stage.h"
#include "serq-sim/stations/stage_step.h"

namespace serq::sim {
namespace step_internal {

class StepGroup {
 public:
  void Add(StepStation* s) { members_.push_back(s); }

  void Request(StageHost& host) {
    if (pending_) return;
    pending_ = true;
    host.Schedule(host.now_ticks(), members_.front()->id(), StepStation::kStart,
                  /*end_of_instant=*/true);
  }

  void Start(StageHost& host) {
    pending_ = false;
    // A start asked during the group's step: the last end asks again.
    if (ending_ > 0) return;
    bool any = false;
    for (StepStation* m : members_) {
      m->batch_.clear();
      if (m->present() == 0) continue;
      if (!m->Form(host)) return Abandon();
      if (!m->batch_.empty()) {
        m->Gather();
        any = true;
      }
    }
    if (!any) return;
    double sum = 0, most = 0;
    for (StepStation* m : members_) {
      const double t = m->batch_.empty() ? 1 : m->vars_.tokens;
      sum += t;
      most = std::max(most, t);
    }
    double tau = 0;
    for (StepStation* m : members_) {
      double t;
      if (m->batch_.empty()) {
        StepVars dummy = Dummy();
        dummy.group_tokens = sum;
        dummy.group_tokens_max = most;
        if (!host.Tau(m->id(), dummy, &t)) return Abandon();
      } else {
        m->vars_.group_tokens = sum;
        m->vars_.group_tokens_max = most;
        if (!host.Tau(m->id(), m->vars_, &t)) return Abandon();
      }
      tau = std::max(tau, t);
    }
    end_ = ToSeconds(host.After(tau));  // each member's Launch schedules this tick
    for (StepStation* m : members_) {
      if (m->batch_.empty()) continue;
      m->Launch(host, tau);
      ++ending_;
    }
  }

  // A member's part of the group's step ended; after the last, the group's
  // next step is asked for if any member has a job (a member may have had
  // its first job arrive during the step, and asked then in vain).
  double StepEnd() const { return ending_ > 0 ? end_ : -1; }

  void Ended(StageHost& host) {
    if (--ending_ > 0) return;
    for (StepStation* m : members_) {
      if (m->present() > 0) return Request(host);
    }
  }

 private:
  // vLLM's dummy batch: one decode token (uniform_decode), on no KV.
  static StepVars Dummy() {
    static const StepJob kJob = {/*decode=*/true, /*tokens=*/1, /*context=*/1};
    StepVars v = StepVars::Of(kJob);
    v.prefill_jobs = 0;
    v.jobs = &kJob;
    v.job_count = 1;
    return v;
  }

  // A runtime error was reported: no element's batch runs.
  void Abandon() {
    for (StepStation* m : members_) m->Abandon();
  }

  std::vector<StepStation*> members_;
  bool pending_ = false;
  uint32_t ending_ = 0;  // the elements whose part of the group's step has not ended
  double end_ = 0;       // when the group's step in flight ends
};

void StepStation::RequestGroupStart(StageHost& host) { group_->Request(host); }
void StepStation::GroupStart(StageHost& host) { group_->Start(host); }
void StepStation::GroupStepEnded(StageHost& host) { group_->Ended(host); }
double StepStation::GroupStepEnd() const { return group_->StepEnd(); }

}  // namespace step_internal

void JoinLockstep(absl::Span<Station* const> stations) {
  auto group = std::make_shared<step_internal::StepGroup>();
  for (Station* s : stations) {
    auto* step = static_cast<step_internal::StepStation*>(s);
    group->Add(step);
    step->JoinGroup(group);
  }
}

}  // namespace serq::sim
