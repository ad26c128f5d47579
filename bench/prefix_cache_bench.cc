// Benchmark of the prefix cache alone (serq-sim/prefix_cache.h): requests of
// 100-block prompts, each a shared system prompt of --system blocks (one of
// --prompts families) and then blocks of its own conversation (one of
// --conversations, extended turn after turn), over a cache of --capacity
// blocks. Per request: a lookup, a hit of what was found, a fill of the rest
// in chunks of --chunk blocks (evicting first when the cache is full), and
// at the end a release. --live requests run at once (a request ends when
// --live more have started). Prints CPU ns per request and per block, and
// of the lookups alone. See bench/README.md.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "serq-sim/pools/prefix_cache.h"

ABSL_FLAG(int, requests, 100000, "requests");
ABSL_FLAG(int, blocks, 100, "blocks per prompt");
ABSL_FLAG(int, system, 40, "blocks of the shared system prompt");
ABSL_FLAG(int, prompts, 4, "system prompts");
ABSL_FLAG(int, conversations, 2000, "conversations");
ABSL_FLAG(int, capacity, 50000, "cache capacity in blocks");
ABSL_FLAG(int, live, 64, "requests holding blocks at once");
ABSL_FLAG(int, chunk, 16, "blocks filled per step");
ABSL_FLAG(uint64_t, seed, 1, "seed of the workload");
ABSL_FLAG(bool, scattered, false,
          "every block's tag a random hash id, so no two blocks make a run "
          "(the cache's worst case: a node a block)");

namespace serq::sim {
namespace {

// CPU time of this thread: the figure that does not grow when the machine
// is shared.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int Run() {
  const int requests = absl::GetFlag(FLAGS_requests), blocks = absl::GetFlag(FLAGS_blocks);
  const int system = absl::GetFlag(FLAGS_system), capacity = absl::GetFlag(FLAGS_capacity);
  const int live = absl::GetFlag(FLAGS_live), chunk = absl::GetFlag(FLAGS_chunk);
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  // The lists first, so the timing is the cache's alone. A request's list:
  // its system prompt's blocks, then its conversation's history (the same
  // for every turn of the conversation), then blocks of its own.
  const int conversations = absl::GetFlag(FLAGS_conversations);
  const int history = (blocks - system) / 2;
  std::vector<std::vector<BlockTag>> lists(requests);
  for (int r = 0; r < requests; ++r) {
    auto& tags = lists[r];
    int prompt = static_cast<int>(rng() % absl::GetFlag(FLAGS_prompts));
    int conv = static_cast<int>(rng() % conversations);
    for (int j = 0; j < system; ++j) tags.push_back(BlockTag::Prefix(-1 - prompt, j));
    for (int j = 0; j < history; ++j) tags.push_back(BlockTag::Prefix(conv, j));
    while (static_cast<int>(tags.size()) < blocks) {
      tags.push_back(BlockTag::Prefix(conversations + r, tags.size()));
    }
  }
  if (absl::GetFlag(FLAGS_scattered)) {
    // The same identities (equal chains stay equal), each tag renamed to a
    // random hash id.
    std::map<std::pair<uint64_t, uint64_t>, int64_t> names;
    for (auto& tags : lists) {
      for (BlockTag& t : tags) {
        auto [it, added] = names.emplace(std::make_pair(t.family, t.index), 0);
        if (added) it->second = static_cast<int64_t>(rng() >> 1);
        t = BlockTag::Hashed(it->second);
      }
    }
  }

  PrefixCache cache;
  std::deque<PrefixCache::Holder> running;
  uint64_t hit_blocks = 0, filled = 0, evicted = 0;
  double begin = CpuSeconds();
  for (int r = 0; r < requests; ++r) {
    const auto& tags = lists[r];
    PrefixCache::Holder h = cache.NewHolder();
    uint32_t found = cache.Lookup(tags);
    // At least one token is computed: a whole block here.
    if (found >= tags.size()) found = tags.size() - 1;
    cache.Hit(h, tags, found);
    hit_blocks += found;
    for (uint32_t d = found; d < tags.size();) {
      uint32_t to = std::min<uint32_t>(tags.size(), d + chunk);
      // Room for the chunk: evict while the cache would overflow.
      while (cache.ReferencedBlocks() + cache.EvictableBlocks() + (to - d) >
                 static_cast<uint32_t>(capacity) &&
             cache.Evict()) {
        ++evicted;
      }
      cache.Fill(h, tags, to);
      filled += to - d;
      d = to;
    }
    running.push_back(h);
    if (static_cast<int>(running.size()) > live) {
      cache.FreeHolder(running.front());
      running.pop_front();
    }
  }
  double run = CpuSeconds() - begin;
  // The lookups alone, against the cache as the run left it.
  begin = CpuSeconds();
  uint64_t found_total = 0;
  for (const auto& tags : lists) found_total += cache.Lookup(tags);
  double lookups = CpuSeconds() - begin;

  double looked = static_cast<double>(requests) * blocks;
  std::printf("%d requests of %d blocks (%d of a shared prompt, %d of history), cache of %d "
              "blocks, %d live\n",
              requests, blocks, system, history, capacity, live);
  std::printf("hit rate %.3f, %llu blocks filled, %llu evicted, %u blocks in %u nodes at the end\n",
              hit_blocks / looked, static_cast<unsigned long long>(filled),
              static_cast<unsigned long long>(evicted), cache.Blocks(), cache.Nodes());
  std::printf("%-44s %9.1f\n", "run: ns (cpu) per request", run * 1e9 / requests);
  std::printf("%-44s %9.1f\n", "run: ns per block (lookup+hit+fill+evict+free)",
              run * 1e9 / looked);
  std::printf("%-44s %9.1f\n", "lookup alone: ns per call", lookups * 1e9 / requests);
  std::printf("%-44s %9.1f\n", "lookup alone: ns per block found",
              found_total ? lookups * 1e9 / found_total : 0.0);
  return 0;
}

}  // namespace
}  // namespace serq::sim

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("benchmark of the prefix cache; see bench/README.md");
  absl::ParseCommandLine(argc, argv);
  return serq::sim::Run();
}
