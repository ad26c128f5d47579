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
        s.mean_gap = 1 / p.rate;
        s.next = random_->Exponential(s.mean_gap);
        break;
      case ir::Workload::PERIODIC:
        s.next = 0;
        break;
      case ir::Workload::RENEWAL:
        if (!gaps_->RenewalGap(w, p.gap, &s.next)) return false;
        break;
      case ir::Workload::TRACE:
        s.next = p.trace->times.empty() ? INFINITY : p.scale * p.trace->times[0];
        break;
      case ir::Workload::STAGES:
        s.stage = 0;
        s.stage_start = 0;
        s.next = StagesNext(s, 0);
        break;
      case ir::Workload::EXACTLY:
        s.next = std::floor(p.count) >= 1 ? ExactlyNext(s, 0) : INFINITY;
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
      s.next += random_->Exponential(s.mean_gap);
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
      s.next = s.made < p.trace->times.size() ? p.scale * p.trace->times[s.made] : INFINITY;
      break;
    case ir::Workload::STAGES:
      s.next = StagesNext(s, s.next);
      break;
    case ir::Workload::EXACTLY:
      s.next = s.made < std::floor(p.count) ? ExactlyNext(s, s.next) : INFINITY;
      break;
    default:
      s.next = INFINITY;
  }
  if (s.next >= horizon_) s.next = INFINITY;
  return true;
}

double Arrivals::StagesNext(Stream& s, double from) {
  // Stage k covers [start_k, start_k + duration_k). A Poisson process's gap
  // is memoryless, so a gap that runs past its stage's end is drawn again
  // from there at the next stage's rate: piecewise-constant rates exactly.
  const auto& stages = s.plan->stages;
  while (s.stage < stages.size()) {
    const auto [rate, duration] = stages[s.stage];
    const double end = s.stage_start + duration;
    if (rate > 0) {
      const double next = from + random_->Exponential(1 / rate);
      if (next < end) return next;
    }
    from = end;
    s.stage_start = end;
    ++s.stage;
  }
  return INFINITY;
}

double Arrivals::ExactlyNext(const Stream& s, double from) {
  // The order statistics of n uniform draws on [0, T), one at a time: given
  // the k-th at x, the (k+1)-th is x + (T - x)(1 - V^(1/(n-k))) with V
  // uniform on (0, 1), the least of n - k uniforms on [x, T) (Devroye,
  // Non-Uniform Random Variate Generation, 1986, V.3: the sequential
  // method). Together: a Poisson process given n arrivals in [0, T).
  const double n = std::floor(s.plan->count);
  const double left = n - static_cast<double>(s.made);
  // 1 - V^(1/left) as -expm1(ln V / left): the same number, without the
  // cancellation that would leave 1 - pow few digits when left is large.
  const double v = random_->Uniform01Open();
  const double next = from + (s.plan->span - from) * -std::expm1(std::log(v) / left);
  return std::min(next, std::nextafter(s.plan->span, 0.0));
}

}  // namespace serq::sim
