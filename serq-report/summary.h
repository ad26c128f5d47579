// What serq-sim keeps of one observation in one replication, in bounded
// memory: every sample while there are at most `limit` (2^20), so that
// quantiles stay exact (and every golden of today byte for byte); beyond
// that, exact moments and sum, a quantile sketch and batch sums instead
// (results.proto Observation; docs/report.md §quantiles).
#ifndef SERQ_REPORT_SUMMARY_H_
#define SERQ_REPORT_SUMMARY_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "proto/results.pb.h"
#include "serq-report/moments.h"
#include "serq-report/sketch.h"

namespace serq::report {

inline constexpr uint64_t kExactSamples = uint64_t{1} << 20;

// Sums of consecutive batches of samples, for batch means: batches of
// `size` samples, between kMaxBatches / 2 and kMaxBatches - 1 full ones
// once there are that many (two adjacent ones merge, and the size doubles,
// when there would be kMaxBatches).
class BatchSums {
 public:
  static constexpr size_t kMaxBatches = 1024;
  // Inline: per-token observations add every token; a batch's end is not.
  void Add(double x) {
    partial_sum_ += x;
    if (++partial_ < size_) return;
    EndBatch();
  }
  uint64_t size() const { return size_; }
  const std::vector<double>& sums() const { return sums_; }
  void WriteTo(results::Batches* out) const;

 private:
  void EndBatch();
  uint64_t size_ = 1;
  std::vector<double> sums_;
  double partial_sum_ = 0;
  uint64_t partial_ = 0;
};

// The means of `batches` batches from the full batches of `b`: each of
// floor(m / batches) consecutive ones (m = b.sum_size()), the m mod batches
// earliest in no batch (as BatchMeans leaves out the earliest samples).
// Empty when m < batches.
std::vector<double> BatchMeansOfSums(const results::Batches& b, int batches);

class ObservationRecorder {
 public:
  explicit ObservationRecorder(uint64_t limit = kExactSamples) : limit_(limit) {}
  ObservationRecorder(ObservationRecorder&&) = default;
  ObservationRecorder& operator=(ObservationRecorder&&) = default;

  // Inline: per-token observations record every token.
  void Add(double x) {
    // The moments and the sum in recording order, as the report computes
    // them from kept samples: the two paths give the same bits.
    moments_.Add(x);
    sum_ += x;
    if (summarised_) {
      sketch_.Add(x);
      batches_.Add(x);
      return;
    }
    if (exact_.size() < limit_) {
      exact_.push_back(x);
      return;
    }
    Summarise(x);
  }
  uint64_t count() const { return moments_.count(); }
  bool summarised() const { return summarised_; }

  // The samples, or beyond the limit the summary (count, mean, m2, sum,
  // sketch, batches); `out`'s name is the caller's.
  void WriteTo(results::Observation* out) const;

 private:
  void Summarise(double x);

  uint64_t limit_;
  bool summarised_ = false;
  std::vector<double> exact_;
  Moments moments_;
  double sum_ = 0;
  QuantileSketch sketch_;
  BatchSums batches_;
};

}  // namespace serq::report

#endif  // SERQ_REPORT_SUMMARY_H_
