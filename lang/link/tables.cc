// Profile tables (docs/language.md §3.7): the rules of a declaration, its
// rows read from its file into the IR (or, in IR that holds them already,
// checked), and lookups.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/builtins.h"
#include "ir/io.h"
#include "ir/limits.h"
#include "lang/link/linker.h"
#include "tables/csv_table.h"
#include "tables/grid.h"

namespace serq {
namespace linker {

void Linker::CheckTables() {
  // The rows every table keeps, at most kMaxTotalTableRows in all: each
  // table may keep what the tables before it left, so that a program of
  // many tables is refused at the row that crosses, in that memory.
  int64_t kept = 0;
  auto why = [&](int64_t before) {
    return absl::StrCat("the program's tables keep at most ", kMaxTotalTableRows,
                        " rows in all, and the tables before it keep ", before);
  };
  for (int i = 0; i < program_->table_size(); ++i) {
    ir::Table* t = program_->mutable_table(i);
    Place here = Place{}.Field("table").Item(i, &t->loc());
    const std::string& name = t->name();
    size_t before = diags_->size();
    if (LookupFunction(name) != nullptr) {
      Error(here, absl::StrCat("'", name, "' is a built-in function; a table cannot take its name"));
    }
    if (t->key_size() == 0) {
      Error(here, absl::StrCat("table '", name, "' has no key column (key a, b;)"));
    } else if (t->key_size() > kMaxTableKeys) {
      Error(here.Field("key").Item(kMaxTableKeys),
            absl::StrCat("table '", name, "' has ", t->key_size(), " key columns; at most ",
                         kMaxTableKeys));
    }
    for (int j = 0; j < t->key_size(); ++j) {
      if (t->key(j).empty()) Error(here.Field("key").Item(j), "a key column has no name");
    }
    if (t->value().empty()) {
      Error(here, absl::StrCat("table '", name, "' has no value column (value t;)"));
    }
    for (int j = 0; j < t->where_size(); ++j) {
      if (t->where(j).column().empty()) {
        Error(here.Field("where").Item(j, &t->where(j).loc()), "a 'where' has no column");
      }
    }
    for (auto [word, outside] : {std::pair{"below", t->below()}, std::pair{"above", t->above()}}) {
      if (!ir::Table::Outside_IsValid(outside)) {
        Error(here.Field(word), absl::StrCat("unknown '", word, "' rule (", outside, ")"));
      }
    }
    if (diags_->size() != before) continue;

    tables::Rows rows;
    rows.keys = t->key_size();
    if (t->grid_value_size() > 0) {
      // Rows the IR holds (linked before, or written by a tool): checked,
      // not read again.
      rows.key.assign(t->grid_key().begin(), t->grid_key().end());
      rows.value.assign(t->grid_value().begin(), t->grid_value().end());
      if (rows.size() > static_cast<size_t>(kMaxTableRows)) {
        Error(here.Field("gridValue"), absl::StrCat("table '", name, "' holds ", rows.size(),
                                                    " rows; at most ", kMaxTableRows));
      } else if (kept + static_cast<int64_t>(rows.size()) > kMaxTotalTableRows) {
        Error(here.Field("gridValue"),
              absl::StrCat("table '", name, "' holds ", rows.size(), " rows; ", why(kept)));
      } else if (absl::Status s = tables::CheckRows(rows); !s.ok()) {
        Error(here.Field("gridValue"), absl::StrCat("table '", name, "': ", s.message()));
      } else {
        kept += static_cast<int64_t>(rows.size());
      }
      continue;
    }
    if (!t->grid_key().empty()) {
      Error(here.Field("gridKey"), absl::StrCat("table '", name, "' holds keys but no values"));
      continue;
    }
    if (t->file().empty()) {
      Error(here, absl::StrCat("table '", name, "' has no file and holds no rows"));
      continue;
    }
    tables::Spec spec;
    spec.keys.assign(t->key().begin(), t->key().end());
    spec.value = t->value();
    for (const ir::Table::Match& m : t->where()) spec.where.push_back({m.column(), m.equals()});
    if (kMaxTotalTableRows - kept < spec.max_rows) {
      spec.max_rows = kMaxTotalTableRows - kept;
      spec.max_rows_why = why(kept);
    }
    const std::string path = DataPath(t->file(), program_->file(), options_.data_dir);
    tables::ReadError error;
    if (!tables::ReadCsvTable(path, spec, &rows, &error)) {
      // A file that cannot be read is the program's mistake (at the table);
      // a bad line is the file's (at its line).
      if (error.line > 0) {
        diags_->ErrorInOtherFile(path, error.line,
                                 absl::StrCat("table '", name, "': ", error.message));
      } else {
        Error(here, absl::StrCat("cannot read table '", name, "' from '", path, "': ",
                                 error.message));
      }
      continue;
    }
    kept += static_cast<int64_t>(rows.size());
    t->mutable_grid_key()->Assign(rows.key.begin(), rows.key.end());
    t->mutable_grid_value()->Assign(rows.value.begin(), rows.value.end());
  }
}

void Linker::ResolveTableCall(ir::Expr::Call* call, int index, const Place& where,
                              const Scope& scope) {
  const ir::Table& t = program_->table(index);
  if (scope.context == Context::kConstant) {
    Error(where, absl::StrCat("'", t.name(), "' is a table: a lookup is not a constant"));
    return;
  }
  const int n = call->arg_size();
  if (t.key_size() > 0 && n != t.key_size()) {
    Error(where, absl::StrCat("table '", t.name(), "' is looked up by ", t.key_size(),
                              t.key_size() == 1 ? " key (" : " keys (",
                              absl::StrJoin(t.key(), ", "), "), not ", n));
  }
  for (int i = 0; i < n; ++i) {
    ResolveExpr(call->mutable_arg(i), where.Field("arg").Item(i), scope);
  }
  call->set_table(index + 1);
}

}  // namespace linker
}  // namespace serq
