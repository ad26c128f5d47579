#include "text/json_row.h"

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "ir/limits.h"
#include "nlohmann/json.hpp"

namespace serq::text {

absl::Status CheckJsonDepth(absl::string_view json, JsonPlace* place) {
  if (std::optional<JsonPlace> deep = JsonDeeperThan(json, kMaxDataJsonDepth)) {
    if (place != nullptr) *place = *deep;
    return absl::InvalidArgumentError(
        absl::StrCat("JSON nested more than ", kMaxDataJsonDepth, " levels deep"));
  }
  return absl::OkStatus();
}

namespace {

// Events accepted as they come (nothing is built); the first error kept.
class SyntaxOnly : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    position_ = position;
    what_ = e.what();
    return false;
  }

  std::size_t position() const { return position_; }  // bytes read, the breaking one's included
  const std::string& what() const { return what_; }

 private:
  std::size_t position_ = 0;
  std::string what_;
};

// "an " before a vowel's word, "a " before another: "an object key".
const char* ArticleFor(absl::string_view noun) {
  return !noun.empty() && absl::string_view("aeiou").find(noun.front()) != absl::string_view::npos ? "an " : "a ";
}

}  // namespace

absl::Status CheckJsonSyntax(absl::string_view json, JsonPlace* place) {
  SyntaxOnly sax;
  // strict: nothing after the value. No exception leaves the parser: a
  // SAX handler's parse_error returning false ends it.
  if (nlohmann::json::sax_parse(json.begin(), json.end(), &sax, nlohmann::json::input_format_t::json, true)) {
    return absl::OkStatus();
  }
  // Only the grammar's errors: another (a number too large for a double,
  // which JSON's grammar allows) is left to the reader of the value.
  const absl::string_view lead = "syntax error while parsing ";
  const absl::string_view what = sax.what();
  const size_t from = what.find(lead);
  if (from == absl::string_view::npos) return absl::OkStatus();
  if (place != nullptr) {
    // The line and column of byte position - 1 (0-based), counted here.
    const std::size_t at = sax.position() == 0 ? 0 : sax.position() - 1;
    *place = JsonPlace{1, 1};
    for (std::size_t i = 0; i < at && i < json.size(); ++i) {
      if (json[i] == '\n') {
        ++place->line;
        place->column = 1;
      } else {
        ++place->column;
      }
    }
  }
  // nlohmann's "[json.exception.parse_error.101] parse error at line L,
  // column C: syntax error while parsing X - Y" as "Y (parsing X)": the
  // place is the caller's to show.
  const absl::string_view rest = what.substr(from + lead.size());
  const size_t dash = rest.find(" - ");
  const std::string message = dash == absl::string_view::npos
                                  ? std::string(rest)
                                  : absl::StrCat(rest.substr(dash + 3), " (parsing ", ArticleFor(rest.substr(0, dash)),
                                                 rest.substr(0, dash), ")");
  return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", message));
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
