// The time series of results files (run { sample DT; }): checked, merged
// and printed as csv by `serq-report --series`, and read by the pictures
// (serq-view --plot series, the html report). docs/report.md §Time series.
#ifndef SERQ_STATS_SERIES_H_
#define SERQ_STATS_SERIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/results.pb.h"

namespace serq::report {

// One column of a replication's series.
struct SeriesColumn {
  std::string group;     // "stage", "pool", "session" or "observation"
  std::string element;   // "P[0]", "kv", a session's or an observation's name ("" for the unnamed session)
  // A state at the sample time: present, batch, used, loaded, evictable,
  // in_progress; a count over the interval that ends there: preempted,
  // prefills, prefill_tokens, decode_tokens, and an observation's count,
  // p50, p90, p99 (of the interval's samples; 0 when count is 0).
  std::string quantity;
  std::string name;      // the csv header: "P[0].present", "in_progress", "chat.in_progress"
  const google::protobuf::RepeatedField<double>* values;  // one per time
};

struct ReplicationSeries {
  const results::Replication* replication = nullptr;  // whose series it is
  uint32_t index = 0;
  uint64_t seed = 0;
  const google::protobuf::RepeatedField<double>* time = nullptr;
  std::vector<SeriesColumn> columns;  // stages, pools, sessions, observations, in results order
};

// Every replication of `inputs` (named by `files` in errors) that has a
// series, sorted by (index, stream seed). Errors (InvalidArgument, the
// message every diagnostic `file:path: error: ...`, one a line): the
// results do not merge (serq-report's rules), no replication has a series,
// files sampled at different intervals, or a series whose lists do not
// have one value a time or whose elements are not the replication's.
absl::StatusOr<std::vector<ReplicationSeries>> CollectSeries(
    const std::vector<results::Results>& inputs, const std::vector<std::string>& files = {});

// The csv of `serq-report --series`: a header `replication,time,<column>...`
// then one row per replication and time; numbers in the report's shortest
// exact form.
std::string RenderSeriesCsv(const std::vector<ReplicationSeries>& series);

}  // namespace serq::report

#endif  // SERQ_STATS_SERIES_H_
