// A mergeable quantile sketch of stated relative accuracy (DDSketch, Masson,
// Rim and Lee, VLDB 2019): samples counted in logarithmic buckets, so every
// quantile it answers is within `alpha` (relative) of an order statistic's
// value, whatever the distribution, in memory logarithmic in the range of
// the samples. Two sketches of the same alpha merge exactly (bucket counts
// add), so replications and files combine as the samples would.
// docs/report.md §quantiles states the accuracy; sketch_test checks it.
#ifndef SERQ_STATS_SKETCH_H_
#define SERQ_STATS_SKETCH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/casts.h"
#include "absl/status/status.h"
#include "proto/results.pb.h"

namespace serq::report {

// The relative accuracy serq-sim's sketches have: 0.1%.
inline constexpr double kSketchAlpha = 0.001;

class QuantileSketch {
 public:
  explicit QuantileSketch(double alpha = kSketchAlpha);

  // n samples equal to x, which is not NaN. Inline: per-token
  // observations add every token. A positive sample in a range the memo
  // knows (a step's tokens share their gap, and the next step on the same
  // engine is about as long) whose bucket is inside the store's range is
  // counted here, with the same min, max and counts as AddAny.
  void Add(double x, uint64_t n = 1) {
    const Known& known = known_[KnownSlot(x)];
    if (x > known.lo && x < known.hi && count_ != 0) {
      const int32_t index = known.index;
      size_t at = static_cast<size_t>(index - positive_.offset);
      if (index >= positive_.offset && at < positive_.counts.size()) {
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
  // Index(x) of a finite x > 0, from known_ when x is in one of its ranges.
  int32_t PositiveIndex(double x);
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
  // The insert path's memo: ranges of samples whose index is known without
  // a log, each in the slot of its samples' exponent and leading 8 bits of
  // significand (so that engines whose steps differ, interleaving their
  // tokens, keep a range each). A range is a bucket's interior, each end
  // moved in by a relative margin (sketch.cc says why no rounding crosses
  // it); an empty one has lo > hi. `credit_` keeps an observation whose
  // samples seldom repeat a bucket (a latency per request) from paying for
  // ranges it would not use. 1.5 KB a sketch.
  struct Known {
    double lo = 1, hi = 0;
    int32_t index = 0;
  };
  static constexpr int kKnown = 64;
  static size_t KnownSlot(double x) {
    return static_cast<size_t>(absl::bit_cast<uint64_t>(x) >> 44) % kKnown;
  }
  static constexpr int32_t kCreditMax = 8;
  static constexpr uint32_t kProbe = 16;
  Known known_[kKnown];
  int32_t credit_ = kCreditMax;
  uint32_t probe_ = 0;
};

}  // namespace serq::report

#endif  // SERQ_STATS_SKETCH_H_
