#include "serq-sim/replicate.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace serq::sim {

ReplicationsEnd RunReplications(const Model& model, const EngineOptions& options, uint32_t first,
                                uint32_t jobs,
                                const std::function<absl::Status(results::Replication*)>& sink,
                                Diagnostics* diags, absl::Status* sink_error) {
  auto give = [&](results::Replication* r) {
    *sink_error = sink(r);
    return sink_error->ok();
  };
  const uint32_t count = model.replications > first ? model.replications - first : 0;
  if (jobs <= 1 || count <= 1 || options.trace != nullptr) {
    for (uint32_t r = first; r < model.replications; ++r) {
      if (options.trace != nullptr) *options.trace << "{\"replication\":" << r << "}\n";
      results::Replication replication;
      bool ran;
      {
        Engine engine(model, r, options, diags);  // freed before the sink runs
        ran = engine.Run(&replication);
      }
      if (!ran) return ReplicationsEnd::kRejected;
      if (!give(&replication)) return ReplicationsEnd::kSinkFailed;
    }
    return ReplicationsEnd::kOk;
  }
  // Each replication has its own slot and its own diagnostics (a copy of
  // `diags`, so the file name and source are the same); threads take the
  // next index from a counter. Once one fails, the others stop taking
  // indices above it: the error reported is the lowest failing index's,
  // which every index below it has run to completion to rule out.
  std::vector<results::Replication> slots(count);
  std::vector<Diagnostics> errors(count, *diags);
  std::vector<char> ok(count, 1);
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> failed{count};  // the lowest failing slot so far
  auto work = [&](bool progress) {
    EngineOptions own = options;
    own.progress = options.progress && progress;
    for (uint32_t i; (i = next.fetch_add(1)) < count;) {
      if (i > failed.load()) break;
      Engine engine(model, first + i, own, &errors[i]);
      if (!engine.Run(&slots[i])) {
        ok[i] = 0;
        uint32_t seen = failed.load();
        while (i < seen && !failed.compare_exchange_weak(seen, i)) {
        }
      }
    }
  };
  std::vector<std::thread> threads;
  const uint32_t n = std::min(jobs, count);
  for (uint32_t t = 1; t < n; ++t) threads.emplace_back(work, false);
  work(true);
  for (std::thread& t : threads) t.join();
  for (uint32_t i = 0; i < count; ++i) {
    if (!ok[i]) {
      *diags = std::move(errors[i]);
      return ReplicationsEnd::kRejected;
    }
    if (!give(&slots[i])) return ReplicationsEnd::kSinkFailed;
  }
  return ReplicationsEnd::kOk;
}

}  // namespace serq::sim
