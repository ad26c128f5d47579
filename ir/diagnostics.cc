#include "ir/diagnostics.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace serq {
namespace {

// The lines of a source found in order: asking for a line at or after the
// last one found scans on from there, so rendering sorted diagnostics reads
// the source once, not once a diagnostic.
class SourceLines {
 public:
  explicit SourceLines(absl::string_view source) : source_(source) {}

  // The text of 1-based line `line`, without its newline (and a CR before
  // it); empty when the source does not have that line.
  absl::string_view Line(uint32_t line) {
    if (line < line_) {
      line_ = 1;
      start_ = 0;
    }
    for (; line_ < line; ++line_) {
      size_t nl = source_.find('\n', start_);
      if (nl == absl::string_view::npos) return {};
      start_ = nl + 1;
    }
    if (start_ > source_.size()) return {};
    size_t end = source_.find('\n', start_);
    if (end == absl::string_view::npos) end = source_.size();
    absl::string_view text = source_.substr(start_, end - start_);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    return text;
  }

 private:
  absl::string_view source_;
  uint32_t line_ = 1;    // the line that starts at start_
  size_t start_ = 0;
};

// The most of a source line a diagnostic shows.
constexpr size_t kShownLine = 200;

// Appends one diagnostic to `out` (what RenderDiagnostic returns).
void AppendDiagnostic(const Diagnostic& d, absl::string_view file, SourceLines* lines,
                      std::string* out) {
  if (!d.other_file.empty()) {
    absl::StrAppend(out, d.other_file);
    if (d.line != 0) absl::StrAppend(out, ":", d.line);
    absl::StrAppend(out, ": error: ", d.message, "\n");
    return;
  }
  absl::StrAppend(out, file);
  if (d.line != 0) {
    absl::StrAppend(out, ":", d.line, ":", d.column);
  } else if (!d.ir_path.empty()) {
    absl::StrAppend(out, ":", d.ir_path);
  }
  absl::StrAppend(out, ": error: ", d.message, "\n");
  if (d.line == 0) return;
  absl::string_view text = lines->Line(d.line);
  if (text.empty()) return;
  size_t before = std::min<size_t>(d.column > 0 ? d.column - 1 : 0, text.size());
  // A long line is shown as the window of it around the column, "..." for
  // what is cut: a one-line file of 32 MB printed itself and a caret line as
  // long for each error (1.3 GB for 20). The cuts move off the middle of a
  // UTF-8 character, so that what is printed stays UTF-8.
  absl::string_view cut_before, cut_after;
  if (text.size() > kShownLine) {
    size_t from = before > kShownLine / 2 ? before - kShownLine / 2 : 0;
    size_t to = std::min(text.size(), from + kShownLine);
    auto continuation = [&](size_t i) { return i < text.size() && (text[i] & 0xC0) == 0x80; };
    while (from > 0 && continuation(from)) --from;
    while (to < text.size() && continuation(to)) --to;
    if (from > 0) cut_before = "...";
    if (to < text.size()) cut_after = "...";
    text = text.substr(from, to - from);
    before = before - from + cut_before.size();
  }
  absl::StrAppend(out, cut_before, text, cut_after, "\n");
  // The caret line keeps the source's tabs so the caret lines up however
  // the terminal expands them: the text before the column, every other
  // byte a space.
  size_t start = out->size();
  out->append(before, ' ');
  for (size_t tab = text.find('\t');
       tab != absl::string_view::npos && cut_before.size() + tab < before;
       tab = text.find('\t', tab + 1)) {
    (*out)[start + cut_before.size() + tab] = '\t';
  }
  out->append("^\n");
}

}  // namespace

void Diagnostics::Add(Diagnostic d) {
  if (list_.size() >= kMaxErrors) {
    ++dropped_;  // the first kMaxErrors are kept, as a compiler's -ferror-limit
    return;
  }
  list_.push_back(std::move(d));
}

void Diagnostics::AddDropped(size_t n) { dropped_ += n; }

std::string Diagnostics::TooMany() const {
  if (stopped_) {
    return absl::StrCat(file_, ": error: too many errors: stopped after the first ", kMaxErrors,
                        "\n");
  }
  if (dropped_ == 0) return "";
  return absl::StrCat(file_, ": error: too many errors: ", dropped_, " more after the first ",
                      kMaxErrors, " not shown\n");
}

void Diagnostics::Error(uint32_t line, uint32_t column, std::string message) {
  Diagnostic d;
  d.line = line;
  d.column = column;
  d.message = std::move(message);
  Add(std::move(d));
}

void Diagnostics::Error(const ir::Location& loc, absl::string_view ir_path,
                        std::string message) {
  if (loc.line() != 0) {
    Error(loc.line(), loc.column(), std::move(message));
  } else {
    ErrorAtPath(ir_path, std::move(message));
  }
}

void Diagnostics::ErrorAtPath(absl::string_view ir_path, std::string message) {
  Diagnostic d;
  d.ir_path = std::string(ir_path);
  d.message = std::move(message);
  Add(std::move(d));
}

void Diagnostics::ErrorInOtherFile(std::string other, uint32_t line, std::string message) {
  Diagnostic d;
  d.other_file = std::move(other);
  d.line = line;
  d.message = std::move(message);
  Add(std::move(d));
}

std::string RenderDiagnostic(const Diagnostic& d, absl::string_view file,
                             absl::string_view source) {
  SourceLines lines(source);
  std::string out;
  AppendDiagnostic(d, file, &lines, &out);
  return out;
}

std::string Diagnostics::Render() const {
  std::vector<size_t> order(list_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Located diagnostics by position; unlocated ones (line 0) after them in
  // the order reported. The stable sort keeps report order among equals.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Diagnostic& x = list_[a];
    const Diagnostic& y = list_[b];
    // Another file's lines are not the input's: they sort as unlocated.
    auto key = [](const Diagnostic& d) {
      bool unlocated = d.line == 0 || !d.other_file.empty();
      return std::make_tuple(unlocated, unlocated ? 0 : d.line, d.column);
    };
    return key(x) < key(y);
  });
  std::string out;
  SourceLines lines(source_);
  const Diagnostic* prev = nullptr;
  for (size_t i : order) {
    const Diagnostic& d = list_[i];
    if (prev != nullptr && prev->line == d.line && prev->column == d.column &&
        prev->ir_path == d.ir_path && prev->other_file == d.other_file &&
        prev->message == d.message) {
      continue;
    }
    AppendDiagnostic(d, file_, &lines, &out);
    prev = &d;
  }
  out += TooMany();
  return out;
}

}  // namespace serq
