#include "text/json_row.h"

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "ir/limits.h"

namespace serq::text {

absl::Status CheckJsonDepth(absl::string_view json, JsonPlace* place) {
  if (std::optional<JsonPlace> deep = JsonDeeperThan(json, kMaxDataJsonDepth)) {
    if (place != nullptr) *place = *deep;
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested more than ", kMaxDataJsonDepth, " levels deep"));
  }
  return absl::OkStatus();
}

absl::Status ParseJsonRow(absl::string_view json, google::protobuf::Struct* row,
                          JsonPlace* place) {
  if (absl::Status s = CheckJsonDepth(json, place); !s.ok()) return s;
  auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), row);
  if (parsed.ok()) return absl::OkStatus();
  // protobuf's message without its excerpt of the input (the lines after
  // the first) and without its trailing period.
  std::string text = parsed.message().as_string();
  absl::string_view message = text;
  message = absl::StripAsciiWhitespace(message.substr(0, message.find('\n')));
  if (!message.empty() && message.back() == '.') message.remove_suffix(1);
  return absl::InvalidArgumentError(absl::StrCat("malformed JSON: ", message));
}

const char* JsonKind(const google::protobuf::Value& value) {
  using google::protobuf::Value;
  switch (value.kind_case()) {
    case Value::kNullValue: return "null";
    case Value::kNumberValue: return "a number";
    case Value::kStringValue: return "a string";
    case Value::kBoolValue: return "a boolean";
    case Value::kStructValue: return "an object";
    case Value::kListValue: return "a list";
    default: return "nothing";
  }
}

std::string ShortestText(double x) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

}  // namespace serq::text
