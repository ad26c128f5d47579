// A sweep's tasks written for another executor to run: a task list for
// GNU parallel, an sbatch script of a Slurm job array (`serq sweep
// --emit`); serq plan writes its candidates' tasks with the same pieces.
#ifndef SERQ_SERQ_SWEEP_EMIT_H_
#define SERQ_SERQ_SWEEP_EMIT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "proto/sweep.pb.h"

namespace serq {

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

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_EMIT_H_
