// Prefix caching end to end (docs/simulation.md §Prefix caches): source -> serq-parse ->
// serq-link -> Simulate, in-process, with the pools' invariants checked
// after every event. Every expected value is derived by hand in the
// comments (docs/simulation.md §Prefix caches again, then the issue's cases).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

using ::serq::testing::Pool;
using ::serq::testing::RunSource;
using ::serq::testing::Samples;
using ::serq::testing::SimRun;
using ::serq::testing::Stage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SimRun Checked(const std::string& source) {
  SimOptions options;
  options.check_pools = true;
  return RunSource(source, options);
}

// docs/simulation.md §Prefix caches' setting: one session every 100 s, its blocks set first,
// a 16-token prefill (tau 1 + prefill) growing a cache pool of 4-unit
// blocks.
std::string Setting(const std::string& blocks, const std::string& prefill = "16",
                    const std::string& cap = "100", int sessions = 3) {
  return absl::StrReplaceAll(R"(
pool kv { cap CAP; cache 4; }
stage E : step(1 + prefill);
workload { arrive periodic(100); limit SESSIONS; }
session {
  BLOCKS
  hold kv (0) {
    run E prefill (PREFILL) growing kv;
    observe ttft = now - arrival;
    observe h = hit(kv);
  }
}
run { horizon 1000; }
)",
                             {{"CAP", cap},
                              {"SESSIONS", absl::StrCat(sessions)},
                              {"BLOCKS", blocks},
                              {"PREFILL", prefill}});
}

// (a) Blocks (7,0) (7,1) (7,2) and one of the session's own, (-1 - serial,
// 0). Session 0 finds nothing: 16 tokens, ttft 1 + 16 = 17; its content 16
// registers its 4 blocks, evictable when its hold ends. Session 1's first
// 3 blocks are cached, its 4th is not: hit 3 (within the cap floor(15/4) =
// 3), content 12, 4 tokens to compute: ttft 1 + 4 = 5. Session 2 the same.
// Hit rate: 3 lookups of 16 tokens, 0 + 12 + 12 hit: 24 / 48 = 0.5.
TEST(CacheSpecTest, A_SharedPrefixHits) {
  SimRun run = Checked(Setting("prefix (7, 3); prefix (-1 - serial, 1);"));
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 3.0, 3.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 5.0, 5.0));
  results::PoolStats kv = Pool(run.results, "kv");
  EXPECT_EQ(kv.cache_block(), 4);
  EXPECT_EQ(kv.lookups(), 3u);
  EXPECT_EQ(kv.lookup_tokens(), 48);
  EXPECT_EQ(kv.hit_tokens(), 24);
  EXPECT_EQ(kv.blocks_evicted(), 0u);
  // The prefill tokens computed: 16 + 4 + 4 (hits are not prefill).
  EXPECT_EQ(Stage(run.results, "E").batch_tokens(), 24u);
}

// `cache 0` is no cache (issue 26), so that -D switches it off: (a)'s
// program with `cache Cache`, run with Cache = 0, finds nothing: every
// session computes its 16 tokens (ttft 17), hit(kv) and cached(kv) read 0,
// and the pool keeps no cache (cache_block 0, no lookups).
TEST(CacheSpecTest, CacheZeroIsNoCache) {
  std::string source = absl::StrReplaceAll(
      Setting("prefix (7, 3); prefix (-1 - serial, 1); observe c = cached(kv);"),
      {{"pool kv { cap 100; cache 4; }", "param Cache = 4;\npool kv { cap 100; cache Cache; }"}});
  SimOptions options;
  options.check_pools = true;
  options.defines = {{"Cache", 0}};
  SimRun run = RunSource(source, options);
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 0.0, 0.0));
  EXPECT_THAT(Samples(run.results, "c"), ElementsAre(0.0, 0.0, 0.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 17.0, 17.0));
  EXPECT_EQ(Pool(run.results, "kv").cache_block(), 0);
  EXPECT_EQ(Pool(run.results, "kv").lookups(), 0u);
  // And `cache 0` written in the source links and runs the same.
  run = RunSource(absl::StrReplaceAll(source, {{"param Cache = 4;", "param Cache = 0;"}}), {});
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 17.0, 17.0));
  // With the cache (Cache = 4): (a)'s hits, cached(kv) 3 blocks for the
  // sessions after the first.
  run = RunSource(source, {});
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "c"), ElementsAre(0.0, 3.0, 3.0));
}

// (b) A 12-token prompt of only (7,0..2), twice: the second finds all 3
// blocks but one token must be computed: hit floor(11 / 4) = 2 blocks, 4
// tokens computed, ttft 1 + 4 = 5 (the first: 1 + 12 = 13).
TEST(CacheSpecTest, B_TheHitLeavesOneToken) {
  SimRun run = Checked(Setting("prefix (7, 3);", "12", "100", 2));
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 2.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(13.0, 5.0));
  EXPECT_EQ(Pool(run.results, "kv").hit_tokens(), 8);
}

// (c) cap 16: family A (4 blocks, 16 tokens), then family B (2 blocks, 8
// tokens), then A again. Session 0: ttft 17, 4 blocks registered, all 16
// units evictable when it ends (order A3 A2 A1 A0: deepest first). Session
// 1 finds nothing; its chunk of 8 needs 8 units of which none is
// physically free: A3 and A2 are evicted. ttft 1 + 8 = 9; B ends: order A1
// A0 B1 B0. Session 2 hits A0 A1 (A2 is gone): 8 tokens left, whose units
// evict B1 and B0: ttft 9. 4 blocks evicted.
TEST(CacheSpecTest, C_EvictionLeastRecentlyReleased) {
  SimRun run = Checked(absl::StrReplaceAll(Setting("BLOCKS", "w", "16"), {{"BLOCKS", R"(
  set w = 16;
  if (serial == 1) {
    prefix (2, 2);
    set w = 8;
  } else {
    prefix (1, 4);
  })"}}));
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 0.0, 2.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 9.0, 9.0));
  EXPECT_EQ(Pool(run.results, "kv").blocks_evicted(), 4u);
}

// (d) Two engines, two families, routed by cache then load. t = 0: the
// session of family 0 (serial 0) finds nothing cached anywhere and both
// queues empty: engine 0 (ties to the lowest index); family 1's (serial 1)
// finds nothing cached, E[0] has a job: engine 1. t = 100: family 0's
// blocks are cached (evictable) in kv[0] only: cached 4 there, so engine
// 0, hit min(4, floor(15/4)) = 3; family 1's likewise on engine 1.
TEST(CacheSpecTest, D_RoutingByCache) {
  SimRun run = Checked(R"(
pool kv[2] { cap 100; cache 4; }
stage E[2] : step(1 + prefill);
workload s0 { arrive periodic(100); limit 2; }
workload s1 { arrive periodic(100); limit 2; }
session s0 {
  prefix (0, 4);
  choose e in E by (-cached(kv[e]), queue(E[e]));
  observe c = cached(kv[e]);
  hold kv[e] (0) { run E[e] prefill (16) growing kv[e]; }
  observe engine0 = e;
  observe h0 = hit(kv[e]);
}
session s1 {
  prefix (1, 4);
  choose e in E by (-cached(kv[e]), queue(E[e]));
  observe c = cached(kv[e]);
  hold kv[e] (0) { run E[e] prefill (16) growing kv[e]; }
  observe engine1 = e;
  observe h1 = hit(kv[e]);
}
run { horizon 1000; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "engine0"), ElementsAre(0.0, 0.0));
  EXPECT_THAT(Samples(run.results, "engine1"), ElementsAre(1.0, 1.0));
  EXPECT_THAT(Samples(run.results, "h0"), ElementsAre(0.0, 3.0));
  EXPECT_THAT(Samples(run.results, "h1"), ElementsAre(0.0, 3.0));
  // cached(P) counts every cached leading block, beyond the hit's cap.
  EXPECT_THAT(Samples(run.results, "c"), ElementsAre(0.0, 0.0, 4.0, 4.0));
}

// --trace: a `hit` event at every lookup (session, pool, blocks, tokens),
// an `evict` event (pool, blocks) whenever blocks are evicted, and the pool
// events carry the evictable units. (c) again: hits 0, 0, 2; two evictions
// of 2 blocks; after session 0 ends, 16 evictable units.
TEST(CacheTest, TraceEvents) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(dir ? dir : "/tmp", "/cache_trace.jsonl");
  SimOptions options;
  options.check_pools = true;
  options.trace_path = path;
  SimRun run = RunSource(absl::StrReplaceAll(Setting("BLOCKS", "w", "16"), {{"BLOCKS", R"(
  set w = 16;
  if (serial == 1) {
    prefix (2, 2);
    set w = 8;
  } else {
    prefix (1, 4);
  })"}}), options);
  ASSERT_TRUE(run.ok) << run.errors;
  std::ifstream in(path);
  std::vector<std::string> hits, evicts;
  bool evictable16 = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\":\"hit\"") != std::string::npos) hits.push_back(line);
    if (line.find("\"event\":\"evict\"") != std::string::npos) evicts.push_back(line);
    if (line.find("\"event\":\"pool\"") != std::string::npos &&
        line.find("\"evictable\":16") != std::string::npos) {
      evictable16 = true;
    }
  }
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_THAT(hits[0], HasSubstr(R"("session":0,"pool":"kv","blocks":0,"tokens":0})"));
  EXPECT_THAT(hits[2], HasSubstr(R"("session":2,"pool":"kv","blocks":2,"tokens":8})"));
  ASSERT_EQ(evicts.size(), 2u);
  EXPECT_THAT(evicts[0], HasSubstr(R"("t":100,"event":"evict","pool":"kv","blocks":2})"));
  EXPECT_THAT(evicts[1], HasSubstr(R"("t":200,"event":"evict","pool":"kv","blocks":2})"));
  EXPECT_TRUE(evictable16);
}

// Sharing: session 0 keeps its hold (a 50 s delay after its prefill), so
// its 4 blocks stay referenced. Session 1 at t = 20, same family: hit 3
// (the cap), its 4th block is a duplicate of session 0's (its own 4
// units). The shared 12 units count once: used at most 16 + 4 = 20.
TEST(CacheTest, AHitOnBlocksARunningHoldReferences) {
  SimRun run = Checked(R"(
pool kv { cap 100; cache 4; }
stage E : step(1 + prefill);
stage D : delay;
workload { arrive periodic(20); limit 2; }
session {
  prefix (7, 4);
  hold kv (0) {
    run E prefill (16) growing kv;
    observe ttft = now - arrival;
    observe h = hit(kv);
    observe u = used(kv);
    run D (50);
  }
}
run { horizon 1000; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 3.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 5.0));
  // At t = 17: session 0's 16 units. At t = 25: 16 + session 1's own 4.
  EXPECT_THAT(Samples(run.results, "u"), ElementsAre(16.0, 20.0));
  EXPECT_EQ(Pool(run.results, "kv").max_used(), 20);
}

// A lease keeps its blocks: cap 20. Session 0 (family 1, 4 blocks) leases
// its hold: its 16 units are the blocks', referenced by the lease, never
// evictable. Session 1 (family 2, one block of 4 tokens) fits in the 4
// free units; its block is evictable when it ends. Session 2 (family 3,
// one block) needs 4 units: none is physically free, and only session 1's
// block is evictable: evicted (the lease's are not). Session 3 (family 1)
// hits 3 of the leased blocks (the cap floor(15/4)); its last 4 tokens
// evict session 2's block; its 4th block is a duplicate of the leased one.
// ttft 1 + 4 = 5 each; 2 blocks evicted.
TEST(CacheTest, ALeaseKeepsItsBlocks) {
  SimRun run = Checked(R"(
pool kv { cap 20; cache 4; }
stage E : step(1 + prefill);
workload { arrive periodic(100); limit 4; }
session {
  if (serial == 0) {
    prefix (1, 4);
    hold kv (0) { run E prefill (16) growing kv; } lease kv (inf);
  } else {
    set w = 4;
    if (serial == 3) {
      prefix (1, 4);
      set w = 16;
    } else {
      prefix (serial + 1, 1);
    }
    hold kv (0) {
      run E prefill (w) growing kv;
      observe ttft = now - arrival;
      observe h = hit(kv);
    }
  }
}
run { horizon 1000; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 0.0, 3.0));
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(5.0, 5.0, 5.0));
  EXPECT_EQ(Pool(run.results, "kv").blocks_evicted(), 2u);
}

// docs/simulation.md §The LLM engine as vLLM runs it's preemption example with a
// cache of 2-unit blocks, each session its own family. t = 0, 1: both prefill 4
// then decode: contents 5 and 5; blocks 0 and 1 of each registered (content 4
// covers them), used 10. t = 2: A's growth does not fit; B is preempted: its
// hold is emptied, its 1 own unit freed and its 2 blocks evictable (4 units,
// free but not physically); A grows to 6 (registers its block 2). t = 3: A grows
// to 7: no unit is physically free: B's block 1 is evicted (deepest first). B,
// waiting, looks up: its block 0 is still cached: hit 1 (cap floor(5/2) = 2),
// content 2; its 4 tokens do not fit (1 unit free). t = 4: A grows to 8 (used 8
// + 2 = 10). t = 5: A ends (e2e 5), its 4 blocks evictable; B's 4 tokens evict
// A's blocks 3 and 2 and run 5..6, then 2 decode tokens, the first evicting A's
// block 1: e2e 8. recomputed 4 (6 - the 2 hit), preempted 1, 4 blocks evicted
// (B1, A3, A2, A1).
TEST(CacheTest, ARecomputeHitsItsOwnBlocks) {
  SimRun run = Checked(R"(
pool kv { cap 10; cache 2; }
stage E : step(1) { preempt by (-since); }
workload { arrive batch(2); }
session {
  prefix (serial, 5);
  hold kv (0) {
    run E prefill (4) growing kv;
    run E decode (4) growing kv;
    observe e2e = now - arrival;
    observe h = hit(kv);
  }
}
run { horizon 100; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "e2e"), ElementsAre(5.0, 8.0));
  // A looked up once (0); B twice: 0 at t = 0, 1 at its recompute.
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(0.0, 1.0));
  results::StageStats e = Stage(run.results, "E");
  EXPECT_EQ(e.preempted(), 1u);
  EXPECT_EQ(e.recomputed(), 4u);
  EXPECT_EQ(e.steps(), 8u);
  results::PoolStats kv = Pool(run.results, "kv");
  EXPECT_EQ(kv.lookups(), 3u);
  EXPECT_EQ(kv.lookup_tokens(), 4 + 4 + 6);
  EXPECT_EQ(kv.hit_tokens(), 2);
  EXPECT_EQ(kv.blocks_evicted(), 4u);
}

// A duplicate: session 0 (t = 0) and session 1 (t = 0.5), same 4 blocks,
// 16 tokens each, 8 tokens a step, session 1 served first. t = 0..1:
// session 0's first chunk registers blocks 0, 1. t = 1: session 1 hits
// them (2, within floor(15/4) = 3) and its chunk of 8 registers blocks 2,
// 3; no budget is left for session 0. t = 2: session 1 ends (ttft 1.5):
// blocks 2, 3 evictable (0, 1 are still session 0's). Session 0's last 8
// tokens need 8 units; cap 20 leaves 20 - 8 (its blocks) - 8 (evictable) =
// 4 physically free: block 3 is evicted. Then block 2 is cached: a
// duplicate, its units session 0's own; block 3 (evicted) is registered
// again. Evictable: 0 on [0, 2), 4 (block 2) on [2, 3), then all 4 blocks,
// 16, on [3, 4): mean over the horizon 4: (4 + 16) / 4 = 5. (Had session 0
// referenced block 2 instead, it would be 16 / 4 = 4.)
TEST(CacheTest, ADuplicateBlockComputedByTwoSessions) {
  SimRun run = Checked(R"(
pool kv { cap 20; cache 4; }
stage E : step(1) { tokens 8; serve by (-serial); }
workload { arrive periodic(0.5); limit 2; }
session {
  prefix (7, 4);
  hold kv (0) {
    run E prefill (16) growing kv;
    observe ttft = now - arrival;
    observe h = hit(kv);
  }
}
run { horizon 4; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(1.5, 3.0));
  EXPECT_THAT(Samples(run.results, "h"), ElementsAre(2.0, 0.0));
  results::PoolStats kv = Pool(run.results, "kv");
  EXPECT_EQ(kv.blocks_evicted(), 1u);
  EXPECT_DOUBLE_EQ(kv.mean_evictable(), 5.0);
}

// Without a cache nothing changes: prefix statements are harmless, and the
// pool has no cache figures (cached() and hit() of it are link errors).
TEST(CacheTest, APoolWithoutACache) {
  SimRun run = Checked(R"(
pool kv { cap 100; }
stage E : step(1 + prefill);
workload { arrive periodic(100); limit 2; }
session {
  prefix (7, 4);
  hold kv (0) {
    run E prefill (16) growing kv;
    observe ttft = now - arrival;
  }
}
run { horizon 1000; }
)");
  ASSERT_TRUE(run.ok) << run.errors;
  EXPECT_THAT(Samples(run.results, "ttft"), ElementsAre(17.0, 17.0));
  EXPECT_EQ(Pool(run.results, "kv").cache_block(), 0);
  EXPECT_EQ(Pool(run.results, "kv").lookups(), 0u);
}

// A count known only at run time: a runtime error at the statement.
TEST(CacheTest, BadPrefixCounts) {
  for (const char* count : {"serial - 1", "serial + 0.5"}) {
    SimRun run = Checked(Setting(absl::StrCat("prefix (1, ", count, ");")));
    EXPECT_FALSE(run.ok);
    EXPECT_THAT(run.errors, HasSubstr("the count of a prefix must be a whole number >= 0"));
    EXPECT_THAT(run.errors, HasSubstr("at t=0, session 0"));
  }
  // So is a family (it was taken as it was: 0.5 a family of its own).
  SimRun run = Checked(Setting("prefix (serial + 0.5, 1);"));
  EXPECT_FALSE(run.ok);
  EXPECT_THAT(run.errors, HasSubstr("the family of a prefix must be a whole number, got 0.5"));
}

// Random small programs: families, prompt and output lengths, caps, block
// sizes, leases, preemption and routing drawn at random; the pools'
// invariants (used = own units + referenced blocks once, used + evictable
// <= cap, nothing referenced is evicted, the cache's own lists) are checked
// after every event (SimOptions.check_pools), and a rerun gives the same
// bytes.
TEST(CacheProperty, RandomProgramsKeepTheInvariantsAndRepeat) {
  std::mt19937_64 rng(7);
  auto pick = [&](std::initializer_list<const char*> xs) {
    return std::string(xs.begin()[rng() % xs.size()]);
  };
  int ran = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::string source = absl::StrReplaceAll(R"(
pool kv[2] { cap CAP; cache BLOCK; EVICT }
stage E[2] : step(1 + prefill / 8 + decode) { tokens TOKENS; PREEMPT }
workload { arrive poisson(RATE); limit 60; }
session {
  set fam = floor(uniform(0, FAMILIES));
  prefix (-1, SYSTEM);
  prefix (fam, floor(uniform(0, 4)));
  set w = floor(uniform(1, 40));
  choose e in E by ROUTE;
  hold kv[e] (0) {
    run E[e] prefill (w) growing kv[e];
    observe ttft = now - arrival;
    run E[e] decode (floor(uniform(1, 8))) growing kv[e];
  } LEASE
}
run { horizon 400; seed SEED; }
)",
                                             {{"CAP", pick({"48", "64", "200"})},
                                              {"BLOCK", pick({"1", "4", "7"})},
                                              {"EVICT", pick({"", "evict by (since);"})},
                                              {"TOKENS", pick({"16", "64"})},
                                              {"PREEMPT", pick({"", "preempt by (-since);"})},
                                              {"RATE", pick({"0.2", "1", "3"})},
                                              {"FAMILIES", pick({"2", "5"})},
                                              {"SYSTEM", pick({"0", "2"})},
                                              {"ROUTE", pick({"(queue(E[e]))",
                                                              "(-cached(kv[e]), queue(E[e]))"})},
                                              {"LEASE", pick({"", "lease kv[e] (5);"})},
                                              {"SEED", absl::StrCat(trial + 1)}});
    SimRun a = Checked(source);
    // A program may deadlock or outgrow a cap (a runtime error that names
    // it); a broken invariant is never acceptable.
    EXPECT_THAT(a.errors, ::testing::Not(HasSubstr("invariant"))) << source;
    SimRun b = Checked(source);
    EXPECT_EQ(a.errors, b.errors);
    EXPECT_EQ(a.results.SerializeAsString(), b.results.SerializeAsString()) << source;
    if (a.ok) ++ran;
  }
  // Most draws run to the horizon (the test would prove little otherwise).
  EXPECT_GE(ran, 20);
}

}  // namespace
}  // namespace serq
