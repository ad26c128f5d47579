// How the report writes numbers and names: fixed decimals for the text
// tables, the shortest exact form for csv and the run line, `name[i]` for
// an array element.
#ifndef SERQ_STATS_FORMAT_H_
#define SERQ_STATS_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace serq::report {

// `decimals` digits after the point; `inf`, `-inf`; never `-0.000` (a
// figure that rounds to zero is zero); NaN, which the report never holds,
// would print as `-`.
std::string FormatFixed(double x, int decimals);

// 15 significant digits, or 17 when 15 do not read back as `x` (the rule of
// protobuf's JSON printer, so csv and json print a figure alike); `inf`,
// `-inf`.
std::string FormatShortest(double x);

// A CSV field: quoted when it holds a comma, a quote or a line break, a
// quote inside doubled (RFC 4180); every csv serq writes quotes so (the
// report's tables, the --series columns, a sweep's).
std::string CsvField(absl::string_view text);

// `name`, or `name[index]` for an element of an array.
std::string ElementName(absl::string_view name, bool array, uint32_t index);

}  // namespace serq::report

#endif  // SERQ_STATS_FORMAT_H_
