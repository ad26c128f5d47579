// Column layout of the report's tables: each column as wide as its widest
// cell and at least its minimum, widths counted in characters (UTF-8 code
// points: `±` is one), the name left-aligned and figures right-aligned.
#ifndef SERQ_REPORT_TABLE_H_
#define SERQ_REPORT_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace serq::report {

// Characters in `utf8`: every byte that does not continue a sequence.
size_t DisplayWidth(absl::string_view utf8);

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kRight;
  size_t min_width = 0;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // One cell per column.
  void AddRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }

  // Header and rows, columns separated by two spaces, each line ending in a
  // newline and never in a space.
  std::string RenderText() const;

  // A GitHub markdown table, padded to the same widths so it reads as text
  // too. Cells must already be escaped for markdown (EscapeMarkdown).
  std::string RenderMarkdown() const;

 private:
  std::vector<size_t> Widths() const;

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// `text` with the characters markdown would read in a table cell (`|`, `*`,
// `_`, `\`, `` ` ``) escaped by a backslash.
std::string EscapeMarkdown(absl::string_view text);

}  // namespace serq::report

#endif  // SERQ_REPORT_TABLE_H_
