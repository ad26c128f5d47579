#include "ir/utf8.h"

#include "absl/strings/str_format.h"
#include "google/protobuf/stubs/common.h"

namespace serq {

size_t Utf8Prefix(absl::string_view text) {
  // Protobuf's validator takes an int length: longer text is checked a
  // piece at a time, each next one from the last whole character.
  constexpr size_t kPiece = size_t{1} << 30;
  size_t done = 0;
  while (done < text.size()) {
    absl::string_view piece = text.substr(done, kPiece);
    size_t valid = google::protobuf::internal::UTF8SpnStructurallyValid(
        google::protobuf::StringPiece(piece.data(), piece.size()));
    bool last = done + piece.size() == text.size();
    // A piece that is not the last may cut a character (at most 3 bytes).
    if (valid == piece.size() || (!last && valid + 4 > piece.size())) {
      done += valid;
      continue;
    }
    return done + valid;
  }
  return text.size();
}

std::string Utf8Escaped(absl::string_view text) {
  std::string out;
  while (!text.empty()) {
    size_t valid = Utf8Prefix(text);
    out.append(text.data(), valid);
    text.remove_prefix(valid);
    if (text.empty()) break;
    absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned char>(text[0]));
    text.remove_prefix(1);
  }
  return out;
}

std::string ControlEscaped(absl::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u >= 0x20 && u != 0x7f) || (keep_lines && (c == '\n' || c == '\t'))) {
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    }
  }
  return out;
}

}  // namespace serq
