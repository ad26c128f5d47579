#include "serq-sim/workload/trace.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace serq::sim {
namespace {

// Every format, in the order the error that lists them names them.
absl::Span<const TraceFormat* const> Formats() {
  static const TraceFormat* const formats[] = {
      &MooncakeTraceFormat(),
      &AzureTraceFormat(),
      &SerqCsvTraceFormat(),
  };
  return formats;
}

std::string TooLong() {
  return absl::StrCat("a line longer than ", TraceLines::kMaxLine >> 20,
                      " MB (is this a trace?)");
}

std::string Accepted() {
  absl::Span<const TraceFormat* const> formats = Formats();
  std::string out = "expected ";
  for (size_t i = 0; i < formats.size(); ++i) {
    if (i > 0) out += i + 1 == formats.size() ? " or " : ", ";
    absl::StrAppend(&out, formats[i]->name(), " (", formats[i]->looks(), ")");
  }
  return out;
}

}  // namespace

// std::getline, but bounded: a "line" without end (/dev/zero) stops at
// kMaxLine instead of taking all memory.
bool TraceLines::ReadLine() {
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

bool TraceLines::NextNonBlank(absl::string_view* line) {
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

bool ReadTrace(std::istream* in, const std::string& path, Trace* out, TraceError* error) {
  *out = Trace();
  out->path = path;
  TraceLines lines(in);
  absl::string_view first;
  if (!lines.NextNonBlank(&first)) {
    if (lines.too_long()) {
      *error = TraceError{true, lines.number() + 1, TooLong()};
      return false;
    }
    if (in->bad()) {
      *error = TraceError{true, 0, absl::StrCat("cannot read the trace: ", std::strerror(errno))};
      return false;
    }
    *error = TraceError{true, 0, absl::StrCat("empty trace: ", Accepted())};
    return false;
  }
  const TraceFormat* format = nullptr;
  for (const TraceFormat* candidate : Formats()) {
    if (!candidate->Recognizes(first)) continue;
    if (format != nullptr) {
      *error = TraceError{true, lines.number(),
                          absl::StrCat("the first line fits both ", format->name(), " (",
                                       format->looks(), ") and ", candidate->name(), " (",
                                       candidate->looks(), "): keep one")};
      return false;
    }
    format = candidate;
  }
  if (format == nullptr) {
    *error = TraceError{true, lines.number(), absl::StrCat("not a trace serq reads: ", Accepted())};
    return false;
  }
  out->format = std::string(format->name());
  absl::Status s = format->Read(first, &lines, out);
  if (!s.ok()) {
    *error = TraceError{true, lines.number(), std::string(s.message())};
    return false;
  }
  if (lines.too_long()) {  // the readers saw an end of file there
    *error = TraceError{true, lines.number() + 1, TooLong()};
    return false;
  }
  if (in->bad()) {
    *error = TraceError{true, 0, absl::StrCat("cannot read the trace: ", std::strerror(errno))};
    return false;
  }
  return true;
}

bool ReadTrace(const std::string& path, Trace* out, TraceError* error) {
  // A directory opens as a stream that reads nothing: say what it is, at
  // the workload that names it.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = TraceError{false, 0, absl::StrCat("cannot read trace '", path, "': it is a directory")};
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = TraceError{false, 0,
                        absl::StrCat("cannot open trace '", path, "': ", std::strerror(errno))};
    return false;
  }
  return ReadTrace(&in, path, out, error);
}

}  // namespace serq::sim
