#include "ir/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace serq {

bool ProgressLinesWanted() {
  const char* v = std::getenv("SERQ_PROGRESS");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

ProgressLine::Mode ProgressLine::ForStderr() {
  if (isatty(STDERR_FILENO)) return Mode::kInPlace;
  return ProgressLinesWanted() ? Mode::kLines : Mode::kNone;
}

ProgressLine::ProgressLine(Mode mode, std::function<double()> now, std::FILE* out)
    : mode_(mode), now_(std::move(now)), out_(out) {
  if (!now_) {
    now_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
  }
  started_ = now_();
}

bool ProgressLine::Due() {
  if (mode_ == Mode::kNone) return false;
  const bool lines = mode_ == Mode::kLines;
  const double after = lines ? 5.0 : 1.0, every = lines ? 5.0 : 0.25;
  const double t = now_();
  if (t - started_ < after || (last_ > 0 && t - last_ < every)) return false;
  last_ = t;
  return true;
}

void ProgressLine::Show(absl::string_view text) {
  if (mode_ == Mode::kNone) return;
  const std::string line(text);
  if (mode_ == Mode::kLines) {
    std::fprintf(out_, "%s\n", line.c_str());
  } else {
    std::fprintf(out_, "\r%s\033[K", line.c_str());
    shown_ = true;
  }
  std::fflush(out_);
}

void ProgressLine::Clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

double ProgressLine::Elapsed() const { return now_() - started_; }

}  // namespace serq
