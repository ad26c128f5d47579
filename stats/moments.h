// Mergeable moments (count, mean, M2): what serq-sim keeps of a summarised
// observation and what the report merges across replications and files.
// A library of its own, so that serq-sim links it without the report.
#ifndef SERQ_STATS_MOMENTS_H_
#define SERQ_STATS_MOMENTS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/base/casts.h"
#include "absl/types/span.h"

namespace serq::report {

// Count, mean and M2 (the sum of squared deviations from the mean) of a set
// of samples. Kept instead of sums of squares so that a variance of large,
// close samples does not cancel away, and so that two sets merge exactly
// (replications, and files run on other machines).
class Moments {
 public:
  Moments() = default;
  // What a summary recorded (results.proto Observation count, mean, m2).
  static Moments FromParts(uint64_t count, double mean, double m2);

  // Welford's update (inline: per-token observations call it for every
  // token). The same bits as AddRun(x, 1).
  void Add(double x) {
    ++count_;
    double delta = x - mean_;
    if (!std::isfinite(delta)) [[unlikely]] {
      AddPastFinite(x);
      return;
    }
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
  }
  // k >= 1 samples equal to x (finite) as one group: Welford's update for a
  // group of k (Chan, Golub and LeVeque's merge with the group's mean x and
  // M2 0, written so that k = 1 is Add's very operations: delta * 1 is
  // delta). One division for the group instead of k in a chain: a step's
  // decode tokens share their gap.
  void AddRun(double x, uint64_t k) {
    count_ += k;
    double delta = x - mean_;
    if (!std::isfinite(delta)) [[unlikely]] {
      AddPastFinite(x);
      return;
    }
    double weighted = delta * static_cast<double>(k);
    mean_ += weighted / static_cast<double>(count_);
    m2_ += weighted * (x - mean_);
  }
  // The samples in order, each maximal run of equal finite samples (the
  // same bits) by one AddRun, every other sample by Add: how the report
  // and serq-sim's recorder both define an observation's moments, so that
  // kept samples and a summary of them give the same bits.
  void AddSamples(absl::Span<const double> samples);
  // Whether x continues a run whose value is `value`: the same bits.
  static bool SameRun(double x, double value) {
    return absl::bit_cast<uint64_t>(x) == absl::bit_cast<uint64_t>(value);
  }
  // Calls visit(x, k) on each maximal run of samples with the same bits,
  // in order.
  template <typename Visit>
  static void ForEachRun(absl::Span<const double> samples, Visit visit) {
    for (size_t i = 0; i < samples.size();) {
      const double x = samples[i];
      size_t j = i + 1;
      while (j < samples.size() && SameRun(samples[j], x)) ++j;
      visit(x, static_cast<uint64_t>(j - i));
      i = j;
    }
  }
  void Merge(const Moments& other);   // Chan, Golub and LeVeque's pairwise merge

  uint64_t count() const { return count_; }
  double mean() const { return mean_; }  // 0 when count() == 0
  double m2() const { return m2_; }
  // The sample variance and standard deviation (divisor n - 1); undefined
  // for fewer than two samples.
  std::optional<double> Variance() const;
  std::optional<double> Stddev() const;

 private:
  // A sample or a mean that is infinite (count_ already counts it): the
  // mean is the infinite one (both infinite, of two signs: NaN), whatever
  // the order ({inf, 1} had become inf - inf = NaN, {1, inf} inf), and
  // the spread has no value (NaN: the report shows none).
  void AddPastFinite(double x) {
    if (std::isnan(mean_) || std::isnan(x)) {
      mean_ = std::numeric_limits<double>::quiet_NaN();
    } else if (!std::isinf(mean_)) {
      mean_ = x;  // the infinite sample
    } else if (std::isinf(x) && x != mean_) {
      mean_ = std::numeric_limits<double>::quiet_NaN();
    }
    m2_ = std::numeric_limits<double>::quiet_NaN();
  }

  uint64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace serq::report

#endif  // SERQ_STATS_MOMENTS_H_
