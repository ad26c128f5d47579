#include "serq-sim/workload/arrivals.h"

#include <cmath>

namespace serq::sim {

bool Arrivals::Start(const std::vector<const ArrivalPlan*>& plans, double horizon,
                     Random* random, GapSource* gaps) {
  horizon_ = horizon;
  random_ = random;
  gaps_ = gaps;
  streams_.assign(plans.size(), Stream());
  for (uint32_t w = 0; w < plans.size(); ++w) {
    Stream& s = streams_[w];
    s.plan = plans[w];
    const ArrivalPlan& p = *s.plan;
    switch (p.process) {
      case ir::Workload::BATCH:
        s.next = std::floor(p.count) >= 1 ? 0 : INFINITY;
        break;
      case ir::Workload::POISSON:
        s.next = random_->Exponential(1 / p.rate);
        break;
      case ir::Workload::PERIODIC:
        s.next = 0;
        break;
      case ir::Workload::RENEWAL:
        if (!gaps_->RenewalGap(w, p.gap, &s.next)) return false;
        break;
      case ir::Workload::TRACE:
        s.next = p.trace->times.empty() ? INFINITY : p.trace->times[0];
        break;
      default:
        s.next = INFINITY;
    }
    if (p.limit == 0 || s.next >= horizon_) s.next = INFINITY;
  }
  return true;
}

bool Arrivals::Next(double* time, uint32_t* workload) const {
  double best = INFINITY;
  uint32_t which = 0;
  // Strictly earlier wins: ties go to the workload declared first.
  for (uint32_t w = 0; w < streams_.size(); ++w) {
    if (streams_[w].next < best) {
      best = streams_[w].next;
      which = w;
    }
  }
  if (best == INFINITY) return false;
  *time = best;
  *workload = which;
  return true;
}

bool Arrivals::Take(uint32_t workload, const double** row) {
  Stream& s = streams_[workload];
  *row = nullptr;
  if (s.plan->process == ir::Workload::TRACE) {
    *row = s.plan->trace->values.data() + s.made * s.plan->trace->columns.size();
  }
  return Advance(workload);
}

bool Arrivals::Advance(uint32_t workload) {
  Stream& s = streams_[workload];
  const ArrivalPlan& p = *s.plan;
  ++s.made;
  if (s.made >= p.limit) {
    s.next = INFINITY;
    return true;
  }
  switch (p.process) {
    case ir::Workload::BATCH:
      if (s.made >= std::floor(p.count)) s.next = INFINITY;
      break;
    case ir::Workload::POISSON:
      s.next += random_->Exponential(1 / p.rate);
      break;
    case ir::Workload::PERIODIC:
      // k * period, not a running sum, so no rounding accumulates.
      s.next = s.made * p.period;
      break;
    case ir::Workload::RENEWAL: {
      double gap;
      if (!gaps_->RenewalGap(workload, p.gap, &gap)) return false;
      s.next += gap;
      break;
    }
    case ir::Workload::TRACE:
      s.next = s.made < p.trace->times.size() ? p.trace->times[s.made] : INFINITY;
      break;
    default:
      s.next = INFINITY;
  }
  if (s.next >= horizon_) s.next = INFINITY;
  return true;
}

}  // namespace serq::sim
