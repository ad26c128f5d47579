#include "serq-sim/engine/replicate.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace serq::sim {
namespace {

// The first replication stalled at `at`: its figures up to then go to
// the sink after `on_stall`.
ReplicationsEnd HandStall(double at, results::Replication* replication,
                          const ReplicationSinkFn& sink, absl::Status* sink_error,
                          const StallFn& on_stall) {
  on_stall(at);
  if (*sink_error = sink(replication); !sink_error->ok()) return ReplicationsEnd::kSinkFailed;
  return ReplicationsEnd::kStalled;
}

ReplicationsEnd OneAfterAnother(const Model& model, const EngineOptions& options, uint32_t first,
                                const ReplicationSinkFn& sink, Diagnostics* diags,
                                absl::Status* sink_error, const StallFn& on_stall) {
  for (uint32_t r = first; r < model.replications; ++r) {
    if (options.trace != nullptr) *options.trace << "{\"replication\":" << r << "}\n";
    results::Replication replication;
    bool ran;
    double stalled_at;
    {
      Engine engine(model, r, options, diags);  // freed before the sink runs
      ran = engine.Run(&replication);
      stalled_at = engine.stalled_at();
    }
    if (!ran && stalled_at >= 0 && r == first) {
      return HandStall(stalled_at, &replication, sink, sink_error, on_stall);
    }
    if (!ran) return ReplicationsEnd::kRejected;
    if (*sink_error = sink(&replication); !sink_error->ok()) return ReplicationsEnd::kSinkFailed;
  }
  return ReplicationsEnd::kOk;
}

// Replications on `jobs` worker threads while this thread hands the finished
// ones to the sink in index order, as soon as the next in order is done: the
// sink's work (serializing, writing) overlaps the simulation, and a finished
// replication waits only for those before it. Workers take an index only
// within `window` of the next one to hand over, so at most `window`
// replications are held at once, whatever the count.
class Parallel {
 public:
  Parallel(const Model& model, const EngineOptions& options, uint32_t first, uint32_t count,
           uint32_t jobs, Diagnostics* diags)
      : model_(model),
        options_(options),
        first_(first),
        count_(count),
        jobs_(std::min(jobs, count)),
        window_(2 * jobs_),
        diags_(diags),
        pristine_(*diags),
        done_(count) {}

  ReplicationsEnd Run(const ReplicationSinkFn& sink, absl::Status* sink_error,
                      const StallFn& on_stall) {
    std::vector<std::thread> workers;
    for (uint32_t t = 0; t < jobs_; ++t) workers.emplace_back(&Parallel::Work, this, t == 0);
    ReplicationsEnd end = ReplicationsEnd::kOk;
    for (uint32_t i = 0; i < count_; ++i) {
      std::unique_ptr<results::Replication> replication;
      std::pair<double, std::unique_ptr<results::Replication>> stall;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return done_[i] != nullptr || failures_.count(i) > 0; });
        if (failures_.count(i) > 0) {
          // Every index below i went to the sink, so this is the lowest
          // failing replication: the error the sequential run would give.
          *diags_ = std::move(failures_[i]);
          end = ReplicationsEnd::kRejected;
          if (i == 0 && stalled_.count(0) > 0) {
            stall = std::move(stalled_[0]);
          }
        } else {
          replication = std::move(done_[i]);
        }
      }
      if (end == ReplicationsEnd::kOk) {
        *sink_error = sink(replication.get());
        if (!sink_error->ok()) end = ReplicationsEnd::kSinkFailed;
      } else if (stall.second != nullptr) {
        end = HandStall(stall.first, stall.second.get(), sink, sink_error, on_stall);
      }
      replication.reset();
      {
        std::lock_guard<std::mutex> lock(mu_);
        handed_ = i + 1;
        if (end != ReplicationsEnd::kOk) stop_ = true;
      }
      changed_.notify_all();
      if (end != ReplicationsEnd::kOk) break;
    }
    for (std::thread& t : workers) t.join();
    return end;
  }

 private:
  void Work(bool progress) {
    EngineOptions own = options_;
    if (!progress) own.progress = ProgressLine::Mode::kNone;
    Diagnostics diags = pristine_;  // the file name and source, for the error
    for (;;) {
      uint32_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return stop_ || next_ >= count_ || next_ < handed_ + window_; });
        // After a failure at index f, indices above f are not needed: the
        // error reported is the lowest failing index's.
        if (stop_ || next_ >= count_ || next_ > lowest_failure_) return;
        i = next_++;
      }
      auto replication = std::make_unique<results::Replication>();
      bool ran;
      double stalled_at;
      {
        Engine engine(model_, first_ + i, own, &diags);
        ran = engine.Run(replication.get());
        stalled_at = engine.stalled_at();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (ran) {
          done_[i] = std::move(replication);
        } else {
          if (stalled_at >= 0) stalled_[i] = {stalled_at, std::move(replication)};
          failures_.emplace(i, std::move(diags));
          lowest_failure_ = std::min(lowest_failure_, i);
          diags = pristine_;
        }
      }
      changed_.notify_all();
    }
  }

  const Model& model_;
  const EngineOptions& options_;
  const uint32_t first_, count_, jobs_, window_;
  Diagnostics* diags_;             // written by the sink's thread only, at the end
  const Diagnostics pristine_;     // *diags_ as given: what each worker starts from

  std::mutex mu_;
  std::condition_variable changed_;
  uint32_t next_ = 0;       // the next index a worker takes
  uint32_t handed_ = 0;     // indices below this went to the sink
  uint32_t lowest_failure_ = UINT32_MAX;
  bool stop_ = false;
  std::vector<std::unique_ptr<results::Replication>> done_;  // finished, not yet handed over
  std::map<uint32_t, Diagnostics> failures_;
  // Failures that were stalls: the time and the figures up to it.
  std::map<uint32_t, std::pair<double, std::unique_ptr<results::Replication>>> stalled_;
};

}  // namespace

ReplicationsEnd RunReplications(const Model& model, const EngineOptions& options, uint32_t first,
                                uint32_t jobs, const ReplicationSinkFn& sink, Diagnostics* diags,
                                absl::Status* sink_error, const StallFn& on_stall) {
  const uint32_t count = model.replications > first ? model.replications - first : 0;
  if (jobs <= 1 || count <= 1 || options.trace != nullptr) {
    return OneAfterAnother(model, options, first, sink, diags, sink_error, on_stall);
  }
  return Parallel(model, options, first, count, jobs, diags).Run(sink, sink_error, on_stall);
}

}  // namespace serq::sim
