#include "serq-report/observations.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "stats/sketch.h"
#include "stats/stats.h"
#include "stats/summary.h"

namespace serq::report {
namespace {

// Samples of one name over every replication: kept ones, and summaries of
// the replications that had more than serq-sim keeps.
struct Pooled {
  Moments all;
  double sum = 0;                     // every sample, replication by replication
  std::vector<double> samples;        // every replication's kept samples, concatenated
  bool sketched = false;              // some replication is a summary: quantiles from `sketch`
  QuantileSketch sketch;              // the summaries' sketches, merged
  std::vector<double> means;          // one per replication that has samples
  std::vector<std::vector<double>> quantiles;  // per quantile, one per such replication
  const results::Observation* only = nullptr;  // the last of those replications'
};

// Percentiles (0 to 100) as fractions.
std::vector<double> Fractions(const std::vector<double>& percentiles) {
  std::vector<double> out;
  for (double q : percentiles) out.push_back(q / 100);
  return out;
}

void AddObservation(const std::string& name, Pooled& p, const std::vector<double>& quantiles,
                    bool drained, double seconds, Report* report) {
  Observation* o = report->add_observation();
  o->set_name(name);
  o->set_n(p.all.count());
  // Throughput: the samples (and their sum) per second of the windows
  // measured, so `observe out = output;` reads as tokens/s.
  if (seconds > 0) o->set_rate(static_cast<double>(p.all.count()) / seconds);
  if (p.all.count() == 0) return;
  o->set_sum(p.sum);
  if (seconds > 0) o->set_sum_rate(p.sum / seconds);
  o->set_mean(p.all.mean());
  if (std::optional<double> sd = p.all.Stddev(); sd && !std::isnan(*sd)) o->set_std(*sd);

  std::optional<double> half_width;
  Observation::Interval interval = Observation::NONE;
  if (p.means.size() >= 2) {
    half_width = HalfWidth95(p.means);
    interval = Observation::REPLICATIONS;
  } else if (drained) {
    // One replication of a run without a horizon measured every session of
    // a finite workload: its figures are the population's, not estimates
    // of a steady state, so batch means would give an interval of nothing.
  } else if (p.all.count() >= kMinBatchSamples) {
    // Kept samples, or a summary's batch sums (whole stored batches).
    const results::Observation& only = *p.only;
    std::vector<double> means =
        only.sample_size() > 0
            ? BatchMeans(absl::MakeConstSpan(only.sample().data(), only.sample().size()), kBatches)
            : BatchMeansOfSums(only.batches(), kBatches);
    half_width = HalfWidth95(means);
    if (half_width) {
      interval = Observation::BATCH_MEANS;
    } else {
      half_width = std::numeric_limits<double>::infinity();
    }
  } else {
    half_width = std::numeric_limits<double>::infinity();
  }
  // Infinite samples can make the spread NaN: then there is no interval.
  if (half_width && !std::isnan(*half_width)) {
    o->set_half_width(*half_width);
    o->set_interval(interval);
  }

  if (p.sketched) {
    // Kept samples join the summaries' sketch: one accuracy for the column.
    for (double x : p.samples) p.sketch.Add(x);
    for (double q : quantiles) o->add_quantile(p.sketch.Quantile(q / 100));
    o->set_quantile_relative_error(p.sketch.alpha());
  } else {
    // Reordered in place: nothing reads the samples after this.
    for (double x : SelectQuantiles(absl::MakeSpan(p.samples), Fractions(quantiles))) {
      o->add_quantile(x);
    }
  }
  // Each quantile's interval across the replications, as the mean's: the
  // replications' own quantiles are independent and identically
  // distributed estimates of it.
  if (p.means.size() >= 2) {
    for (const std::vector<double>& per_replication : p.quantiles) {
      std::optional<double> hw = HalfWidth95(per_replication);
      o->add_quantile_half_width(hw && !std::isnan(*hw) ? *hw
                                                         : std::numeric_limits<double>::infinity());
    }
  }
}

void AddReplicationQuantiles(const std::vector<double>& quantiles,
                             const std::function<double(double)>& quantile, Pooled* p) {
  p->quantiles.resize(quantiles.size());
  for (size_t k = 0; k < quantiles.size(); ++k) {
    p->quantiles[k].push_back(quantile(quantiles[k] / 100));
  }
}

}  // namespace

void AddObservations(const MergedResults& merged, const std::vector<double>& quantiles,
                     Report* report) {
  std::map<std::string, Pooled> by_name;  // sorted by name, as the report prints
  for (const results::Replication* rep : merged.replications) {
    for (const results::Observation& obs : rep->observation()) {
      Pooled& p = by_name[obs.name()];
      if (obs.sample().empty() && obs.count() == 0) continue;
      Moments m;
      double sum = 0;
      if (!obs.sample().empty()) {
        m.AddSamples(obs.sample());
        for (double x : obs.sample()) sum += x;
        // The replication's own quantiles, selected in its part of the
        // pooled samples (their order is not needed after this).
        const size_t begin = p.samples.size();
        p.samples.insert(p.samples.end(), obs.sample().begin(), obs.sample().end());
        std::vector<double> own = SelectQuantiles(
            absl::MakeSpan(p.samples.data() + begin, p.samples.size() - begin),
            Fractions(quantiles));
        p.quantiles.resize(quantiles.size());
        for (size_t k = 0; k < own.size(); ++k) p.quantiles[k].push_back(own[k]);
      } else {
        // A summary (merge checked its sketch).
        m = Moments::FromParts(obs.count(), obs.mean(), obs.m2());
        sum = obs.sum();
        QuantileSketch sketch;
        (void)QuantileSketch::Read(obs.sketch(), &sketch);
        AddReplicationQuantiles(quantiles, [&](double q) { return sketch.Quantile(q); }, &p);
        if (!p.sketched) p.sketch = QuantileSketch(sketch.alpha());
        p.sketch.Merge(sketch);
        p.sketched = true;
      }
      p.all.Merge(m);
      p.sum += sum;
      p.means.push_back(m.mean());
      p.only = &obs;
    }
  }
  // Every replication measured its window ([warmup, horizon], or [warmup,
  // end] in a drained run), those that recorded no sample of a name too.
  double seconds = 0;
  if (merged.first->drained()) {
    for (const results::Replication* r : merged.replications) seconds += merged.Window(*r);
  } else {
    seconds = static_cast<double>(merged.replications.size()) *
              (merged.first->horizon() - merged.first->warmup());
  }
  for (auto& [name, pooled] : by_name) {
    AddObservation(name, pooled, quantiles, merged.first->drained(), seconds, report);
  }
}

}  // namespace serq::report
