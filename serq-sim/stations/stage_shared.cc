#include "serq-sim/stations/stage_shared.h"

#include <algorithm>

namespace serq::sim {
namespace {

class SharedStation final : public Station {
 public:
  SharedStation(uint32_t id, SharedStages* group, int stage)
      : Station(id), group_(group), stage_(stage) {}

  // A single-stage run on a shared stage is a flow of one stage.
  void Arrive(StageHost& host, const Job& job) override {
    uint32_t self = id();
    group_->Start(host, job.session, absl::MakeConstSpan(&self, 1), job.work);
  }
  bool OnEvent(StageHost&, uint32_t, std::vector<SessionId>*) override { return false; }

  uint32_t Queue() const override { return group_->solver().FlowsAt(stage_); }
  uint32_t Busy() const override { return group_->solver().FlowsAt(stage_); }
  double Work(double now) const override { return group_->solver().WorkAt(stage_, now); }

  double PresentIntegral(double now) const override {
    return group_->solver().PresentIntegral(stage_, now);
  }

  void Report(double now, double window, results::StageStats* out) const override {
    Station::Report(now, window, out);
    flow::FlowSolver& solver = group_->solver();
    out->set_mean_present(window > 0 ? solver.PresentIntegral(stage_, now) / window : 0);
    out->set_utilisation(window > 0 ? solver.UtilisationIntegral(stage_, now) / window : 0);
  }

 private:
  SharedStages* group_;
  int stage_;
};

}  // namespace

std::unique_ptr<Station> SharedStages::AddStation(uint32_t id, double phi) {
  int stage = solver_.AddStage(phi);
  if (id >= stage_by_station_.size()) stage_by_station_.resize(id + 1, -1);
  stage_by_station_[id] = stage;
  return std::make_unique<SharedStation>(id, this, stage);
}

void SharedStages::Start(StageHost& host, SessionId session,
                         absl::Span<const uint32_t> stations, double work) {
  scratch_.clear();
  for (uint32_t s : stations) scratch_.push_back(stage_of(s));
  int flow = solver_.Start(host.now(), scratch_, work);
  if (static_cast<size_t>(flow) >= session_of_.size()) session_of_.resize(flow + 1);
  session_of_[flow] = session;
  MarkDirty(host);
}

void SharedStages::MarkDirty(StageHost& host) {
  host.Cancel(target_);  // the next end may move: asked again at the end of the instant
  if (pending_) return;
  pending_ = true;
  host.Schedule(host.now_ticks(), target_, kReschedule, /*end_of_instant=*/true);
}

bool SharedStages::OnEvent(StageHost& host, uint32_t tag, std::vector<SessionId>* done) {
  if (tag == kReschedule) {
    pending_ = false;
    if (auto next = solver_.NextEnd()) {
      host.Reschedule(std::max(next->first - host.now(), 0.0), target_);
    }
    return false;  // bookkeeping, not an event of the model: not counted
  }
  std::vector<int> ended = solver_.FinishDue(host.now());
  for (int f : ended) done->push_back(session_of_[f]);
  MarkDirty(host);
  return true;
}

}  // namespace serq::sim
