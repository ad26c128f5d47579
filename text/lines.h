// Reading a text file a line at a time, in bounded memory: what every
// reader of serq's input files (traces, profile tables) starts from.
#ifndef SERQ_TEXT_LINES_H_
#define SERQ_TEXT_LINES_H_

#include <istream>
#include <string>

#include "absl/strings/string_view.h"

namespace serq::text {

// The lines of a file, numbered from 1, with a UTF-8 byte order mark at the
// start of the file and the CR of a CRLF line end removed.
class Lines {
 public:
  explicit Lines(std::istream* in) : in_(in) {}
  // The next line that is not blank (white space only): false at the end,
  // at a line longer than kMaxLine (then too_long()), and at a read error
  // (then the stream is bad(): a directory, an I/O error).
  bool NextNonBlank(absl::string_view* line);
  // The number of the line NextNonBlank returned last.
  int number() const { return number_; }
  // A line was longer than kMaxLine: the reading stopped there (/dev/zero,
  // a binary file), its number is number() + 1.
  bool too_long() const { return too_long_; }
  // 256 MB: a Mooncake row of 10^7 hash_ids is ~100 MB.
  static constexpr size_t kMaxLine = 256u << 20;

 private:
  bool ReadLine();
  std::istream* in_;
  std::string line_;
  int number_ = 0;
  bool too_long_ = false;
};

}  // namespace serq::text

#endif  // SERQ_TEXT_LINES_H_
