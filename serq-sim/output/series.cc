#include "serq-sim/output/series.h"

#include <cmath>
#include <limits>
#include <string>

#include "ir/words.h"

namespace serq::sim {

SeriesRecorder::SeriesRecorder(const Model& model) : model_(model) {
  double last = std::floor(model.horizon / model.sample);
  // floor(h / DT) * DT may round above h: the last sample is at most h.
  while (last > 0 && last * model.sample > model.horizon) last -= 1;
  last_k_ = static_cast<uint64_t>(last);
  for (uint32_t id = 0; id < model.station_decl.size(); ++id) {
    const StageDecl& d = model.stages[model.station_decl[id]];
    results::StageSeries* s = series_.add_stage();
    s->set_name(d.name);
    s->set_index(id - d.base);
    s->set_array(d.array);
    s->set_kind(std::string(StageKindWord(d.kind)));
    step_.push_back(d.kind == ir::Stage::STEP);
  }
  for (uint32_t id = 0; id < model.pool_decl.size(); ++id) {
    const PoolDecl& d = model.pools[model.pool_decl[id]];
    results::PoolSeries* p = series_.add_pool();
    p->set_name(d.name);
    p->set_index(id - d.base);
    p->set_array(d.array);
  }
  for (const SessionDecl& d : model.sessions) series_.add_session()->set_name(d.name);
  preempted_.assign(model.station_decl.size(), 0);
  prefills_.assign(model.sessions.size(), 0);
  prefill_tokens_.assign(model.sessions.size(), 0);
  decode_tokens_.assign(model.sessions.size(), 0);
  sketches_.resize(model.observations.size());
  for (const std::string& name : model.observations) series_.add_observation()->set_name(name);
}

void SeriesRecorder::Release(results::Series* out) {
  // A program without prefill or decode runs has no tokens to show.
  if (!tokens_) {
    for (results::SessionSeries& s : *series_.mutable_session()) {
      s.clear_prefills();
      s.clear_prefill_tokens();
      s.clear_decode_tokens();
    }
  }
  out->Swap(&series_);
}

void SeriesRecorder::RecordBefore(double time, bool inclusive,
                                  const std::vector<std::unique_ptr<Station>>& stations,
                                  const Pools& pools, const std::vector<uint64_t>& arrived,
                                  const std::vector<uint64_t>& ended) {
  while (k_ <= last_k_ && (next_ < time || (inclusive && next_ <= time))) {
    Record(next_, stations, pools, arrived, ended);
    ++k_;
    next_ = k_ <= last_k_ ? static_cast<double>(k_) * model_.sample
                          : std::numeric_limits<double>::infinity();
  }
}

void SeriesRecorder::Record(double time, const std::vector<std::unique_ptr<Station>>& stations,
                            const Pools& pools, const std::vector<uint64_t>& arrived,
                            const std::vector<uint64_t>& ended) {
  series_.add_time(time);
  for (uint32_t id = 0; id < stations.size(); ++id) {
    results::StageSeries* s = series_.mutable_stage(id);
    s->add_present(stations[id]->Queue());
    // A step station's Busy() is the jobs of the step in progress.
    if (step_[id]) {
      s->add_batch(stations[id]->Busy());
      uint64_t total = stations[id]->Preemptions();
      s->add_preempted(static_cast<double>(total - preempted_[id]));
      preempted_[id] = total;
    }
  }
  for (uint32_t id = 0; id < pools.count(); ++id) {
    results::PoolSeries* p = series_.mutable_pool(id);
    p->add_used(pools.used(id));
    p->add_loaded(pools.loaded(id));
    // A cache pool's cached blocks no one references (inside its free units).
    if (pools.cache_block(id) > 0) p->add_evictable(pools.CachedFree(id));
  }
  for (size_t i = 0; i < arrived.size(); ++i) {
    results::SessionSeries* s = series_.mutable_session(i);
    s->add_in_progress(static_cast<double>(arrived[i] - ended[i]));
    s->add_prefills(prefills_[i]);
    s->add_prefill_tokens(prefill_tokens_[i]);
    s->add_decode_tokens(decode_tokens_[i]);
    prefills_[i] = prefill_tokens_[i] = decode_tokens_[i] = 0;
  }
  for (size_t i = 0; i < sketches_.size(); ++i) {
    results::ObservationSeries* o = series_.mutable_observation(i);
    report::QuantileSketch& q = sketches_[i];
    o->add_count(static_cast<double>(q.count()));
    bool any = q.count() > 0;
    o->add_p50(any ? q.Quantile(0.5) : 0);
    o->add_p90(any ? q.Quantile(0.9) : 0);
    o->add_p99(any ? q.Quantile(0.99) : 0);
    if (any) q = report::QuantileSketch();
  }
}

}  // namespace serq::sim
