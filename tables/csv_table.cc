#include "tables/csv_table.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/limits.h"
#include "text/csv.h"
#include "text/lines.h"

namespace serq::tables {
namespace {

// Whether a `where` selects a field: as numbers when both are, else as text.
bool Matches(absl::string_view field, const std::string& wanted) {
  double a, b;
  if (absl::SimpleAtod(field, &a) && absl::SimpleAtod(wanted, &b)) return a == b;
  return field == wanted;
}

std::string Quoted(absl::string_view s) { return absl::StrCat("'", s, "'"); }

}  // namespace

bool ReadCsvTable(std::istream* in, const Spec& spec, Rows* out, ReadError* error) {
  text::Lines lines(in);
  absl::string_view line;
  auto fail = [&](int at, std::string message) {
    *error = ReadError{at, std::move(message)};
    return false;
  };
  auto ended = [&] {
    if (lines.too_long()) {
      return fail(lines.number() + 1, absl::StrCat("a line longer than ", text::Lines::kMaxLine >> 20,
                                                   " MB: not a CSV table"));
    }
    if (in->bad()) return fail(0, absl::StrCat("cannot read the table: ", std::strerror(errno)));
    return true;
  };
  if (!lines.NextNonBlank(&line)) {
    if (!ended()) return false;
    return fail(0, "the file is empty: expected a header line of column names");
  }
  if (text::CsvFieldCount(line) > kMaxColumns) {
    return fail(lines.number(), absl::StrCat("the header has more than ", kMaxColumns, " columns"));
  }
  std::vector<absl::string_view> fields;
  text::CsvFields(line, &fields);
  // A name twice would be looked up as its first column, silently.
  if (absl::Status s = text::CheckCsvHeader(fields); !s.ok()) {
    return fail(lines.number(), std::string(s.message()));
  }
  std::vector<std::string> header(fields.begin(), fields.end());
  auto column = [&](const std::string& name, size_t* at) {
    auto it = std::find(header.begin(), header.end(), name);
    if (it != header.end()) {
      *at = it - header.begin();
      return true;
    }
    std::vector<std::string> names;
    for (const std::string& h : header) names.push_back(Quoted(h));
    return fail(lines.number(), absl::StrCat("no column ", Quoted(name), " (the header has ",
                                             absl::StrJoin(names, ", "), ")"));
  };
  const int k = spec.keys.size();
  std::vector<size_t> key_at(k);
  size_t value_at;
  for (int j = 0; j < k; ++j) {
    if (!column(spec.keys[j], &key_at[j])) return false;
  }
  if (!column(spec.value, &value_at)) return false;
  std::vector<std::pair<size_t, const std::string*>> where;
  for (const auto& [name, text] : spec.where) {
    size_t at;
    if (!column(name, &at)) return false;
    where.push_back({at, &text});
  }

  out->keys = k;
  out->key.clear();
  out->value.clear();
  std::vector<double> key(k);
  // Each kept row's line, and whether the rows came in ascending order: a
  // file in another order is sorted, as a reader of the file by its keys
  // (pandas, LLMServingSim's) takes it; only a key twice is an error.
  std::vector<int> line_of;
  bool ascending = true;
  while (lines.NextNonBlank(&line)) {
    if (const size_t n = text::CsvFieldCount(line); n != header.size()) {
      return fail(lines.number(), absl::StrCat("the row has ", n, " fields; the header has ",
                                               header.size()));
    }
    text::CsvFields(line, &fields);
    bool selected = true;
    for (const auto& [at, text] : where) selected = selected && Matches(fields[at], *text);
    if (!selected) continue;
    if (static_cast<int64_t>(out->size()) >= spec.max_rows) {
      return fail(lines.number(),
                  absl::StrCat("more than ", spec.max_rows, " rows selected; ", spec.max_rows_why));
    }
    auto number = [&](size_t at, const std::string& name, double* v) {
      if (absl::SimpleAtod(fields[at], v)) return true;
      return fail(lines.number(), absl::StrCat("column ", Quoted(name), " is ",
                                               Quoted(fields[at]), ", not a number"));
    };
    for (int j = 0; j < k; ++j) {
      if (!number(key_at[j], spec.keys[j], &key[j])) return false;
    }
    double value;
    if (!number(value_at, spec.value, &value)) return false;
    if (absl::Status s = CheckRow(nullptr, key.data(), value, k); !s.ok()) {
      return fail(lines.number(), std::string(s.message()));
    }
    if (ascending && out->size() > 0) {
      const double* previous = &out->key[(out->size() - 1) * k];
      ascending = std::lexicographical_compare(previous, previous + k, key.begin(), key.end());
    }
    out->key.insert(out->key.end(), key.begin(), key.end());
    out->value.push_back(value);
    line_of.push_back(lines.number());
  }
  if (!ended()) return false;
  if (out->size() == 0) {
    return fail(0, spec.where.empty() ? std::string("the table has no rows")
                                      : std::string("no row matches the table's 'where'"));
  }
  if (ascending) return true;
  // Sorted by the keys, the first key first; equal keys stay in the file's
  // order, so the error names the earlier line.
  std::vector<size_t> order(out->size());
  for (size_t r = 0; r < order.size(); ++r) order[r] = r;
  const double* keys = out->key.data();
  auto less = [&](size_t a, size_t b) {
    return std::lexicographical_compare(keys + a * k, keys + a * k + k, keys + b * k, keys + b * k + k);
  };
  std::stable_sort(order.begin(), order.end(), less);
  for (size_t i = 1; i < order.size(); ++i) {
    if (!less(order[i - 1], order[i])) {
      return fail(line_of[order[i]], absl::StrCat("the same keys as line ", line_of[order[i - 1]],
                                                  " (a key twice)"));
    }
  }
  Rows sorted;
  sorted.keys = k;
  sorted.key.reserve(out->key.size());
  sorted.value.reserve(out->value.size());
  for (size_t r : order) {
    sorted.key.insert(sorted.key.end(), keys + r * k, keys + r * k + k);
    sorted.value.push_back(out->value[r]);
  }
  *out = std::move(sorted);
  return true;
}

bool ReadCsvTable(const std::string& path, const Spec& spec, Rows* out, ReadError* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = ReadError{0, "it is a directory"};
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = ReadError{0, std::strerror(errno)};
    return false;
  }
  return ReadCsvTable(&in, spec, out, error);
}

}  // namespace serq::tables
