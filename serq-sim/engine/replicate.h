// Running a model's replications, one after the other or on threads
// (`serq-sim --jobs N`). Replications are independent by construction: each
// has its own engine and its own random streams, seeded from (seed, index)
// alone, and reads the compiled model only. So a replication's figures do
// not depend on which thread ran it or when, and putting them into the
// results in index order gives the same bytes for every --jobs.
#ifndef SERQ_SIM_ENGINE_REPLICATE_H_
#define SERQ_SIM_ENGINE_REPLICATE_H_

#include <cstdint>
#include <functional>
#include <ostream>

#include "absl/status/status.h"
#include "ir/diagnostics.h"
#include "proto/results.pb.h"
#include "serq-sim/engine/engine.h"
#include "serq-sim/model/model.h"

namespace serq::sim {

enum class ReplicationsEnd { kOk, kRejected, kSinkFailed, kStalled };

// Runs replications [first, model.replications) and hands each to `sink` in
// index order, on up to `jobs` threads (1: on this thread). A replication
// goes to the sink as soon as it and every one before it have ended, so
// memory does not grow with the replications: on one thread one is held at
// a time; on several, workers run at most 2 × jobs ahead of the sink. A trace (in `options`) is one stream in
// replication order, so with a trace they run on this thread whatever
// `jobs` says; the progress line is shown only on one thread. On a runtime
// error, `diags` gets the error of the lowest-numbered replication that
// failed, as when they run one after the other (which stops there), and
// kRejected is returned (the replications before it have gone to the
// sink). A sink that fails stops the run: kSinkFailed, its status in
// `*sink_error`. A stall (Engine::stalled_at) in the first replication
// run: `on_stall` gets its time, then the sink its figures up to then, and
// kStalled is returned with the stall in `diags`; in a later one it is a
// runtime error as any other (kRejected).
using ReplicationSinkFn = std::function<absl::Status(results::Replication*)>;
using StallFn = std::function<void(double)>;
ReplicationsEnd RunReplications(const Model& model, const EngineOptions& options, uint32_t first,
                                uint32_t jobs, const ReplicationSinkFn& sink, Diagnostics* diags,
                                absl::Status* sink_error, const StallFn& on_stall);

}  // namespace serq::sim

#endif  // SERQ_SIM_ENGINE_REPLICATE_H_
