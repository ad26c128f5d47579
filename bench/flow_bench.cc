// Benchmark of the flow solver (serq-sim/flow.h) on the workload of the
// issue: shared links of capacity 1, flows each on 2 distinct random links,
// work exponential with mean 1, Poisson starts at the rate that puts an
// offered load of 0.9 on the busiest link, run until every flow has ended.
// Once over all the links, once with the links split into independent
// groups (each flow's links in one group). Each under maxmin and bottleneck,
// with the component solve and with a from-scratch solve at every event.
// See bench/README.md.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <time.h>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "serq-sim/flow/flow.h"

ABSL_FLAG(int, links, 256, "shared links, capacity 1 each");
ABSL_FLAG(int, flows, 10000, "flows, each on 2 distinct links");
ABSL_FLAG(int, group_size, 4, "links per group in the second run");
ABSL_FLAG(double, load, 0.9, "offered load of the busiest link");
ABSL_FLAG(uint64_t, seed, 1, "seed of the workload");
ABSL_FLAG(bool, scratch, true, "also time the from-scratch solve");

namespace serq::flow {
namespace {

struct Job {
  double start;
  double work;
  int links[2];
};

struct Workload {
  std::string name;
  int links;
  int busiest;  // flows on the busiest link
  double rate;  // Poisson start rate
  std::vector<Job> jobs;
};

// Uniform in [0, 1) from the top 53 bits: the same on every standard
// library, unlike <random>'s distributions.
double Unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }
double Exponential(std::mt19937_64& rng, double mean) { return -mean * std::log1p(-Unit(rng)); }

// Draws every flow's links and work first, then sets the start rate from the
// busiest link: its offered load is rate * (its flows / all flows) * mean
// work / capacity, so rate = load * flows / busiest.
Workload Draw(std::string name, int links, int group_size, int flows, double load, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Workload w{std::move(name), links, 0, 0, {}};
  std::vector<int> count(links, 0);
  int groups = links / group_size;
  for (int i = 0; i < flows; ++i) {
    Job job;
    int first = group_size * static_cast<int>(rng() % groups);
    job.links[0] = first + static_cast<int>(rng() % group_size);
    do {
      job.links[1] = first + static_cast<int>(rng() % group_size);
    } while (job.links[1] == job.links[0]);
    job.work = Exponential(rng, 1.0);
    ++count[job.links[0]];
    ++count[job.links[1]];
    w.jobs.push_back(job);
  }
  for (int c : count) w.busiest = std::max(w.busiest, c);
  w.rate = load * flows / w.busiest;
  double t = 0;
  for (Job& job : w.jobs) {
    t += Exponential(rng, 1.0 / w.rate);
    job.start = t;
  }
  return w;
}

// CPU time of this thread: on a machine shared with other work it is the
// figure that does not count the time the benchmark waited for a core.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Figures {
  int64_t events = 0;  // starts + ends
  double wall_seconds = 0;
  double seconds = 0;  // CPU
  double mean_flows = 0;  // time average of the flows in progress
  double end_time = 0;
};

// The event loop of a simulator reduced to flows: the next start or the
// earliest end, whichever comes first.
Figures Run(const Workload& w, Policy policy, Scope scope) {
  FlowSolver solver(policy, scope);
  for (int l = 0; l < w.links; ++l) solver.AddStage(1.0);
  Figures fig;
  double area = 0, last = 0;
  size_t next_job = 0;
  auto begin = std::chrono::steady_clock::now();
  double cpu_begin = CpuSeconds();
  while (next_job < w.jobs.size() || solver.FlowCount() > 0) {
    auto end = solver.NextEnd();
    double now;
    int in_progress = solver.FlowCount();
    if (next_job < w.jobs.size() && (!end || w.jobs[next_job].start < end->first)) {
      const Job& job = w.jobs[next_job++];
      now = job.start;
      solver.Start(now, job.links, job.work);
      ++fig.events;
    } else {
      now = end->first;
      fig.events += static_cast<int64_t>(solver.FinishDue(now).size());
    }
    area += in_progress * (now - last);
    last = now;
  }
  fig.seconds = CpuSeconds() - cpu_begin;
  fig.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  fig.mean_flows = area / last;
  fig.end_time = last;
  return fig;
}

void Report(const Workload& w, bool scratch) {
  std::printf("%s: %d links, %zu flows, busiest link %d flows, start rate %.3f/s\n", w.name.c_str(),
              w.links, w.jobs.size(), w.busiest, w.rate);
  std::printf("  %-10s  %-9s  %8s  %9s  %9s  %9s  %10s  %10s\n", "policy", "solve", "events", "cpu s",
              "wall s", "us/event", "mean flows", "last end");
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    for (Scope scope : {Scope::kComponent, Scope::kEverything}) {
      if (scope == Scope::kEverything && !scratch) continue;
      Figures f = Run(w, policy, scope);
      std::printf("  %-10s  %-9s  %8lld  %9.3f  %9.3f  %9.3f  %10.1f  %10.2f\n",
                  policy == Policy::kMaxMin ? "maxmin" : "bottleneck",
                  scope == Scope::kComponent ? "component" : "scratch", static_cast<long long>(f.events),
                  f.seconds, f.wall_seconds, 1e6 * f.seconds / f.events, f.mean_flows, f.end_time);
      std::fflush(stdout);
    }
  }
}

}  // namespace
}  // namespace serq::flow

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Times the flow solver on random flows over shared links and prints, per policy and\n"
      "solve, the flow events (starts + ends), seconds, microseconds per event and the mean\n"
      "number of flows in progress. Build with -c opt:\n"
      "  bazel run -c opt //bench:flow_bench");
  absl::ParseCommandLine(argc, argv);
  int links = absl::GetFlag(FLAGS_links);
  int flows = absl::GetFlag(FLAGS_flows);
  int group = absl::GetFlag(FLAGS_group_size);
  double load = absl::GetFlag(FLAGS_load);
  uint64_t seed = absl::GetFlag(FLAGS_seed);
  if (links < 2 || flows < 1 || group < 2 || links % group != 0 || !(load > 0)) {
    std::fprintf(stderr, "flow_bench: error: need links >= 2, flows >= 1, group_size >= 2 dividing links, load > 0\n");
    return 2;
  }
  bool scratch = absl::GetFlag(FLAGS_scratch);
  using serq::flow::Draw;
  serq::flow::Report(Draw(absl::StrCat(links, " links"), links, links, flows, load, seed), scratch);
  serq::flow::Report(
      Draw(absl::StrCat(links / group, " groups of ", group), links, group, flows, load, seed), scratch);
  return 0;
}
