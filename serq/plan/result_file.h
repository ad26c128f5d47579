// A candidate's result as a file of its own: what `serq plan --candidate
// K` writes into the plan's folder and `serq plan --merge` reads back
// (docs/cli.md §serq plan, "On GNU parallel or Slurm"). It holds what the
// plan's files are made of (the status and why, the rate, the figures with
// their half-widths), each number to 17 significant digits so that it
// reads back to the same double: the merged files are then the same bytes
// as a local run's.
#ifndef SERQ_SERQ_PLAN_RESULT_FILE_H_
#define SERQ_SERQ_PLAN_RESULT_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "serq/plan/plan.h"

namespace serq::plan {

// The file's text: a first line naming the candidate ("serq plan result
// SLUG"), then one `key value` a line.
std::string ResultText(const Candidate& candidate, const CandidateResult& result);

// Reads it back; an error names `path` and the line, or says the file is
// another candidate's.
absl::StatusOr<CandidateResult> ParseResult(absl::string_view text, const std::string& path,
                                            const Candidate& candidate);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_RESULT_FILE_H_
