#include "tables/csv_table.h"

#include <sstream>

#include "gtest/gtest.h"
#include "tables/grid.h"

namespace serq::tables {
namespace {

struct Result {
  bool ok;
  Rows rows;
  ReadError error;
};

Result Read(const std::string& text, Spec spec) {
  std::istringstream in(text);
  Result r;
  r.ok = ReadCsvTable(&in, spec, &r.rows, &r.error);
  return r;
}

TEST(CsvTable, SelectsRowsByATextColumn) {
  // LLMServingSim's dense.csv shape: a layer column, tokens, time_us.
  Result r = Read(
      "layer,tokens,time_us\n"
      "act_fn,1,2.67733\n"
      "act_fn,2,2.848\n"
      "qkv_proj,1,10.5\n"
      "qkv_proj,16,11\n",
      {{"tokens"}, "time_us", {{"layer", "qkv_proj"}}});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.rows.keys, 1);
  EXPECT_EQ(r.rows.key, (std::vector<double>{1, 16}));
  EXPECT_EQ(r.rows.value, (std::vector<double>{10.5, 11}));
}

TEST(CsvTable, FourKeysAndNumbersCompareAsNumbers) {
  // Vidur's mlp.csv selects by a numeric column; "1.0" is 1. Its value
  // column's name has dots. A BOM and CRLF ends are read as elsewhere.
  Result r = Read(
      "\xEF\xBB\xBFnum_tokens,num_tensor_parallel_workers,time_stats.mlp_up_proj.median\r\n"
      "1,1.0,0.5\r\n1,2,0.3\r\n2,1,0.75\r\n",
      {{"num_tokens"}, "time_stats.mlp_up_proj.median", {{"num_tensor_parallel_workers", "1"}}});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.rows.value, (std::vector<double>{0.5, 0.75}));
  Result a = Read("a,b,c,d,t\n0,0,1,16,8.35\n0,0,1,32,8.45\n",
                  {{"a", "b", "c", "d"}, "t", {}});
  ASSERT_TRUE(a.ok) << a.error.message;
  EXPECT_EQ(a.rows.keys, 4);
  EXPECT_EQ(a.rows.key, (std::vector<double>{0, 0, 1, 16, 0, 0, 1, 32}));
}

// Rows in another order than the keys' are sorted by the keys, the first
// key first, each value staying with its keys: a profiler that loops over
// the decodes outside the chunks writes the same table.
TEST(CsvTable, RowsInAnyOrderAreSortedByTheirKeys) {
  Result r = Read("chunk,decodes,t\n16,1,5\n0,2,4\n16,0,6\n0,1,3\n",
                  {{"chunk", "decodes"}, "t", {}});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.rows.key, (std::vector<double>{0, 1, 0, 2, 16, 0, 16, 1}));
  EXPECT_EQ(r.rows.value, (std::vector<double>{3, 4, 6, 5}));
  EXPECT_TRUE(CheckRows(r.rows).ok());
  // Read in order, the same rows are kept as they are.
  Result same = Read("chunk,decodes,t\n0,1,3\n0,2,4\n16,0,6\n16,1,5\n", {{"chunk", "decodes"}, "t", {}});
  ASSERT_TRUE(same.ok);
  EXPECT_EQ(same.rows.key, r.rows.key);
  EXPECT_EQ(same.rows.value, r.rows.value);
}

TEST(CsvTable, AMoeProfileIsARaggedTwoKeyTable) {
  // LLMServingSim's moe.csv (Qwen3-30B-A3B, its first rows as published):
  // tokens, activated_experts, time_us; 1 token activates only 8 experts,
  // 2 tokens 8 or 16. The rows are a ragged tree, which a grid reads: at
  // (1.5, 8) halfway between 50.2297 and 56.1917 = 53.2107; at (2, 12)
  // halfway between 56.1917 and 134.976 = 95.58385; under 1 token any
  // experts count is its one row's, so (1.5, 16) is (50.2297 + 134.976)/2.
  Result r = Read(
      "tokens,activated_experts,time_us\n"
      "1,8,50.2297\n2,8,56.1917\n2,16,134.976\n4,8,56.6397\n",
      {{"tokens", "activated_experts"}, "time_us", {}});
  ASSERT_TRUE(r.ok) << r.error.message;
  ASSERT_TRUE(CheckRows(r.rows).ok());
  Grid g(r.rows);
  auto at = [&](double a, double b) {
    double v = 0;
    int axis = -1;
    EXPECT_TRUE(g.Lookup({a, b}, Outside::kClamp, Outside::kExtrapolate, &v, &axis));
    return v;
  };
  EXPECT_NEAR(at(1.5, 8), 53.2107, 1e-12);
  EXPECT_NEAR(at(2, 12), 95.58385, 1e-12);
  EXPECT_NEAR(at(1.5, 16), (50.2297 + 134.976) / 2, 1e-12);
}

TEST(CsvTable, ErrorsNameTheLine) {
  Spec spec{{"tokens"}, "time_us", {}};
  Result r = Read("tokens,time\n1,2\n", spec);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.line, 1);
  EXPECT_EQ(r.error.message, "no column 'time_us' (the header has 'tokens', 'time')");
  r = Read("tokens,time_us\n1,2\n2\n", spec);
  EXPECT_EQ(r.error.line, 3);
  EXPECT_EQ(r.error.message, "the row has 1 fields; the header has 2");
  r = Read("tokens,time_us\n1,2\nx,3\n", spec);
  EXPECT_EQ(r.error.line, 3);
  EXPECT_EQ(r.error.message, "column 'tokens' is 'x', not a number");
  // A key twice, next to each other or not: at the second's line, naming
  // the first's.
  r = Read("tokens,time_us\n1,2\n1,3\n", spec);
  EXPECT_EQ(r.error.line, 3);
  EXPECT_EQ(r.error.message, "the same keys as line 2 (a key twice)");
  r = Read("tokens,time_us\n4,2\n1,3\n4,5\n", spec);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.line, 4);
  EXPECT_EQ(r.error.message, "the same keys as line 2 (a key twice)");
  r = Read("tokens,time_us\n1,nan\n", spec);
  EXPECT_EQ(r.error.line, 2);
  EXPECT_EQ(r.error.message, "the value is nan; a table's values are times: finite and >= 0");
  r = Read("tokens,time_us\n1,-0.5\n", spec);
  EXPECT_EQ(r.error.message, "the value is -0.5; a table's values are times: finite and >= 0");
  r = Read("", spec);
  EXPECT_EQ(r.error.line, 0);
  EXPECT_EQ(r.error.message, "the file is empty: expected a header line of column names");
  r = Read("tokens,time_us\n", spec);
  EXPECT_EQ(r.error.message, "the table has no rows");
  r = Read("layer,tokens,time_us\nx,1,2\n", {{"tokens"}, "time_us", {{"layer", "y"}}});
  EXPECT_EQ(r.error.message, "no row matches the table's 'where'");
  // A name twice was looked up as its first column, silently (the third
  // column's 3 never read): refused at the header, as the traces' are.
  r = Read("tokens,time_us,tokens\n1,2,3\n", spec);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.line, 1);
  EXPECT_EQ(r.error.message, "column 'tokens' appears twice in the header");
  // Columns without a name (pandas writes its index so) are not names.
  r = Read(",,tokens,time_us\n0,0,1,2\n", spec);
  EXPECT_TRUE(r.ok) << r.error.message;
}

// The rows a table may keep are the spec's (the linker gives a table what
// the program's tables before it left): the row past them is refused at
// its line, with the spec's reason.
TEST(CsvTable, TheSpecBoundsTheRowsKept) {
  Spec spec{{"k"}, "t", {}};
  spec.max_rows = 3;
  spec.max_rows_why = "why";
  Result r = Read("k,t\n1,1\n2,1\n3,1\n4,1\n", spec);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.line, 5);
  EXPECT_EQ(r.error.message, "more than 3 rows selected; why");
  EXPECT_TRUE(Read("k,t\n1,1\n2,1\n3,1\n", spec).ok);
}

TEST(CsvTable, WideHeadersAndManyRowsAreRefusedInBoundedMemory) {
  std::string wide(kMaxColumns, ',');
  Result r = Read(wide + "\n", {{"a"}, "b", {}});
  EXPECT_EQ(r.error.line, 1);
  EXPECT_EQ(r.error.message, "the header has more than 10000 columns");
  // Rows past the limit: the reading stops at the first one (its line).
  std::string many = "k,t\n";
  for (int i = 0; i <= 200000; ++i) many += std::to_string(i) + ",1\n";
  r = Read(many, {{"k"}, "t", {}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.line, 200002);
  EXPECT_EQ(r.error.message, "more than 200000 rows selected; serq keeps at most that many");
}

}  // namespace
}  // namespace serq::tables
