// `serq plan --emit=parallel|slurm`: a plan's candidates as tasks for GNU
// parallel or a Slurm job array, in the format `serq sweep --emit` writes
// (one shell command a line; an sbatch script of one array element a
// task). The plan's folder holds `plan.flags` (the settings: the flags as
// given, where they were given, the trace's arrivals), and each task
// `serq plan --out DIR --candidate K` reads them, searches candidate K
// alone and writes `results/candidate-K.txt` (result_file.h); `serq plan
// --merge DIR` reads them all and writes what a local run writes
// (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_EMIT_H_
#define SERQ_SERQ_PLAN_EMIT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/plan/replay.h"

namespace serq::plan {

struct Emitted {
  std::string cwd;      // where the plan was made: its relative paths are from there
  std::string command;  // the command line as a local run would print it (no --emit)
  std::vector<std::pair<std::string, std::string>> flags;  // name (dashes), value
  bool has_trace = false;
  TraceArrivals trace;  // --replay: measured once, when emitting
  int candidates = 0;
};

std::string FlagsPath(const std::string& dir);                // DIR/plan.flags
std::string ResultPath(const std::string& dir, int candidate);  // DIR/results/candidate-K.txt

std::string EmittedText(const Emitted& emitted);
absl::StatusOr<Emitted> ParseEmitted(absl::string_view text, const std::string& path);

// The task list for GNU parallel: `SELF plan --out DIR --candidate K` a line.
std::string EmitParallel(const std::string& self, const std::string& dir, int candidates);
// An sbatch script: a job array of the candidates.
std::string EmitSlurm(const std::string& self, const std::string& dir, int candidates);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_EMIT_H_
