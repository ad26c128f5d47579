// The engine's growth path on the PD examples, run by hand (never as a
// test):
//
//   bazel run -c opt //bench:engine_bench [-- --horizon=3300 FILE.sq ...]
//
// Each program (default: examples/pd-disaggregation/llmd_nixl_pull.sq and,
// when present, its vLLM-shaped variant) is parsed, linked and simulated
// with the horizon overridden; the figure is requests (sessions ended, over
// every replication) per CPU-second of Simulate() alone (best of
// --rounds). It also prints a digest (FNV-1a of the serialized results),
// so that two builds of the simulator run side by side show whether their
// output is byte-identical: bench/README.md keeps a baseline binary's and
// the current one's figures from one run of the shell.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq-sim/engine/simulate.h"

namespace {

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  double horizon = 3300;
  int rounds = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--horizon=", 0) == 0) {
      horizon = std::stod(a.substr(10));
    } else if (a.rfind("--rounds=", 0) == 0) {
      rounds = std::stoi(a.substr(9));
    } else if (a == "--help") {
      std::printf("usage: engine_bench [--horizon=S] [--rounds=N] [FILE.sq ...]\n");
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    files = {"examples/pd-disaggregation/llmd_nixl_pull.sq",
             "examples/pd-disaggregation/llmd_nixl_pull_vllm.sq"};
  }
  for (const std::string& file : files) {
    std::string source;
    if (!ReadFile(file, &source)) {
      std::printf("%s: not found, skipped\n", file.c_str());
      continue;
    }
    serq::ir::Program program;
    serq::Diagnostics diags(file, source);
    if (!serq::ParseProgram(file, source, &program, &diags) ||
        !serq::LinkProgram(&program, serq::LinkOptions(), &diags)) {
      std::fprintf(stderr, "%s", diags.Render().c_str());
      return 1;
    }
    serq::SimOptions options;
    options.horizon = horizon;
    double best = 1e300;
    serq::results::Results results;
    for (int r = 0; r < rounds; ++r) {
      serq::Diagnostics run_diags(file, source);
      results.Clear();
      double start = CpuSeconds();
      bool ok = serq::Simulate(program, options, &results, &run_diags);
      double s = CpuSeconds() - start;
      if (!ok) {
        std::fprintf(stderr, "%s", run_diags.Render().c_str());
        return 1;
      }
      if (s < best) best = s;
    }
    uint64_t ended = 0, events = 0;
    for (const auto& rep : results.replication()) {
      for (const auto& s : rep.session()) ended += s.ended();
      events += rep.events();
    }
    std::string bytes;
    results.SerializeToString(&bytes);
    std::printf("%s --horizon %g: %llu requests, %llu events in %.3f CPU s: %.1f k requests/CPU-s, "
                "digest %016llx\n",
                file.c_str(), horizon, static_cast<unsigned long long>(ended),
                static_cast<unsigned long long>(events), best, ended / best / 1e3,
                static_cast<unsigned long long>(Fnv1a(bytes)));
  }
  return 0;
}
