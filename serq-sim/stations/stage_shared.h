// Shared stages (docs/language.md §6): every stage declaration named in a run with a
// non-empty `also` is shared for the whole run, and every job on it, a
// single-stage run included, is a flow of the program's policy. Flows keep
// their remaining work; every rate is recomputed at every start and end
// (by the flow solver, flow.h); an end scheduled before a change is
// cancelled.
//
// The starts and ends of one instant are solved together: a change marks
// the solver dirty (the pending end, if any, is cancelled: it may have
// moved) and one end-of-instant event asks it for the next end, which is
// the group's one movable event (StageHost::Reschedule).
#ifndef SERQ_SIM_STATIONS_STAGE_SHARED_H_
#define SERQ_SIM_STATIONS_STAGE_SHARED_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "serq-sim/flow/flow.h"
#include "serq-sim/stations/stage.h"

namespace serq::sim {

class SharedStages {
 public:
  // `target`: the station id the group's events go to, one that no
  // station has.
  SharedStages(flow::Policy policy, uint32_t target) : solver_(policy), target_(target) {}
  uint32_t target() const { return target_; }

  // A station of the group: station `id`, capacity `phi`. Its queue, busy,
  // work and statistics come from the solver (docs/language.md §6's definitions: n_s,
  // n_s, the flows' remaining work, utilisation sum(r_f) / phi_s).
  std::unique_ptr<Station> AddStation(uint32_t id, double phi);

  // Starts the flow of `session` over `stations` (distinct shared station
  // ids) with `work` > 0.
  void Start(StageHost& host, SessionId session, absl::Span<const uint32_t> stations,
             double work);

  // The group's event `tag` fired: appends the sessions whose flows ended,
  // in start order. False for the group's own end-of-instant rescheduling:
  // the engine counts only the ends as events.
  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done);

  void StartWindow(double now) { solver_.ResetIntegrals(now); }

  flow::FlowSolver& solver() { return solver_; }
  // The solver's stage for a station id.
  int stage_of(uint32_t station) const { return stage_by_station_[station]; }

 private:
  enum : uint32_t { kEnd = 0, kReschedule = 1 };
  void MarkDirty(StageHost& host);

  flow::FlowSolver solver_;
  uint32_t target_;
  std::vector<int> stage_by_station_;     // station id -> solver stage, or -1
  std::vector<SessionId> session_of_;     // flow id -> session
  std::vector<int> scratch_;
  bool pending_ = false;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_STATIONS_STAGE_SHARED_H_
