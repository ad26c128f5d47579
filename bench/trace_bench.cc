// Benchmark of the trace readers, run by hand (never as a test):
//
//   bazel run -c opt //bench:trace_bench [-- ROWS [COLUMNS...]]
//
// With COLUMNS (e.g. 100000 1000000), also a trace of 10 rows and that many
// columns in each format that has a header (serq CSV's header line,
// Mooncake's first row): the readers must be linear in the columns.
//
// Writes ROWS rows (default 100,000) of each format into memory, from a
// fixed-seed generator with the magnitudes of the published traces (a
// Mooncake row holds ~20 hash_ids), and reads them with ReadTrace: CPU
// time of the read (best of 3), microseconds per row, MB per second.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serq-sim/workload/trace.h"

namespace {

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// SplitMix64: a fixed sequence, whatever the platform.
uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string Mooncake(int rows) {
  uint64_t s = 1;
  std::string out;
  int64_t ms = 0, id = 0;
  for (int r = 0; r < rows; ++r) {
    ms += Next(&s) % 800;
    int blocks = 1 + Next(&s) % 40;
    absl::StrAppend(&out, "{\"timestamp\": ", ms, ", \"input_length\": ", blocks * 512 - 100,
                    ", \"output_length\": ", 1 + Next(&s) % 600, ", \"hash_ids\": [");
    int64_t shared = static_cast<int64_t>(Next(&s) % 2) * 10;  // half share 10 ids
    for (int b = 0; b < blocks; ++b) {
      absl::StrAppend(&out, b ? ", " : "", b < shared ? b : 100 + id++);
    }
    out += "]}\n";
  }
  return out;
}

std::string Azure(int rows) {
  uint64_t s = 2;
  std::string out = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  int64_t ticks = 0;  // 100 ns
  for (int r = 0; r < rows; ++r) {
    ticks += Next(&s) % 5000000;
    int64_t sec = ticks / 10000000;
    absl::StrAppend(&out, absl::StrFormat("2023-11-%02d %02d:%02d:%02d.%07d", 16 + sec / 86400,
                                          sec / 3600 % 24, sec / 60 % 60, sec % 60,
                                          ticks % 10000000),
                    ",", 50 + Next(&s) % 8000, ",", 1 + Next(&s) % 500, "\n");
  }
  return out;
}

std::string Csv(int rows) {
  uint64_t s = 3;
  std::string out = "time,prompt,output\n";
  double t = 0;
  for (int r = 0; r < rows; ++r) {
    t += (Next(&s) % 1000) / 2000.0;
    absl::StrAppend(&out, absl::StrFormat("%.3f", t), ",", 50 + Next(&s) % 3000, ",",
                    1 + Next(&s) % 600, "\n");
  }
  return out;
}

// 10 rows of `columns` columns: c0..c{n-1} besides the time.
std::string WideCsv(int columns) {
  std::string out = "time";
  for (int c = 0; c < columns; ++c) absl::StrAppend(&out, ",c", c);
  out += "\n";
  for (int r = 0; r < 10; ++r) {
    absl::StrAppend(&out, r);
    for (int c = 0; c < columns; ++c) out += ",1";
    out += "\n";
  }
  return out;
}

std::string WideMooncake(int columns) {
  std::string out;
  for (int r = 0; r < 10; ++r) {
    absl::StrAppend(&out, "{\"timestamp\": ", r * 1000, ", \"input_length\": 10, \"output_length\": 5");
    for (int c = 0; c < columns; ++c) absl::StrAppend(&out, ", \"c", c, "\": 1");
    out += "}\n";
  }
  return out;
}

void Bench(const char* name, const std::string& text, int rows) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    std::istringstream in(text);
    serq::sim::Trace trace;
    serq::sim::TraceError error;
    double start = CpuSeconds();
    bool ok = serq::sim::ReadTrace(&in, name, &trace, &error);
    double s = CpuSeconds() - start;
    if (!ok || static_cast<int>(trace.times.size()) != rows) {
      std::fprintf(stderr, "%s:%d: %s\n", name, error.line, error.message.c_str());
      std::exit(1);
    }
    if (s < best) best = s;
  }
  std::printf("%-24s %9d %9.1f %9.3f %9.2f %9.1f\n", name, rows, text.size() / 1e6, best,
              best / rows * 1e6, text.size() / 1e6 / best);
}

// Reads a wide trace once (a quadratic reader takes minutes at 10^6).
void BenchWide(const char* name, const std::string& text, int columns) {
  std::istringstream in(text);
  serq::sim::Trace trace;
  serq::sim::TraceError error;
  double start = CpuSeconds();
  bool ok = serq::sim::ReadTrace(&in, name, &trace, &error);
  double s = CpuSeconds() - start;
  if (!ok || trace.times.size() != 10 || static_cast<int>(trace.columns.size()) < columns) {
    std::fprintf(stderr, "%s:%d: %s\n", name, error.line, error.message.c_str());
    std::exit(1);
  }
  std::printf("%-24s %9d %9.1f %9.3f %9.3f %9.1f\n", name, columns, text.size() / 1e6, s,
              s / columns * 1e6, text.size() / 1e6 / s);
}

}  // namespace

int main(int argc, char** argv) {
  int rows = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (rows <= 0) {
    std::fprintf(stderr, "usage: trace_bench [ROWS [COLUMNS...]]\n");
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    int columns = std::atoi(argv[i]);
    if (columns <= 0) {
      std::fprintf(stderr, "usage: trace_bench [ROWS [COLUMNS...]]\n");
      return 2;
    }
    if (i == 2) {
      std::printf("%-24s %9s %9s %9s %9s %9s\n", "wide trace (10 rows)", "columns", "MB", "cpu s",
                  "us/col", "MB/s");
    }
    BenchWide(absl::StrCat("serq CSV ", columns).c_str(), WideCsv(columns), columns);
    BenchWide(absl::StrCat("Mooncake ", columns).c_str(), WideMooncake(columns), columns);
  }
  if (argc > 2) std::printf("\n");
  std::printf("%-24s %9s %9s %9s %9s %9s\n", "format", "rows", "MB", "cpu s", "us/row", "MB/s");
  Bench("Mooncake JSON lines", Mooncake(rows), rows);
  Bench("Azure LLM inference CSV", Azure(rows), rows);
  Bench("serq CSV", Csv(rows), rows);
  return 0;
}
