// Arrival processes (language.md §3.5): batch, poisson, periodic, renewal,
// trace (IR 11: at a time scale), and IR 11's load stages and exactly n in
// T, each with an optional limit; arrivals stop at the horizon. Every
// arrival time is computed here, and nowhere else (arrivals.cc).
// Arrivals of one instant come in declaration order of their workloads, so
// `serial` numbers them in (time, workload declaration) order.
//
// Traces are read once, before the first replication (trace.h).
#ifndef SERQ_SIM_WORKLOAD_ARRIVALS_H_
#define SERQ_SIM_WORKLOAD_ARRIVALS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proto/ir.pb.h"
#include "serq-sim/random/random.h"
#include "serq-sim/workload/trace.h"

namespace serq::sim {

struct ArrivalPlan {
  ir::Workload::Process process = ir::Workload::BATCH;
  double count = 0;         // batch: sessions at time 0; exactly: n
  double rate = 0;          // poisson: per second
  double period = 0;        // periodic
  uint32_t gap = 0;         // renewal: the node of the gap expression
  uint64_t limit = UINT64_MAX;
  std::shared_ptr<const Trace> trace;
  std::vector<int32_t> column_slot;  // trace column -> session slot, or -1
  double scale = 1;                  // trace: every arrival at scale x its time (IR 11)
  // stages (IR 11): Poisson at each rate (>= 0) for its duration, in turn.
  std::vector<std::pair<double, double>> stages;
  double span = 0;  // exactly (IR 11): `count` arrivals in [0, span)
};

// Draws renewal gaps (an expression) for the arrivals; the engine evaluates
// and checks them. Returns false after reporting a runtime error.
class GapSource {
 public:
  virtual ~GapSource() = default;
  virtual bool RenewalGap(uint32_t workload, uint32_t node, double* gap) = 0;
};

// The arrivals of one replication.
class Arrivals {
 public:
  // Starts every workload's process at time 0; arrivals at or after
  // `horizon` are never made. Returns false after a runtime error.
  bool Start(const std::vector<const ArrivalPlan*>& plans, double horizon, Random* random,
             GapSource* gaps);

  // The next arrival of all workloads: false when none is left.
  bool Next(double* time, uint32_t* workload) const;

  // Takes the next arrival of `workload` (which Next named): its trace row
  // (nullptr for other processes), and draws the one after it. Returns
  // false after a runtime error.
  bool Take(uint32_t workload, const double** row);

  uint64_t made(uint32_t workload) const { return streams_[workload].made; }

 private:
  struct Stream {
    const ArrivalPlan* plan = nullptr;
    double next = 0;  // +inf: no more
    // poisson: the mean gap, 1 / rate divided once (the same number as
    // dividing at every arrival, without a division's latency there).
    double mean_gap = 0;
    uint64_t made = 0;
    size_t stage = 0;         // stages: the stage of `next`
    double stage_start = 0;   // and when that stage began
  };
  // stages: the first arrival after `from` in stage `stage` or a later
  // one; +inf after the last stage.
  double StagesNext(Stream& s, double from);
  // exactly: the arrival after `made` of them, the last at `from`.
  double ExactlyNext(const Stream& s, double from);
  bool Advance(uint32_t workload);

  std::vector<Stream> streams_;
  double horizon_ = 0;
  Random* random_ = nullptr;
  GapSource* gaps_ = nullptr;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_WORKLOAD_ARRIVALS_H_
