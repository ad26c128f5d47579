// CSV as serq's input files write it: fields split at commas, white space
// around a field dropped, a field in double quotes unquoted (a quoted field
// cannot hold a comma: no trace or table column needs one).
#ifndef SERQ_TEXT_CSV_H_
#define SERQ_TEXT_CSV_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace serq::text {

// The most columns a CSV header may have (a trace's or a profile table's):
// a header is refused past it before it is split, so that a header of 10^7
// columns costs the reading of its line, not a gigabyte of names. Vidur's
// widest profile has 58 columns, a trace a few; docs/cli.md §Limits.
inline constexpr size_t kMaxColumns = 10000;

// The number of fields of a CSV line, counted without splitting it (a row
// of 10^8 commas would take 1.6 GB as fields).
size_t CsvFieldCount(absl::string_view line);

// The fields of a CSV line.
void CsvFields(absl::string_view line, std::vector<absl::string_view>* fields);

// Whether the header `line` names a column `name` (exactly, case counts).
bool HasColumn(absl::string_view line, absl::string_view name);

// A header's names (as CsvFields gives them) name each column once: every
// reader of a CSV header asks this, since a reader that looks a name up
// would take the first of two silently. "column 'a' appears twice in the
// header"; columns without a name are not compared (pandas writes its
// index so), a reader that needs names refuses them itself. O(n).
absl::Status CheckCsvHeader(const std::vector<absl::string_view>& names);

}  // namespace serq::text

#endif  // SERQ_TEXT_CSV_H_
