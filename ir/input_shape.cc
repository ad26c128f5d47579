#include "ir/input_shape.h"

#include <cstdint>
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

// How the walk of one message ended.
enum class Walk {
  kOk,         // every field walked, every string UTF-8
  kMalformed,  // where protobuf fails too: stop (the decoder says so)
  kReported,   // a string that is not UTF-8, reported: stop
};

// The walk of CheckBinaryStrings, reading the bytes as protobuf's parser
// does, so that every string protobuf would check is checked here first,
// at the path protobuf reads it under. protobuf reads a field whole even
// where it runs past the end of the message holding it (a string, or a
// message's fields, on into the fields after it): it asks whether a
// message has ended only between fields, and fails when it has gone past.
// A walk with a limit on each message stopped at such a field, and
// protobuf then logged "String field ... contains invalid UTF-8 data" for
// a string beyond it and failed without a place.
class Walker {
 public:
  Walker(absl::string_view bytes, Diagnostics* diags)
      : bytes_(bytes),
        in_(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size())),
        diags_(diags) {}

  // The fields of a message of `type` at `path` ("" at the top), from here
  // to byte `end` of the input; `depth` its nesting.
  Walk Message(const google::protobuf::Descriptor* type, const std::string& path, int depth,
               int64_t end) {
    using google::protobuf::FieldDescriptor;
    using google::protobuf::internal::WireFormatLite;
    std::map<int, int> seen;  // a repeated field's entries so far, for its index
    for (;;) {
      const int64_t at = in_.CurrentPosition();
      if (at == end) return Walk::kOk;
      if (at > end) return Walk::kMalformed;  // a field ran past the end
      const uint32_t tag = in_.ReadTag();
      // A zero tag, a tag cut short, the end of the input inside the
      // message, field 0, an end of group out of place: protobuf fails.
      if (tag == 0 || WireFormatLite::GetTagFieldNumber(tag) == 0 ||
          WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_END_GROUP) {
        return Walk::kMalformed;
      }
      const FieldDescriptor* f = type->FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
      const bool delimited =
          WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
      const bool text = f != nullptr && f->type() == FieldDescriptor::TYPE_STRING;
      const bool message = f != nullptr && f->type() == FieldDescriptor::TYPE_MESSAGE;
      if (!delimited || !(text || message)) {
        // What protobuf reads as a number, or keeps unread (an unknown
        // field, a field of another wire type): no string it checks.
        if (!WireFormatLite::SkipField(&in_, tag)) return Walk::kMalformed;
        continue;
      }
      std::string here = absl::StrCat(path, path.empty() ? "" : ".", f->name());
      if (f->is_repeated()) absl::StrAppend(&here, "[", seen[f->number()]++, "]");
      uint64_t length;
      // protobuf takes a length below 2^31 only.
      if (!in_.ReadVarint64(&length) || length > static_cast<uint64_t>(INT32_MAX)) {
        return Walk::kMalformed;
      }
      if (text) {
        std::string value;
        const int64_t start = in_.CurrentPosition();
        if (static_cast<int64_t>(length) > static_cast<int64_t>(bytes_.size()) - start) {
          // Cut short by the end of the input: protobuf reads such a
          // string on into the zeros it pads its last buffer with (16
          // bytes), and checks it. The bytes there are: checked so.
          value = std::string(bytes_.substr(start));
        } else if (!in_.ReadString(&value, static_cast<int>(length))) {
          return Walk::kMalformed;
        }
        const size_t valid = Utf8Prefix(value);
        if (valid < value.size()) {
          diags_->ErrorAtPath(here,
                              absl::StrFormat("string is not UTF-8 (byte 0x%02x at offset %d)",
                                              static_cast<unsigned char>(value[valid]), valid));
          return Walk::kReported;
        }
        if (value.size() < length) return Walk::kMalformed;  // cut short
        continue;
      }
      // protobuf's recursion limit: deeper, it fails before reading on.
      if (depth >= kProtobufDepth) return Walk::kMalformed;
      const Walk w = Message(f->message_type(), here, depth + 1,
                             in_.CurrentPosition() + static_cast<int64_t>(length));
      if (w != Walk::kOk) return w;
    }
  }

 private:
  static constexpr int kProtobufDepth = 100;  // io::CodedInputStream's default
  absl::string_view bytes_;
  google::protobuf::io::CodedInputStream in_;
  Diagnostics* diags_;
};

}  // namespace

bool CheckBinaryStrings(absl::string_view bytes, const google::protobuf::Descriptor* type,
                        Diagnostics* diags) {
  Walker walker(bytes, diags);
  return walker.Message(type, "", 0, static_cast<int64_t>(bytes.size())) != Walk::kReported;
}

}  // namespace serq
