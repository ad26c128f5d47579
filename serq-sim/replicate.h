// Running a model's replications, one after the other or on threads
// (`serq-sim --jobs N`). Replications are independent by construction: each
// has its own engine and its own random streams, seeded from (seed, index)
// alone, and reads the compiled model only. So a replication's figures do
// not depend on which thread ran it or when, and putting them into the
// results in index order gives the same bytes for every --jobs.
#ifndef SERQ_SIM_REPLICATE_H_
#define SERQ_SIM_REPLICATE_H_

#include <cstdint>
#include <functional>
#include <ostream>

#include "ir/diagnostics.h"
#include "proto/results.pb.h"
#include "serq-sim/engine.h"
#include "serq-sim/model.h"

namespace serq::sim {

// Takes each replication, in index order, as soon as it and every one
// before it are done (it may move from it); false stops the run (the
// caller has recorded why).
using ReplicationSink = std::function<bool(results::Replication*)>;

// Runs replications [first, model.replications) and gives them to `sink`
// in index order, on up to `jobs` threads (1: on this thread). A trace (in
// `options`) is one stream in replication order, so with a trace they run
// on this thread whatever `jobs` says; the progress line is shown only on
// one thread. On a runtime error, `diags` gets the error of the
// lowest-numbered replication that failed, as when they run one after the
// other (which stops there), and false is returned; the sink has had every
// replication before it.
bool RunReplications(const Model& model, const EngineOptions& options, uint32_t first,
                     uint32_t jobs, const ReplicationSink& sink, Diagnostics* diags);

}  // namespace serq::sim

#endif  // SERQ_SIM_REPLICATE_H_
