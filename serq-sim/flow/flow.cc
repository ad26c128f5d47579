#include "serq-sim/flow/flow.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "serq-sim/flow/indexed_heap.h"

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

// A flow holds stage `stage`, where it is member number `pos`.
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

// What a solve reads of a flow, in one cache line: a solve jumps from flow
// to flow at random, and every separate array would be one more miss. The
// stages of a flow of up to kInline stages are here too; a longer flow's
// are in a pool.
constexpr int kInline = 3;
struct alignas(64) FlowSlot {
  double rate = 0;      // 0 until the first solve
  double new_rate = 0;  // the solve's result, before Apply
  int frozen_by = -1;   // the stage whose fill froze it (-1: not solved yet)
  uint32_t mark = 0;    // == epoch_: to be solved in this solve
  uint32_t frozen = 0;  // == epoch_: frozen in this solve
  int count = 0;        // stages held; 0: not in progress
  int spill = -1;       // start of its incidences in the pool if count > kInline
  int frozen_order = 0;  // its place among the flows its stage's fill froze
  Incidence inline_stages[kInline];
};

static_assert(sizeof(FlowSlot) == 64, "a flow slot is one cache line");

// What a solve reads of a stage, in one cache line.
struct alignas(64) StageSlot {
  std::vector<Member> members;
  double capacity = 0;
  double carried = 0;       // the sum of the members' rates
  double fill_level = kInf;  // where the last maxmin solve filled it (kInf: not)
  double frozen_sum = 0;    // scratch of the filling
  int unfrozen = 0;         // scratch of the filling
  uint32_t mark = 0;        // == epoch_: taken into this solve
};

// What a solve does not touch.
struct FlowRecord {
  uint64_t seq = 0;   // start order: ties in NextEnd, order of FinishDue
  double t0 = 0;      // the last rate change (or the start)
  double rem0 = 0;    // the remaining work at t0
  double end = kInf;  // t0 + rem0 / rate
  int spill_room = 0;  // incidences its block in the pool holds
};

struct StageRecord {
  double since = 0;    // the integrals run up to here
  double present = 0;  // integral of n_s dt
  double carried = 0;  // integral of (sum of rates) dt, divided by phi when read
  int busy_pos = -1;   // its index in busy_stages_, -1 if it holds no flow
  bool dirty = false;  // its flows changed since the last solve
  uint32_t recount = 0;  // == epoch_: its carried capacity is summed again
};

// A flow of a stage frozen already, in the order the filling froze it: by
// the level and id of the stage that froze it, then by its place among the
// flows that stage froze.
struct Frozen {
  double rate;
  int by;
  int order;
  bool operator<(const Frozen& o) const {
    return rate < o.rate || (rate == o.rate && (by < o.by || (by == o.by && order < o.order)));
  }
};

// A stage usually has few flows: an insertion sort, unless it has many.
void SortFrozen(std::vector<Frozen>& v) {
  if (v.size() > 16) {
    std::sort(v.begin(), v.end());
    return;
  }
  for (size_t i = 1; i < v.size(); ++i) {
    Frozen x = v[i];
    size_t j = i;
    for (; j > 0 && x < v[j - 1]; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

}  // namespace

class FlowSolver::Impl {
 public:
  Impl(Policy policy, Scope scope) : policy_(policy), scope_(scope) {}

  int AddStage(double capacity) {
    Require(capacity > 0 && std::isfinite(capacity), "stage capacity must be finite and > 0");
    Require(flows_.empty(), "stages are added before the first flow");
    int id = StageCount();
    stages_.emplace_back();
    stages_.back().capacity = capacity;
    stage_records_.emplace_back();
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

    int k = static_cast<int>(stages.size());
    int id;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
    } else {
      id = static_cast<int>(flows_.size());
      flows_.emplace_back();
      flow_records_.emplace_back();
      ends_.Grow(id + 1);
    }
    FlowSlot& flow = flows_[id];
    FlowRecord& record = flow_records_[id];
    // An id keeps its block in the pool; a flow of more stages than the
    // block holds gets a new one at the end (a block only grows, so the pool
    // is bounded by the ids times the most stages of a flow).
    if (k > kInline && record.spill_room < k) {
      flow.spill = static_cast<int>(spilled_.size());
      record.spill_room = k;
      spilled_.resize(spilled_.size() + k);
    }
    flow.count = k;
    Incidence* inc = Incidences(flow);
    for (int j = 0; j < k; ++j) {
      int s = stages[j];
      std::vector<Member>& members = stages_[s].members;
      AdvanceIntegrals(s, now);
      if (members.empty()) {
        stage_records_[s].busy_pos = static_cast<int>(busy_stages_.size());
        busy_stages_.push_back(s);
      }
      inc[j] = {s, static_cast<int>(members.size())};
      members.push_back({id, j});
      MarkDirty(s);
    }
    flow.rate = 0;
    flow.frozen_by = -1;
    record.seq = next_seq_++;
    record.t0 = now;
    record.rem0 = work;
    record.end = kInf;
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
                [this](int a, int b) { return flow_records_[a].seq < flow_records_[b].seq; });
    }
    for (int f : done) {
      FlowSlot& flow = flows_[f];
      const Incidence* inc = Incidences(flow);
      for (int j = 0; j < flow.count; ++j) {
        int s = inc[j].stage;
        std::vector<Member>& members = stages_[s].members;
        AdvanceIntegrals(s, now);
        // Swap the last member into the hole and repoint its incidence.
        Member moved = members.back();
        members[inc[j].pos] = moved;
        Incidences(flows_[moved.flow])[moved.slot].pos = inc[j].pos;
        members.pop_back();
        if (members.empty()) {
          int pos = stage_records_[s].busy_pos;
          int last = busy_stages_.back();
          busy_stages_[pos] = last;
          stage_records_[last].busy_pos = pos;
          busy_stages_.pop_back();
          stage_records_[s].busy_pos = -1;
        }
        MarkDirty(s);
      }
      flow.count = 0;
      flow.rate = 0;
      flow_records_[f].end = kInf;
      --flow_count_;
    }
    // Reused last-in first-out; pushed in reverse so the earliest-started
    // of these ids is handed out first.
    for (auto it = done.rbegin(); it != done.rend(); ++it) free_ids_.push_back(*it);
    pending_ = true;
    return done;
  }

  bool InProgress(int f) const {
    return f >= 0 && f < static_cast<int>(flows_.size()) && flows_[f].count > 0;
  }

  double Rate(int f) {
    Require(InProgress(f), "no such flow in progress");
    Settle();
    return flows_[f].rate;
  }

  double Remaining(int f, double now) {
    Require(InProgress(f), "no such flow in progress");
    Settle();
    const FlowRecord& record = flow_records_[f];
    Require(now >= record.t0, "remaining work asked before the last rate change");
    return std::max(0.0, record.rem0 - flows_[f].rate * (now - record.t0));
  }

  int FlowCount() const { return flow_count_; }

  const StageSlot& Stage(int s) const {
    Require(s >= 0 && s < StageCount(), "no such stage");
    return stages_[s];
  }

  double Capacity(int s) const { return Stage(s).capacity; }
  int FlowsAt(int s) const { return static_cast<int>(Stage(s).members.size()); }

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
    for (StageRecord& record : stage_records_) {
      record.since = now;
      record.present = 0;
      record.carried = 0;
    }
  }

  double PresentIntegral(int s, double now) {
    Settle();
    const StageSlot& stage = Stage(s);
    const StageRecord& record = stage_records_[s];
    Require(now >= record.since, "integral asked before its last update");
    return record.present + static_cast<double>(stage.members.size()) * (now - record.since);
  }

  double UtilisationIntegral(int s, double now) {
    Settle();
    const StageSlot& stage = Stage(s);
    const StageRecord& record = stage_records_[s];
    Require(now >= record.since, "integral asked before its last update");
    return (record.carried + stage.carried * (now - record.since)) / stage.capacity;
  }

 private:
  Incidence* Incidences(FlowSlot& flow) {
    return flow.count <= kInline ? flow.inline_stages : &spilled_[flow.spill];
  }
  const Incidence* Incidences(const FlowSlot& flow) const {
    return flow.count <= kInline ? flow.inline_stages : &spilled_[flow.spill];
  }

  // Brings a stage's integrals up to `now`; called before its n_s or its
  // carried capacity changes, and only then, so that they are sums of the
  // same constant pieces whatever the scope of the solves.
  void AdvanceIntegrals(int s, double now) {
    StageRecord& record = stage_records_[s];
    double dt = now - record.since;
    if (dt > 0) {
      record.present += static_cast<double>(stages_[s].members.size()) * dt;
      record.carried += stages_[s].carried * dt;
      record.since = now;
    }
  }

  void MarkDirty(int s) {
    if (stage_records_[s].dirty) return;
    stage_records_[s].dirty = true;
    dirty_.push_back(s);
  }

  // A fresh mark for this solve; on wrap-around every old mark is cleared so
  // that none can equal a new epoch by accident.
  void NextEpoch() {
    if (++epoch_ == 0) {
      for (StageSlot& stage : stages_) stage.mark = 0;
      for (StageRecord& record : stage_records_) record.recount = 0;
      for (FlowSlot& flow : flows_) flow.mark = flow.frozen = 0;
      epoch_ = 1;
    }
  }

  void TakeStage(int s) {
    if (stages_[s].mark == epoch_) return;
    stages_[s].mark = epoch_;
    component_stages_.push_back(s);
  }

  void TakeFlow(int f) {
    if (flows_[f].mark == epoch_) return;
    flows_[f].mark = epoch_;
    component_flows_.push_back(f);
  }

  // The deferred re-solve, at clock_: every flow whose rate the changes since
  // the last solve can have changed.
  void Settle() {
    if (!pending_) return;
    pending_ = false;
    NextEpoch();
    component_stages_.clear();
    component_flows_.clear();
    if (policy_ == Policy::kBottleneck) {
      if (scope_ == Scope::kEverything) {
        TakeEverything();
      } else {
        // Bottleneck rates depend on n_s of a flow's own stages only.
        for (int s : dirty_) {
          for (const Member& m : stages_[s].members) TakeFlow(m.flow);
        }
      }
      for (int f : component_flows_) {
        FlowSlot& flow = flows_[f];
        double rate = kInf;
        const Incidence* inc = Incidences(flow);
        for (int j = 0; j < flow.count; ++j) {
          const StageSlot& stage = stages_[inc[j].stage];
          rate = std::min(rate, stage.capacity / static_cast<double>(stage.members.size()));
        }
        flow.new_rate = rate;
      }
    } else if (scope_ == Scope::kEverything) {
      TakeEverything();
      FillMaxMin();
    } else if (TrySmallComponent()) {
      FillMaxMin();
    } else {
      SolvePerturbed();
    }
    Apply();
    for (int s : dirty_) stage_records_[s].dirty = false;
    dirty_.clear();
    ++version_;
  }

  // Every flow in progress, and every stage that holds one or lost one.
  void TakeEverything() {
    for (int s : busy_stages_) TakeStage(s);
    for (int s : dirty_) TakeStage(s);
    for (int f = 0; f < static_cast<int>(flows_.size()); ++f) {
      if (flows_[f].count > 0) TakeFlow(f);
    }
  }

  // Takes the connected component of the changed stages (stage -> its flows
  // -> their stages) if it has at most kSmallComponent flows, and says
  // whether it did. Filling a small component again costs less than working
  // out which part of it to fill; a large one is left to SolvePerturbed, and
  // the walk given up costs at most kSmallComponent flows' worth.
  static constexpr size_t kSmallComponent = 32;
  bool TrySmallComponent() {
    // After a walk given up, the next few solves go to SolvePerturbed without
    // one (components change slowly), unless there are too few flows for a
    // large one.
    if (flow_count_ > static_cast<int>(kSmallComponent) && skip_small_walks_ > 0) {
      --skip_small_walks_;
      return false;
    }
    if (TakeSmallComponent()) return true;
    skip_small_walks_ = kSkipSmallWalks;
    NextEpoch();  // forget the marks of the walk given up
    component_stages_.clear();
    component_flows_.clear();
    return false;
  }
  static constexpr int kSkipSmallWalks = 8;

  bool TakeSmallComponent() {
    for (int s : dirty_) TakeStage(s);
    for (size_t i = 0; i < component_stages_.size(); ++i) {
      for (const Member& m : stages_[component_stages_[i]].members) {
        FlowSlot& flow = flows_[m.flow];
        if (flow.mark == epoch_) continue;
        if (component_flows_.size() == kSmallComponent) return false;
        flow.mark = epoch_;
        component_flows_.push_back(m.flow);
        const Incidence* inc = Incidences(flow);
        for (int j = 0; j < flow.count; ++j) TakeStage(inc[j].stage);
      }
    }
    return true;
  }

  // Stage t's fill level after one of its flows froze at `rate` in the pop
  // of stage p: (phi - frozen_sum) / unfrozen. In exact arithmetic that is at
  // least `rate` (t had at least `rate` per unfrozen flow left), and equal
  // only if t's level was `rate` already, so that t comes after p in the
  // filling's (level, stage) order. When rounding puts it below `rate`, or
  // at `rate` for a t with a lower id than p, it is raised to the next double
  // above `rate`. So the pops come in strictly increasing (level, stage)
  // order, which SolvePerturbed relies on.
  static double LevelAfterFreeze(const StageSlot& stage, int t, double rate, int p, double frozen_sum,
                                 int unfrozen) {
    double level = (stage.capacity - frozen_sum) / static_cast<double>(unfrozen);
    if (level < rate || (level == rate && t < p)) level = std::nextafter(rate, kInf);
    return level;
  }

  // An instant of the filling: freeze number `sub` of the pop of stage
  // `stage` at `level` (sub -1: the pop itself, before its freezes;
  // kAfterPop: after them). Instants are totally ordered.
  struct Instant {
    double level;
    int stage;
    int sub;
    bool operator<(const Instant& o) const {
      if (level != o.level) return level < o.level;
      if (stage != o.stage) return stage < o.stage;
      return sub < o.sub;
    }
    bool operator==(const Instant& o) const {
      return level == o.level && stage == o.stage && sub == o.sub;
    }
  };
  static constexpr int kAfterPop = std::numeric_limits<int>::max();
  static constexpr Instant kDawn{-kInf, -1, -1};

  // Something the old filling did at `at` that the new one must take into
  // account: flow `target` froze (sub < kAfterPop), or stage `target` popped.
  struct Scheduled {
    Instant at;
    int target;
  };
  static bool Later(const Scheduled& a, const Scheduled& b) { return b.at < a.at; }
  void Schedule(Instant at, int target) {
    scheduled_.push_back({at, target});
    std::push_heap(scheduled_.begin(), scheduled_.end(), Later);
  }

  bool Perturbed(int s) const { return stages_[s].mark == epoch_; }
  static Instant OldFreeze(const FlowSlot& flow) { return {flow.rate, flow.frozen_by, flow.frozen_order}; }
  // Whether a flow not yet frozen in this solve froze, or will freeze, where
  // the old filling froze it: the stage that froze it is not perturbed
  // before then.
  bool OldFreezeHolds(const FlowSlot& flow) const {
    return flow.frozen_by >= 0 &&
           (!Perturbed(flow.frozen_by) || OldFreeze(flow) < perturbed_at_[flow.frozen_by]);
  }

  // Stage t's state just before `now` in the new filling, which is the old
  // one at t until then: its flows frozen so far, in the order they froze;
  // the old freezes of its other flows still to come are scheduled.
  void Perturb(int t, Instant now) {
    StageSlot& stage = stages_[t];
    stage.mark = epoch_;
    perturbed_at_[t] = now;
    Reconstruct(t, now);
  }

  void Reconstruct(int t, Instant now) {
    StageSlot& stage = stages_[t];
    int n = static_cast<int>(stage.members.size());
    if (n == 0) {
      stage.fill_level = kInf;
      return;
    }
    frozen_buf_.clear();
    for (const Member& m : stage.members) {
      FlowSlot& flow = flows_[m.flow];
      if (flow.frozen == epoch_) {
        frozen_buf_.push_back({flow.new_rate, flow.frozen_by, flow.frozen_order});
      } else if (OldFreezeHolds(flow)) {
        Instant at = OldFreeze(flow);
        if (at < now) {
          // Frozen as in the old filling, before anything here changed.
          flow.frozen = epoch_;
          flow.new_rate = flow.rate;
          frozen_buf_.push_back({flow.rate, flow.frozen_by, flow.frozen_order});
        } else {
          Schedule(at, m.flow);
        }
      }
    }
    SortFrozen(frozen_buf_);
    int unfrozen = n - static_cast<int>(frozen_buf_.size());
    Instant old_pop{stage.fill_level, t, kAfterPop};
    if (unfrozen == 0) {
      // It filled before `now`, or never fills.
      if (!(old_pop < now)) stage.fill_level = kInf;
      return;
    }
    double frozen_sum = 0;
    for (const Frozen& fr : frozen_buf_) frozen_sum += fr.rate;
    double level = frozen_buf_.empty()
                       ? stage.capacity / static_cast<double>(n)
                       : LevelAfterFreeze(stage, t, frozen_buf_.back().rate, frozen_buf_.back().by,
                                          frozen_sum, unfrozen);
    stage.unfrozen = unfrozen;
    stage.frozen_sum = frozen_sum;
    if (stage.fill_level < kInf) Schedule(old_pop, t);
    stage.fill_level = kInf;
    fill_.Push(t, level, t);
  }

  // A flow of perturbed stages froze at `rate`: their levels move.
  void FreezeAtPerturbed(const FlowSlot& flow, int except, double rate, int by) {
    const Incidence* inc = Incidences(flow);
    for (int j = 0; j < flow.count; ++j) {
      int t = inc[j].stage;
      if (t == except || !Perturbed(t)) continue;
      StageSlot& stage = stages_[t];
      stage.frozen_sum += rate;
      if (--stage.unfrozen == 0) {
        fill_.Remove(t);
      } else {
        fill_.Update(t, LevelAfterFreeze(stage, t, rate, by, stage.frozen_sum, stage.unfrozen));
      }
    }
  }

  // The maxmin re-solve of what a change can move. The new filling is the
  // old one except at *perturbed* stages: at first the changed ones; then
  // every stage one of whose flows freezes at another instant than in the
  // old filling (or does not freeze when the old one did), from that
  // instant on. A stage that is not perturbed pops as before, freezing its
  // flows at their old rates, so only the perturbed stages are filled: their
  // pops come from the heap, and the old freezes of their flows by stages
  // that are not perturbed, and the old pops of perturbed stages, come from
  // a schedule, all in the filling's order. A stage perturbed at an instant
  // starts from its state at that instant (its frozen sum added up in the
  // order its flows froze), so the result is the full filling's, bit for
  // bit (the tests compare with Scope::kEverything after every event); and
  // a change stops spreading at stages that pop as before or do not fill.
  void SolvePerturbed() {
    scheduled_.clear();
    if (perturbed_at_.size() < stages_.size()) perturbed_at_.resize(stages_.size());
    for (int d : dirty_) {
      stages_[d].mark = epoch_;
      perturbed_at_[d] = kDawn;
    }
    for (int d : dirty_) Reconstruct(d, kDawn);
    while (!fill_.empty() || !scheduled_.empty()) {
      if (!fill_.empty() &&
          (scheduled_.empty() || Instant{fill_.TopKey(), fill_.Top(), -1} < scheduled_.front().at)) {
        PopPerturbed();
        continue;
      }
      Scheduled event = scheduled_.front();
      std::pop_heap(scheduled_.begin(), scheduled_.end(), Later);
      scheduled_.pop_back();
      if (event.at.sub == kAfterPop) {
        OldPopPassed(event.target);
      } else {
        FlowSlot& flow = flows_[event.target];
        // Frozen already, or its stage was perturbed before this instant.
        if (flow.frozen == epoch_ || !OldFreezeHolds(flow)) continue;
        flow.frozen = epoch_;
        flow.new_rate = flow.rate;
        FreezeAtPerturbed(flow, -1, flow.rate, flow.frozen_by);
      }
    }
  }

  void PopPerturbed() {
    int p = fill_.Top();
    double rate = fill_.TopKey();
    fill_.Pop();
    StageSlot& popped = stages_[p];
    popped.fill_level = rate;
    int order = 0;
    for (const Member& m : popped.members) {
      FlowSlot& flow = flows_[m.flow];
      if (flow.frozen == epoch_) continue;
      Instant now{rate, p, order};
      if (!(flow.frozen_by >= 0 && OldFreeze(flow) == now)) {
        // It freezes at another instant than before: its other stages
        // are perturbed from now (their state just before this freeze).
        const Incidence* inc = Incidences(flow);
        for (int j = 0; j < flow.count; ++j) {
          int t = inc[j].stage;
          if (t != p && !Perturbed(t)) Perturb(t, now);
        }
      }
      flow.frozen = epoch_;
      flow.new_rate = rate;
      flow.frozen_by = p;
      flow.frozen_order = order++;
      component_flows_.push_back(m.flow);
      FreezeAtPerturbed(flow, p, rate, p);
    }
  }

  // The old filling popped perturbed stage t here, and the new one has not:
  // the flows that pop froze are still unfrozen, so their other stages are
  // perturbed from the instant each of them froze in the old filling.
  void OldPopPassed(int t) {
    for (const Member& m : stages_[t].members) {
      const FlowSlot& flow = flows_[m.flow];
      if (flow.frozen == epoch_ || flow.frozen_by != t) continue;
      Instant at = OldFreeze(flow);
      const Incidence* inc = Incidences(flow);
      for (int j = 0; j < flow.count; ++j) {
        int t2 = inc[j].stage;
        if (t2 != t && !Perturbed(t2)) Perturb(t2, at);
      }
    }
  }

  // Progressive filling over a whole component (Scope::kEverything: over
  // everything). Every unfrozen flow has the same rate, the level; stage s
  // fills when the level reaches (phi_s - frozen_sum_s) / unfrozen_s, so the
  // stages wait in a min-heap keyed by that fill level. The stage on top is
  // full by construction, so no residual capacity is ever compared with zero
  // and the filling needs no freeze tolerance.
  void FillMaxMin() {
    for (int s : component_stages_) {
      StageSlot& stage = stages_[s];
      int n = static_cast<int>(stage.members.size());
      stage.fill_level = kInf;
      if (n == 0) continue;
      stage.unfrozen = n;
      stage.frozen_sum = 0;
      fill_.Append(s, stage.capacity / static_cast<double>(n), s);
    }
    Fill();
  }

  // The filling proper, from the stages in fill_ with their unfrozen and
  // frozen_sum; freezes the flows marked for this solve only. Freezing a
  // flow at rate r raises the fill level of its other stages (each had at
  // least r per unfrozen flow left), so their keys move down the heap, where
  // they usually have little way to go; a stage whose flows all froze
  // elsewhere leaves it. Ties go to the lower stage id: the order is total,
  // so a part of the system is filled the same way alone or with the rest.
  void Fill() {
    fill_.Heapify();
    while (!fill_.empty()) {
      int s = fill_.Top();
      double rate = fill_.TopKey();
      fill_.Pop();
      StageSlot& popped = stages_[s];
      popped.fill_level = rate;
      int order = 0;
      for (const Member& m : popped.members) {
        FlowSlot& flow = flows_[m.flow];
        if (flow.frozen == epoch_ || flow.mark != epoch_) continue;
        flow.frozen = epoch_;
        flow.new_rate = rate;
        flow.frozen_by = s;
        flow.frozen_order = order++;
        // Every stage of a marked flow was taken into the solve, so is
        // "perturbed": its level moves.
        FreezeAtPerturbed(flow, s, rate, s);
      }
    }
  }

  // Installs the new rates. A flow whose rate is bit-identical keeps its
  // record, so its end time is exactly the one computed when the rate was
  // set (in docs/language.md §6's three flows, f1's 2.0 stays 2.0 when f3
  // ends at 2/3). The carried capacity is summed again only at the stages of flows whose rate
  // changed and at the stages whose flows changed.
  void Apply() {
    double now = clock_;
    recount_.clear();
    auto recount = [this](int s) {
      if (stage_records_[s].recount == epoch_) return;
      stage_records_[s].recount = epoch_;
      recount_.push_back(s);
    };
    for (int s : dirty_) recount(s);
    for (int f : component_flows_) {
      FlowSlot& flow = flows_[f];
      double rate = flow.new_rate;
      if (rate == flow.rate) continue;
      FlowRecord& record = flow_records_[f];
      record.rem0 = std::max(0.0, record.rem0 - flow.rate * (now - record.t0));
      record.t0 = now;
      record.end = now + record.rem0 / rate;
      flow.rate = rate;
      if (ends_.Contains(f)) {
        ends_.Update(f, record.end);
      } else {
        ends_.Push(f, record.end, record.seq);
      }
      const Incidence* inc = Incidences(flow);
      for (int j = 0; j < flow.count; ++j) recount(inc[j].stage);
    }
    for (int s : recount_) {
      StageSlot& stage = stages_[s];
      double carried = 0;
      for (const Member& m : stage.members) carried += flows_[m.flow].rate;
      if (carried == stage.carried) continue;
      AdvanceIntegrals(s, now);
      stage.carried = carried;
    }
  }

  Policy policy_;
  Scope scope_;

  std::vector<StageSlot> stages_;
  std::vector<StageRecord> stage_records_;
  std::vector<int> busy_stages_;  // the stages holding a flow, in no order

  std::vector<FlowSlot> flows_;
  std::vector<FlowRecord> flow_records_;
  std::vector<Incidence> spilled_;  // incidences of flows of > kInline stages
  std::vector<int> free_ids_;
  int flow_count_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t version_ = 0;
  double clock_ = 0;  // the latest time a mutation was told
  IndexedHeap<uint64_t> ends_;  // flows with a rate, by (end, seq)

  // The deferred solve: stages whose set of flows changed since the last one.
  bool pending_ = false;
  std::vector<int> dirty_;

  // Scratch of a solve; marks equal to epoch_ belong to the current solve,
  // so nothing is cleared between solves.
  uint32_t epoch_ = 0;
  std::vector<int> component_stages_, component_flows_;
  std::vector<int> recount_;
  std::vector<Frozen> frozen_buf_;
  int skip_small_walks_ = 0;
  std::vector<Scheduled> scheduled_;  // min-heap by instant
  std::vector<Instant> perturbed_at_;  // by stage, if perturbed in this solve
  IndexedHeap<int> fill_;  // stages by (fill level, id), during a filling
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
double FlowSolver::Rate(int flow) const { return impl_->Rate(flow); }
double FlowSolver::Remaining(int flow, double now) const { return impl_->Remaining(flow, now); }
int FlowSolver::FlowCount() const { return impl_->FlowCount(); }
double FlowSolver::Capacity(int stage) const { return impl_->Capacity(stage); }
int FlowSolver::FlowsAt(int stage) const { return impl_->FlowsAt(stage); }
double FlowSolver::CarriedAt(int stage) const { return impl_->CarriedAt(stage); }
double FlowSolver::WorkAt(int stage, double now) const { return impl_->WorkAt(stage, now); }
void FlowSolver::ResetIntegrals(double now) { impl_->ResetIntegrals(now); }
double FlowSolver::PresentIntegral(int stage, double now) const { return impl_->PresentIntegral(stage, now); }
double FlowSolver::UtilisationIntegral(int stage, double now) const {
  return impl_->UtilisationIntegral(stage, now);
}

}  // namespace serq::flow
