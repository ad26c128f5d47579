#include "stats/moments.h"

#include <cmath>

namespace serq::report {

Moments Moments::FromParts(uint64_t count, double mean, double m2) {
  Moments m;
  m.count_ = count;
  m.mean_ = count == 0 ? 0 : mean;
  m.m2_ = count == 0 ? 0 : m2;
  return m;
}

void Moments::AddSamples(absl::Span<const double> samples) {
  ForEachRun(samples, [this](double x, uint64_t k) {
    if (std::isfinite(x)) {
      AddRun(x, k);
    } else {
      for (uint64_t i = 0; i < k; ++i) Add(x);
    }
  });
}

void Moments::Merge(const Moments& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  double na = static_cast<double>(count_);
  double nb = static_cast<double>(other.count_);
  double n = na + nb;
  double delta = other.mean_ - mean_;
  // mean + delta * nb / n rather than the weighted average of the two
  // means: it leaves a merge of two equal means exactly that mean.
  // An infinite mean would turn delta into inf - inf (NaN, where both are
  // +inf); weighted, inf stays (and +inf beside -inf is NaN, as it is).
  if (std::isinf(mean_) || std::isinf(other.mean_)) {
    mean_ = (na * mean_ + nb * other.mean_) / n;
  } else {
    mean_ += delta * nb / n;
  }
  m2_ += other.m2_ + delta * delta * na * nb / n;
  count_ += other.count_;
}

std::optional<double> Moments::Variance() const {
  if (count_ < 2) return std::nullopt;
  return m2_ / static_cast<double>(count_ - 1);
}

std::optional<double> Moments::Stddev() const {
  std::optional<double> v = Variance();
  if (!v) return std::nullopt;
  return std::sqrt(*v);
}

}  // namespace serq::report
