#include "text/csv.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace serq::text {
namespace {

// The field of `line` from `start` to the comma at `comma` (npos: to the
// end): white space around it dropped, double quotes around it removed.
absl::string_view Field(absl::string_view line, size_t start, size_t comma) {
  absl::string_view field = absl::StripAsciiWhitespace(
      line.substr(start, comma == absl::string_view::npos ? absl::string_view::npos : comma - start));
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
    field = field.substr(1, field.size() - 2);
  }
  return field;
}

}  // namespace

size_t CsvFieldCount(absl::string_view line) {
  return static_cast<size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

void CsvFields(absl::string_view line, std::vector<absl::string_view>* fields) {
  fields->clear();
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields->push_back(Field(line, start, comma));
    if (comma == absl::string_view::npos) return;
    start = comma + 1;
  }
}

bool HasColumn(absl::string_view line, absl::string_view name) {
  // Field by field, without a list of them all: every trace format looks
  // at the first line, which may have 10^7 columns.
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    if (Field(line, start, comma) == name) return true;
    if (comma == absl::string_view::npos) return false;
    start = comma + 1;
  }
}

absl::Status CheckCsvHeader(const std::vector<absl::string_view>& names) {
  // A set, so that a header of n columns is O(n), not the O(n^2) of
  // comparing each with those before it (10^5 columns: 10 s).
  absl::flat_hash_set<absl::string_view> seen;
  seen.reserve(names.size());
  for (absl::string_view name : names) {
    if (!name.empty() && !seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", name, "' appears twice in the header"));
    }
  }
  return absl::OkStatus();
}

}  // namespace serq::text
