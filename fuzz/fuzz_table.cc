// Fuzz target: profile tables (tables/) on any bytes, read as a CSV table
// by three specs (one key; four keys; a key and a `where`). Rows the
// reader accepts must pass CheckRows, and a lookup at a row's keys must
// give that row's value exactly, whatever the rules beyond the grid.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tables/csv_table.h"
#include "tables/grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using serq::tables::Outside;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const serq::tables::Spec specs[] = {
      {{"tokens"}, "time_us", {}},
      {{"prefill_chunk", "kv_prefill", "n_decode", "kv_decode"}, "time_us", {}},
      {{"tokens"}, "time_us", {{"layer", "qkv_proj"}}},
  };
  for (const serq::tables::Spec& spec : specs) {
    std::istringstream in(text);
    serq::tables::Rows rows;
    serq::tables::ReadError error;
    if (!serq::tables::ReadCsvTable(&in, spec, &rows, &error)) continue;
    if (!serq::tables::CheckRows(rows).ok()) std::abort();
    serq::tables::Grid grid(rows);
    const size_t k = rows.keys;
    for (size_t r = 0; r < rows.size() && r < 64; ++r) {
      std::vector<double> x(rows.key.begin() + r * k, rows.key.begin() + (r + 1) * k);
      double v;
      int axis;
      if (!grid.Lookup(x, Outside::kError, Outside::kError, &v, &axis) || v != rows.value[r]) {
        std::abort();
      }
      // Beyond the grid on every axis, by each rule: no crash.
      for (double& xi : x) xi = xi * 2 + 1e3;
      grid.Lookup(x, Outside::kClamp, Outside::kExtrapolate, &v, &axis);
      for (double& xi : x) xi = -xi;
      grid.Lookup(x, Outside::kExtrapolate, Outside::kClamp, &v, &axis);
    }
  }
  return 0;
}
