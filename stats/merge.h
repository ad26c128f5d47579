// Results files checked and merged into one set of replications: they must
// come from the same program, horizon and warmup; their replications are
// concatenated in index order, and an index that occurs twice is an error
// (the same replication counted twice would shrink every interval).
#ifndef SERQ_STATS_MERGE_H_
#define SERQ_STATS_MERGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/results.pb.h"

namespace serq::report {

struct ResultsFile {
  std::string name;                  // what errors call it, e.g. the path
  const results::Results* results;  // not owned
};

struct MergedResults {
  const results::Results* first = nullptr;  // program, horizon, warmup
  std::vector<uint64_t> seeds;              // the files' seeds, distinct, ascending
  // Every replication of every file, by index. Each has the same stages,
  // pools and sessions in the same order (checked); observations may differ.
  std::vector<const results::Replication*> replications;

  // The length of replication `r`'s measured window: [warmup, horizon], or
  // [warmup, end] in a run without a horizon (drained).
  double Window(const results::Replication& r) const {
    return (first->drained() ? r.end() : first->horizon()) - first->warmup();
  }
};

// `inputs` named for errors by `files`, one a name in order; an input past
// the names is "<results>" when it is the only one, else "<results N>"
// (N from 1). The results are not owned: `inputs` must outlive the list.
std::vector<ResultsFile> NamedResults(const std::vector<results::Results>& inputs,
                                      const std::vector<std::string>& files);

// Checks every file on its own (version, NaN figures, stage kinds,
// duplicate observations) and against the others (program, horizon,
// warmup, replication indices, the stages, pools and sessions of each
// replication). Errors: InvalidArgument whose message is every diagnostic,
// `file:ir.path: error: message` one a line, files in the order given.
absl::StatusOr<MergedResults> MergeResults(const std::vector<ResultsFile>& files);

}  // namespace serq::report

#endif  // SERQ_STATS_MERGE_H_
