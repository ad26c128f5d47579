#include "diagram/pool_kind.h"

#include <string>

#include "gtest/gtest.h"
#include "diagram/row.h"
#include "diagram/stats.h"
#include "diagram/test_programs.h"

namespace serq::view {
namespace {

// Pools: flag (held once, leased for ever, read with used: the NIXL
// handshake of examples/pd-disaggregation), count (the same with a param
// duration Forever = inf), kv (released), slot (a plain hold whose block
// returns it), timed (leased for a finite time), grown (a decode run grows
// it), evicted (leased for ever but with `evict by`).
constexpr char kProgram[] = R"(
param Forever = inf;
pool flag { cap 1; }
pool count { cap 100; }
pool kv { cap 10; }
pool slot { cap 1; }
pool timed { cap 1; }
pool grown { cap 10; }
pool evicted { cap 1; evict by since; }
stage E : step(1);
stage D : delay;
workload { arrive batch(2); }
session {
  if (used(flag) == 0) { hold flag (1) { run D (1); } lease flag (inf); }
  hold count (1) { run D (1); } lease count (Forever);
  hold kv (1) { run D (1); } lease kv (inf);
  release kv;
  hold slot (1) { run D (1); }
  hold timed (1) { run D (1); } lease timed (5);
  hold grown (0) { run E decode (2) growing grown; } lease grown (inf);
  hold evicted (1) { run D (1); } lease evicted (inf);
}
run { horizon 10; }
)";

TEST(PoolKind, FlagsAndCountersAreTheLeasedForEverNeverReturned) {
  ir::Program p;
  ASSERT_TRUE(ParseAndLink(kProgram, &p));
  ASSERT_EQ(p.pool_size(), 7);
  EXPECT_TRUE(FlagOrCounterPool(p, 0));   // flag
  EXPECT_TRUE(FlagOrCounterPool(p, 1));   // count: a param that is inf
  EXPECT_FALSE(FlagOrCounterPool(p, 2));  // kv: released
  EXPECT_FALSE(FlagOrCounterPool(p, 3));  // slot: the block returns it
  EXPECT_FALSE(FlagOrCounterPool(p, 4));  // timed: leased for 5 s
  EXPECT_FALSE(FlagOrCounterPool(p, 5));  // grown: a run grows it
  EXPECT_FALSE(FlagOrCounterPool(p, 6));  // evicted: reclaimed by evict by
  EXPECT_FALSE(FlagOrCounterPool(p, 7));  // no such pool
}

// The station row does not colour a flag as load: its stats say so (the
// layout then fills its bar kNoCapacityFill) and its label says why; kv at
// 1.00 stays load.
TEST(PoolKind, AFlagIsNotColouredAsLoad) {
  ir::Program p;
  ASSERT_TRUE(ParseAndLink(kProgram, &p));
  Drawing d;
  Diagnostics diags;
  ASSERT_TRUE(BuildDrawing(p, &d, &diags)) << diags.Render();
  results::Results r;
  results::Replication* rep = r.add_replication();
  for (const char* name : {"flag", "kv"}) {
    results::PoolStats* ps = rep->add_pool();
    ps->set_name(name);
    ps->set_cap(name == std::string("flag") ? 1 : 10);
    ps->set_mean_used(ps->cap());
    ps->set_max_used(ps->cap());
  }
  ASSERT_TRUE(AttachResults(r, p, &d, &diags)) << diags.Render();
  int seen = 0;
  for (const PoolSpan& span : d.rows[0].pools) {
    if (!span.stats) continue;
    ++seen;
    EXPECT_DOUBLE_EQ(span.stats->mean, 1);
    if (span.pool == 0) {
      EXPECT_TRUE(span.stats->flag);
      EXPECT_NE(span.label.find("(a flag or counter, not load)"), std::string::npos) << span.label;
    } else {
      EXPECT_FALSE(span.stats->flag);
      EXPECT_EQ(span.label.find("flag or counter"), std::string::npos) << span.label;
    }
  }
  EXPECT_GE(seen, 2);
}

}  // namespace
}  // namespace serq::view
