#include "serq-sim/flow.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "absl/container/inlined_vector.h"

namespace serq::flow {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A broken precondition is a bug in the caller (the simulator checks the
// program before it runs), so it stops the process with a message instead
// of returning an error on the hot path.
[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "serq::flow: internal error: %s\n", what);
  std::abort();
}

inline void Require(bool ok, const char* what) {
  if (!ok) [[unlikely]]
    Fail(what);
}

// A binary min-heap of small integer ids keyed by (key, tie), with each id's
// position kept so that a key can change in place. The tie makes the order
// total, so the pop order never depends on the order of insertion.
class IndexedHeap {
 public:
  void Grow(int ids) {
    if (static_cast<int>(pos_.size()) < ids) pos_.resize(ids, -1);
  }
  bool empty() const { return heap_.empty(); }
  bool Contains(int id) const { return pos_[id] >= 0; }
  int Top() const { return heap_[0].id; }
  double TopKey() const { return heap_[0].key; }

  void Push(int id, double key, uint64_t tie) {
    heap_.push_back({key, tie, id});
    SiftUp(static_cast<int>(heap_.size()) - 1, heap_.back());
  }
  void Update(int id, double key) {
    int i = pos_[id];
    Entry e = heap_[i];
    double old = e.key;
    e.key = key;
    if (key < old) {
      SiftUp(i, e);
    } else {
      SiftDown(i, e);
    }
  }
  void Pop() { RemoveAt(0); }
  void Remove(int id) { RemoveAt(pos_[id]); }

 private:
  struct Entry {
    double key;
    uint64_t tie;
    int id;
  };
  static bool Less(const Entry& a, const Entry& b) {
    return a.key < b.key || (a.key == b.key && a.tie < b.tie);
  }
  void Place(int i, const Entry& e) {
    heap_[i] = e;
    pos_[e.id] = i;
  }
  // Both sifts move a hole and write `e` once, where it belongs.
  void SiftUp(int i, Entry e) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!Less(e, heap_[parent])) break;
      Place(i, heap_[parent]);
      i = parent;
    }
    Place(i, e);
  }
  void SiftDown(int i, Entry e) {
    int n = static_cast<int>(heap_.size());
    for (;;) {
      int child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
      if (!Less(heap_[child], e)) break;
      Place(i, heap_[child]);
      i = child;
    }
    Place(i, e);
  }
  void RemoveAt(int i) {
    pos_[heap_[i].id] = -1;
    Entry last = heap_.back();
    heap_.pop_back();
    if (i == static_cast<int>(heap_.size())) return;
    if (i > 0 && Less(last, heap_[(i - 1) / 2])) {
      SiftUp(i, last);
    } else {
      SiftDown(i, last);
    }
  }

  std::vector<Entry> heap_;
  std::vector<int> pos_;
};

// Flow f holds stage `stage`, where it is member number `pos`.
struct Incidence {
  int stage;
  int pos;
};

// A stage's member: flow `flow`, whose incidence number `slot` is this stage.
// The two indices make removing a flow from a stage O(1) (swap with last).
struct Member {
  int flow;
  int slot;
};

struct FlowRecord {
  absl::InlinedVector<Incidence, 4> stages;
  uint64_t seq = 0;   // start order: ties in NextEnd, order of FinishDue
  double t0 = 0;      // the last rate change (or the start)
  double rem0 = 0;    // the remaining work at t0
  double rate = 0;    // 0 until the first solve
  double end = kInf;  // t0 + rem0 / rate
  bool active = false;
};

struct StageRecord {
  double capacity = 0;
  std::vector<Member> members;
  double carried = 0;           // sum of the members' rates
  double since = 0;             // the integrals run up to here
  double present_integral = 0;  // of n_s dt
  double carried_integral = 0;  // of carried dt (divided by phi when read)
};

}  // namespace

class FlowSolver::Impl {
 public:
  Impl(Policy policy, Scope scope) : policy_(policy), scope_(scope) {}

  int AddStage(double capacity) {
    Require(capacity > 0 && std::isfinite(capacity), "stage capacity must be finite and > 0");
    Require(flows_.empty(), "stages are added before the first flow");
    int id = static_cast<int>(stages_.size());
    stages_.push_back(StageRecord{capacity});
    stage_mark_.push_back(0);
    dirty_mark_.push_back(false);
    unfrozen_.push_back(0);
    frozen_sum_.push_back(0);
    fill_.Grow(id + 1);
    return id;
  }

  int StageCount() const { return static_cast<int>(stages_.size()); }

  int Start(double now, absl::Span<const int> stages, double work) {
    Require(now >= clock_, "time went backwards");
    Require(!stages.empty(), "a flow holds at least one stage");
    Require(work > 0 && std::isfinite(work), "flow work must be finite and > 0");
    for (size_t i = 0; i < stages.size(); ++i) {
      Require(stages[i] >= 0 && stages[i] < StageCount(), "no such stage");
      for (size_t j = 0; j < i; ++j) Require(stages[i] != stages[j], "a flow holds a stage twice");
    }
    if (pending_ && now > clock_) Settle();
    clock_ = now;

    int id;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
    } else {
      id = static_cast<int>(flows_.size());
      flows_.emplace_back();
      flow_mark_.push_back(0);
      flow_frozen_.push_back(0);
      new_rate_.push_back(0);
      ends_.Grow(id + 1);
    }
    FlowRecord& flow = flows_[id];
    flow.stages.clear();
    for (int s : stages) {
      StageRecord& stage = stages_[s];
      Advance(stage, now);
      flow.stages.push_back({s, static_cast<int>(stage.members.size())});
      stage.members.push_back({id, static_cast<int>(flow.stages.size()) - 1});
      MarkDirty(s);
    }
    flow.seq = next_seq_++;
    flow.t0 = now;
    flow.rem0 = work;
    flow.rate = 0;
    flow.end = kInf;
    flow.active = true;
    ++flow_count_;
    pending_ = true;
    return id;
  }

  std::optional<std::pair<double, int>> NextEnd() {
    Settle();
    if (ends_.empty()) return std::nullopt;
    return std::make_pair(ends_.TopKey(), ends_.Top());
  }

  uint64_t version() {
    Settle();
    return version_;
  }

  std::vector<int> FinishDue(double now) {
    Require(now >= clock_, "time went backwards");
    Settle();
    clock_ = now;
    std::vector<int> done;
    double due = now + FlowSolver::kEndTolerance * std::fabs(now);
    while (!ends_.empty() && ends_.TopKey() <= due) {
      done.push_back(ends_.Top());
      ends_.Pop();
    }
    if (done.empty()) return done;
    if (done.size() > 1) {
      std::sort(done.begin(), done.end(),
                [this](int a, int b) { return flows_[a].seq < flows_[b].seq; });
    }
    for (int f : done) {
      FlowRecord& flow = flows_[f];
      for (const Incidence& inc : flow.stages) {
        StageRecord& stage = stages_[inc.stage];
        Advance(stage, now);
        // Swap the last member into the hole and repoint its incidence.
        Member moved = stage.members.back();
        stage.members[inc.pos] = moved;
        flows_[moved.flow].stages[moved.slot].pos = inc.pos;
        stage.members.pop_back();
        MarkDirty(inc.stage);
      }
      flow.stages.clear();
      flow.active = false;
      flow.rate = 0;
      flow.end = kInf;
      --flow_count_;
    }
    // Reused last-in first-out; pushed in reverse so the earliest-started
    // of these ids is handed out first.
    for (auto it = done.rbegin(); it != done.rend(); ++it) free_ids_.push_back(*it);
    pending_ = true;
    return done;
  }

  bool InProgress(int f) const { return f >= 0 && f < static_cast<int>(flows_.size()) && flows_[f].active; }

  const FlowRecord& Flow(int f) {
    Require(InProgress(f), "no such flow in progress");
    Settle();
    return flows_[f];
  }

  double Remaining(int f, double now) {
    const FlowRecord& flow = Flow(f);
    Require(now >= flow.t0, "remaining work asked before the last rate change");
    return std::max(0.0, flow.rem0 - flow.rate * (now - flow.t0));
  }

  int FlowCount() const { return flow_count_; }

  const StageRecord& Stage(int s) const {
    Require(s >= 0 && s < StageCount(), "no such stage");
    return stages_[s];
  }

  double CarriedAt(int s) {
    Settle();
    return Stage(s).carried;
  }

  double WorkAt(int s, double now) {
    Settle();
    double work = 0;
    for (const Member& m : Stage(s).members) work += Remaining(m.flow, now);
    return work;
  }

  void ResetIntegrals(double now) {
    Require(now >= clock_, "time went backwards");
    Settle();
    clock_ = now;
    for (StageRecord& stage : stages_) {
      stage.since = now;
      stage.present_integral = 0;
      stage.carried_integral = 0;
    }
  }

  double PresentIntegral(int s, double now) {
    Settle();
    const StageRecord& stage = Stage(s);
    Require(now >= stage.since, "integral asked before its last update");
    return stage.present_integral + static_cast<double>(stage.members.size()) * (now - stage.since);
  }

  double UtilisationIntegral(int s, double now) {
    Settle();
    const StageRecord& stage = Stage(s);
    Require(now >= stage.since, "integral asked before its last update");
    return (stage.carried_integral + stage.carried * (now - stage.since)) / stage.capacity;
  }

 private:
  // Brings a stage's integrals up to `now`; called before its n_s or its
  // carried capacity changes, and only then.
  static void Advance(StageRecord& stage, double now) {
    double dt = now - stage.since;
    if (dt > 0) {
      stage.present_integral += static_cast<double>(stage.members.size()) * dt;
      stage.carried_integral += stage.carried * dt;
      stage.since = now;
    }
  }

  void MarkDirty(int s) {
    if (dirty_mark_[s]) return;
    dirty_mark_[s] = true;
    dirty_.push_back(s);
  }

  // A fresh mark for this solve; on wrap-around every old mark is cleared so
  // that none can equal a new epoch by accident.
  void NextEpoch() {
    if (++epoch_ == 0) {
      std::fill(stage_mark_.begin(), stage_mark_.end(), 0);
      std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
      std::fill(flow_frozen_.begin(), flow_frozen_.end(), 0);
      epoch_ = 1;
    }
  }

  void TakeStage(int s) {
    if (stage_mark_[s] == epoch_) return;
    stage_mark_[s] = epoch_;
    component_stages_.push_back(s);
  }

  void TakeFlow(int f) {
    if (flow_mark_[f] == epoch_) return;
    flow_mark_[f] = epoch_;
    component_flows_.push_back(f);
  }

  // The deferred re-solve, at clock_: every flow whose rate the changes since
  // the last solve can have changed, and every stage whose carried capacity
  // can have changed.
  void Settle() {
    if (!pending_) return;
    pending_ = false;
    NextEpoch();
    component_stages_.clear();
    component_flows_.clear();
    if (scope_ == Scope::kEverything) {
      for (int s = 0; s < StageCount(); ++s) TakeStage(s);
      for (int f = 0; f < static_cast<int>(flows_.size()); ++f) {
        if (flows_[f].active) TakeFlow(f);
      }
    } else if (policy_ == Policy::kMaxMin) {
      // The connected component of the changed stages: breadth first over
      // stage -> its flows -> their stages. When it is everything this pass
      // is the one a full solve makes to initialise, so nothing is paid twice.
      for (int s : dirty_) TakeStage(s);
      for (size_t i = 0; i < component_stages_.size(); ++i) {
        for (const Member& m : stages_[component_stages_[i]].members) {
          if (flow_mark_[m.flow] == epoch_) continue;
          TakeFlow(m.flow);
          for (const Incidence& inc : flows_[m.flow].stages) TakeStage(inc.stage);
        }
      }
    } else {
      // Bottleneck rates depend on n_s of a flow's own stages only: the flows
      // of the changed stages, and the stages whose carried they change.
      for (int s : dirty_) TakeStage(s);
      for (int s : dirty_) {
        for (const Member& m : stages_[s].members) TakeFlow(m.flow);
      }
      for (int f : component_flows_) {
        for (const Incidence& inc : flows_[f].stages) TakeStage(inc.stage);
      }
    }
    for (int s : dirty_) dirty_mark_[s] = false;
    dirty_.clear();

    if (policy_ == Policy::kMaxMin) {
      FillMaxMin();
    } else {
      for (int f : component_flows_) {
        double rate = kInf;
        for (const Incidence& inc : flows_[f].stages) {
          const StageRecord& stage = stages_[inc.stage];
          rate = std::min(rate, stage.capacity / static_cast<double>(stage.members.size()));
        }
        new_rate_[f] = rate;
      }
    }
    Apply();
    ++version_;
  }

  // Progressive filling over the component. Every unfrozen flow has the same
  // rate, the level; stage s fills when the level reaches
  //   (phi_s - frozen_sum_s) / unfrozen_s,
  // so the stages wait in a heap keyed by that fill level. The stage on top
  // is full by construction, so no residual capacity is ever compared with
  // zero and the filling needs no freeze tolerance. Freezing a flow at rate r
  // raises the fill level of its other stages (their remaining capacity
  // per unfrozen flow was at least r), so a key only moves down the heap.
  void FillMaxMin() {
    for (int s : component_stages_) {
      const StageRecord& stage = stages_[s];
      int n = static_cast<int>(stage.members.size());
      if (n == 0) continue;
      unfrozen_[s] = n;
      frozen_sum_[s] = 0;
      fill_.Push(s, stage.capacity / static_cast<double>(n), static_cast<uint64_t>(s));
    }
    while (!fill_.empty()) {
      int s = fill_.Top();
      double rate = fill_.TopKey();
      fill_.Pop();
      for (const Member& m : stages_[s].members) {
        int f = m.flow;
        if (flow_frozen_[f] == epoch_) continue;
        flow_frozen_[f] = epoch_;
        new_rate_[f] = rate;
        for (const Incidence& inc : flows_[f].stages) {
          int t = inc.stage;
          if (t == s) continue;
          frozen_sum_[t] += rate;
          if (--unfrozen_[t] == 0) {
            fill_.Remove(t);
          } else {
            fill_.Update(t, (stages_[t].capacity - frozen_sum_[t]) / static_cast<double>(unfrozen_[t]));
          }
        }
      }
    }
  }

  // Installs the new rates. A flow whose rate is bit-identical keeps its
  // record, so its end time is exactly the one computed when the rate was
  // set (the seed's 2.0 stays 2.0 across the end of another flow).
  void Apply() {
    double now = clock_;
    for (int f : component_flows_) {
      FlowRecord& flow = flows_[f];
      double rate = new_rate_[f];
      if (rate == flow.rate) continue;
      flow.rem0 = std::max(0.0, flow.rem0 - flow.rate * (now - flow.t0));
      flow.t0 = now;
      flow.rate = rate;
      flow.end = now + flow.rem0 / rate;
      if (ends_.Contains(f)) {
        ends_.Update(f, flow.end);
      } else {
        ends_.Push(f, flow.end, flow.seq);
      }
    }
    // The integrals are advanced only where the integrand changes, so they
    // are sums of the same constant pieces whatever the scope of the solve.
    for (int s : component_stages_) {
      StageRecord& stage = stages_[s];
      double carried = 0;
      for (const Member& m : stage.members) carried += flows_[m.flow].rate;
      if (carried == stage.carried) continue;
      Advance(stage, now);
      stage.carried = carried;
    }
  }

  Policy policy_;
  Scope scope_;
  std::vector<StageRecord> stages_;
  std::vector<FlowRecord> flows_;
  std::vector<int> free_ids_;
  int flow_count_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t version_ = 0;
  double clock_ = 0;  // the latest time a mutation was told
  IndexedHeap ends_;  // flows with a rate, by (end, seq)

  // The deferred solve: stages whose set of flows changed since the last one.
  bool pending_ = false;
  std::vector<int> dirty_;
  std::vector<bool> dirty_mark_;

  // Scratch of a solve, indexed by stage or flow id; marks equal to epoch_
  // belong to the current solve, so nothing is cleared between solves.
  uint32_t epoch_ = 0;
  std::vector<uint32_t> stage_mark_, flow_mark_, flow_frozen_;
  std::vector<int> unfrozen_;
  std::vector<double> frozen_sum_;
  std::vector<double> new_rate_;
  std::vector<int> component_stages_, component_flows_;
  IndexedHeap fill_;
};

FlowSolver::FlowSolver(Policy policy, Scope scope) : impl_(std::make_unique<Impl>(policy, scope)) {}
FlowSolver::~FlowSolver() = default;
FlowSolver::FlowSolver(FlowSolver&&) noexcept = default;
FlowSolver& FlowSolver::operator=(FlowSolver&&) noexcept = default;

int FlowSolver::AddStage(double capacity) { return impl_->AddStage(capacity); }
int FlowSolver::StageCount() const { return impl_->StageCount(); }
int FlowSolver::Start(double now, absl::Span<const int> stages, double work) {
  return impl_->Start(now, stages, work);
}
std::optional<std::pair<double, int>> FlowSolver::NextEnd() const { return impl_->NextEnd(); }
uint64_t FlowSolver::version() const { return impl_->version(); }
std::vector<int> FlowSolver::FinishDue(double now) { return impl_->FinishDue(now); }
bool FlowSolver::InProgress(int flow) const { return impl_->InProgress(flow); }
double FlowSolver::Rate(int flow) const { return impl_->Flow(flow).rate; }
double FlowSolver::Remaining(int flow, double now) const { return impl_->Remaining(flow, now); }
int FlowSolver::FlowCount() const { return impl_->FlowCount(); }
double FlowSolver::Capacity(int stage) const { return impl_->Stage(stage).capacity; }
int FlowSolver::FlowsAt(int stage) const { return static_cast<int>(impl_->Stage(stage).members.size()); }
double FlowSolver::CarriedAt(int stage) const { return impl_->CarriedAt(stage); }
double FlowSolver::WorkAt(int stage, double now) const { return impl_->WorkAt(stage, now); }
void FlowSolver::ResetIntegrals(double now) { impl_->ResetIntegrals(now); }
double FlowSolver::PresentIntegral(int stage, double now) const { return impl_->PresentIntegral(stage, now); }
double FlowSolver::UtilisationIntegral(int stage, double now) const {
  return impl_->UtilisationIntegral(stage, now);
}

}  // namespace serq::flow
