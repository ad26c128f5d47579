#include "text/json_row.h"

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace serq::text {

bool JsonDeeperThan(absl::string_view json, int most) {
  int depth = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '"') {
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\') ++i;
      }
    } else if (c == '{' || c == '[') {
      if (++depth > most) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

absl::Status ParseJsonRow(absl::string_view json, google::protobuf::Struct* row) {
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
