// fifo(phi): one job at a time at rate phi, the others wait; in order of
// arrival, or by ascending `serve by` key (evaluated once, when the job
// arrived), ties by arrival. Non-preemptive: a job that arrives with a
// smaller key waits for the job in service. phi is evaluated when a
// service starts, with present = the jobs at the stage then.
#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "serq-sim/stations/stage.h"

namespace serq::sim {
namespace {

class FifoStation final : public Station {
 public:
  FifoStation(uint32_t id, bool phi_constant, double phi)
      : Station(id), phi_constant_(phi_constant), phi_(phi) {}

  void Arrive(StageHost& host, const Job& job) override {
    double now = host.now();
    SetPresent(now, present() + 1, true);
    Waiting w{job.session, job.work, now, next_sequence_++};
    if (!in_service_) {
      StartService(host, w);
      return;
    }
    waiting_work_ += job.work;
    if (job.key.empty() && keyed_.empty()) {
      queue_.push_back(w);
    } else {
      keyed_.push_back(Keyed{w, std::vector<double>(job.key.begin(), job.key.end())});
      std::push_heap(keyed_.begin(), keyed_.end(), Later());
    }
  }

  bool OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) override {
    if (!in_service_ || tag != service_tag_) return false;
    double now = host.now();
    in_service_ = false;
    done->push_back(current_);
    SetPresent(now, present() - 1, present() > 1);
    if (!keyed_.empty()) {
      std::pop_heap(keyed_.begin(), keyed_.end(), Later());
      const Waiting next = keyed_.back().waiting;
      keyed_.pop_back();
      waiting_work_ = keyed_.empty() && queue_.empty() ? 0 : waiting_work_ - next.work;
      StartService(host, next);
    } else if (!queue_.empty()) {
      const Waiting next = queue_.front();
      queue_.pop_front();
      waiting_work_ = queue_.empty() ? 0 : waiting_work_ - next.work;
      StartService(host, next);
    }
    return true;
  }

  uint32_t Busy() const override { return in_service_ ? 1 : 0; }
  double Work(double now) const override {
    if (!in_service_) return 0;
    double left = (ToSeconds(end_) - now) * current_phi_;
    return (left > 0 ? left : 0) + waiting_work_;
  }

 private:
  // A job waiting; its key (serve by) beside it only in keyed_, so that
  // the plain line moves no vector.
  struct Waiting {
    SessionId session;
    double work;
    double arrival;
    uint64_t sequence;
  };
  struct Keyed {
    Waiting waiting;
    std::vector<double> key;
  };
  // The heap's top is the smallest key (lexicographic), then the earliest.
  struct Later {
    bool operator()(const Keyed& a, const Keyed& b) const {
      return ServedBefore(b.key, b.waiting.sequence, a.key, a.waiting.sequence);
    }
  };

  void StartService(StageHost& host, const Waiting& w) {
    double phi = phi_;
    if (!phi_constant_ && !host.Phi(id(), present(), &phi)) return;
    in_service_ = true;
    current_ = w.session;
    current_phi_ = phi;
    const Ticks end = host.After(w.work / phi);
    end_ = end;
    BeginService(host, w.session, w.arrival);
    host.Schedule(end, id(), ++service_tag_);
  }

  bool phi_constant_;
  double phi_;
  bool in_service_ = false;
  SessionId current_ = 0;
  double current_phi_ = 0;
  Ticks end_ = 0;  // the service's end; in seconds only when work(S) asks
  uint32_t service_tag_ = 0;
  uint64_t next_sequence_ = 0;
  double waiting_work_ = 0;
  std::deque<Waiting> queue_;    // order of arrival
  std::vector<Keyed> keyed_;     // serve by: a min-heap by (key, arrival)
};

}  // namespace

std::unique_ptr<Station> MakeFifoStation(uint32_t id, bool phi_constant, double phi) {
  return std::make_unique<FifoStation>(id, phi_constant, phi);
}

}  // namespace serq::sim
