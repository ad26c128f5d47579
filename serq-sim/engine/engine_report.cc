// The end of a replication: its measurement window (started at the
// warm-up's end, checkpointed at its thirds for the steady-state verdict)
// and the report of what it measured. The event loop is engine.cc's.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/words.h"
#include "serq-sim/engine/engine.h"

namespace serq::sim {

void Engine::StartWindow(double at) {
  window_started_ = true;
  for (auto& station : stations_) {
    present_start_[station->id()] = station->Queue();
    station->StartWindow(at);
  }
  for (TimeAverage& a : in_progress_) a.Reset(at);
  if (shared_) shared_->StartWindow(at);
  double saved = now_;
  now_ = at;
  pools_.StartWindow(at);
  now_ = saved;
}

void Engine::Checkpoint() {
  int k = checkpoints_++;
  double at = CheckpointTime(k);
  station_integral_[k].clear();
  for (const auto& station : stations_) station_integral_[k].push_back(station->PresentIntegral(at));
  session_integral_[k].clear();
  for (const TimeAverage& a : in_progress_) session_integral_[k].push_back(a.Integral(at));
}

namespace {

// The time-averages over the window's thirds from the integrals at the
// end of the first two thirds and at the horizon.
template <typename Field>
void AddThirds(double first, double second, double whole, double window, Field* out) {
  if (!(window > 0)) return;
  double third = window / 3;
  out->Add(first / third);
  out->Add((second - first) / third);
  out->Add((whole - second) / third);
}

}  // namespace

void Engine::Report(results::Replication* out) {
  out->set_index(replication_);
  out->set_seed(stream_seed_);
  if (model_.drain) out->set_end(now_);
  const double window = now_ - model_.warmup;
  // The thirds judge a steady state over a horizon; a run without one has
  // none to judge (its checkpoints were never due).
  const double thirds = model_.drain ? 0 : window;
  for (size_t i = 0; i < model_.observations.size(); ++i) {
    results::Observation* o = out->add_observation();
    o->set_name(model_.observations[i]);
    observations_[i].WriteTo(o);
  }
  for (uint32_t id = 0; id < stations_.size(); ++id) {
    const StageDecl& d = model_.stages[model_.station_decl[id]];
    results::StageStats* st = out->add_stage();
    st->set_name(d.name);
    st->set_index(id - d.base);
    st->set_kind(std::string(StageKindWord(d.kind)));
    st->set_shared(d.shared);
    st->set_array(d.array);
    stations_[id]->Report(now_, window, st);
    st->set_present_start(present_start_[id]);
    st->set_present_end(stations_[id]->Queue());
    AddThirds(station_integral_[0][id], station_integral_[1][id],
              stations_[id]->PresentIntegral(now_), thirds, st->mutable_present_third());
  }
  for (uint32_t id = 0; id < pools_.count(); ++id) {
    const PoolDecl& d = model_.pools[model_.pool_decl[id]];
    results::PoolStats* p = out->add_pool();
    p->set_name(d.name);
    p->set_index(id - d.base);
    p->set_array(d.array);
    pools_.Report(id, now_, window, p);
  }
  for (size_t i = 0; i < model_.sessions.size(); ++i) {
    results::SessionStats* s = out->add_session();
    s->set_name(model_.sessions[i].name);
    s->set_arrived(arrived_[i]);
    s->set_ended(ended_[i]);
    s->set_in_progress(arrived_[i] - ended_[i]);
    s->set_arrived_window(arrived_window_[i]);
    s->set_ended_window(ended_window_[i]);
    s->set_prefills_window(prefills_window_[i]);
    s->set_prefill_tokens_window(prefill_tokens_window_[i]);
    s->set_decode_tokens_window(decode_tokens_window_[i]);
    AddThirds(session_integral_[0][i], session_integral_[1][i], in_progress_[i].Integral(now_),
              thirds, s->mutable_in_progress_third());
    if (model_.drain && last_arrival_[i] >= 0) {
      s->set_last_arrival(last_arrival_[i]);
      s->set_in_progress_last_arrival(in_progress_last_arrival_[i]);
    }
  }
  out->set_events(events_processed_);
  if (series_) series_->Release(out->mutable_series());
}

}  // namespace serq::sim
