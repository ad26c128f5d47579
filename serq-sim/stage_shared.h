// Shared stages (the seed): every stage declaration named in a run with a
// non-empty `also` is shared for the whole run, and every job on it, a
// single-stage run included, is a flow of the program's policy. Flows keep
// their remaining work; every rate is recomputed at every start and end
// (by the flow solver, flow.h); an end scheduled before a change is stale.
//
// The starts and ends of one instant are solved together: a change marks
// the solver dirty and one end-of-instant event asks it for the next end.
#ifndef SERQ_SIM_STAGE_SHARED_H_
#define SERQ_SIM_STAGE_SHARED_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "serq-sim/flow.h"
#include "serq-sim/stage.h"

namespace serq::sim {

class SharedStages {
 public:
  // The target of the group's events (a station id no station has).
  static constexpr uint32_t kTarget = UINT32_MAX;

  explicit SharedStages(flow::Policy policy) : solver_(policy) {}

  // A station of the group: station `id`, capacity `phi`. Its queue, busy,
  // work and statistics come from the solver (the seed's definitions: n_s,
  // n_s, the flows' remaining work, utilisation sum(r_f) / phi_s).
  std::unique_ptr<Station> AddStation(uint32_t id, double phi);

  // Starts the flow of `session` over `stations` (distinct shared station
  // ids) with `work` > 0.
  void Start(StageHost& host, SessionId session, absl::Span<const uint32_t> stations,
             double work);

  // The group's event `tag` fired: appends the sessions whose flows ended,
  // in start order. False when no flow ended by it (a stale end, or the
  // group's own end-of-instant rescheduling): the engine counts only the
  // others as events.
  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done);

  void StartWindow(double now) { solver_.ResetIntegrals(now); }

  // False for an end scheduled before the last change.
  bool IsCurrent(uint32_t tag) { return tag == kReschedule || tag == EndTag(solver_.version()); }

  flow::FlowSolver& solver() { return solver_; }
  // The solver's stage for a station id.
  int stage_of(uint32_t station) const { return stage_by_station_[station]; }

 private:
  static constexpr uint32_t kReschedule = 0x80000000u;
  static uint32_t EndTag(uint64_t version) { return version & 0x7fffffffu; }
  void MarkDirty(StageHost& host);

  flow::FlowSolver solver_;
  std::vector<int> stage_by_station_;     // station id -> solver stage, or -1
  std::vector<SessionId> session_of_;     // flow id -> session
  std::vector<int> scratch_;
  bool pending_ = false;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_STAGE_SHARED_H_
