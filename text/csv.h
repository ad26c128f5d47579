// CSV as serq's input files write it: fields split at commas, white space
// around a field dropped, a field in double quotes unquoted (a quoted field
// cannot hold a comma: no trace or table column needs one).
#ifndef SERQ_TEXT_CSV_H_
#define SERQ_TEXT_CSV_H_

#include <vector>

#include "absl/strings/string_view.h"

namespace serq::text {

// The fields of a CSV line.
void CsvFields(absl::string_view line, std::vector<absl::string_view>* fields);

// Whether the header `line` names a column `name` (exactly, case counts).
bool HasColumn(absl::string_view line, absl::string_view name);

}  // namespace serq::text

#endif  // SERQ_TEXT_CSV_H_
