// A profile table's grid: rows of 1 to 4 keys and a value, ascending by
// key, looked up by multilinear interpolation (docs/language.md §3.7).
//
// The keys need not form a full Cartesian grid: the rows make a tree, the
// first key's values at its root, and under each the next key's values
// that occur with it, and so on (a published attention profile has
// pure-prefill slices with one decode length, and some (chunk, decodes)
// pairs missing). A lookup interpolates linearly along the first key
// between the two values around the query, each side looked up in its
// subtree with the other keys, down to the values; on a full grid that is
// exactly multilinear interpolation. Beyond the first or last value of an
// axis the table's rule decides: clamp (that end's subtree), extrapolate
// (the line through the two end subtrees), or an error. An axis with one
// value is that value's subtree whatever the query.
#ifndef SERQ_TABLES_GRID_H_
#define SERQ_TABLES_GRID_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace serq::tables {

// A table's rows: `keys` key columns; row r's keys are key[r * keys ...
// r * keys + keys - 1], its value value[r].
struct Rows {
  int keys = 1;
  std::vector<double> key;
  std::vector<double> value;
  size_t size() const { return value.size(); }
};

// Why rows are not a table's: a key or value that is not a finite number,
// a negative value (a time), rows not in ascending key order or a key
// twice, a row count that does not match the keys; the message names the
// row (1-based, in the order given) and says what is wrong.
absl::Status CheckRows(const Rows& rows);

// One row's part of CheckRows: its keys and value, and its order after the
// row before (`previous`, null for the first). The message names no row.
absl::Status CheckRow(const double* previous, const double* key, double value, int keys);

enum class Outside { kClamp, kExtrapolate, kError };

class Grid {
 public:
  // The grid of rows that CheckRows accepted.
  explicit Grid(const Rows& rows);

  int keys() const { return keys_; }

  // The value at `x` (keys() coordinates), beyond an axis's first value by
  // `below`'s rule and beyond its last by `above`'s. False when a rule is
  // kError and `x` is beyond: *axis is that axis and *value undefined.
  bool Lookup(absl::Span<const double> x, Outside below, Outside above, double* value,
              int* axis) const;

  // The least and the greatest value of key `axis` in the table.
  double Least(int axis) const { return least_[axis]; }
  double Greatest(int axis) const { return greatest_[axis]; }

 private:
  // A lookup under way (a grid is shared by the replications' threads, so
  // nothing of a lookup is kept in it).
  struct Query {
    const double* x;
    Outside below, above;
    int* axis;
  };
  // The value of the subtree of entries [begin, end) of level `level`.
  bool Eval(const Query& q, int level, size_t begin, size_t end, double* value) const;
  bool Child(const Query& q, int level, size_t entry, double* value) const;

  int keys_;
  // Per level: each entry's key value, and (all but the last level) where
  // its children start in the next level (first_[l][i + 1] is where they
  // end: one entry more than the level has).
  std::vector<std::vector<double>> x_;
  std::vector<std::vector<size_t>> first_;
  std::vector<double> value_;  // the last level's entries' values
  std::vector<double> least_, greatest_;
};

}  // namespace serq::tables

#endif  // SERQ_TABLES_GRID_H_
