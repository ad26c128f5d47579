// `serq sweep`: a grid of points, each point × replication one task whose
// results go to a file of its own in the sweep's directory, and the merge
// of those files into the sweep report (docs/cli.md §sweep).
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
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/sweep.pb.h"
#include "serq/pipeline/commands.h"
#include "serq/sweep/metrics.h"

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
bool PlanSweep(const SweepSpec& spec, sweep::Plan* plan, CommandResult* error,
               std::vector<std::string>* observations = nullptr);

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

// Runs task `task` of the plan in `dir` in this process and writes its file
// (atomically: a task killed half-way leaves no file). Relative paths are
// the plan's: the caller runs it in plan.cwd(). `jobs` is ignored (one
// replication); the result's stderr has any runtime error.
CommandResult RunTask(const std::string& dir, const sweep::Plan& plan, uint64_t task);

// What a local run of a sweep's tasks did.
struct LocalRun {
  uint64_t tasks = 0;     // the sweep's
  uint64_t resumed = 0;   // finished before this run (kept, not run again)
  uint64_t finished = 0;  // finished at the end (resumed included)
  int signal = 0;         // SIGINT or SIGTERM when one interrupted the run, else 0
};

// Runs every unfinished task of the plan in `dir` (TaskFinished: a rerun
// resumes) as local processes of `self` (this executable: `self sweep
// --out DIR --task i`), `jobs` at a time. Every task runs: a failed one
// leaves a task file with its Failure (the task writes it, or this, when
// its process died without one), so that the merge reports its point as
// failed and the others as they are.
//
// SIGINT or SIGTERM stops the run: no task starts after it, the running
// ones get the signal (a terminal's ^C reaches them too), and a task it
// killed leaves no file (it is unfinished, not failed); those that finished
// keep theirs. A second signal kills the running tasks outright. The
// signal is in `run`, and the caller says where the files are and how to
// resume. A signal that was ignored when the sweep started (a background
// job of a script) stays ignored.
CommandResult RunTasksLocally(const std::string& self, const std::string& dir,
                              const sweep::Plan& plan, uint32_t jobs, LocalRun* run);

// 'text' for sh, with every ' written '\'' (the task lines of sweep and
// plan alike).
std::string ShellQuote(absl::string_view text);

// An sbatch script of a job array of `count` elements, element i running
// `self VERB --out DIR INDEX_FLAG i`: `what` is its first comment line's
// subject ("serq sweep of x.sq: 12 tasks (...)"), `job` its job name. The
// one script of sweep and plan, so that both submit and merge alike.
std::string SlurmArrayScript(absl::string_view what, absl::string_view job, const std::string& self,
                             absl::string_view verb, const std::string& dir, absl::string_view index_flag,
                             uint64_t count);

// Whether an sbatch script can name `self` and `dir`: sbatch reads its
// #SBATCH lines word by word, so the folder (in --output=) has no white
// space, and no line of the script may be broken by a line break in
// either. "" when it can, else why not (misuse: the folder is the user's
// to choose).
std::string SlurmPathsProblem(const std::string& self, const std::string& dir);

// The task list for GNU parallel: one shell command a line.
std::string EmitParallel(const std::string& self, const std::string& dir, const sweep::Plan& plan);
// An sbatch script: a job array of the tasks, each `serq sweep --task`.
std::string EmitSlurm(const std::string& self, const std::string& dir, const sweep::Plan& plan);

// A sweep's figures, point by point, merged from the files in `dir`.
struct SweepPoint {
  enum Status { kMerged, kFailed, kMissing };
  Status status = kMerged;
  std::string program;  // a sweep of several programs: the point's; else ""
  std::vector<sweep::Setting> settings;
  uint32_t replications = 0;
  std::vector<Figure> figures;  // kMerged: one per metric
  Health health;                // kMerged
  std::string failure;          // kFailed: "task 2 exited with 1: <its first error line>"
};
struct SweepTable {
  sweep::Plan plan;
  double horizon = 0, warmup = 0;
  std::vector<uint64_t> seeds;
  std::vector<Metric> metrics;
  std::vector<SweepPoint> points;  // every point, merged or not
  std::vector<uint64_t> missing;    // the tasks whose files are absent
  // The observations the points' results say are times (results.proto
  // time_observation), whatever their names: their charts in ms or s.
  std::set<std::string> times;
};

// The points that did not merge, as the lines the merge prints on stderr
// ("1 of 3 points failed: P=1.5: task 2 exited with 1: ...", "lacks 1 of
// its 6 task files: ..."); empty when every point merged.
std::vector<std::string> SweepProblems(const std::string& dir, const SweepTable& table);

// Reads and checks every task file (each present once, its settings its
// point's) and merges each point's replications: a point with a failed
// task is kFailed, one with a task file missing kMissing, the others
// merged. `metrics` empty: the default (DefaultMetrics of the first merged
// point; with several programs, those of every program's first merged
// point that the others have too). Errors: a bad file, a figure the
// results lack.
absl::StatusOr<SweepTable> MergeSweep(const std::string& dir, const std::vector<Metric>& metrics);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_H_
