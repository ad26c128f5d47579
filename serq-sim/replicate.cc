#include "serq-sim/replicate.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace serq::sim {

bool RunReplications(const Model& model, const EngineOptions& options, uint32_t first,
                     uint32_t jobs, const ReplicationSink& sink, Diagnostics* diags) {
  const uint32_t count = model.replications > first ? model.replications - first : 0;
  if (jobs <= 1 || count <= 1 || options.trace != nullptr) {
    for (uint32_t r = first; r < model.replications; ++r) {
      if (options.trace != nullptr) *options.trace << "{\"replication\":" << r << "}\n";
      results::Replication replication;
      Engine engine(model, r, options, diags);
      if (!engine.Run(&replication)) return false;
      if (!sink(&replication)) return false;
    }
    return true;
  }
  // Workers take the next index from a counter; each replication has its
  // own slot, each worker its own diagnostics (a copy of `diags` as it was
  // on entry: the same file and source), kept by index when its
  // replication fails. This thread hands the slots to the sink in index
  // order as they complete, so only the slots run ahead of the sink are
  // held. Once a
  // replication fails (or the sink refuses one), workers stop taking
  // indices: every index below the failing one was taken already and runs
  // to completion, so the error reported is the lowest failing index's, as
  // with one thread.
  const Diagnostics base = *diags;
  std::vector<results::Replication> slots(count);
  std::map<uint32_t, Diagnostics> errors;  // of the replications that failed
  std::vector<char> done(count, 0), ok(count, 1);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint32_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&](bool progress) {
    EngineOptions own = options;
    own.progress = options.progress && progress;
    Diagnostics mine = base;
    for (uint32_t i; !stop.load() && (i = next.fetch_add(1)) < count;) {
      bool ran;
      {
        Engine engine(model, first + i, own, &mine);
        ran = engine.Run(&slots[i]);
      }
      if (!ran) stop.store(true);
      std::lock_guard<std::mutex> lock(mu);
      if (!ran) {
        errors.emplace(i, std::move(mine));
        mine = base;
      }
      ok[i] = ran;
      done[i] = 1;
      cv.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < std::min(jobs, count); ++t) threads.emplace_back(work, t == 0);
  bool result = true;
  for (uint32_t i = 0; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      // An index nobody took (the workers stopped) never completes; it is
      // above a failing one, which the loop reaches first.
      cv.wait(lock, [&] { return done[i] != 0; });
    }
    if (!ok[i]) {
      std::lock_guard<std::mutex> lock(mu);
      *diags = std::move(errors.at(i));
      result = false;
      break;
    }
    if (!sink(&slots[i])) {
      result = false;
      break;
    }
    slots[i] = results::Replication();  // its memory back, now the sink has it
  }
  stop.store(true);
  for (std::thread& t : threads) t.join();
  return result;
}

}  // namespace serq::sim
