// Benchmarks of the simulator, run by hand (never as a test):
//
//   bazel run -c opt //bench:sim_bench
//
// 1. M/M/1 (fifo) with 10^6 sessions: events per second of Simulate()
//    (the JSON writing is not timed; CPU time, best of 5). Each session is an arrival and a
//    completion: two events.
// 2. A ps stage with 10^4 jobs always present (a closed population: each
//    session runs on the stage again as soon as its run ends): nanoseconds
//    per event, each event a completion and, inside it, the next arrival.
// 3. The same stage in an open system: 10^4 jobs too long to end stay
//    present while short jobs arrive (Poisson) and leave; each event is
//    one arrival or one completion.
// 4. A step stage with 256 decode jobs in every step (a closed population
//    of 256 sessions, each decoding 100 tokens 100 times): nanoseconds per
//    step and per token (a job in a step). Then the same decodes growing
//    a hold on a pool, a unit a token (StageHost::Grow each token).
//
// 5. The bare loop M/M/1 is held to (issue 34: within 2x of it): the same
//    10^6 customers as case 1 without a simulator, a std::priority_queue of
//    (time, sequence) events, a FIFO line, the same generator and draws
//    (xoshiro256++, -mean log U), each sojourn kept, as serq keeps the
//    first 2^20 samples of an observation, and its mean. Printed with case
//    1, and their ratio.
//
// An argument runs only the cases whose name contains it: `sim_bench ps`.
// Two more set M/M/1's customers and the rounds of each timing (10^6 and
// 5 by default), for callgrind, which counts instructions whatever the
// load (bench/README.md §M/M/1 against a bare loop):
//   valgrind --tool=callgrind --toggle-collect='serq::Simulate*'
//     bazel-bin/bench/sim_bench M/M/1 200000 1   (one command line)
#include <math.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <queue>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq-sim/engine/simulate.h"

namespace {

bool Compile(const std::string& source, serq::ir::Program* program) {
  serq::Diagnostics diags("bench.sq", source);
  if (!serq::ParseProgram("bench.sq", source, program, &diags) ||
      !serq::LinkProgram(program, serq::LinkOptions(), &diags)) {
    std::fprintf(stderr, "%s", diags.Render().c_str());
    return false;
  }
  return true;
}

// The CPU time of this thread: the machine is shared, and wall time would
// count the other processes' turns.
double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Runs Simulate() `rounds` times and returns the best CPU time in seconds,
// the events of one run and its results.
bool Time(const serq::ir::Program& program, int rounds, double* seconds, uint64_t* events,
          serq::results::Results* results) {
  *seconds = 1e300;
  for (int i = 0; i < rounds; ++i) {
    serq::Diagnostics diags("bench.sq");
    double start = CpuSeconds();
    bool ok = serq::Simulate(program, serq::SimOptions(), results, &diags);
    double s = CpuSeconds() - start;
    if (!ok) {
      std::fprintf(stderr, "%s", diags.Render().c_str());
      return false;
    }
    if (s < *seconds) *seconds = s;
    *events = results->replication(0).events();
  }
  return true;
}

// The bare M/M/1 loop (case 5): arrivals at rate `lambda`, exponential
// services of mean 1, `customers` of them. Returns the best CPU time of
// `rounds` runs; *events the events of one (an arrival and a departure a
// customer) and *mean the mean sojourn (printed, so nothing is optimised
// away).
[[gnu::noinline]] double BareMM1(double lambda, uint64_t customers, int rounds, uint64_t* events,
                                 double* mean) {
  double best = 1e300;
  for (int round = 0; round < rounds; ++round) {
    double start = CpuSeconds();
    // xoshiro256++ seeded by SplitMix64, as serq's Random.
    uint64_t s[4];
    uint64_t x = 1;
    for (uint64_t& w : s) {
      uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
    auto rotl = [](uint64_t v, int k) { return (v << k) | (v >> (64 - k)); };
    auto exponential = [&](double m) {
      const uint64_t r = rotl(s[0] + s[3], 23) + s[0];
      const uint64_t t = s[1] << 17;
      s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
      return -m * log(static_cast<double>((r >> 11) + 1) * 0x1.0p-53);
    };
    struct Event {
      double time;
      uint64_t sequence;
      bool departure;
    };
    struct Later {
      bool operator()(const Event& a, const Event& b) const {
        return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
      }
    };
    std::priority_queue<Event, std::vector<Event>, Later> queue;
    std::deque<double> line;  // arrival times, the one in service first
    std::vector<double> sojourns;
    uint64_t sequence = 0, arrived = 0, n = 0;
    double sum = 0;
    queue.push({exponential(1 / lambda), sequence++, false});
    while (!queue.empty()) {
      const Event e = queue.top();
      queue.pop();
      ++n;
      if (!e.departure) {
        line.push_back(e.time);
        if (line.size() == 1) queue.push({e.time + exponential(1), sequence++, true});
        if (++arrived < customers) queue.push({e.time + exponential(1 / lambda), sequence++, false});
      } else {
        const double sojourn = e.time - line.front();
        sojourns.push_back(sojourn);
        sum += sojourn;
        line.pop_front();
        if (!line.empty()) queue.push({e.time + exponential(1), sequence++, true});
      }
    }
    double seconds = CpuSeconds() - start;
    if (seconds < best) best = seconds;
    *events = n;
    *mean = sum / static_cast<double>(sojourns.size());
  }
  return best;
}

// The figure a case prints from the best time and the events of one run.
enum class Figure { kEventsPerSecond, kNsPerEvent, kPerStep };

struct Case {
  const char* name;
  std::string source;
  Figure figure;
};

std::string StepSource(bool growing) {
  std::string run = growing ? "hold kv (1) { run E decode (100) growing kv; }"
                            : "run E decode (100);";
  return R"(
pool kv { cap inf; }
stage E : step(0.005 + 2.7e-5 * tokens + 3.9e-8 * context) { seqs 256; tokens 8192; }
workload { arrive batch(256); }
session { repeat (100) { )" +
         run + R"( } }
run { horizon 1e12; }
)";
}

}  // namespace

// sim_bench [WORD [CUSTOMERS [ROUNDS]]]: only the cases whose name
// contains WORD ("ps", "step"); M/M/1 with CUSTOMERS; each timing the best
// of ROUNDS.
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const uint64_t customers = argc > 2 ? std::stoull(argv[2]) : 1000000;
  const int rounds = argc > 3 ? std::stoi(argv[3]) : 5;
  const Case cases[] = {
      {"M/M/1 fifo, 10^6 sessions",
       R"(
stage S : fifo(1);
workload { arrive poisson(0.9); limit )" +
           std::to_string(customers) + R"(; }
session { run S (exponential(1)); observe sojourn = now - arrival; }
run { horizon 1e12; }
)",
       Figure::kEventsPerSecond},
      {"ps, 10^4 jobs present, closed", R"(
stage S : ps(1);
workload { arrive batch(10000); }
session { repeat (100) { run S (exponential(1)); } }
run { horizon 1e12; }
)",
       Figure::kNsPerEvent},
      // phi = 10^4: with ~10^4 jobs present each is served at ~1 per
      // second, so a short job (mean work 1) stays ~1 s: ~100 of them
      // present.
      {"ps, 10^4 jobs present, open", R"(
stage S : ps(10000);
workload long { arrive batch(10000); }
workload short { arrive poisson(100); limit 500000; }
session long { run S (1e12); }
session short { run S (exponential(1)); }
run { horizon 1e6; }
)",
       Figure::kNsPerEvent},
      {"step, 256 decode jobs a step", StepSource(false), Figure::kPerStep},
      {"step, 256 decode jobs a step, growing a hold", StepSource(true), Figure::kPerStep},
  };
  for (const Case& c : cases) {
    if (std::string(c.name).find(only) == std::string::npos) continue;
    serq::ir::Program program;
    if (!Compile(c.source, &program)) return 1;
    double seconds = 0;
    uint64_t events = 0;
    serq::results::Results results;
    if (!Time(program, rounds, &seconds, &events, &results)) return 1;
    const auto n = static_cast<unsigned long long>(events);
    switch (c.figure) {
      case Figure::kEventsPerSecond: {
        std::printf("%s: %llu events in %.3f s: %.2f M events/s, %.0f k sessions/s\n", c.name, n,
                    seconds, events / seconds / 1e6, 1e6 / seconds / 1e3);
        uint64_t loop_events;
        double mean;
        const double loop = BareMM1(0.9, customers, rounds, &loop_events, &mean);
        std::printf("  bare priority-queue loop, the same M/M/1: %llu events in %.3f s: %.2f M "
                    "events/s (mean sojourn %.3f); serq / loop %.2f\n",
                    static_cast<unsigned long long>(loop_events), loop, loop_events / loop / 1e6,
                    mean, seconds / loop);
        break;
      }
      case Figure::kNsPerEvent:
        std::printf("%s: %llu events in %.3f s: %.1f ns per event\n", c.name, n, seconds,
                    seconds / events * 1e9);
        break;
      case Figure::kPerStep: {
        uint64_t steps = results.replication(0).stage(0).steps();
        uint64_t tokens = results.replication(0).stage(0).batch_tokens();
        std::printf("%s: %llu steps in %.3f s: %.1f us per step, %.1f ns per token\n", c.name,
                    static_cast<unsigned long long>(steps), seconds, seconds / steps * 1e6,
                    seconds / tokens * 1e9);
        break;
      }
    }
  }
  return 0;
}
