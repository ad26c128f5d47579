// The report's figures computed from merged results (docs/report.md): the
// report.proto message every format renders.
#ifndef SERQ_REPORT_MODEL_H_
#define SERQ_REPORT_MODEL_H_

#include <vector>

#include "proto/report.pb.h"
#include "stats/merge.h"

namespace serq::report {

// Observations pool their samples over every replication (n, mean, std and
// the quantiles, each in percent, 0 < q < 100); stage and pool time-averages
// are averaged over replications, counts summed, per-event means are the
// ratio of the sums, and max used the maximum. A figure that is undefined is
// left unset, never NaN.
Report BuildReport(const MergedResults& merged, const std::vector<double>& quantiles);

}  // namespace serq::report

#endif  // SERQ_REPORT_MODEL_H_
