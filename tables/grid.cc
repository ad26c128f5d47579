#include "tables/grid.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace serq::tables {

namespace {
std::string Number(double v) { return absl::StrFormat("%.17g", v); }
}  // namespace

absl::Status CheckRow(const double* previous, const double* key, double value, int keys) {
  for (int j = 0; j < keys; ++j) {
    if (!std::isfinite(key[j])) {
      return absl::InvalidArgumentError(
          absl::StrCat("key ", j + 1, " is ", Number(key[j]), ", not a finite number"));
    }
  }
  if (!std::isfinite(value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the value is ", Number(value), "; a table's values are times: finite and >= 0"));
  }
  if (previous == nullptr) return absl::OkStatus();
  // Ascending lexicographically: the first key that differs must grow.
  int j = 0;
  while (j < keys && previous[j] == key[j]) ++j;
  if (j == keys) return absl::InvalidArgumentError("the same keys as the row before (a key twice)");
  if (key[j] < previous[j]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key ", j + 1, " is ", Number(key[j]), " after ", Number(previous[j]),
        " in the row before; rows must be in ascending key order, key 1 first"));
  }
  return absl::OkStatus();
}

absl::Status CheckRows(const Rows& rows) {
  if (rows.keys < 1) return absl::InvalidArgumentError("a table needs at least one key column");
  const size_t k = rows.keys;
  if (rows.key.size() != rows.value.size() * k) {
    return absl::InvalidArgumentError(absl::StrCat(
        rows.value.size(), " values need ", rows.value.size() * k, " keys (", k,
        " a row), not ", rows.key.size()));
  }
  if (rows.value.empty()) return absl::InvalidArgumentError("the table has no rows");
  for (size_t r = 0; r < rows.size(); ++r) {
    const double* key = &rows.key[r * k];
    absl::Status s = CheckRow(r == 0 ? nullptr : key - k, key, rows.value[r], rows.keys);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("row ", r + 1, ": ", s.message()));
  }
  return absl::OkStatus();
}

Grid::Grid(const Rows& rows) : keys_(rows.keys), x_(rows.keys), first_(rows.keys) {
  const size_t k = keys_;
  least_.assign(k, INFINITY);
  greatest_.assign(k, -INFINITY);
  for (size_t r = 0; r < rows.size(); ++r) {
    const double* key = &rows.key[r * k];
    // The first level whose prefix differs from the previous row's starts
    // a new entry there and at every level below.
    size_t changed = 0;
    if (r > 0) {
      const double* prev = key - k;
      while (changed < k && prev[changed] == key[changed]) ++changed;
    }
    for (size_t l = changed; l < k; ++l) {
      if (l + 1 < k) first_[l].push_back(x_[l + 1].size());
      x_[l].push_back(key[l]);
    }
    value_.push_back(rows.value[r]);
    for (size_t l = 0; l < k; ++l) {
      least_[l] = std::min(least_[l], key[l]);
      greatest_[l] = std::max(greatest_[l], key[l]);
    }
  }
  for (size_t l = 0; l + 1 < k; ++l) first_[l].push_back(x_[l + 1].size());
}

bool Grid::Lookup(absl::Span<const double> x, Outside below, Outside above, double* value,
                  int* axis) const {
  return Eval(Query{x.data(), below, above, axis}, 0, 0, x_[0].size(), value);
}

bool Grid::Child(const Query& q, int level, size_t entry, double* value) const {
  if (level + 1 == keys_) {
    *value = value_[entry];
    return true;
  }
  return Eval(q, level + 1, first_[level][entry], first_[level][entry + 1], value);
}

bool Grid::Eval(const Query& q, int level, size_t begin, size_t end, double* value) const {
  const std::vector<double>& xs = x_[level];
  const double at_q = q.x[level];
  if (end - begin == 1) return Child(q, level, begin, value);
  size_t lo, hi;
  if (at_q < xs[begin] || at_q > xs[end - 1]) {
    const bool low = at_q < xs[begin];
    const Outside rule = low ? q.below : q.above;
    if (rule == Outside::kError) {
      *q.axis = level;
      return false;
    }
    if (rule == Outside::kClamp) return Child(q, level, low ? begin : end - 1, value);
    lo = low ? begin : end - 2;
    hi = lo + 1;
  } else {
    // The last entry at or below the query: it is there, or between this
    // entry and the next.
    size_t at = std::upper_bound(xs.begin() + begin, xs.begin() + end, at_q) - xs.begin() - 1;
    if (xs[at] == at_q) return Child(q, level, at, value);
    lo = at;
    hi = at + 1;
  }
  double a, b;
  if (!Child(q, level, lo, &a) || !Child(q, level, hi, &b)) return false;
  const double t = (at_q - xs[lo]) / (xs[hi] - xs[lo]);
  *value = a + t * (b - a);
  return true;
}

}  // namespace serq::tables
