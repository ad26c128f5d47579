#include "serq-sim/workload/trace.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include <fstream>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace serq::sim {
namespace {

// Every format, in the order the error that lists them names them.
absl::Span<const TraceFormat* const> Formats() {
  static const TraceFormat* const formats[] = {
      &MooncakeTraceFormat(),
      &VllmTraceFormat(),
      &AzureTraceFormat(),
      &BlisTraceFormat(),
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

// TraceErrorBeside's payloads: the file and the line.
constexpr char kBesideFile[] = "serq/trace/beside-file";
constexpr char kBesideLine[] = "serq/trace/beside-line";

}  // namespace

absl::Status TraceErrorBeside(const std::string& file, int line, absl::string_view message) {
  absl::Status s = absl::InvalidArgumentError(message);
  s.SetPayload(kBesideFile, absl::Cord(file));
  s.SetPayload(kBesideLine, absl::Cord(absl::StrCat(line)));
  return s;
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
    if (auto file = s.GetPayload(kBesideFile)) {
      error->file = std::string(*file);
      int line = 0;
      if (auto at = s.GetPayload(kBesideLine)) {
        (void)absl::SimpleAtoi(std::string(*at), &line);
      }
      error->line = line;
    }
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

std::string TraceErrorText(const std::string& path, const TraceError& error) {
  const std::string& at = error.file.empty() ? path : error.file;
  return error.line > 0 ? absl::StrCat(at, ":", error.line, ": error: ", error.message)
                        : absl::StrCat(at, ": error: ", error.message);
}

}  // namespace serq::sim
