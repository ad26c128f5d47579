#include "stats/summary.h"

namespace serq::report {

void BatchSums::EndBatch() {
  sums_.push_back(partial_sum_);
  partial_sum_ = 0;
  partial_ = 0;
  if (sums_.size() < kMaxBatches) return;
  for (size_t i = 0; i < kMaxBatches / 2; ++i) sums_[i] = sums_[2 * i] + sums_[2 * i + 1];
  sums_.resize(kMaxBatches / 2);
  size_ *= 2;
}

void BatchSums::WriteTo(results::Batches* out) const {
  out->set_size(size_);
  out->mutable_sum()->Add(sums_.begin(), sums_.end());
}

std::vector<double> BatchMeansOfSums(const results::Batches& b, int batches) {
  std::vector<double> means;
  size_t m = static_cast<size_t>(b.sum_size());
  size_t per = m / static_cast<size_t>(batches);
  if (per == 0 || b.size() == 0) return means;
  size_t first = m - per * static_cast<size_t>(batches);
  double samples = static_cast<double>(per) * static_cast<double>(b.size());
  for (int k = 0; k < batches; ++k) {
    double sum = 0;
    for (size_t i = 0; i < per; ++i) sum += b.sum(static_cast<int>(first + k * per + i));
    means.push_back(sum / samples);
  }
  return means;
}

void ObservationRecorder::Summarise(double x, uint64_t k) {
  summarised_ = true;
  // The kept samples in their runs (a step's tokens): the same counts and
  // additions as one at a time, the moments and the sum as Track would
  // have kept them sample by sample.
  Moments::ForEachRun(exact_, [this](double y, uint64_t n) {
    Track(y, n);
    sketch_.Add(y, n);
    batches_.AddRun(y, n);
  });
  exact_.release();  // the memory goes back now
  Track(x, k);
  sketch_.Add(x, k);
  batches_.AddRun(x, k);
}

void ObservationRecorder::WriteTo(results::Observation* out) const {
  if (!summarised_) {
    out->mutable_sample()->Add(exact_.begin(), exact_.end());
    return;
  }
  Moments moments = moments_;
  if (run_count_ != 0) moments.AddRun(run_value_, run_count_);
  out->set_count(moments.count());
  out->set_mean(moments.mean());
  out->set_m2(moments.m2());
  out->set_sum(sum_);
  sketch_.WriteTo(out->mutable_sketch());
  batches_.WriteTo(out->mutable_batches());
}

}  // namespace serq::report
