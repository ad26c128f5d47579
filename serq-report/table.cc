#include "serq-report/table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace serq::report {

size_t DisplayWidth(absl::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<size_t> Table::Widths() const {
  std::vector<size_t> widths;
  for (const Column& c : columns_) {
    widths.push_back(std::max(c.min_width, DisplayWidth(c.header)));
  }
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  return widths;
}

namespace {

void AppendPadded(std::string* out, absl::string_view cell, size_t width, Align align) {
  std::string pad(width - std::min(width, DisplayWidth(cell)), ' ');
  if (align == Align::kRight) {
    absl::StrAppend(out, pad, cell);
  } else {
    absl::StrAppend(out, cell, pad);
  }
}

}  // namespace

std::string Table::RenderText() const {
  std::vector<size_t> widths = Widths();
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) text += "  ";
      AppendPadded(&text, cells[i], widths[i], columns_[i].align);
    }
    // A left-aligned last column would leave padding at the end.
    while (!text.empty() && text.back() == ' ') text.pop_back();
    absl::StrAppend(&out, text, "\n");
  };
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(c.header);
  line(header);
  for (const auto& row : rows_) line(row);
  return out;
}

std::string Table::RenderMarkdown() const {
  std::vector<size_t> widths = Widths();
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (size_t i = 0; i < cells.size(); ++i) {
      out += " ";
      AppendPadded(&out, cells[i], widths[i], columns_[i].align);
      out += " |";
    }
    out += "\n";
  };
  std::vector<std::string> header;
  for (const Column& c : columns_) header.push_back(EscapeMarkdown(c.header));
  line(header);
  out += "|";
  for (size_t i = 0; i < columns_.size(); ++i) {
    // The delimiter spans the cell and its two spaces; the colon says where
    // the column is aligned.
    std::string dashes(widths[i] + 1, '-');
    if (columns_[i].align == Align::kRight) {
      absl::StrAppend(&out, dashes, ":|");
    } else {
      absl::StrAppend(&out, ":", dashes, "|");
    }
  }
  out += "\n";
  for (const auto& row : rows_) line(row);
  return out;
}

std::string EscapeMarkdown(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '\\' || c == '`') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace serq::report
