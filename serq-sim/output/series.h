// The time series of one replication (run { sample DT; }, --sample): every
// DT seconds, each stage element's jobs present (and a step stage's batch),
// each pool element's used and loaded units, and each session
// declaration's sessions in progress (results.proto Series; docs/ir.md
// §Results, docs/report.md §Time series).
//
// Sample k is at time k * DT exactly (a product, never a running sum, so
// no rounding accumulates), for every k with k * DT <= horizon, warmup
// included. The engine records a sample when the next event is later than
// it, so a sample shows the state after every event of its instant.
#ifndef SERQ_SIM_OUTPUT_SERIES_H_
#define SERQ_SIM_OUTPUT_SERIES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "proto/results.pb.h"
#include "serq-sim/model/model.h"
#include "serq-sim/pools/pool.h"
#include "serq-sim/stations/stage.h"

namespace serq::sim {

class SeriesRecorder {
 public:
  // `model.sample` > 0 (checked by the compiler, with the count of samples).
  explicit SeriesRecorder(const Model& model);

  // The time of the next sample; +inf once every sample was taken.
  double next() const { return next_; }

  // Takes every sample due before `time` (all of them when `time` is the
  // horizon and `inclusive`), with the state as it is now.
  void RecordBefore(double time, bool inclusive,
                    const std::vector<std::unique_ptr<Station>>& stations, const Pools& pools,
                    const std::vector<uint64_t>& arrived, const std::vector<uint64_t>& ended);

  // Hands the series over (once, at the end of the replication).
  void Release(results::Series* out) { out->Swap(&series_); }

 private:
  void Record(double time, const std::vector<std::unique_ptr<Station>>& stations,
              const Pools& pools, const std::vector<uint64_t>& arrived,
              const std::vector<uint64_t>& ended);

  const Model& model_;
  uint64_t k_ = 0;
  uint64_t last_k_ = 0;  // the last sample: floor(horizon / DT)
  double next_ = 0;
  std::vector<bool> step_;  // per station: a step stage (has a batch)
  results::Series series_;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_OUTPUT_SERIES_H_
