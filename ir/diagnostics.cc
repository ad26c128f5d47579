#include "ir/diagnostics.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace serq {
namespace {

// The text of 1-based line `line` of `source`, without its newline; empty
// when the source does not have that line.
absl::string_view SourceLine(absl::string_view source, uint32_t line) {
  size_t start = 0;
  for (uint32_t l = 1; l < line; ++l) {
    size_t nl = source.find('\n', start);
    if (nl == absl::string_view::npos) return {};
    start = nl + 1;
  }
  if (start > source.size()) return {};
  size_t end = source.find('\n', start);
  if (end == absl::string_view::npos) end = source.size();
  absl::string_view text = source.substr(start, end - start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
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
  if (!d.other_file.empty()) {
    std::string out = d.other_file;
    if (d.line != 0) absl::StrAppend(&out, ":", d.line);
    absl::StrAppend(&out, ": error: ", d.message, "\n");
    return out;
  }
  std::string out(file);
  if (d.line != 0) {
    absl::StrAppend(&out, ":", d.line, ":", d.column);
  } else if (!d.ir_path.empty()) {
    absl::StrAppend(&out, ":", d.ir_path);
  }
  absl::StrAppend(&out, ": error: ", d.message, "\n");
  if (d.line == 0) return out;
  absl::string_view text = SourceLine(source, d.line);
  if (text.empty()) return out;
  absl::StrAppend(&out, text, "\n");
  // The caret line keeps the source's tabs so the caret lines up however
  // the terminal expands them.
  std::string caret;
  for (uint32_t i = 1; i < d.column && i - 1 < text.size(); ++i) {
    caret.push_back(text[i - 1] == '\t' ? '\t' : ' ');
  }
  absl::StrAppend(&out, caret, "^\n");
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
  const Diagnostic* prev = nullptr;
  for (size_t i : order) {
    const Diagnostic& d = list_[i];
    if (prev != nullptr && prev->line == d.line && prev->column == d.column &&
        prev->ir_path == d.ir_path && prev->other_file == d.other_file &&
        prev->message == d.message) {
      continue;
    }
    out += RenderDiagnostic(d, file_, source_);
    prev = &d;
  }
  return out + TooMany();
}

}  // namespace serq
