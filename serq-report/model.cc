#include "serq-report/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "stats/format.h"
#include "serq-report/observations.h"
#include "serq-report/steady_state.h"
#include "serq-report/throughput.h"
#include "stats/stats.h"

namespace serq::report {
namespace {

// Sums of infinite figures (inf - inf) are the one way to NaN here; an
// undefined figure is absent, never NaN.
void ClearNaN(google::protobuf::Message* m) {
  const google::protobuf::Descriptor* desc = m->GetDescriptor();
  const google::protobuf::Reflection* refl = m->GetReflection();
  for (int i = 0; i < desc->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = desc->field(i);
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE && f->is_repeated()) {
      for (int k = 0, n = refl->FieldSize(*m, f); k < n; ++k) {
        ClearNaN(refl->MutableRepeatedMessage(m, f, k));
      }
    } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE &&
               !f->is_repeated() && refl->HasField(*m, f) && std::isnan(refl->GetDouble(*m, f))) {
      refl->ClearField(m, f);
    }
  }
}

// A step stage's fill: the mean batch over the budget, the headroom that
// its utilisation (the time in a step) does not show.
void AddFill(const results::StageStats& first, Stage* out) {
  if (first.step_seqs() > 0) {
    out->set_seqs_budget(first.step_seqs());
    if (out->has_mean_batch_jobs()) out->set_seqs_fill(out->mean_batch_jobs() / first.step_seqs());
  }
  if (first.step_tokens() > 0) {
    out->set_tokens_budget(first.step_tokens());
    if (out->has_mean_batch_tokens()) {
      out->set_tokens_fill(out->mean_batch_tokens() / first.step_tokens());
    }
  }
}

void AddStages(const MergedResults& merged, Report* report) {
  const auto& reps = merged.replications;
  double r = static_cast<double>(reps.size());
  for (int j = 0; j < reps[0]->stage_size(); ++j) {
    const results::StageStats& first = reps[0]->stage(j);
    double present = 0, utilisation = 0, service = 0, wait = 0;
    uint64_t done = 0, waited = 0, steps = 0, jobs = 0, tokens = 0;
    uint64_t preempted = 0, recomputed = 0;
    for (const results::Replication* rep : reps) {
      const results::StageStats& s = rep->stage(j);
      present += s.mean_present();
      utilisation += s.utilisation();
      done += s.done();
      service += s.service_sum();
      waited += s.waited();
      wait += s.wait_sum();
      steps += s.steps();
      jobs += s.batch_jobs();
      tokens += s.batch_tokens();
      preempted += s.preempted();
      recomputed += s.recomputed();
    }
    Stage* out = report->add_stage();
    out->set_name(ElementName(first.name(), first.array(), first.index()));
    out->set_kind(first.kind());
    out->set_shared(first.shared());
    out->set_mean_present(present / r);
    // An infinite server is never busy in any useful sense.
    if (first.kind() != "delay") out->set_utilisation(utilisation / r);
    out->set_done(done);
    if (done > 0) out->set_mean_service(service / static_cast<double>(done));
    if (first.kind() == "fifo" || first.kind() == "step") {
      out->set_waited(waited);
      if (waited > 0) out->set_mean_wait(wait / static_cast<double>(waited));
    }
    if (first.kind() == "step") {
      out->set_steps(steps);
      if (steps > 0) {
        out->set_mean_batch_jobs(static_cast<double>(jobs) / static_cast<double>(steps));
        out->set_mean_batch_tokens(static_cast<double>(tokens) / static_cast<double>(steps));
      }
      if (preempted > 0 || recomputed > 0) {
        out->set_preempted(preempted);
        out->set_recomputed(recomputed);
      }
      AddFill(first, out);
    }
  }
}

void AddPools(const MergedResults& merged, Report* report) {
  const auto& reps = merged.replications;
  double r = static_cast<double>(reps.size());
  for (int j = 0; j < reps[0]->pool_size(); ++j) {
    const results::PoolStats& first = reps[0]->pool(j);
    double used = 0, max_used = -std::numeric_limits<double>::infinity(), loaded = 0, wait = 0;
    uint64_t admitted = 0, evicted = 0, expired = 0, stalls = 0;
    for (const results::Replication* rep : reps) {
      const results::PoolStats& p = rep->pool(j);
      stalls += p.stalls();
      used += p.mean_used();
      max_used = std::max(max_used, p.max_used());
      loaded += p.mean_loaded();
      admitted += p.admitted();
      wait += p.wait_sum();
      evicted += p.evicted();
      expired += p.expired();
    }
    Pool* out = report->add_pool();
    out->set_name(ElementName(first.name(), first.array(), first.index()));
    out->set_cap(first.cap());
    out->set_mean_used(used / r);
    out->set_max_used(max_used);
    out->set_mean_loaded(loaded / r);
    out->set_admitted(admitted);
    if (admitted > 0) out->set_mean_wait(wait / static_cast<double>(admitted));
    out->set_evicted(evicted);
    out->set_expired(expired);
    if (stalls > 0) out->set_stalls(stalls);
  }
}

// A cache table row for every pool element with a cache (cache_block > 0).
void AddCaches(const MergedResults& merged, Report* report) {
  const auto& reps = merged.replications;
  double r = static_cast<double>(reps.size());
  for (int j = 0; j < reps[0]->pool_size(); ++j) {
    const results::PoolStats& first = reps[0]->pool(j);
    if (!(first.cache_block() > 0)) continue;
    uint64_t lookups = 0, evicted = 0;
    double looked = 0, hit = 0, evictable = 0;
    for (const results::Replication* rep : reps) {
      const results::PoolStats& p = rep->pool(j);
      lookups += p.lookups();
      looked += p.lookup_tokens();
      hit += p.hit_tokens();
      evictable += p.mean_evictable();
      evicted += p.blocks_evicted();
    }
    Cache* out = report->add_cache();
    out->set_name(ElementName(first.name(), first.array(), first.index()));
    out->set_block(first.cache_block());
    out->set_lookups(lookups);
    out->set_lookup_tokens(looked);
    out->set_hit_tokens(hit);
    // vLLM's rate: tokens hit over the tokens of the prefills looked up.
    if (looked > 0) out->set_hit_rate(hit / looked);
    out->set_mean_evictable(evictable / r);
    out->set_blocks_evicted(evicted);
  }
}

void AddSessions(const MergedResults& merged, Report* report) {
  const auto& reps = merged.replications;
  for (int j = 0; j < reps[0]->session_size(); ++j) {
    uint64_t arrived = 0, ended = 0, in_progress = 0, arrived_window = 0, ended_window = 0;
    uint64_t backlog = 0;  // in progress at the last arrival (a run without a horizon)
    std::optional<double> last_arrival;
    // Results that record the window's thirds record its counts too;
    // older ones have zeros there, which are no counts. A run without a
    // horizon records the counts and no thirds.
    bool windowed = true;
    for (const results::Replication* rep : reps) {
      const results::SessionStats& s = rep->session(j);
      arrived += s.arrived();
      ended += s.ended();
      in_progress += s.in_progress();
      arrived_window += s.arrived_window();
      ended_window += s.ended_window();
      windowed &= s.in_progress_third_size() == 3 || merged.first->drained();
      if (s.has_last_arrival()) {
        last_arrival = std::max(last_arrival.value_or(s.last_arrival()), s.last_arrival());
        backlog += s.in_progress_last_arrival();
      }
    }
    Session* out = report->add_session();
    out->set_name(reps[0]->session(j).name());
    out->set_arrived(arrived);
    out->set_ended(ended);
    out->set_in_progress(in_progress);
    if (windowed) {
      out->set_arrived_window(arrived_window);
      out->set_ended_window(ended_window);
    }
    if (last_arrival) {
      out->set_last_arrival(*last_arrival);
      out->set_in_progress_last_arrival(backlog);
    }
  }
}

}  // namespace

Report BuildReport(const MergedResults& merged, const std::vector<double>& quantiles) {
  Report report;
  report.set_program(merged.first->program());
  if (merged.first->drained()) {
    report.set_drained(true);
    double end = 0;
    for (const results::Replication* r : merged.replications) end = std::max(end, r->end());
    report.set_end(end);
  } else {
    report.set_horizon(merged.first->horizon());
  }
  report.set_warmup(merged.first->warmup());
  for (uint64_t seed : merged.seeds) report.add_seed(seed);
  report.set_replications(static_cast<uint32_t>(merged.replications.size()));
  for (double q : quantiles) report.add_quantile(q);
  AddObservations(merged, quantiles, &report);
  if (merged.replications.empty()) return report;
  AddStages(merged, &report);
  AddPools(merged, &report);
  AddCaches(merged, &report);
  AddSessions(merged, &report);
  AddThroughput(merged, &report);
  *report.mutable_steady_state() = JudgeSteadyState(merged);
  ClearNaN(&report);
  return report;
}

}  // namespace serq::report
