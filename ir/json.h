// Doubles in JSON written by hand (serq-sim's --trace lines and chrome
// trace, serq sweep --format=json), written as protobuf's JSON mapping
// writes the results and the report: a finite value in the shortest form
// that reads back exactly, the others as the strings "Infinity",
// "-Infinity" and "NaN", which JSON has no numbers for (docs/cli.md
// §serq-sim, "Numbers in JSON").
#ifndef SERQ_IR_JSON_H_
#define SERQ_IR_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace serq {

// The shorter of %.15g and %.17g that reads back as x (x finite): the
// digits protobuf's JSON printer writes. 0 and -0 are "0".
std::string ShortestDouble(double x);

// x as a JSON value: ShortestDouble(x) when finite, else "\"Infinity\"",
// "\"-Infinity\"" or "\"NaN\"" (with the quotes).
std::string JsonNumber(double x);

// `s` as a JSON string, with its quotes: `"` and `\` escaped, control
// characters as \u00XX, other bytes as they are (UTF-8 passes through).
std::string JsonString(absl::string_view s);

}  // namespace serq

#endif  // SERQ_IR_JSON_H_
