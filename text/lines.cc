#include "text/lines.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace serq::text {

// std::getline, but bounded: a "line" without end (/dev/zero) stops at
// kMaxLine instead of taking all memory.
bool Lines::ReadLine() {
  line_.clear();
  std::streambuf* buf = in_->rdbuf();
  for (;;) {
    int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in_->setstate(std::ios::eofbit);
      return !line_.empty();
    }
    if (c == '\n') return true;
    if (line_.size() >= kMaxLine) {
      too_long_ = true;
      return false;
    }
    line_.push_back(static_cast<char>(c));
  }
}

bool Lines::NextNonBlank(absl::string_view* line) {
  while (!too_long_ && ReadLine()) {
    ++number_;
    absl::string_view text = line_;
    if (number_ == 1 && absl::StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (absl::StripAsciiWhitespace(text).empty()) continue;
    *line = text;
    return true;
  }
  return false;
}

}  // namespace serq::text
