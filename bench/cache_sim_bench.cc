// The prefix cache in the simulator, run by hand (never as a test):
//
//   bazel run -c opt //bench:cache_sim_bench
//
// The issue's workload: 10^5 requests with 100-block prompts (blocks of 16
// tokens: 40 of one of 8 shared system prompts, 60 of the request's own)
// over 4 step engines with preemption, each prompt's KV grown block by
// block into its engine's pool. Once with `cache 16` and routing by cache
// then load (`choose e in E by (-cached(kv[e]), queue(E[e]))`), once with
// caching off and routing by load (cached() needs a cache). CPU time of
// Simulate() (best of 3), per request; the figures of the run (hit rate,
// steps) show both did the work they should. Outputs of 4 tokens, so that
// the decode steps do not hide the prefill, where the cache works; then 64
// (a chat's answer is longer), where they do.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_replace.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq-sim/engine/simulate.h"

namespace {

constexpr char kSource[] = R"(
pool kv[4] { cap 200000; CACHE }
stage E[4] : step(0.005 + 2.7e-5 * tokens + 3.9e-8 * context) {
  seqs 256; tokens 8192; preempt by (-since);
}
workload { arrive poisson(15); limit 100000; }
session {
  prefix (-1 - floor(uniform(0, 8)), 40);
  prefix (serial, 60);
  choose e in E by ROUTE;
  hold kv[e] (0) {
    run E[e] prefill (1600) growing kv[e];
    run E[e] decode (OUTPUT) growing kv[e];
  }
}
run { horizon 1e12; }
)";

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

bool RunCase(const char* name, bool cache, const char* output, int rounds) {
  std::string source = absl::StrReplaceAll(
      kSource, {{"CACHE", cache ? "cache 16;" : ""},
                {"OUTPUT", output},
                {"ROUTE", cache ? "(-cached(kv[e]), queue(E[e]))" : "(queue(E[e]))"}});
  serq::ir::Program program;
  serq::Diagnostics diags("bench.sq", source);
  if (!serq::ParseProgram("bench.sq", source, &program, &diags) ||
      !serq::LinkProgram(&program, serq::LinkOptions(), &diags)) {
    std::fprintf(stderr, "%s", diags.Render().c_str());
    return false;
  }
  double best = 1e300;
  serq::results::Results results;
  for (int round = 0; round < rounds; ++round) {
    serq::Diagnostics sim_diags("bench.sq");
    double start = CpuSeconds();
    if (!serq::Simulate(program, serq::SimOptions(), &results, &sim_diags)) {
      std::fprintf(stderr, "%s", sim_diags.Render().c_str());
      return false;
    }
    double s = CpuSeconds() - start;
    if (s < best) best = s;
  }
  const auto& rep = results.replication(0);
  uint64_t steps = 0, done = 0;
  double looked = 0, hit = 0;
  for (const auto& s : rep.stage()) {
    steps += s.steps();
    done += s.done();
  }
  for (const auto& p : rep.pool()) {
    looked += p.lookup_tokens();
    hit += p.hit_tokens();
  }
  double requests = done / 2.0;
  std::printf("%-40s %8.0f requests %9llu steps  hit rate %.3f  %7.3f cpu s  %6.2f us/request\n",
              name, requests, static_cast<unsigned long long>(steps),
              looked > 0 ? hit / looked : 0.0, best, best * 1e6 / requests);
  return true;
}

}  // namespace

// `cache_sim_bench [WORD [ROUNDS]]`: only the cases whose name starts with
// WORD (for perf: `4 output tokens: cache`), best of ROUNDS (default 3).
int main(int argc, char** argv) {
  struct Case {
    const char* name;
    bool cache;
    const char* output;
  };
  const Case cases[] = {
      {"4 output tokens: caching off, by load", false, "4"},
      {"4 output tokens: cache 16, by cache", true, "4"},
      {"64 output tokens: caching off, by load", false, "64"},
      {"64 output tokens: cache 16, by cache", true, "64"},
  };
  std::string word = argc > 1 ? argv[1] : "";
  int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  if (rounds < 1) {
    std::fprintf(stderr, "usage: cache_sim_bench [WORD [ROUNDS >= 1]]\n");
    return 2;
  }
  for (const Case& c : cases) {
    if (std::string(c.name).rfind(word, 0) != 0) continue;
    if (!RunCase(c.name, c.cache, c.output, rounds)) return 1;
  }
  return 0;
}
