// Reading a profile table from a CSV file as published (LLMServingSim's
// attention.csv, dense.csv, per_sequence.csv, moe.csv; Vidur's mlp.csv):
// a header, then a row a line; the rows a table selects (`where`), their
// key columns and their value column.
#ifndef SERQ_TABLES_CSV_TABLE_H_
#define SERQ_TABLES_CSV_TABLE_H_

#include <istream>
#include <string>
#include <utility>
#include <vector>

#include "ir/limits.h"
#include "tables/grid.h"
#include "text/csv.h"

namespace serq::tables {

// What a table takes from its file.
struct Spec {
  std::vector<std::string> keys;  // 1 to kMaxTableKeys columns
  std::string value;
  // Rows whose column (first) holds the text (second); both numbers:
  // compared as numbers ("1" is "1.0").
  std::vector<std::pair<std::string, std::string>> where;
  // The most rows kept (kMaxTableRows, or fewer when the program's tables
  // keep kMaxTotalTableRows in all), and what a row past it is told
  // beyond "more than N rows selected" (why N).
  int64_t max_rows = kMaxTableRows;
  std::string max_rows_why = "serq keeps at most that many";
};

// Why a file is not a table: `line` the file's line (0: the file as a
// whole), and what is wrong.
struct ReadError {
  int line = 0;
  std::string message;
};

// A header may have at most this many columns: text/csv.h's bound, which
// the traces' CSV headers share.
inline constexpr size_t kMaxColumns = text::kMaxColumns;

// Reads the rows `spec` selects, as CheckRows wants them (keys and values
// finite, values >= 0, at most spec.max_rows: a row past it is refused),
// sorted ascending by their keys where the file has them in another order
// (a key twice is an error at its second line); false after filling
// `error`.
bool ReadCsvTable(std::istream* in, const Spec& spec, Rows* out, ReadError* error);
// The same from the file at `path`; a directory or a file that cannot be
// opened is an error of line 0.
bool ReadCsvTable(const std::string& path, const Spec& spec, Rows* out, ReadError* error);

}  // namespace serq::tables

#endif  // SERQ_TABLES_CSV_TABLE_H_
