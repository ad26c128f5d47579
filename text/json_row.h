// Reading a JSON object that stands on one line of an input file (a
// Mooncake row, a vLLM request record, an element of BLIS's results.json)
// with protobuf's JSON parser, and the words its errors are made of.
#ifndef SERQ_TEXT_JSON_ROW_H_
#define SERQ_TEXT_JSON_ROW_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

namespace serq::text {

// Whether `json` opens more than `most` objects and lists inside one
// another (strings skipped). protobuf's parser takes minutes on a line of
// 2·10^5 brackets and then refuses it with a message that says nothing of
// depth: a reader asks this first.
bool JsonDeeperThan(absl::string_view json, int most);

// `json` parsed into `row`; an error is InvalidArgument "malformed JSON:
// <protobuf's first line, without its excerpt and trailing period>".
absl::Status ParseJsonRow(absl::string_view json, google::protobuf::Struct* row);

// What a value is, for messages: "a number", "a string", "a list", ...
const char* JsonKind(const google::protobuf::Value& value);

// The shortest text that reads back as `x` (27482, 27.5, 1e+20), for
// messages that quote a number of the input.
std::string ShortestText(double x);

}  // namespace serq::text

#endif  // SERQ_TEXT_JSON_ROW_H_
