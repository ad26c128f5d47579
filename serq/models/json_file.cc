#include "serq/models/json_file.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"
#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/input_shape.h"
#include "text/json_row.h"

namespace serq::models {

using google::protobuf::Value;

absl::Status FileError(const std::string& file, absl::string_view path, absl::string_view message) {
  return absl::InvalidArgumentError(
      path.empty() ? absl::StrCat(file, ": error: ", message)
                   : absl::StrCat(file, ": error: ", path, ": ", message));
}

absl::StatusOr<JsonFile> JsonFile::Read(const std::string& file) {
  absl::StatusOr<std::string> text = ReadInput(file);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) return text.status();
    return FileError(file, "", text.status().message());
  }
  return Parse(*text, file);
}

absl::StatusOr<JsonFile> JsonFile::Parse(absl::string_view text, const std::string& file) {
  // A UTF-8 byte-order mark, which editors on Windows write, is not JSON:
  // skipped, as the line readers of CSV, YAML and JSONL skip it (text/lines.h).
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  // Read into a protobuf Value, which protobuf refuses past ~49 levels
  // saying nothing of depth: the limit of every JSON that is not IR, at
  // the bracket that crosses it (text/json_row.h).
  JsonPlace deep;
  if (absl::Status s = text::CheckJsonDepth(text, &deep); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", deep.line, ":", deep.column, ": error: ", s.message()));
  }
  Diagnostics diags(file);
  if (!CheckJsonShape(text, &diags)) {
    std::string rendered = diags.Render();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    return absl::InvalidArgumentError(rendered);
  }
  JsonFile out;
  out.file_ = file;
  Value value;
  google::protobuf::util::JsonParseOptions options;
  auto s = google::protobuf::util::JsonStringToMessage(std::string(text), &value, options);
  if (!s.ok()) return FileError(file, "", absl::StrCat("not JSON: ", std::string(s.message())));
  if (value.kind_case() != Value::kStructValue) {
    return FileError(file, "", absl::StrCat("expected a JSON object, found ", Describe(value)));
  }
  out.root_ = value.struct_value();
  return out;
}

const Value* JsonFile::Find(absl::string_view path) const {
  const google::protobuf::Struct* at = &root_;
  const Value* found = nullptr;
  for (absl::string_view key : absl::StrSplit(path, '.')) {
    if (at == nullptr) return nullptr;
    auto it = at->fields().find(std::string(key));
    if (it == at->fields().end()) return nullptr;
    found = &it->second;
    at = found->kind_case() == Value::kStructValue ? &found->struct_value() : nullptr;
  }
  if (found != nullptr && found->kind_case() == Value::kNullValue) return nullptr;
  return found;
}

absl::StatusOr<std::optional<double>> JsonFile::Number(absl::string_view path) const {
  const Value* v = Find(path);
  if (v == nullptr) return std::optional<double>();
  if (v->kind_case() != Value::kNumberValue || !std::isfinite(v->number_value())) {
    return Error(path, absl::StrCat("expected a number, not ", Describe(*v)));
  }
  return std::optional<double>(v->number_value());
}

absl::StatusOr<std::optional<int64_t>> JsonFile::Whole(absl::string_view path, int64_t least,
                                                       int64_t most) const {
  const Value* v = Find(path);
  if (v == nullptr) return std::optional<int64_t>();
  const double x = v->kind_case() == Value::kNumberValue ? v->number_value() : std::nan("");
  if (!(x >= least && x <= most && x == std::floor(x))) {
    return Error(path, absl::StrCat("expected a whole number from ", least, " to ", most,
                                    ", not ", Describe(*v)));
  }
  return std::optional<int64_t>(static_cast<int64_t>(x));
}

absl::StatusOr<std::optional<bool>> JsonFile::Bool(absl::string_view path) const {
  const Value* v = Find(path);
  if (v == nullptr) return std::optional<bool>();
  if (v->kind_case() != Value::kBoolValue) {
    return Error(path, absl::StrCat("expected true or false, not ", Describe(*v)));
  }
  return std::optional<bool>(v->bool_value());
}

absl::StatusOr<std::optional<std::string>> JsonFile::Text(absl::string_view path) const {
  const Value* v = Find(path);
  if (v == nullptr) return std::optional<std::string>();
  if (v->kind_case() != Value::kStringValue) {
    return Error(path, absl::StrCat("expected text in quotes, not ", Describe(*v)));
  }
  return std::optional<std::string>(v->string_value());
}

std::string Describe(const Value& v) {
  switch (v.kind_case()) {
    case Value::kNullValue: return "null";
    case Value::kNumberValue: return absl::StrCat(v.number_value());
    case Value::kStringValue: {
      std::string s = v.string_value();
      if (s.size() > 40) s = absl::StrCat(s.substr(0, 40), "...");
      return absl::StrCat("\"", s, "\"");
    }
    case Value::kBoolValue: return v.bool_value() ? "true" : "false";
    case Value::kStructValue: return "an object";
    case Value::kListValue: return "a list";
    default: return "nothing";
  }
}

}  // namespace serq::models
