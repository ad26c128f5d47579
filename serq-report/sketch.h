// A mergeable quantile sketch of stated relative accuracy (DDSketch, Masson,
// Rim and Lee, VLDB 2019): samples counted in logarithmic buckets, so every
// quantile it answers is within `alpha` (relative) of an order statistic's
// value, whatever the distribution, in memory logarithmic in the range of
// the samples. Two sketches of the same alpha merge exactly (bucket counts
// add), so replications and files combine as the samples would.
// docs/report.md §quantiles states the accuracy; sketch_test checks it.
#ifndef SERQ_REPORT_SKETCH_H_
#define SERQ_REPORT_SKETCH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "proto/results.pb.h"

namespace serq::report {

// The relative accuracy serq-sim's sketches have: 0.1%.
inline constexpr double kSketchAlpha = 0.001;

class QuantileSketch {
 public:
  explicit QuantileSketch(double alpha = kSketchAlpha);

  // n samples equal to x, which is not NaN. Inline: per-token
  // observations add every token. A repeat of the last positive sample (a
  // step's tokens share their gap) whose bucket is inside the store's
  // range is counted here, with the same min, max and counts as AddAny.
  void Add(double x, uint64_t n = 1) {
    if (x > 0 && x == last_positive_ && count_ != 0) {
      size_t at = static_cast<size_t>(last_index_ - positive_.offset);
      if (last_index_ >= positive_.offset && at < positive_.counts.size()) {
        min_ = std::min(min_, x);
        max_ = std::max(max_, x);
        count_ += n;
        positive_.counts[at] += n;
        return;
      }
    }
    AddAny(x, n);
  }
  // `other` has the same alpha (checked by the caller: Read refuses others).
  void Merge(const QuantileSketch& other);

  double alpha() const { return alpha_; }
  uint64_t count() const { return count_; }
  double min() const { return min_; }
  double max() const { return max_; }

  // The q-quantile (0 <= q <= 1), as SortedQuantile would compute it from
  // the sorted samples (h = (n - 1) q, interpolating between the order
  // statistics at floor(h) and floor(h) + 1), with each order statistic
  // replaced by its bucket's value, clamped to [min, max]: within alpha of
  // the exact quantile when both order statistics have the same sign.
  // count() > 0.
  double Quantile(double q) const;

  // The buckets that are not empty, in ascending order of value: -inf,
  // the negative buckets from the largest magnitude, zero, the positive
  // buckets, +inf. `value` is the bucket's (every sample counted in it is
  // within alpha of it; not clamped to [min, max]). Read only: what a
  // picture of the whole distribution (serq-view's CDF) walks.
  struct Bucket {
    double value;
    uint64_t count;
  };
  std::vector<Bucket> Buckets() const;

  // The proto form: deterministic (the buckets from the lowest to the
  // highest that is not empty).
  void WriteTo(results::QuantileSketch* out) const;
  // Reads what WriteTo wrote. InvalidArgument when alpha is not in (0, 1).
  static absl::Status Read(const results::QuantileSketch& in, QuantileSketch* out);

 private:
  // Dense counts from index `offset`; grows at either end.
  struct Store {
    int32_t offset = 0;
    std::vector<uint64_t> counts;
    void Add(int32_t index, uint64_t n);
    uint64_t total() const;
  };
  void AddAny(double x, uint64_t n);  // Add, for any x
  int32_t Index(double magnitude) const;  // of a finite magnitude > 0
  double Value(int32_t index) const;      // the bucket's value
  // Calls visit(count, value) on each bucket that is not empty, in
  // Buckets()'s order, until it returns false (sketch.cc).
  template <typename Visit>
  void Walk(Visit visit) const;

  double alpha_;
  double gamma_;
  double log_gamma_;
  uint64_t count_ = 0;
  double min_ = 0, max_ = 0;
  uint64_t zero_ = 0;
  uint64_t positive_infinite_ = 0, negative_infinite_ = 0;
  Store positive_, negative_;
  // The insert path's memo: the last positive sample and its index (the
  // same samples come in runs: a step's tokens share their gap).
  double last_positive_ = -1;
  int32_t last_index_ = 0;
};

}  // namespace serq::report

#endif  // SERQ_REPORT_SKETCH_H_
