// The time series of one replication (run { sample DT; }, --sample): every
// DT seconds, each stage element's jobs present (and a step stage's batch),
// each pool element's used and loaded units, and each session
// declaration's sessions in progress; and what happened in each interval
// between samples: a step stage's preemptions, a session's prefill runs and
// tokens, each observation's count and percentiles from a quantile sketch
// of the interval's samples (results.proto Series; docs/ir.md §Results,
// docs/report.md §Time series).
//
// Sample k is at time k * DT exactly (a product, never a running sum, so
// no rounding accumulates), for every k with k * DT <= horizon, warmup
// included. The engine records a sample when the next event is later than
// it, so a sample shows the state after every event of its instant.
#ifndef SERQ_SIM_OUTPUT_SERIES_H_
#define SERQ_SIM_OUTPUT_SERIES_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "proto/results.pb.h"
#include "stats/sketch.h"
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

  // Interval counts, warmup included (the engine calls them only when it
  // records a series): `n` samples equal to x of observation `observation`;
  // a prefill (`prefill`) or decode run of `work` tokens of session
  // declaration `session` completed.
  void Observe(uint32_t observation, double x, uint64_t n) {
    if (!std::isnan(x)) sketches_[observation].Add(x, n);
  }
  void Tokens(uint32_t session, bool prefill, double work) {
    if (prefill) {
      prefills_[session] += 1;
      prefill_tokens_[session] += work;
    } else {
      decode_tokens_[session] += work;
    }
    tokens_ = true;
  }

  // Hands the series over (once, at the end of the replication).
  void Release(results::Series* out);

 private:
  void Record(double time, const std::vector<std::unique_ptr<Station>>& stations,
              const Pools& pools, const std::vector<uint64_t>& arrived,
              const std::vector<uint64_t>& ended);

  const Model& model_;
  uint64_t k_ = 0;
  uint64_t last_k_ = 0;  // the last sample: floor(horizon / DT)
  double next_ = 0;
  std::vector<bool> step_;  // per station: a step stage (has a batch)
  std::vector<uint64_t> preempted_;  // per station: preemptions at the last sample
  // The interval's: per observation, per session declaration.
  std::vector<report::QuantileSketch> sketches_;
  std::vector<double> prefills_, prefill_tokens_, decode_tokens_;
  bool tokens_ = false;  // a prefill or decode run completed: the token lists are kept
  results::Series series_;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_OUTPUT_SERIES_H_
