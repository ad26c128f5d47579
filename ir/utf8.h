// UTF-8 as the IR needs it: every string field of the IR and the results
// is a protobuf `string`, which holds UTF-8 only. Text that becomes one
// (a program's strings, a file name) is checked where it enters, so that
// the error has a place; protobuf itself would only log when it writes.
#ifndef SERQ_IR_UTF8_H_
#define SERQ_IR_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace serq {

// The length of the longest prefix of `text` that is whole UTF-8
// characters, by protobuf's own test of a string field: text.size() when
// all of it is.
size_t Utf8Prefix(absl::string_view text);

inline bool IsUtf8(absl::string_view text) { return Utf8Prefix(text) == text.size(); }

// `text` with every byte that is not part of a UTF-8 character written as
// \xHH: a name that is shown, never opened, kept readable and valid.
std::string Utf8Escaped(absl::string_view text);

// `text` with its control characters (C0 and DEL) written as escapes: \n,
// \t, \r, else \xHH. With `keep_lines`, line breaks and tabs stay as they
// are (a message of several lines). Text read from an input and shown (in a
// message, a program's comment) cannot then end a line or send a terminal
// its commands.
std::string ControlEscaped(absl::string_view text, bool keep_lines = false);

// Removes a UTF-8 byte order mark (EF BB BF) from the start of `text`, as
// a Windows editor writes one before a file's first character; true if
// there was one. Every reader of a text file skips it here, so that no
// reader takes it for a character of its first name or value.
inline bool SkipByteOrderMark(absl::string_view* text) {
  if (text->substr(0, 3) != "\xEF\xBB\xBF") return false;
  text->remove_prefix(3);
  return true;
}

}  // namespace serq

#endif  // SERQ_IR_UTF8_H_
