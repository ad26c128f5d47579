// The Mooncake JSON lines trace: timestamp in milliseconds, numeric fields
// as session variables, hash_ids as a count and a prefix-cache hit count.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_testing.h"

namespace serq::sim {
namespace {

using ::testing::ElementsAre;
using testing::ReadText;
using testing::Row;

TEST(MooncakeTraceTest, TimesAndVariables) {
  auto r = ReadText(
      "{\"timestamp\": 0, \"input_length\": 6955, \"output_length\": 52}\n"
      "{\"output_length\": 3, \"timestamp\": 27482, \"input_length\": 1024}\n"
      "{\"timestamp\": 27482.5, \"input_length\": 1, \"output_length\": 1}\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.format, "Mooncake JSON lines");
  EXPECT_THAT(r.trace.columns, ElementsAre("input_length", "output_length"));
  // No hash_ids: no block lists.
  EXPECT_EQ(r.trace.block_units, 0.0);
  EXPECT_TRUE(r.trace.block_ids.empty());
  EXPECT_TRUE(r.trace.block_starts.empty());
  // ms / 1000 with one rounding: 27482 ms is the double nearest 27.482.
  EXPECT_THAT(r.trace.times, ElementsAre(0.0, 27.482, 27.4825));
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(6955.0, 52.0));
  EXPECT_THAT(Row(r.trace, 1), ElementsAre(1024.0, 3.0));
}

// hash_ids: the number of blocks, and cached_blocks, the leading blocks
// whose hash an earlier row had (an unbounded prefix cache shared by all).
TEST(MooncakeTraceTest, HashIds) {
  auto r = ReadText(
      "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 1, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 1, \"input_length\": 1500, \"output_length\": 1, \"hash_ids\": [1, 2, 4]}\n"
      "{\"timestamp\": 2, \"input_length\": 1500, \"output_length\": 1, \"hash_ids\": [5, 1, 2]}\n"
      "{\"timestamp\": 3, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": []}\n"
      "{\"timestamp\": 4, \"input_length\": 3000, \"output_length\": 1, "
      "\"hash_ids\": [1, 2, 3, 4, 5, 6]}\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.trace.columns,
              ElementsAre("input_length", "output_length", "hash_ids", "cached_blocks"));
  // Row 0: nothing before it. Row 1: 1, 2 seen, 4 not. Row 2: 5 not seen,
  // so nothing after it counts (a prefix). Row 3: no blocks. Row 4: 1, 2, 3
  // (row 0), 4 (row 1), 5 (row 2) seen, 6 not.
  EXPECT_THAT(Row(r.trace, 0), ElementsAre(1500.0, 1.0, 3.0, 0.0));
  EXPECT_THAT(Row(r.trace, 1), ElementsAre(1500.0, 1.0, 3.0, 2.0));
  EXPECT_THAT(Row(r.trace, 2), ElementsAre(1500.0, 1.0, 3.0, 0.0));
  EXPECT_THAT(Row(r.trace, 3), ElementsAre(0.0, 1.0, 0.0, 0.0));
  EXPECT_THAT(Row(r.trace, 4), ElementsAre(3000.0, 1.0, 6.0, 5.0));
  // The ids themselves, row after row: the sessions' block lists, of 512
  // tokens a block.
  EXPECT_EQ(r.trace.block_units, 512.0);
  EXPECT_THAT(r.trace.block_ids, ElementsAre(1, 2, 3, 1, 2, 4, 5, 1, 2, 1, 2, 3, 4, 5, 6));
  EXPECT_THAT(r.trace.block_starts, ElementsAre(0u, 3u, 6u, 9u, 9u, 15u));
}

// Other numeric fields are variables too (by name); other values are
// ignored.
TEST(MooncakeTraceTest, OtherFields) {
  auto r = ReadText(
      "{\"timestamp\": 0, \"priority\": 2, \"input_length\": 10, \"output_length\": 1, "
      "\"model\": \"m\", \"stream\": true, \"meta\": {\"a\": 1}, \"tags\": [\"x\"], \"z\": null}\n"
      "{\"timestamp\": 5, \"priority\": 1, \"input_length\": 20, \"output_length\": 2, "
      "\"model\": \"n\", \"z\": [], \"extra\": \"e\"}\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.trace.columns, ElementsAre("input_length", "output_length", "priority"));
  EXPECT_THAT(r.trace.values, ElementsAre(10.0, 1.0, 2.0, 20.0, 2.0, 1.0));
}

TEST(MooncakeTraceTest, BadRows) {
  const std::string first =
      "{\"timestamp\": 100, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n";
  auto bad = [&](const std::string& line) { return ReadText(first + line + "\n").error; };
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10"),
            "t:2: malformed JSON: Unexpected end of string. Expected , or } after key:value pair");
  EXPECT_EQ(bad("{\"timestamp\": 200,, }"),
            "t:2: malformed JSON: Expected an object key or }");
  EXPECT_EQ(bad("{\"timestamp\": 2, \"timestamp\": 3}"),
            "t:2: malformed JSON: (fields[0]) timestamp: Repeated map key: 'timestamp' is "
            "already set");
  EXPECT_EQ(bad("[1, 2]"), "t:2: expected a JSON object '{...}' (one request a line)");
  // Refused before protobuf's parser, which took minutes over 2·10^5 levels.
  EXPECT_EQ(bad("{\"timestamp\": 200, \"a\": " + std::string(200000, '[') +
                std::string(200000, ']') + "}"),
            "t:2: JSON nested more than 32 levels deep");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"output_length\": 1, \"hash_ids\": []}"),
            "t:2: missing field 'input_length'");
  EXPECT_EQ(bad("{\"input_length\": 10, \"output_length\": 1, \"hash_ids\": []}"),
            "t:2: missing field 'timestamp'");
  EXPECT_EQ(bad("{\"timestamp\": \"200\", \"input_length\": 10, \"output_length\": 1}"),
            "t:2: field 'timestamp' is not a number (found a string)");
  // Lengths are token counts: whole, from 0 to 10^9 (ir/limits.h).
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 1e300, \"output_length\": 1}"),
            "t:2: input_length 1e+300 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 2.5}"),
            "t:2: output_length 2.5 is not a whole number of tokens from 0 to 1000000000");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": null, \"output_length\": 1}"),
            "t:2: field 'input_length' is not a number (found null)");
  EXPECT_EQ(bad("{\"timestamp\": 99, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": []}"),
            "t:2: timestamp 99 is before the previous row's 100 (rows must be in time order)");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 1}"),
            "t:2: missing field 'hash_ids'");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": 3}"),
            "t:2: field 'hash_ids' is not a list of numbers (found a number)");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": [1, 2.5]}"),
            "t:2: hash_ids[1] is not a whole number");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": [\"a\"]}"),
            "t:2: hash_ids[0] is not a whole number");
  EXPECT_EQ(bad("{\"timestamp\": 200, \"input_length\": 10, \"output_length\": 1, "
                "\"hash_ids\": [], \"zeta\": 1, \"alpha\": 2}"),
            "t:2: field 'alpha' is not in the first row (every row must have the same numeric "
            "fields)");
  EXPECT_EQ(ReadText("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, "
                     "\"model\": \"m\"}\n{\"timestamp\": 0, \"input_length\": 1, "
                     "\"output_length\": 1, \"model\": 7}\n")
                .error,
            "t:2: field 'model' is a number here but not in the first row (every row must have "
            "the same numeric fields)");
  EXPECT_EQ(ReadText("{\"timestamp\": -1, \"input_length\": 10, \"output_length\": 1}\n").error,
            "t:1: timestamp -1 is negative");
  EXPECT_EQ(ReadText("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, "
                     "\"hash_ids\": [], \"cached_blocks\": 3}\n")
                .error,
            "t:1: field 'cached_blocks' clashes with the variable serq computes from hash_ids");
  // A row without hash_ids after a first row without them is fine; one with
  // them is not.
  EXPECT_EQ(ReadText("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n"
                     "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, "
                     "\"hash_ids\": [1]}\n")
                .error,
            "t:2: field 'hash_ids' is not in the first row (every row must have the same numeric "
            "fields)");
}

}  // namespace
}  // namespace serq::sim
