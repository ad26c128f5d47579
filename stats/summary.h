// What serq-sim keeps of one observation in one replication, in bounded
// memory: every sample while there are at most `limit` (2^20), so that
// quantiles stay exact (and every golden of today byte for byte); beyond
// that, exact moments and sum, a quantile sketch and batch sums instead
// (results.proto Observation; docs/report.md §quantiles).
#ifndef SERQ_STATS_SUMMARY_H_
#define SERQ_STATS_SUMMARY_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/base/casts.h"
#include "absl/types/span.h"
#include "proto/results.pb.h"
#include "stats/moments.h"
#include "stats/sample_buffer.h"
#include "stats/sketch.h"

namespace serq::report {

inline constexpr uint64_t kExactSamples = uint64_t{1} << 20;

// AddTimes' way for positive sums that stay in their binade: the k
// additions at once, the same bits. Sets *sum and returns true when it
// applies.
//
// With sum = S 2^(e-52) (S the integer significand, 2^52 <= S < 2^53) and
// x > 0 normal, each addition's exact result is (S + q) 2^(e-52), q = x /
// 2^(e-52); while that stays below 2^(e+1) it is rounded to the nearest
// integer multiple of 2^(e-52), ties to even. When q is not an odd
// multiple of 1/2 (a tie), that is S + d with d = round(q), whatever S:
// every addition adds d to the significand. So k of them add k d, while
// S + k d <= 2^53 - 1 (then S + q < 2^53 - 1/2 at each, inside the
// binade). The significand is the low 52 bits of sum's bits (plus the
// hidden 2^52), so the bits themselves grow by k d. A tie, a sum that
// would leave its binade, or anything else (not positive, not normal, x
// at least sum's binade) is left to the additions one by one.
inline bool AddTimesInBinade(double* sum, double x, uint64_t k) {
  constexpr uint64_t kFraction = (uint64_t{1} << 52) - 1;
  const uint64_t s = absl::bit_cast<uint64_t>(*sum);
  const uint64_t b = absl::bit_cast<uint64_t>(x);
  const uint64_t es = s >> 52, ex = b >> 52;  // biased exponents (sign 0)
  // Both positive, normal and finite; x below sum's binade; k d < 2^64 (d <= 2^52).
  if (es - 1 >= 2046 || ex - 1 >= 2046 || ex >= es || k >= 4096) return false;
  const uint64_t shift = es - ex;  // q = X / 2^shift, X = x's significand
  if (shift > 53) return true;     // q < 1/2: every addition gives sum
  const uint64_t significand = (b & kFraction) | (kFraction + 1);
  uint64_t d = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest == half) return false;  // a tie: it depends on S's parity
  if (rest > half) ++d;
  if ((s & kFraction) + k * d > kFraction) return false;  // leaves the binade
  *sum = absl::bit_cast<double>(s + k * d);
  return true;
}

// sum + x + x + ... (k times), each addition rounded in turn as k
// separate additions are: the same bits. A long run in one binade at once
// (a step's decode tokens, which share their gap, onto a large sum);
// otherwise unrolled, as a compiler may not (it would have to reassociate
// to do more).
inline double AddTimes(double sum, double x, uint64_t k) {
  if (k >= 8 && AddTimesInBinade(&sum, x, k)) return sum;
  uint64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    sum += x;
    sum += x;
    sum += x;
    sum += x;
  }
  for (; i < k; ++i) sum += x;
  return sum;
}

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
  // k times Add(x): the same additions, the sum in a register.
  void AddRun(double x, uint64_t k) {
    while (k > 0) {
      uint64_t take = std::min(k, size_ - partial_);
      partial_sum_ = AddTimes(partial_sum_, x, take);
      partial_ += take;
      k -= take;
      if (partial_ == size_) EndBatch();
    }
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

  void Add(double x) { AddRun(x, 1); }
  // k >= 1 samples equal to x, one after another (a step's tokens that
  // share their gap). Inline: per-token observations record every token.
  void AddRun(double x, uint64_t k) {
    if (!summarised_) {
      // Below the limit the kept samples are the figures (WriteTo writes
      // nothing else): the moments and the sum are made from them only if
      // the limit is crossed (Summarise), in the same order, the same bits.
      if (exact_.size() + k <= limit_) {
        // One sample (Add, inlined: k is 1 there) without insert's count loop.
        if (k == 1) {
          exact_.push_back(x);
        } else {
          exact_.append(k, x);
        }
        return;
      }
      Summarise(x, k);
      return;
    }
    Track(x, k);
    sketch_.Add(x, k);
    batches_.AddRun(x, k);
  }
  uint64_t count() const { return summarised_ ? moments_.count() + run_count_ : exact_.size(); }
  bool summarised() const { return summarised_; }

  // The samples, or beyond the limit the summary (count, mean, m2, sum,
  // sketch, batches); `out`'s name is the caller's.
  void WriteTo(results::Observation* out) const;

 private:
  void EndRun() {
    if (run_count_ != 0) moments_.AddRun(run_value_, run_count_);
    run_count_ = 0;
  }
  // The moments and the sum of a summary, k samples equal to x more. The
  // moments as Moments::AddSamples defines them (a maximal run of equal
  // finite samples as one group; the run still open is pending), the sum
  // in recording order: what the report computes from kept samples, the
  // same bits.
  void Track(double x, uint64_t k) {
    if (run_count_ != 0 && Moments::SameRun(x, run_value_)) {
      run_count_ += k;
    } else {
      EndRun();
      if (std::isfinite(x)) {
        run_value_ = x;
        run_count_ = k;
      } else {
        for (uint64_t i = 0; i < k; ++i) moments_.Add(x);
      }
    }
    sum_ = AddTimes(sum_, x, k);
  }
  // The kept samples and then k more equal to x into the sketch and the
  // batch sums.
  void Summarise(double x, uint64_t k);

  uint64_t limit_;
  bool summarised_ = false;
  SampleBuffer exact_;
  Moments moments_;  // without the pending run
  double run_value_ = 0;
  uint64_t run_count_ = 0;
  double sum_ = 0;
  QuantileSketch sketch_;
  BatchSums batches_;
};

}  // namespace serq::report

#endif  // SERQ_STATS_SUMMARY_H_
