#include "text/lines.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "ir/utf8.h"

namespace serq::text {

// std::getline, but bounded: a "line" without end (/dev/zero) stops at
// kMaxLine instead of taking all memory. Read a chunk at a time with
// istream::getline, which scans the stream's buffer with memchr (a byte
// at a time through the streambuf took 2.7 s for /dev/zero's 256 MB, and
// a minute under ASan).
bool Lines::ReadLine() {
  line_.clear();
  char chunk[1 << 16];
  for (;;) {
    in_->getline(chunk, sizeof chunk);
    const size_t taken = static_cast<size_t>(in_->gcount());
    if (in_->eof()) {  // no newline before the end: the rest is the line
      line_.append(chunk, taken);
      if (line_.size() > kMaxLine) too_long_ = true;
      return !too_long_ && !line_.empty();
    }
    if (!in_->fail()) {  // a newline ended the line, counted in `taken`
      line_.append(chunk, taken - 1);
      if (line_.size() > kMaxLine) too_long_ = true;
      return !too_long_;
    }
    // Neither an end of file nor a newline nor a full chunk: the read
    // failed (a directory, an I/O error). The stream is marked bad, for
    // the caller to say so (errno says why), rather than read again for
    // ever.
    if (taken + 1 < sizeof chunk) {
      in_->setstate(std::ios::badbit);
      return false;
    }
    // The chunk filled before a newline: the line goes on.
    in_->clear(in_->rdstate() & ~std::ios::failbit);
    line_.append(chunk, taken);
    if (line_.size() > kMaxLine) {
      too_long_ = true;
      return false;
    }
  }
}

bool Lines::NextNonBlank(absl::string_view* line) {
  while (!too_long_ && ReadLine()) {
    ++number_;
    absl::string_view text = line_;
    if (number_ == 1) SkipByteOrderMark(&text);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (absl::StripAsciiWhitespace(text).empty()) continue;
    *line = text;
    return true;
  }
  return false;
}

}  // namespace serq::text
