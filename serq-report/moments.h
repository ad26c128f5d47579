// Mergeable moments (count, mean, M2): what serq-sim keeps of a summarised
// observation and what the report merges across replications and files.
// A library of its own, so that serq-sim links it without the report.
#ifndef SERQ_REPORT_MOMENTS_H_
#define SERQ_REPORT_MOMENTS_H_

#include <cstdint>
#include <optional>

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
  // token).
  void Add(double x) {
    ++count_;
    double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
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
  uint64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace serq::report

#endif  // SERQ_REPORT_MOMENTS_H_
