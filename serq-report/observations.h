// The observe table's figures: every observed name's samples over every
// replication (n, mean, std, quantiles, the 95% interval) and its
// throughput (rate, sum, sum per second of the measured window).
#ifndef SERQ_REPORT_OBSERVATIONS_H_
#define SERQ_REPORT_OBSERVATIONS_H_

#include <vector>

#include "proto/report.pb.h"
#include "stats/merge.h"

namespace serq::report {

// Adds one Observation per name, sorted by name, to `report`; `quantiles`
// in percent (0 < q < 100).
void AddObservations(const MergedResults& merged, const std::vector<double>& quantiles,
                     Report* report);

}  // namespace serq::report

#endif  // SERQ_REPORT_OBSERVATIONS_H_
