// Reading a JSON object that stands on one line of an input file (a
// Mooncake row, a vLLM request record, an element of BLIS's results.json)
// with protobuf's JSON parser, and the words its errors are made of.
#ifndef SERQ_TEXT_JSON_ROW_H_
#define SERQ_TEXT_JSON_ROW_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"
#include "ir/input_shape.h"

namespace serq::text {

using serq::JsonPlace;

// `json` parsed into `row`. Every JSON that is not IR or results goes
// through here, so that none reaches protobuf's parser deeper than
// kMaxDataJsonDepth (ir/limits.h: protobuf takes minutes on 2·10^5
// brackets, then refuses them saying nothing of depth): deeper is
// InvalidArgument "JSON nested more than 32 levels deep", with `*place`
// (when given) the line and column, from 1 in `json`, of the bracket that
// crosses it. Otherwise an error is InvalidArgument "malformed JSON:
// <protobuf's first line, without its excerpt and trailing period>".
absl::Status ParseJsonRow(absl::string_view json, google::protobuf::Struct* row,
                          JsonPlace* place = nullptr);

// Whether `json` is one JSON value and nothing else, by the grammar alone
// (RFC 8259: no trailing comma, no NaN, no comment), read by nlohmann's
// SAX parser, which says where a text stops being JSON where protobuf's
// says only what. InvalidArgument "invalid JSON: unexpected '}'; expected
// string literal (parsing an object key)", with `*place` (when given) the
// line and column, from 1, of the byte that broke it (one past the end for
// a text cut short). An error of another kind than the grammar's (a number
// too large for a double) is not judged here: OK. Check the depth first.
absl::Status CheckJsonSyntax(absl::string_view json, JsonPlace* place = nullptr);

// ParseJsonRow's depth check alone, for a reader that parses otherwise
// (serq vllm's files, into a protobuf Value): the same error and place.
absl::Status CheckJsonDepth(absl::string_view json, JsonPlace* place = nullptr);

// What a value is, for messages: "a number", "a string", "a list", ...
const char* JsonKind(const google::protobuf::Value& value);

// The shortest text that reads back as `x` (27482, 27.5, 1e+20), for
// messages that quote a number of the input.
std::string ShortestText(double x);

}  // namespace serq::text

#endif  // SERQ_TEXT_JSON_ROW_H_
