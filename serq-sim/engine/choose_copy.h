// A choose's copy of the deployment (IR 11, `choose … by KEY every DT;`,
// docs/language.md §5.3): what a dispatcher that routes on published load
// reads. The copy holds the state functions of the stage and pool elements
// the key reads as they were at the latest multiple of DT, and counts each
// choice made since as one more waiting job on the chosen stage element,
// until the next refresh replaces it: vLLM 0.19's data-parallel balancer
// reads the engines' counts as its coordinator last published them (every
// 100 ms) plus one waiting request for each request it has sent since
// (DPLBAsyncMPClient.get_core_engine_for_request).
#ifndef SERQ_SIM_ENGINE_CHOOSE_COPY_H_
#define SERQ_SIM_ENGINE_CHOOSE_COPY_H_

#include <cstdint>
#include <vector>

#include "serq-sim/events/clock.h"
#include "serq-sim/model/expr.h"
#include "serq-sim/model/model.h"

namespace serq::sim {

class ChooseCopy : public StateView {
 public:
  // `live` answers what the copy does not hold (and is read at a refresh).
  ChooseCopy(const ChooseSite& site, StateView* live);

  // The instant of the next refresh: the next multiple of DT.
  Ticks next() const { return next_; }
  // Takes the copy for the latest multiple of DT not after `now`, which
  // the engine calls before the first event at or after it: the state
  // then is the state the events before that instant left.
  void Refresh(Ticks now);
  // A choice of element `index` of the chosen array: one more job waiting
  // (and present) there in the copy, on a stage array.
  void Chose(uint32_t index);

  // StateView: queue, busy, running, waiting, work and price of a stage
  // element, used and free of a pool element, from the copy; anything
  // else (cap, held, cached, hit: constant or the session's own) live.
  double StageState(Function f, uint32_t station) override;
  double PoolState(Function f, uint32_t pool) override;

 private:
  static constexpr int kStageValues = 6;  // queue busy running waiting work price
  static constexpr int kPoolValues = 2;   // used free
  // The slot of `element` in `elements` (ascending), or -1.
  static int Slot(const std::vector<uint32_t>& elements, uint32_t element);

  const ChooseSite& site_;
  StateView* live_;
  Ticks dt_;
  Ticks next_ = 0;
  std::vector<double> stations_;  // kStageValues a station of site_.stations
  std::vector<double> pools_;     // kPoolValues a pool of site_.pools
};

}  // namespace serq::sim

#endif  // SERQ_SIM_ENGINE_CHOOSE_COPY_H_
