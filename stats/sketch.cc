#include "stats/sketch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "stats/quantile_step.h"

namespace serq::report {

QuantileSketch::QuantileSketch(double alpha)
    : alpha_(alpha), gamma_((1 + alpha) / (1 - alpha)), log_gamma_(std::log(gamma_)) {}

void QuantileSketch::Store::Add(int32_t index, uint64_t n) {
  if (counts.empty()) {
    offset = index;
    counts.push_back(n);
    return;
  }
  if (index < offset) {
    // Grow to the left by at least half again, so that a slowly falling
    // minimum costs amortized O(1) a sample.
    size_t need = static_cast<size_t>(offset - index);
    size_t grow = std::max(need, counts.size() / 2);
    counts.insert(counts.begin(), grow, 0);
    offset -= static_cast<int32_t>(grow);
  }
  size_t at = static_cast<size_t>(index - offset);
  if (at >= counts.size()) counts.resize(at + 1 + counts.size() / 2, 0);
  counts[at] += n;
}

uint64_t QuantileSketch::Store::total() const {
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  return n;
}

int32_t QuantileSketch::Index(double magnitude) const {
  // Denormals and huge values alike: |log(x)| <= 745, so the index fits in
  // an int32 for any alpha above 1e-6.
  return static_cast<int32_t>(std::ceil(std::log(magnitude) / log_gamma_));
}

int32_t QuantileSketch::PositiveIndex(double x) {
  Known& known = known_[KnownSlot(x)];
  if (x > known.lo && x < known.hi) {
    credit_ = std::min(credit_ + 1, kCreditMax);
    return known.index;
  }
  const int32_t i = Index(x);
  // A miss spends credit; a probe every kProbe misses at no credit lets
  // an observation whose samples begin to repeat their buckets earn it.
  if (credit_ > 0) {
    --credit_;
  } else if (++probe_ % kProbe != 0) {
    return i;
  }
  // Index(y) = ceil(q(y)), q(y) = fl(fl(log y) / log_gamma_). With L =
  // log_gamma_ (a double) and the real q*(y) = ln(y) / L: glibc's log is
  // within 1 ulp, so |q - q*| <= 3 * 2^-53 |q| (the quotient's rounding
  // and the log's error over L), at most 8e-11 for the largest |q| of
  // alpha 0.001 (745 / L) and 8e-8 at alpha 1e-6. The bucket's ends are
  // e^((i-1)L) and e^(iL), where q* is i - 1 and i; the range starts
  // above the lower by a relative kMargin and ends as far below the upper,
  // so for y inside it q* is at least kMargin / L (5e-7 at alpha 0.001,
  // 5e-4 at 1e-6) inside (i - 1, i), far more than q's error: ceil(q(y)) is
  // i. The ends' own rounding (exp within 1 ulp of e^fl((i-1)L), whose
  // product has a relative error below 2^-53 |(i-1)L| <= 9e-14; gamma_ for
  // e^L, within 2 ulps) moves them by less than 1e-13, relative: within
  // the margin. Ends beyond the normal range are not memoised.
  constexpr double kMargin = 1e-9;
  const double base = std::exp((i - 1) * log_gamma_);
  const Known k{base * (1 + kMargin), base * gamma_ * (1 - kMargin), i};
  if (k.lo > 1e-300 && k.hi < 1e300 && k.lo < k.hi) known = k;
  return i;
}

double QuantileSketch::Value(int32_t index) const {
  return std::exp(index * log_gamma_) * 2 / (gamma_ + 1);
}

void QuantileSketch::AddAny(double x, uint64_t n) {
  if (count_ == 0) {
    min_ = max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  count_ += n;
  if (x == 0) {
    zero_ += n;
  } else if (std::isinf(x)) {
    (x > 0 ? positive_infinite_ : negative_infinite_) += n;
  } else if (x > 0) {
    // Index is a log and a division: the memo spares them for a sample in
    // a range it knows, and a count inside the store's range needs no
    // growth.
    int32_t i = PositiveIndex(x);
    size_t at = static_cast<size_t>(i - positive_.offset);
    if (i >= positive_.offset && at < positive_.counts.size()) {
      positive_.counts[at] += n;
    } else {
      positive_.Add(i, n);
    }
  } else {
    negative_.Add(Index(-x), n);
  }
}

void QuantileSketch::Merge(const QuantileSketch& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  zero_ += other.zero_;
  positive_infinite_ += other.positive_infinite_;
  negative_infinite_ += other.negative_infinite_;
  for (size_t i = 0; i < other.positive_.counts.size(); ++i) {
    if (other.positive_.counts[i]) {
      positive_.Add(other.positive_.offset + static_cast<int32_t>(i), other.positive_.counts[i]);
    }
  }
  for (size_t i = 0; i < other.negative_.counts.size(); ++i) {
    if (other.negative_.counts[i]) {
      negative_.Add(other.negative_.offset + static_cast<int32_t>(i), other.negative_.counts[i]);
    }
  }
}

template <typename Visit>
void QuantileSketch::Walk(Visit visit) const {
  const double inf = std::numeric_limits<double>::infinity();
  if (negative_infinite_ && !visit(negative_infinite_, -inf)) return;
  for (size_t i = negative_.counts.size(); i-- > 0;) {
    if (negative_.counts[i] &&
        !visit(negative_.counts[i], -Value(negative_.offset + static_cast<int32_t>(i)))) {
      return;
    }
  }
  if (zero_ && !visit(zero_, 0.0)) return;
  for (size_t i = 0; i < positive_.counts.size(); ++i) {
    if (positive_.counts[i] &&
        !visit(positive_.counts[i], Value(positive_.offset + static_cast<int32_t>(i)))) {
      return;
    }
  }
  if (positive_infinite_) visit(positive_infinite_, inf);
}

double QuantileSketch::Quantile(double q) const {
  double h = static_cast<double>(count_ - 1) * q;
  uint64_t lo = static_cast<uint64_t>(std::floor(h));
  if (lo >= count_ - 1) lo = count_ - 1;
  double frac = h - static_cast<double>(lo);
  // The values of the order statistics lo and lo + 1, in one walk from the
  // smallest: -inf, the negative buckets from the largest magnitude, zero,
  // the positive buckets, inf.
  double want[2] = {0, 0};
  uint64_t ranks[2] = {lo, std::min(lo + 1, count_ - 1)};
  int found = 0;
  uint64_t seen = 0;
  Walk([&](uint64_t n, double value) {
    while (found < 2 && ranks[found] < seen + n) want[found++] = value;
    seen += n;
    return found < 2;
  });
  // The extremes are kept exactly: rank 0 is min, rank n - 1 is max.
  for (int k = 0; k < 2; ++k) {
    if (ranks[k] == 0) want[k] = min_;
    if (ranks[k] == count_ - 1) want[k] = max_;
    want[k] = std::clamp(want[k], min_, max_);
  }
  return InterpolateQuantile(want[0], want[1], frac);
}

std::vector<QuantileSketch::Bucket> QuantileSketch::Buckets() const {
  std::vector<Bucket> out;
  Walk([&](uint64_t n, double value) {
    out.push_back({value, n});
    return true;
  });
  return out;
}

namespace {

// The non-zero span of a store's counts.
void WriteStore(int32_t offset, const std::vector<uint64_t>& counts, int32_t* out_offset,
                google::protobuf::RepeatedField<uint64_t>* out) {
  size_t first = 0, last = counts.size();
  while (first < last && counts[first] == 0) ++first;
  while (last > first && counts[last - 1] == 0) --last;
  *out_offset = first < last ? offset + static_cast<int32_t>(first) : 0;
  out->Add(counts.begin() + first, counts.begin() + last);
}

}  // namespace

void QuantileSketch::WriteTo(results::QuantileSketch* out) const {
  out->set_alpha(alpha_);
  out->set_min(min_);
  out->set_max(max_);
  out->set_zero(zero_);
  int32_t offset;
  WriteStore(positive_.offset, positive_.counts, &offset, out->mutable_positive());
  out->set_positive_offset(offset);
  WriteStore(negative_.offset, negative_.counts, &offset, out->mutable_negative());
  out->set_negative_offset(offset);
  out->set_positive_infinite(positive_infinite_);
  out->set_negative_infinite(negative_infinite_);
}

absl::Status QuantileSketch::Read(const results::QuantileSketch& in, QuantileSketch* out) {
  // serq writes alpha 0.001. From 1e-4 up, a store over every finite double
  // is at most 745 / (2e-4) = 3.7 million buckets each way (60 MB): a
  // finer alpha could ask gigabytes of a file of a few bytes.
  if (!(in.alpha() >= 1e-4 && in.alpha() < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sketch alpha ", in.alpha(), " is not in [1e-4, 1)"));
  }
  *out = QuantileSketch(in.alpha());
  // Buckets only where a finite double falls, from the smallest denormal to
  // the largest: a bucket index past them (offset 2147483647) made a store
  // of 2^31 counts, and two sketches' offsets far apart a merged store of
  // their whole span.
  const int64_t lowest = out->Index(std::numeric_limits<double>::denorm_min());
  const int64_t highest = out->Index(std::numeric_limits<double>::max());
  for (auto [name, offset, size] : {std::tuple{"positive", int64_t{in.positive_offset()}, in.positive_size()},
                                    std::tuple{"negative", int64_t{in.negative_offset()}, in.negative_size()}}) {
    if (size > 0 && (offset < lowest || offset + size - 1 > highest)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sketch's ", name, " buckets run from index ", offset, " to ", offset + size - 1,
          ", past the finite doubles' ", lowest, " to ", highest, " at alpha ", in.alpha()));
    }
  }
  out->min_ = in.min();
  out->max_ = in.max();
  out->zero_ = in.zero();
  out->positive_infinite_ = in.positive_infinite();
  out->negative_infinite_ = in.negative_infinite();
  out->positive_.offset = in.positive_offset();
  out->positive_.counts.assign(in.positive().begin(), in.positive().end());
  out->negative_.offset = in.negative_offset();
  out->negative_.counts.assign(in.negative().begin(), in.negative().end());
  // The count, without wrapping: counts of hand-made files can sum past 2^64.
  uint64_t count = 0;
  auto add = [&count](uint64_t n) { return !__builtin_add_overflow(count, n, &count); };
  bool whole = add(out->zero_) && add(out->positive_infinite_) && add(out->negative_infinite_);
  for (const Store* store : {&out->positive_, &out->negative_}) {
    for (uint64_t c : store->counts) whole = whole && add(c);
  }
  if (!whole) return absl::InvalidArgumentError("sketch's counts add up past 2^64");
  out->count_ = count;
  if (count > 0 && !(out->min_ <= out->max_)) {
    return absl::InvalidArgumentError(absl::StrCat("sketch's min ", out->min_, " is not at most its max ",
                                                   out->max_));
  }
  return absl::OkStatus();
}

}  // namespace serq::report
