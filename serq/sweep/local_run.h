// A sweep's tasks run on this machine, each a process of serq, some at
// once: what `serq sweep --jobs N` does (docs/cli.md §sweep).
#ifndef SERQ_SERQ_SWEEP_LOCAL_RUN_H_
#define SERQ_SERQ_SWEEP_LOCAL_RUN_H_

#include <cstdint>
#include <string>

#include "proto/sweep.pb.h"
#include "serq/pipeline/commands.h"

namespace serq {

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

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_LOCAL_RUN_H_
