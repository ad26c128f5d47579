#include "serq-sim/trace.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace serq::sim {
namespace {

// Every format, in the order the error that lists them names them.
const TraceFormat* const* Formats(size_t* count) {
  static const TraceFormat* const formats[] = {
      &MooncakeTraceFormat(),
      &AzureTraceFormat(),
      &SerqCsvTraceFormat(),
  };
  *count = sizeof(formats) / sizeof(formats[0]);
  return formats;
}

std::string Accepted() {
  size_t n;
  const TraceFormat* const* formats = Formats(&n);
  std::string out = "expected ";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += i + 1 == n ? " or " : ", ";
    absl::StrAppend(&out, formats[i]->name(), " (", formats[i]->looks(), ")");
  }
  return out;
}

}  // namespace

bool TraceLines::NextNonBlank(absl::string_view* line) {
  while (std::getline(*in_, line_)) {
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
    if (in->bad()) {
      *error = TraceError{true, 0, "cannot read the trace"};
      return false;
    }
    *error = TraceError{true, 0, absl::StrCat("empty trace: ", Accepted())};
    return false;
  }
  size_t n;
  const TraceFormat* const* formats = Formats(&n);
  const TraceFormat* format = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (!formats[i]->Recognizes(first)) continue;
    if (format != nullptr) {
      *error = TraceError{true, lines.number(),
                          absl::StrCat("the first line fits both ", format->name(), " (",
                                       format->looks(), ") and ", formats[i]->name(), " (",
                                       formats[i]->looks(), "): keep one")};
      return false;
    }
    format = formats[i];
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
  if (in->bad()) {
    *error = TraceError{true, 0, "cannot read the trace"};
    return false;
  }
  return true;
}

bool ReadTrace(const std::string& path, Trace* out, TraceError* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = TraceError{false, 0,
                        absl::StrCat("cannot open trace '", path, "': ", std::strerror(errno))};
    return false;
  }
  return ReadTrace(&in, path, out, error);
}

}  // namespace serq::sim
