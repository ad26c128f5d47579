// The engine's part of the prefix cache (docs/simulation.md §Prefix caches): sessions' block
// lists (`prefix`, a trace's hash_ids), `cached(P)` and `hit(P)`, the
// lookup of a prefill that joins a batch, and the `hit` and `evict` events
// of --trace. The cache itself is Pools' (pool_cache.cc, prefix_cache.h).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serq-sim/engine/engine.h"
#include "ir/json.h"

namespace serq::sim {
namespace {

// A session's list longer than this is a runtime error rather than memory
// exhausted (10^7 blocks of 16 tokens: 160M tokens of context).
constexpr double kMaxBlocks = 1e7;

}  // namespace

void Engine::SetBlocks(Session& s, uint32_t workload, const double* row) {
  s.blocks.clear();
  s.families.clear();
  s.hits.clear();
  s.trace_block = 0;
  const ArrivalPlan& plan = model_.workloads[workload].plan;
  if (row == nullptr || plan.trace == nullptr || plan.trace->block_starts.empty()) return;
  const Trace& t = *plan.trace;
  size_t r = (row - t.values.data()) / t.columns.size();
  for (uint64_t i = t.block_starts[r]; i < t.block_starts[r + 1]; ++i) {
    s.blocks.push_back(BlockTag::Hashed(t.block_ids[i]));
  }
  s.trace_block = t.block_units;
}

bool Engine::ExecPrefix(Session& s, const Instr& in) {
  double family = Eval(in.a, s);
  if (evaluator_.failed()) return FailEval(in.statement), false;
  double count = Eval(in.b, s);
  if (evaluator_.failed()) return FailEval(in.statement), false;
  // A whole number, as the linker holds a constant family (0.2 and 0.7
  // would otherwise be two families no request shares).
  if (!(std::isfinite(family) && family == std::floor(family))) {
    FailAt(in.statement, absl::StrCat("the family of a prefix must be a whole number, got ", family));
    return false;
  }
  if (!(count >= 0 && count == std::floor(count))) {
    FailAt(in.statement,
           absl::StrCat("the count of a prefix must be a whole number >= 0, got ", count));
    return false;
  }
  if (s.blocks.size() + count > kMaxBlocks) {
    FailAt(in.statement, absl::StrCat("the session's block list would have ",
                                      s.blocks.size() + count, " blocks (at most ", kMaxBlocks,
                                      ")"));
    return false;
  }
  // The family's next indices: as many as the list has of it already, so
  // that a conversation appending to its family extends its prompt.
  // (Kept per family: counting the list each time is quadratic in turns.)
  BlockTag first = BlockTag::Prefix(family, 0);
  auto it = std::find_if(s.families.begin(), s.families.end(),
                         [&](const auto& f) { return f.first == first.family; });
  if (it == s.families.end()) it = s.families.insert(s.families.end(), {first.family, 0});
  uint64_t next = it->second;
  it->second += static_cast<uint64_t>(count);
  // The tags in place, the family's bits computed once: a push_back and a
  // BlockTag::Prefix a block were most of a 100-block prompt's cost.
  uint64_t n = static_cast<uint64_t>(count);
  size_t old = s.blocks.size();
  s.blocks.resize(old + n);
  BlockTag* out = s.blocks.data() + old;
  for (uint64_t j = 0; j < n; ++j) out[j] = BlockTag{first.family, next + j};
  ++s.pc;
  return true;
}

double Engine::CacheState(bool cached, uint32_t pool) {
  if (!has_current_) return 0;
  const Session& s = sessions_[current_];
  if (cached) return pools_.Cached(pool, s.blocks);
  for (const auto& [p, blocks] : s.hits) {
    if (p == pool) return blocks;
  }
  return 0;  // hit(P) before any lookup on P
}

bool Engine::Lookup(SessionId session, double work, double budget, bool only_if_fits,
                    double* tokens) {
  *tokens = 0;
  Session& s = sessions_[session];
  HoldId hold = s.grow_hold;
  uint32_t pool = pools_.hold(hold).pool;
  double block = pools_.cache_block(pool);
  if (block == 0) return true;
  if (s.trace_block > 0 && s.trace_block != block) {
    // The hash ids name blocks of the trace's size: read into another
    // size they would hit the wrong number of tokens.
    SessionId saved = current_;
    bool had = has_current_;
    current_ = session;
    has_current_ = true;
    FailAt(s.wait_statement,
           absl::StrCat("the session's blocks are its trace row's hash_ids, ", s.trace_block,
                        " tokens a block, but pool '", PoolName(pool), "' has cache ", block,
                        " (declare 'cache ", s.trace_block, ";')"));
    current_ = saved;
    has_current_ = had;
    return false;
  }
  uint32_t hit;
  if (!only_if_fits) {
    hit = pools_.Hit(hold, s.blocks, work);
  } else if (!pools_.HitIfFits(hold, s.blocks, work, budget, &hit)) {
    *tokens = -1;  // it does not join: no lookup is made
    return true;
  }
  auto it = std::find_if(s.hits.begin(), s.hits.end(),
                         [&](const auto& h) { return h.first == pool; });
  if (it == s.hits.end()) {
    s.hits.emplace_back(pool, hit);
  } else {
    it->second = hit;
  }
  *tokens = hit * block;
  if (options_.trace) {
    Log(absl::StrFormat(R"({"t":%s,"event":"hit","session":%d,"pool":"%s","blocks":%d,"tokens":%s})",
                        JsonNumber(now_), s.serial, PoolName(pool), hit, JsonNumber(*tokens)));
  }
  return true;
}

absl::Span<const BlockTag> Engine::Blocks(SessionId session) { return sessions_[session].blocks; }

void Engine::CacheEvicted(uint32_t pool, uint32_t blocks) {
  if (!options_.trace) return;
  Log(absl::StrFormat(R"({"t":%s,"event":"evict","pool":"%s","blocks":%d})", JsonNumber(now_),
                      PoolName(pool), blocks));
  PoolChanged(pool);  // its evictable units fell
}

}  // namespace serq::sim
