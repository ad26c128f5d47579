#include "serq-sim/stations/stage.h"

namespace serq::sim {

void Station::KeepPrice(double service) {
  if (price_count_ == kPriceWindow) {
    price_sum_ -= price_ring_[price_next_];
  } else {
    ++price_count_;
  }
  price_ring_[price_next_] = service;
  price_sum_ += service;
  price_next_ = (price_next_ + 1) % kPriceWindow;
  // Summed afresh once a window has turned over, so that no rounding
  // accumulates over a long run.
  if (price_next_ == 0) {
    price_sum_ = 0;
    for (int i = 0; i < price_count_; ++i) price_sum_ += price_ring_[i];
  }
}

void Station::StartWindow(double now) {
  present_.Reset(now);
  busy_.Reset(now);
  done_ = 0;
  service_sum_ = 0;
  waited_ = 0;
  wait_sum_ = 0;
}

void Station::Report(double now, double window, results::StageStats* out) const {
  out->set_mean_present(window > 0 ? present_.Integral(now) / window : 0);
  out->set_utilisation(window > 0 ? busy_.Integral(now) / window : 0);
  out->set_done(done_);
  out->set_service_sum(service_sum_);
  out->set_waited(waited_);
  out->set_wait_sum(wait_sum_);
}

StepVars StepVars::Of(const StepJob& job) {
  StepVars v;
  const double t = job.tokens, c = job.context, kv = c - t;
  v.tokens = t;
  v.seqs = 1;
  v.context = c;
  v.attention = t * c - t * (t - 1) / 2;
  if (job.decode) {
    v.decode = 1;
    v.decode_kv = v.decode_kv_max = v.decode_kv_min = kv;
    v.decode_context = v.decode_context_max = v.decode_context_min = c;
  } else {
    v.prefill = t;
    v.prefill_jobs = 1;
    v.prefill_kv = v.prefill_kv_max = v.prefill_kv_min = kv;
    v.prefill_context = v.prefill_context_max = v.prefill_context_min = c;
  }
  v.jobs = &job;
  v.job_count = 1;
  return v;
}

}  // namespace serq::sim
