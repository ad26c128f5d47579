// delay: an infinite server. Every job is served at once, in parallel; a
// run of work w takes w seconds. Each job has its own end event.
#include <memory>
#include <vector>

#include "serq-sim/stations/stage.h"

namespace serq::sim {
namespace {

class DelayStation final : public Station {
 public:
  using Station::Station;

  void Arrive(StageHost& host, const Job& job) override {
    double now = host.now();
    const Ticks end = host.After(job.work);
    end_sum_ += ToSeconds(end);
    SetPresent(now, present() + 1, true);
    host.Schedule(end, id(), job.session);
  }

  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) override {
    double now = host.now();
    uint32_t n = present() - 1;
    end_sum_ = n == 0 ? 0 : end_sum_ - now;
    SetPresent(now, n, n > 0);
    done->push_back(tag);
    return true;
  }

  uint32_t Busy() const override { return present(); }
  // Each job's remaining time is its end minus now: the sum of the ends
  // minus n * now.
  double Work(double now) const override {
    double w = end_sum_ - present() * now;
    return w > 0 ? w : 0;
  }

  void Report(double now, double window, results::StageStats* out) const override {
    Station::Report(now, window, out);
    out->set_utilisation(0);  // a delay stage has no capacity to use
  }

 private:
  double end_sum_ = 0;
};

}  // namespace

std::unique_ptr<Station> MakeDelayStation(uint32_t id) {
  return std::make_unique<DelayStation>(id);
}

}  // namespace serq::sim
