// The report's token counts (results' prefills_window, prefill_tokens_window
// and decode_tokens_window; docs/report.md §Throughput): output tokens are
// the prefills (each samples the first token) plus the decode tokens, and a
// decode on another stage element than the prefill before it (P/D) makes
// the first token again, so it is not counted twice.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

struct Counts {
  uint64_t prefills = 0;
  double prompt = 0, decode = 0;
};

Counts CountsOf(const std::string& session) {
  const std::string source = absl::StrCat(R"(
stage P : step(0.01) { seqs 8; tokens 64; }
stage D[2] : step(0.01) { seqs 8; tokens 64; }
workload { arrive batch(3); }
)", session, "\nrun { }\n");
  testing::SimRun run = testing::RunSource(source);
  EXPECT_TRUE(run.ok) << run.errors;
  Counts c;
  for (const results::SessionStats& s : run.results.replication(0).session()) {
    c.prefills += s.prefills_window();
    c.prompt += s.prefill_tokens_window();
    c.decode += s.decode_tokens_window();
  }
  return c;
}

// Three requests of 8 prompt tokens and 5 output tokens, drained (no
// horizon, no warm-up: every run is in the window).
// Colocated: the prefill samples token 1, the decode makes 2 to 5: three
// prefills, 24 prompt tokens, 3 x 4 = 12 decode tokens; output 3 + 12 = 15.
TEST(TokensTest, ColocatedCountsEachTokenOnce) {
  Counts c = CountsOf("session { run P prefill (8); run P decode (4); }");
  EXPECT_EQ(c.prefills, 3u);
  EXPECT_EQ(c.prompt, 24);
  EXPECT_EQ(c.decode, 12);
}

// P/D as the generated programs write it: the decode engine's `decode (1)`
// samples the first token again from the received KV (the prefill
// engine's is not delivered), then `decode (4)` makes tokens 2 to 5. Its
// first decode adds no new token: 3 x (0 + 4) = 12 decode tokens, output
// 3 + 12 = 15, as colocated. (Counted as made, it was 3 x 5 = 15 decode
// tokens and an output of 18: one token a request too many.)
TEST(TokensTest, DisaggregatedCountsTheFirstTokenOnce) {
  Counts c = CountsOf("session { run P prefill (8); run D[serial % 2] decode (1); run D[serial % 2] decode (4); }");
  EXPECT_EQ(c.prefills, 3u);
  EXPECT_EQ(c.prompt, 24);
  EXPECT_EQ(c.decode, 12);
}

// The decode engine's first run may be the whole output: 5 tokens on D
// after the prefill on P, the first of them made again: 3 x 4 = 12.
TEST(TokensTest, OneDecodeElsewhere) {
  Counts c = CountsOf("session { run P prefill (8); run D[0] decode (5); }");
  EXPECT_EQ(c.decode, 12);
}

}  // namespace
}  // namespace serq
