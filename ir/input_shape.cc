#include "ir/input_shape.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "ir/utf8.h"

namespace serq {
namespace {

// protobuf's JSON names: `service_sum` and `serviceSum` are one field.
std::string CanonicalKey(absl::string_view raw) {
  std::string out;
  bool upper = false;
  for (char c : raw) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return out;
}

struct Container {
  bool object = false;
  bool expect_key = false;
  absl::flat_hash_set<std::string> keys;
};

}  // namespace

std::optional<JsonPlace> JsonDeeperThan(absl::string_view json, int most) {
  int depth = 0;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    switch (json[i]) {
      case '\n':
        ++line;
        line_start = i + 1;
        break;
      case '"':
        for (++i; i < json.size() && json[i] != '"'; ++i) {
          if (json[i] == '\\') ++i;
          if (i < json.size() && json[i] == '\n') {
            ++line;
            line_start = i + 1;
          }
        }
        break;
      case '{':
      case '[':
        if (++depth > most) return JsonPlace{line, static_cast<int>(i - line_start) + 1};
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;  // (one too many is malformed: the parser says so)
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

bool CheckJsonShape(absl::string_view json, Diagnostics* diags) {
  if (std::optional<JsonPlace> deep = JsonDeeperThan(json, kMaxJsonDepth)) {
    diags->ErrorInFile(absl::StrCat("JSON nested more than ", kMaxJsonDepth,
                                    " levels deep at line ", deep->line, ", column ",
                                    deep->column, "; no IR or results are that deep"));
    return false;
  }
  std::vector<Container> stack;
  int64_t objects = 0;
  int line = 1;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    switch (c) {
      case '\n':
        ++line;
        break;
      case '{':
      case '[':
        // (No deeper than kMaxJsonDepth: JsonDeeperThan said so.)
        if (c == '{' && ++objects > kMaxJsonObjects) {
          diags->ErrorInFile(absl::StrCat("JSON with more than ", kMaxJsonObjects,
                                          " objects (at line ", line,
                                          "); serq reads no input that large"));
          return false;
        }
        stack.emplace_back();
        stack.back().object = c == '{';
        stack.back().expect_key = c == '{';
        break;
      case '}':
      case ']':
        if (stack.empty()) return true;  // malformed: the decoder says so
        stack.pop_back();
        break;
      case ',':
        if (!stack.empty() && stack.back().object) stack.back().expect_key = true;
        break;
      case ':':
        if (!stack.empty() && stack.back().object) stack.back().expect_key = false;
        break;
      case '"': {
        size_t start = i + 1;
        for (++i; i < json.size() && json[i] != '"'; ++i) {
          if (json[i] == '\\') ++i;
          if (i < json.size() && json[i] == '\n') ++line;
        }
        if (i >= json.size()) return true;  // an unterminated string: malformed
        // protobuf's parser refuses it too, but says only "encountered non
        // UTF-8 code points": where is said here.
        if (size_t valid = Utf8Prefix(json.substr(start, i - start)); start + valid < i) {
          diags->ErrorInFile(absl::StrFormat("invalid JSON: a string that is not UTF-8 (byte "
                                             "0x%02x) at line %d",
                                             static_cast<unsigned char>(json[start + valid]),
                                             line));
          return false;
        }
        if (!stack.empty() && stack.back().object && stack.back().expect_key) {
          absl::string_view raw = json.substr(start, i - start);
          if (!stack.back().keys.insert(CanonicalKey(raw)).second) {
            diags->ErrorInFile(absl::StrCat("invalid JSON: the key '", raw,
                                            "' appears twice in one object (line ", line,
                                            ")"));
            return false;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return true;
}

bool CheckBinaryShape(absl::string_view bytes, const google::protobuf::Descriptor* type,
                      int64_t most, Diagnostics* diags) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::map<int, int64_t> counts;
  for (;;) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) return true;  // the end, or malformed: the decoder says so
    int number = WireFormatLite::GetTagFieldNumber(tag);
    if (!WireFormatLite::SkipField(&in, tag)) return true;
    if (++counts[number] > most) {
      const google::protobuf::FieldDescriptor* f = type->FindFieldByNumber(number);
      diags->ErrorInFile(absl::StrCat(
          "more than ", most, " '", f != nullptr ? f->name() : absl::StrCat("field ", number),
          "' entries; serq reads at most ", most, " of each"));
      return false;
    }
  }
}

namespace {

// The walk of CheckBinaryStrings through one message's fields (`in` limited
// to them). `path` is the message's IR path, "" at the top. False when a
// string is not UTF-8 (reported) and the walk stops.
bool StringsAreUtf8(google::protobuf::io::CodedInputStream* in,
                    const google::protobuf::Descriptor* type, const std::string& path, int depth,
                    Diagnostics* diags) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::internal::WireFormatLite;
  std::map<int, int> seen;  // a repeated field's entries so far, for its index
  for (;;) {
    uint32_t tag = in->ReadTag();
    if (tag == 0) return true;  // the end, or malformed: the decoder says so
    const FieldDescriptor* f = type->FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
    bool delimited =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    bool text = f != nullptr && f->type() == FieldDescriptor::TYPE_STRING;
    bool message = f != nullptr && f->type() == FieldDescriptor::TYPE_MESSAGE &&
                   depth < kMaxJsonDepth;
    if (!delimited || !(text || message)) {
      if (!WireFormatLite::SkipField(in, tag)) return true;
      continue;
    }
    std::string here = absl::StrCat(path, path.empty() ? "" : ".", f->name());
    if (f->is_repeated()) absl::StrAppend(&here, "[", seen[f->number()]++, "]");
    uint32_t length;
    if (!in->ReadVarint32(&length)) return true;
    if (text) {
      std::string value;
      if (!in->ReadString(&value, static_cast<int>(length))) return true;
      size_t valid = Utf8Prefix(value);
      if (valid < value.size()) {
        diags->ErrorAtPath(here, absl::StrFormat("string is not UTF-8 (byte 0x%02x at offset %d)",
                                                 static_cast<unsigned char>(value[valid]),
                                                 valid));
        return false;
      }
      continue;
    }
    auto limit = in->PushLimit(static_cast<int>(length));
    if (!StringsAreUtf8(in, f->message_type(), here, depth + 1, diags)) return false;
    in->PopLimit(limit);
  }
}

}  // namespace

bool CheckBinaryStrings(absl::string_view bytes, const google::protobuf::Descriptor* type,
                        Diagnostics* diags) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  return StringsAreUtf8(&in, type, "", 0, diags);
}

}  // namespace serq
