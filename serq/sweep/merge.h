// A sweep's task files merged into its table: each point's replications
// merged, its figures computed, the points that failed or lack a file
// said (`serq sweep --merge`, and a local run's end).
#ifndef SERQ_SERQ_SWEEP_MERGE_H_
#define SERQ_SERQ_SWEEP_MERGE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/sweep.pb.h"
#include "serq/sweep/metrics.h"

namespace serq {

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
  // kMerged: the point's window, its results' (a swept param may set the
  // horizon or the warmup, and programs may differ in them).
  double horizon = 0, warmup = 0;
  bool drained = false;
};
struct SweepTable {
  sweep::Plan plan;
  // The first merged point's window; the two flags say the merged points'
  // horizons (or their draining) or warmups are not all the same, and
  // each point's own is then the one to read.
  double horizon = 0, warmup = 0;
  bool drained = false;  // a run without a horizon: each replication to its last event
  bool horizon_by_point = false, warmup_by_point = false;
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

#endif  // SERQ_SERQ_SWEEP_MERGE_H_
