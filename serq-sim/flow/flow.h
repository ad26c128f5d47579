// The flow solver: shares the capacity of shared stages among flows.
//
// A flow is a job of a multi-stage run (or any run on a shared stage). It
// holds every one of its stages from its start to its end and has remaining
// work; its rate is set by the sharing policy from the capacities of all the
// stages it holds, and is recomputed at every start and end of a flow that
// shares a stage with it (directly or through other flows). A flow keeps its
// remaining work across rate changes. This library knows only stages,
// capacities and flows, not the IR or the event loop, so it can be tested,
// benchmarked and replaced on its own.
//
// Policies (the `share` declaration, docs/language.md §3.4):
//   kMaxMin      max-min fair by progressive filling: raise the rates of all
//                unfrozen flows together; when a stage fills (its flows'
//                rates sum to its capacity), freeze its flows; repeat.
//                Work-conserving. A flow on one stage only takes what the
//                other flows through that stage leave; it is not owed phi/n.
//   kBottleneck  rate of f = min over f's stages s of phi_s / n_s, with n_s
//                the flows holding s. Not work-conserving.
//
// Use from an event loop:
//
//   FlowSolver solver(Policy::kMaxMin);
//   int nic = solver.AddStage(1.0);  ...       // every stage first
//   int f = solver.Start(now, {nic, ingress}, work);
//   if (auto next = solver.NextEnd())          // schedule an end event at
//     Schedule(next->first, solver.version()); // next->first, tagged
//   ...
//   // the end event fires: drop it if its version is not solver.version()
//   // (stale), else
//   for (int flow : solver.FinishDue(now)) ...  // these flows end at `now`
//
// The re-solve after a start or an end is deferred to the next query, so the
// starts and ends of one instant cost one solve together; the queries are
// logically const. Not thread-safe.
//
// Cost: a change re-solves at most the connected component of stages and
// flows that it touches, in O((F k + S) log S) for F flows of k stages over
// S stages; under maxmin usually much less (only the stages where the
// progressive filling comes out differently), under bottleneck only the
// flows sharing a stage with it. The rates are bit-identical to a solve of
// everything (Scope). Remaining work is stored at the last rate change and
// computed on demand, and the end heap is updated only for flows whose rate
// changed. Details in docs/internals.md, "The flow solver".
#ifndef SERQ_SIM_FLOW_FLOW_H_
#define SERQ_SIM_FLOW_FLOW_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace serq::flow {

enum class Policy { kMaxMin, kBottleneck };

// What a change re-solves. kComponent is the solver; kEverything re-solves
// every flow at every change, as the reference for tests and benchmarks.
// Both give bit-identical rates.
enum class Scope { kComponent, kEverything };

class FlowSolver {
 public:
  // A flow whose end time is at most now + kEndTolerance * |now| is due at
  // `now`: FinishDue ends it at `now` exactly. Flows that end together in
  // exact arithmetic can come out a few ulps apart after different histories
  // of rate changes (each adds a rounding to the remaining work); this
  // window, 1e-9 of the clock, absorbs about 10^7 such roundings.
  static constexpr double kEndTolerance = 1e-9;

  explicit FlowSolver(Policy policy, Scope scope = Scope::kComponent);
  ~FlowSolver();
  FlowSolver(FlowSolver&&) noexcept;
  FlowSolver& operator=(FlowSolver&&) noexcept;

  // Adds a shared stage of capacity `capacity` (> 0, finite) and returns its
  // id: 0, 1, 2, ... Only before the first flow starts.
  int AddStage(double capacity);
  int StageCount() const;

  // Starts a flow at `now` holding `stages` (distinct, at least one) with
  // `work` (> 0, finite) to do, and returns its id. Ids are small integers,
  // reused after the flow ends. `now` never decreases from call to call.
  int Start(double now, absl::Span<const int> stages, double work);

  // The earliest end time of the flows in progress and that flow (ties: the
  // flow started first), or nothing when no flow is in progress.
  std::optional<std::pair<double, int>> NextEnd() const;

  // Changes at every solve that changes the set of flows or any rate (hence
  // any end time): an end event scheduled under an older version is stale.
  uint64_t version() const;

  // Ends every flow due at `now` (see kEndTolerance), at `now` exactly, and
  // returns them in start order (empty if none is due). Their stages are
  // re-solved once, together.
  std::vector<int> FinishDue(double now);

  // A flow in progress: its rate and its remaining work at `now` (not before
  // its last start or rate change).
  bool InProgress(int flow) const;
  double Rate(int flow) const;
  double Remaining(int flow, double now) const;
  int FlowCount() const;  // flows in progress

  // A stage: its capacity phi_s, the flows holding it (n_s), the sum of their
  // rates (the capacity carried) and of their remaining work at `now`.
  double Capacity(int stage) const;
  int FlowsAt(int stage) const;
  double CarriedAt(int stage) const;
  double WorkAt(int stage, double now) const;

  // Time integrals since the last reset (or since 0), for the report:
  // PresentIntegral is the integral of n_s dt, UtilisationIntegral that of
  // (sum of rates at s) / phi_s dt, both up to `now`.
  void ResetIntegrals(double now);
  double PresentIntegral(int stage, double now) const;
  double UtilisationIntegral(int stage, double now) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace serq::flow

#endif  // SERQ_SIM_FLOW_FLOW_H_
