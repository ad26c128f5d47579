// `serq sweep`: a grid of points, each point × replication one task whose
// results go to a file of its own in the sweep's directory, and the merge
// of those files into the sweep report (docs/cli.md §sweep). This header:
// the plan, the files and one task; local_run.h runs the tasks here,
// emit.h writes them for GNU parallel and Slurm, merge.h merges them.
//
// The directory holds `plan.pb` (sweep.proto's Plan: the program, where it
// was given, the axes, replications, seed and horizon) and one
// `task-<i>.pb` per task (a Task: its point's settings and one
// replication's results). A task reads only the plan, so it runs the same
// wherever it runs (a local process, GNU parallel over ssh, a Slurm array
// element) as long as the directory and the program's path are shared, and
// the merge reads only the files, in task order, so its report is the same
// bytes whichever executor ran the tasks and in whatever order.
//
// Task i is point i / R, replication i % R (R replications a point); it
// runs replication r with the seed r has in a run of R replications, so the
// R files of a point merge into exactly what `serq run -D… --replications R`
// simulates.
#ifndef SERQ_SERQ_SWEEP_H_
#define SERQ_SERQ_SWEEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/sweep.pb.h"
#include "serq/pipeline/commands.h"
#include "serq/sweep/grid.h"

namespace serq {

inline constexpr uint32_t kPlanVersion = 1;

// A sweep as the command line gives it.
struct SweepSpec {
  std::string program;                                       // the path as given
  // Several programs (`serq sweep pd.sq colocated.sq`), in the order given:
  // each program's points in one table, with a `program` column; an axis
  // whose param a program lacks is not set at its points (and refused when
  // every program lacks it). With fewer than two, `program` is the sweep's.
  std::vector<std::string> programs;
  std::vector<std::pair<std::string, std::string>> defines;  // -D name=grid, as written
  std::vector<std::string> share;                            // --share list; empty: the program's
  std::optional<uint32_t> replications;                      // default: the program's
  std::optional<uint64_t> seed;
  std::optional<double> horizon;
  std::optional<double> warmup;
  std::string data_dir;
};

// Builds the plan: parses the grids, links the program at every point (so
// a point that is not a valid program is found before any task runs),
// reads the program's replications when none are given and records the
// program's digest. Misuse (a bad grid) is exit 2, a program rejected at a
// point exit 1, in `error`. `observations`, when given, gets the
// observations of the program at its first valid point (ProgramObservations),
// so that the figures asked for can be checked before any task runs.
// `warnings`, when given, gets each program's flags of the link that
// change nothing of it (UnusedLinkFlags at its first valid point: the
// --share axis, --data-dir).
bool PlanSweep(const SweepSpec& spec, sweep::Plan* plan, CommandResult* error,
               std::vector<std::string>* observations = nullptr, std::vector<std::string>* warnings = nullptr);

// The digest a plan records of a program's text: FNV-1a over its bytes.
uint64_t ProgramDigest(absl::string_view text);

uint64_t TaskCount(const sweep::Plan& plan);

// The paths of a sweep's files.
std::string PlanPath(const std::string& dir);
std::string TaskPath(const std::string& dir, uint64_t task);

// Creates `dir` (if needed) and writes the plan into it. Refuses a
// directory that holds another sweep's plan (saying what differs: the
// axes, the replications, the program's text...) or task files without a
// plan, so that results of two sweeps never mix. The same plan again is
// the same sweep: its task files are kept, to be resumed.
absl::Status WritePlan(const std::string& dir, const sweep::Plan& plan);

// What differs between the plan in a directory and a new one, in words
// ("the axes (-D, --share)", "the program's text"), or "" when they are
// the same sweep.
std::string PlanDifference(const sweep::Plan& old_plan, const sweep::Plan& plan);

// Whether task `task` has finished: its file is there and holds its
// results, or the failure its own process recorded (a runtime error, a
// program rejected at its point: running it again would fail again). A
// task whose process was killed (its Failure's exit code 0) has not: a
// resumed sweep runs it again.
bool TaskFinished(const std::string& dir, uint64_t task);
absl::StatusOr<sweep::Plan> ReadPlan(const std::string& dir);
// Task `task`'s file: NotFound when there is none, InvalidArgument
// (`path: error: …`) when it is not a task file.
absl::StatusOr<sweep::Task> ReadTask(const std::string& dir, uint64_t task);

// The task file of a task that failed: its settings and why, so that the
// merge reports its point as failed rather than missing.
absl::Status WriteFailure(const std::string& dir, const sweep::Plan& plan, uint64_t task, int exit_code,
                          const std::string& what, const std::string& error);

// A point in words: "Rate=2, NP=1", with "program=pd.sq" first in a sweep
// of several; a param the point's program lacks is left out.
std::string PointText(const std::vector<sweep::Setting>& settings, const std::string& program = "");
std::string PointText(const PlanPoint& point);

// Runs task `task` of the plan in `dir` in this process and writes its file
// (atomically: a task killed half-way leaves no file). Relative paths are
// the plan's: the caller runs it in plan.cwd(). `jobs` is ignored (one
// replication); the result's stderr has any runtime error.
CommandResult RunTask(const std::string& dir, const sweep::Plan& plan, uint64_t task);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_H_
