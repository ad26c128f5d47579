#include "serq/models/json_file.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"
#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/input_shape.h"
#include "ir/utf8.h"
#include "text/json_row.h"

namespace serq::models {

using google::protobuf::Value;

absl::Status FileError(const std::string& file, absl::string_view path, absl::string_view message) {
  return absl::InvalidArgumentError(
      path.empty() ? absl::StrCat(file, ": error: ", message)
                   : absl::StrCat(file, ": error: ", path, ": ", message));
}

namespace {

// Python's json module's NaN, Infinity and -Infinity outside a string, in
// one pass: `*as_null` is `text` with each made null (a NaN's line is then
// one column longer after it; Python writes one value a line when it
// indents), `*placed` with each a number of as many characters (0.0,
// 1.0e+000, -1.0e+000: every other byte where it was, for an error's place
// in the file). Counts them, and the first one's place.
void PythonFloats(absl::string_view text, int* count, std::string* first, std::string* as_null,
                  std::string* placed) {
  as_null->reserve(text.size());
  placed->reserve(text.size());
  auto put = [&](absl::string_view bytes) {
    absl::StrAppend(as_null, bytes);
    absl::StrAppend(placed, bytes);
  };
  bool in_string = false;
  int line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) {
        put(text.substr(i, 2));
        i += 2;
        column += 2;
        continue;
      }
      put(text.substr(i, 1));
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
      put(text.substr(i, 1));
    } else {
      size_t n = 0;
      for (absl::string_view token : {"NaN", "Infinity", "-Infinity"}) {
        if (text.substr(i, token.size()) == token) n = token.size();
      }
      const bool ends = n > 0 && (i + n == text.size() || absl::string_view(",]} \t\r\n").find(text[i + n]) !=
                                                            absl::string_view::npos);
      if (ends) {
        if ((*count)++ == 0) *first = absl::StrCat(line, ":", column);
        as_null->append("null");
        placed->append(n == 3 ? "0.0" : n == 8 ? "1.0e+000" : "-1.0e+000");
        i += n;
        column += static_cast<int>(n);
        continue;
      }
      put(text.substr(i, 1));
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  }
}

}  // namespace

absl::StatusOr<JsonFile> JsonFile::Read(const std::string& file, bool python_floats) {
  absl::StatusOr<std::string> text = ReadInput(file);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) return text.status();
    return FileError(file, "", text.status().message());
  }
  return Parse(*text, file, python_floats);
}

absl::StatusOr<JsonFile> JsonFile::Parse(absl::string_view text, const std::string& file, bool python_floats) {
  // A UTF-8 byte-order mark, which editors on Windows write, is not JSON:
  // skipped, as the line readers of CSV, YAML and JSONL skip it (text/lines.h).
  SkipByteOrderMark(&text);
  int floats = 0;
  std::string first_float;
  std::string lenient, placed;
  const absl::string_view source = text;  // as written, for a syntax error's line
  // The grammar is checked where each byte was written: the Python floats
  // as numbers of their length.
  absl::string_view grammar = text;
  if (python_floats) {
    PythonFloats(text, &floats, &first_float, &lenient, &placed);
    text = lenient;
    grammar = placed;
  }
  // Read into a protobuf Value, which protobuf refuses past ~49 levels
  // saying nothing of depth: the limit of every JSON that is not IR, at
  // the bracket that crosses it (text/json_row.h).
  JsonPlace deep;
  if (absl::Status s = text::CheckJsonDepth(grammar, &deep); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":", deep.line, ":", deep.column, ": error: ", s.message()));
  }
  Diagnostics diags(file);
  // Where it stops being JSON, shown at its line and column: protobuf's
  // parser says what it expected but not where (and takes a trailing comma).
  JsonPlace broken;
  if (absl::Status s = text::CheckJsonSyntax(grammar, &broken); !s.ok()) {
    diags.set_source(std::string(source));
    diags.Error(broken.line, broken.column, std::string(s.message()));
    std::string rendered = diags.Render();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    return absl::InvalidArgumentError(rendered);
  }
  if (!CheckJsonShape(text, &diags)) {
    std::string rendered = diags.Render();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    return absl::InvalidArgumentError(rendered);
  }
  JsonFile out;
  out.file_ = file;
  out.python_floats_ = floats;
  out.first_python_float_ = first_float;
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

namespace {

bool IsTag(const Value& v) {
  if (v.kind_case() != Value::kStringValue) return false;
  const std::string& s = v.string_value();
  return s.size() >= 2 && s.front() == '<' && s.back() == '>';
}

// Moves each tag under `at` (at `path`) into `tags`, out of the object.
void SetTagsAside(google::protobuf::Struct* at, const std::string& path, std::map<std::string, std::string>* tags) {
  std::vector<std::string> tagged;
  for (auto& [key, value] : *at->mutable_fields()) {
    const std::string here = absl::StrCat(path, ".", key);
    if (IsTag(value)) {
      (*tags)[here] = value.string_value();
      tagged.push_back(key);
    } else if (value.kind_case() == Value::kStructValue) {
      SetTagsAside(value.mutable_struct_value(), here, tags);
    }
  }
  for (const std::string& key : tagged) at->mutable_fields()->erase(key);
}

}  // namespace

void JsonFile::TagsAsAbsent(const std::vector<std::string>& parts) {
  for (const std::string& part : parts) {
    auto it = root_.mutable_fields()->find(part);
    if (it == root_.mutable_fields()->end()) continue;
    if (IsTag(it->second)) {
      tags_[part] = it->second.string_value();
      root_.mutable_fields()->erase(it);
    } else if (it->second.kind_case() == Value::kStructValue) {
      SetTagsAside(it->second.mutable_struct_value(), part, &tags_);
    }
  }
}

std::optional<std::string> JsonFile::Tag(absl::string_view path) const {
  auto it = tags_.find(std::string(path));
  if (it == tags_.end()) return std::nullopt;
  return it->second;
}

const Value* JsonFile::Find(absl::string_view path) const {
  // A tag on the way (the path itself, or an object above it, recorded as
  // a tag): absent, and noted once.
  for (size_t end = 0; !tags_.empty() && end != absl::string_view::npos;) {
    end = path.find('.', end + 1);
    auto it = tags_.find(std::string(path.substr(0, end)));
    if (it == tags_.end()) continue;
    const std::string note = absl::StrCat(it->first, " (\"", it->second, "\")");
    if (std::find(tags_read_.begin(), tags_read_.end(), note) == tags_read_.end()) tags_read_.push_back(note);
    return nullptr;
  }
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
    // The number as the file wrote it (1000000001, not StrCat's 1e+09).
    case Value::kNumberValue: return text::ShortestText(v.number_value());
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
