#include "serq-sim/flow.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>


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

// A 4-ary min-heap of small integer ids keyed by (key, tie), with each id's
// position kept so that a key can change, or an id leave, in place. The tie
// makes the order total, so the pop order never depends on the order of
// insertion. Comparisons are branch-free: the keys are close to random, and
// a mispredicted branch per level cost more than the rest of the sift.
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
    SiftUp(heap_.size() - 1, heap_.back());
  }
  // Appends without ordering; Heapify() must follow before any other call.
  void Append(int id, double key, uint64_t tie) {
    pos_[id] = static_cast<int>(heap_.size());
    heap_.push_back({key, tie, id});
  }
  void Heapify() {
    for (size_t i = heap_.size() / kArity + 1; i-- > 0;) {
      if (i < heap_.size()) SiftDown(i, heap_[i]);
    }
  }
  void Update(int id, double key) {
    size_t i = pos_[id];
    Entry e = heap_[i];
    bool up = key < e.key;
    e.key = key;
    if (up) {
      SiftUp(i, e);
    } else {
      SiftDown(i, e);
    }
  }
  // Raises the key of `id` to `key` if that is higher.
  void Raise(int id, double key) {
    size_t i = pos_[id];
    Entry e = heap_[i];
    if (!(key > e.key)) return;
    e.key = key;
    SiftDown(i, e);
  }
  // The hole left at the top goes down along the smallest children to a
  // leaf, and the last entry is sifted up from there (usually not at all):
  // no comparison with the entry on the way down.
  void Pop() {
    pos_[heap_[0].id] = -1;
    Entry last = heap_.back();
    heap_.pop_back();
    size_t n = heap_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      size_t child = SmallestChild(i, n);
      if (child >= n) break;
      Place(i, heap_[child]);
      i = child;
    }
    SiftUp(i, last);
  }
  void Remove(int id) {
    size_t i = pos_[id];
    pos_[id] = -1;
    Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    if (i > 0 && Less(last, heap_[(i - 1) / kArity])) {
      SiftUp(i, last);
    } else {
      SiftDown(i, last);
    }
  }

 private:
  // Four children a node: half the depth of a binary heap, and the smallest
  // of four is found without a branch.
  static constexpr size_t kArity = 4;

  struct Entry {
    double key;
    uint64_t tie;
    int id;
  };
  // The smallest child of node i, or n if it has none.
  size_t SmallestChild(size_t i, size_t n) const {
    size_t first = kArity * i + 1;
    if (first >= n) return n;
    size_t last = std::min(first + kArity, n);
    size_t best = first;
    for (size_t c = first + 1; c < last; ++c) best = Less(heap_[c], heap_[best]) ? c : best;
    return best;
  }
  static bool Less(const Entry& a, const Entry& b) {
    return (a.key < b.key) | ((a.key == b.key) & (a.tie < b.tie));
  }
  void Place(size_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.id] = static_cast<int>(i);
  }
  // Both sifts move a hole and write `e` once, where it belongs.
  void SiftUp(size_t i, Entry e) {
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!Less(e, heap_[parent])) break;
      Place(i, heap_[parent]);
      i = parent;
    }
    Place(i, e);
  }
  void SiftDown(size_t i, Entry e) {
    size_t n = heap_.size();
    for (;;) {
      size_t child = SmallestChild(i, n);
      if (child >= n || !Less(heap_[child], e)) break;
      Place(i, heap_[child]);
      i = child;
    }
    Place(i, e);
  }

  std::vector<Entry> heap_;
  std::vector<int> pos_;
};

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

// What a solve does not touch. Rates and marks, which every solve reads,
// live in arrays of their own.
struct FlowRecord {
  uint64_t seq = 0;   // start order: ties in NextEnd, order of FinishDue
  double t0 = 0;      // the last rate change (or the start)
  double rem0 = 0;    // the remaining work at t0
  double end = kInf;  // t0 + rem0 / rate
  bool active = false;
};

struct StageIntegrals {
  double since = 0;             // the integrals run up to here
  double present = 0;           // of n_s dt
  double carried = 0;           // of (sum of rates) dt, divided by phi when read
};

}  // namespace

class FlowSolver::Impl {
 public:
  Impl(Policy policy, Scope scope) : policy_(policy), scope_(scope) {}

  int AddStage(double capacity) {
    Require(capacity > 0 && std::isfinite(capacity), "stage capacity must be finite and > 0");
    Require(flows_.empty(), "stages are added before the first flow");
    int id = StageCount();
    capacity_.push_back(capacity);
    members_.emplace_back();
    carried_.push_back(0);
    integrals_.emplace_back();
    stage_mark_.push_back(0);
    recount_mark_.push_back(0);
    busy_pos_.push_back(-1);
    fill_level_.push_back(kInf);
    dirty_mark_.push_back(false);
    fill_.Grow(id + 1);
    unfrozen_.push_back(0);
    frozen_sum_.push_back(0);
    return id;
  }

  int StageCount() const { return static_cast<int>(capacity_.size()); }

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
      rate_.push_back(0);
      new_rate_.push_back(0);
      flow_mark_.push_back(0);
      flow_frozen_.push_back(0);
      frozen_by_.push_back(-1);
      inc_begin_.push_back(0);
      inc_count_.push_back(0);
      inc_room_.push_back(0);
      ends_.Grow(id + 1);
    }
    // An id keeps its block of incidences; a flow of more stages than the
    // block holds gets a new one at the end (a block only grows, so the pool
    // is bounded by ids times the most stages of a flow).
    if (inc_room_[id] < k) {
      inc_begin_[id] = static_cast<int>(incidences_.size());
      inc_room_[id] = k;
      incidences_.resize(incidences_.size() + k);
    }
    inc_count_[id] = k;
    Incidence* inc = &incidences_[inc_begin_[id]];
    for (int j = 0; j < k; ++j) {
      int s = stages[j];
      std::vector<Member>& members = members_[s];
      AdvanceIntegrals(s, now);
      if (members.empty()) {
        busy_pos_[s] = static_cast<int>(busy_stages_.size());
        busy_stages_.push_back(s);
      }
      inc[j] = {s, static_cast<int>(members.size())};
      members.push_back({id, j});
      MarkDirty(s);
    }
    FlowRecord& flow = flows_[id];
    flow.seq = next_seq_++;
    flow.t0 = now;
    flow.rem0 = work;
    flow.end = kInf;
    flow.active = true;
    rate_[id] = 0;
    frozen_by_[id] = -1;
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
      const Incidence* inc = Incidences(f);
      for (int j = 0; j < inc_count_[f]; ++j) {
        int s = inc[j].stage;
        std::vector<Member>& members = members_[s];
        AdvanceIntegrals(s, now);
        // Swap the last member into the hole and repoint its incidence.
        Member moved = members.back();
        members[inc[j].pos] = moved;
        incidences_[inc_begin_[moved.flow] + moved.slot].pos = inc[j].pos;
        members.pop_back();
        if (members.empty()) {
          int last = busy_stages_.back();
          busy_stages_[busy_pos_[s]] = last;
          busy_pos_[last] = busy_pos_[s];
          busy_stages_.pop_back();
          busy_pos_[s] = -1;
        }
        MarkDirty(s);
      }
      inc_count_[f] = 0;
      flows_[f].active = false;
      flows_[f].end = kInf;
      rate_[f] = 0;
      --flow_count_;
    }
    // Reused last-in first-out; pushed in reverse so the earliest-started
    // of these ids is handed out first.
    for (auto it = done.rbegin(); it != done.rend(); ++it) free_ids_.push_back(*it);
    pending_ = true;
    return done;
  }

  bool InProgress(int f) const { return f >= 0 && f < static_cast<int>(flows_.size()) && flows_[f].active; }

  double Rate(int f) {
    Require(InProgress(f), "no such flow in progress");
    Settle();
    return rate_[f];
  }

  double Remaining(int f, double now) {
    Require(InProgress(f), "no such flow in progress");
    Settle();
    const FlowRecord& flow = flows_[f];
    Require(now >= flow.t0, "remaining work asked before the last rate change");
    return std::max(0.0, flow.rem0 - rate_[f] * (now - flow.t0));
  }

  int FlowCount() const { return flow_count_; }

  int CheckStage(int s) const {
    Require(s >= 0 && s < StageCount(), "no such stage");
    return s;
  }

  double Capacity(int s) const { return capacity_[CheckStage(s)]; }
  int FlowsAt(int s) const { return static_cast<int>(members_[CheckStage(s)].size()); }

  double CarriedAt(int s) {
    Settle();
    return carried_[CheckStage(s)];
  }

  double WorkAt(int s, double now) {
    Settle();
    double work = 0;
    for (const Member& m : members_[CheckStage(s)]) work += Remaining(m.flow, now);
    return work;
  }

  void ResetIntegrals(double now) {
    Require(now >= clock_, "time went backwards");
    Settle();
    clock_ = now;
    for (StageIntegrals& in : integrals_) in = {now, 0, 0};
  }

  double PresentIntegral(int s, double now) {
    Settle();
    const StageIntegrals& in = integrals_[CheckStage(s)];
    Require(now >= in.since, "integral asked before its last update");
    return in.present + static_cast<double>(members_[s].size()) * (now - in.since);
  }

  double UtilisationIntegral(int s, double now) {
    Settle();
    const StageIntegrals& in = integrals_[CheckStage(s)];
    Require(now >= in.since, "integral asked before its last update");
    return (in.carried + carried_[s] * (now - in.since)) / capacity_[s];
  }

 private:
  const Incidence* Incidences(int f) const { return &incidences_[inc_begin_[f]]; }

  // Brings a stage's integrals up to `now`; called before its n_s or its
  // carried capacity changes, and only then, so that they are sums of the
  // same constant pieces whatever the scope of the solves.
  void AdvanceIntegrals(int s, double now) {
    StageIntegrals& in = integrals_[s];
    double dt = now - in.since;
    if (dt > 0) {
      in.present += static_cast<double>(members_[s].size()) * dt;
      in.carried += carried_[s] * dt;
      in.since = now;
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
      std::fill(recount_mark_.begin(), recount_mark_.end(), 0);
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
          for (const Member& m : members_[s]) TakeFlow(m.flow);
        }
      }
      for (int f : component_flows_) {
        double rate = kInf;
        const Incidence* inc = Incidences(f);
        for (int j = 0; j < inc_count_[f]; ++j) {
          int s = inc[j].stage;
          rate = std::min(rate, capacity_[s] / static_cast<double>(members_[s].size()));
        }
        new_rate_[f] = rate;
      }
    } else {
      if (scope_ == Scope::kEverything) {
        TakeEverything();
        FillMaxMin();
      } else {
        SolveRegion();
      }
    }
    Apply();
    for (int s : dirty_) dirty_mark_[s] = false;
    dirty_.clear();
    ++version_;
  }

  // Every flow in progress, and every stage that holds one or lost one.
  void TakeEverything() {
    for (int s : busy_stages_) TakeStage(s);
    for (int s : dirty_) TakeStage(s);
    for (int f = 0; f < static_cast<int>(flows_.size()); ++f) {
      if (flows_[f].active) TakeFlow(f);
    }
  }

  // The filling's order: stage `stage` fills at `level`, ties to the lower
  // id. A flow frozen by stage s at level r has the key (r, s).
  struct FillKey {
    double level;
    int stage;
    bool operator<(const FillKey& o) const {
      return level < o.level || (level == o.level && stage < o.stage);
    }
  };

  // A member of a stage frozen before the cut, in the order the filling
  // froze it: by the key of the stage that froze it, then by its place in
  // that stage's list (the order in which that stage froze its flows).
  struct Frozen {
    double rate;
    int by;
    int pos;
    bool operator<(const Frozen& o) const {
      return rate < o.rate || (rate == o.rate && (by < o.by || (by == o.by && pos < o.pos)));
    }
  };

  // Stage s's fill level after a freeze, never below the level before: in
  // exact arithmetic it only goes up, and keeping it so in floating point
  // makes the pops come in (level, stage) order, which SolveRegion relies on.
  double RaisedLevel(int s, double level, double frozen_sum, int unfrozen) const {
    return std::max(level, (capacity_[s] - frozen_sum) / static_cast<double>(unfrozen));
  }

  int PosIn(int f, int s) const {
    const Incidence* inc = Incidences(f);
    for (int j = 0;; ++j) {
      if (inc[j].stage == s) return inc[j].pos;
    }
  }

  // stage s's members frozen before `cut` by the last solve, sorted in the
  // order the filling froze them, into frozen_buf_ (new flows have none).
  void FrozenBefore(int s, FillKey cut) {
    frozen_buf_.clear();
    for (const Member& m : members_[s]) {
      int f = m.flow;
      int by = frozen_by_[f];
      if (by >= 0 && FillKey{rate_[f], by} < cut) frozen_buf_.push_back({rate_[f], by, PosIn(f, by)});
    }
    std::sort(frozen_buf_.begin(), frozen_buf_.end());
  }

  // The maxmin re-solve of what a change can affect, which is usually much
  // less than its connected component. The filling of the new system is the
  // filling of the old one, pop for pop, up to the first pop where a changed
  // stage d differs: d's own pop in the old filling (it freezes flows the new
  // filling may not), or the level where d fills in the new one, found by
  // replaying d's flows' freezes in the old filling's order (its flows are
  // the only thing that can change d's level before then). Every flow frozen
  // before that cut keeps its rate; the rest of the filling starts from the
  // state at the cut, over the stages reachable from the changed ones through
  // flows not yet frozen there, with each stage's frozen sum added up in the
  // order the filling froze its flows. So the result is the full filling's,
  // bit for bit (the tests compare with Scope::kEverything after every event).
  void SolveRegion() {
    FillKey cut{kInf, std::numeric_limits<int>::max()};
    for (int d : dirty_) {
      if (fill_level_[d] < kInf) cut = std::min(cut, FillKey{fill_level_[d], d});
      FrozenBefore(d, FillKey{kInf, std::numeric_limits<int>::max()});
      double frozen_sum = 0;
      int unfrozen = static_cast<int>(members_[d].size());
      double level = unfrozen > 0 ? capacity_[d] / static_cast<double>(unfrozen) : kInf;
      size_t i = 0;
      while (unfrozen > 0) {
        if (i == frozen_buf_.size() || FillKey{level, d} < FillKey{frozen_buf_[i].rate, frozen_buf_[i].by}) {
          cut = std::min(cut, FillKey{level, d});
          break;
        }
        // Every flow of d that the same pop froze, then look again.
        double rate = frozen_buf_[i].rate;
        int by = frozen_buf_[i].by;
        for (; i < frozen_buf_.size() && frozen_buf_[i].rate == rate && frozen_buf_[i].by == by; ++i) {
          frozen_sum += rate;
          if (--unfrozen > 0) level = RaisedLevel(d, level, frozen_sum, unfrozen);
        }
      }
    }

    // The flows not frozen before the cut, reachable from the changed stages.
    auto open = [&](int f) {
      int by = frozen_by_[f];
      return by < 0 || !(FillKey{rate_[f], by} < cut);
    };
    for (int s : dirty_) TakeStage(s);
    for (size_t i = 0; i < component_stages_.size(); ++i) {
      for (const Member& m : members_[component_stages_[i]]) {
        int f = m.flow;
        if (flow_mark_[f] == epoch_ || !open(f)) continue;
        flow_mark_[f] = epoch_;
        component_flows_.push_back(f);
        const Incidence* inc = Incidences(f);
        for (int j = 0; j < inc_count_[f]; ++j) TakeStage(inc[j].stage);
      }
    }

    // Each stage's state at the cut. A stage with no open flow keeps its
    // fill level: it filled before the cut, or never.
    for (int s : component_stages_) {
      int n = static_cast<int>(members_[s].size());
      if (n == 0) {
        fill_level_[s] = kInf;
        continue;
      }
      FrozenBefore(s, cut);
      if (frozen_buf_.size() == static_cast<size_t>(n)) continue;
      // The same operations as the full filling, in the same order.
      int unfrozen = n;
      double frozen_sum = 0;
      double level = capacity_[s] / static_cast<double>(n);
      for (const Frozen& fr : frozen_buf_) {
        frozen_sum += fr.rate;
        level = RaisedLevel(s, level, frozen_sum, --unfrozen);
      }
      unfrozen_[s] = unfrozen;
      frozen_sum_[s] = frozen_sum;
      fill_level_[s] = kInf;
      fill_.Append(s, level, static_cast<uint64_t>(s));
    }
    Fill();
  }

  // Progressive filling over the component. Every unfrozen flow has the same
  // rate, the level; stage s fills when the level reaches
  //   (phi_s - frozen_sum_s) / unfrozen_s,
  // so the stages wait in a min-heap keyed by that fill level. The stage on
  // top is full by construction, so no residual capacity is ever compared
  // with zero and the filling needs no freeze tolerance.
  //
  // Freezing a flow at rate r raises the fill level of its other stages
  // (each had at least r per unfrozen flow left), so their keys move down
  // the heap, where they usually have little way to go; a stage whose flows
  // all froze elsewhere leaves it. Ties go to the lower stage id, so the
  // order is total and a component is filled the same way alone or among
  // others (Scope::kEverything gives the same bits).
  void FillMaxMin() {
    for (int s : component_stages_) {
      int n = static_cast<int>(members_[s].size());
      fill_level_[s] = kInf;
      if (n == 0) continue;
      unfrozen_[s] = n;
      frozen_sum_[s] = 0;
      fill_.Append(s, capacity_[s] / static_cast<double>(n), static_cast<uint64_t>(s));
    }
    Fill();
  }

  // The filling proper, from the state in fill_, unfrozen_ and frozen_sum_:
  // freezes the flows of component_flows_ (flow_mark_ == epoch_) only.
  void Fill() {
    fill_.Heapify();
    while (!fill_.empty()) {
      int s = fill_.Top();
      double rate = fill_.TopKey();
      fill_.Pop();
      fill_level_[s] = rate;
      for (const Member& m : members_[s]) {
        int f = m.flow;
        if (flow_frozen_[f] == epoch_ || flow_mark_[f] != epoch_) continue;
        flow_frozen_[f] = epoch_;
        new_rate_[f] = rate;
        frozen_by_[f] = s;
        const Incidence* inc = Incidences(f);
        for (int j = 0; j < inc_count_[f]; ++j) {
          int t = inc[j].stage;
          if (t == s) continue;
          frozen_sum_[t] += rate;
          if (--unfrozen_[t] == 0) {
            fill_.Remove(t);
          } else {
            fill_.Raise(t, (capacity_[t] - frozen_sum_[t]) / static_cast<double>(unfrozen_[t]));
          }
        }
      }
    }
  }

  // Installs the new rates. A flow whose rate is bit-identical keeps its
  // record, so its end time is exactly the one computed when the rate was
  // set (the seed's 2.0 stays 2.0 across the end of another flow). The
  // carried capacity is summed again only at the stages of flows whose rate
  // changed and at the stages whose flows changed.
  void Apply() {
    double now = clock_;
    recount_.clear();
    auto recount = [this](int s) {
      if (recount_mark_[s] == epoch_) return;
      recount_mark_[s] = epoch_;
      recount_.push_back(s);
    };
    for (int s : dirty_) recount(s);
    for (int f : component_flows_) {
      double rate = new_rate_[f];
      if (rate == rate_[f]) continue;
      FlowRecord& flow = flows_[f];
      flow.rem0 = std::max(0.0, flow.rem0 - rate_[f] * (now - flow.t0));
      flow.t0 = now;
      flow.end = now + flow.rem0 / rate;
      rate_[f] = rate;
      if (ends_.Contains(f)) {
        ends_.Update(f, flow.end);
      } else {
        ends_.Push(f, flow.end, flow.seq);
      }
      const Incidence* inc = Incidences(f);
      for (int j = 0; j < inc_count_[f]; ++j) recount(inc[j].stage);
    }
    for (int s : recount_) {
      double carried = 0;
      for (const Member& m : members_[s]) carried += rate_[m.flow];
      if (carried == carried_[s]) continue;
      AdvanceIntegrals(s, now);
      carried_[s] = carried;
    }
  }

  Policy policy_;
  Scope scope_;

  // Stages, by id.
  std::vector<double> capacity_;
  std::vector<std::vector<Member>> members_;
  std::vector<double> carried_;  // sum of the members' rates
  std::vector<StageIntegrals> integrals_;

  // Flows, by id. Flow f's incidences are incidences_[inc_begin_[f] ...
  // + inc_count_[f]), in a block of inc_room_[f].
  std::vector<FlowRecord> flows_;
  std::vector<double> rate_;  // 0 until the first solve
  std::vector<int> inc_begin_, inc_count_, inc_room_;
  std::vector<Incidence> incidences_;
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
  std::vector<int> recount_;  // stages whose carried capacity is summed again
  std::vector<uint32_t> recount_mark_;

  // What the last maxmin solve left, for the next one to start from: the
  // level at which each stage filled (kInf: it did not), and the stage that
  // froze each flow (-1: not solved yet).
  std::vector<double> fill_level_;
  std::vector<int> frozen_by_;
  std::vector<Frozen> frozen_buf_;
  // The stages holding at least one flow, in no particular order.
  std::vector<int> busy_stages_;
  std::vector<int> busy_pos_;  // by stage: its index in busy_stages_
  IndexedHeap fill_;  // stages by fill level, during FillMaxMin
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
