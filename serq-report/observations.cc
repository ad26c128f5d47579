#include "serq-report/observations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "serq-report/stats.h"

namespace serq::report {
namespace {

// Samples of one name over every replication.
struct Pooled {
  Moments all;
  double sum = 0;                     // every sample, replication by replication
  std::vector<double> samples;        // every replication's, concatenated
  std::vector<double> means;          // one per replication that has samples
  std::vector<std::vector<double>> quantiles;  // per quantile, one per such replication
  const results::Observation* only = nullptr;  // the last of those replications'
};

void AddObservation(const std::string& name, Pooled& p, const std::vector<double>& quantiles,
                    double seconds, Report* report) {
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
  } else if (p.all.count() >= kMinBatchSamples) {
    const auto& s = p.only->sample();
    half_width = HalfWidth95(BatchMeans(absl::MakeConstSpan(s.data(), s.size()), kBatches));
    interval = Observation::BATCH_MEANS;
  } else {
    half_width = std::numeric_limits<double>::infinity();
  }
  // Infinite samples can make the spread NaN: then there is no interval.
  if (half_width && !std::isnan(*half_width)) {
    o->set_half_width(*half_width);
    o->set_interval(interval);
  }

  // Sorted in place: nothing reads the samples after this.
  std::sort(p.samples.begin(), p.samples.end());
  for (double q : quantiles) {
    o->add_quantile(SortedQuantile(p.samples, q / 100));
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

}  // namespace

void AddObservations(const MergedResults& merged, const std::vector<double>& quantiles,
                     Report* report) {
  std::map<std::string, Pooled> by_name;  // sorted by name, as the report prints
  for (const results::Replication* rep : merged.replications) {
    for (const results::Observation& obs : rep->observation()) {
      Pooled& p = by_name[obs.name()];
      if (obs.sample().empty()) continue;
      Moments m;
      for (double x : obs.sample()) m.Add(x);
      double sum = 0;
      for (double x : obs.sample()) sum += x;
      p.all.Merge(m);
      p.sum += sum;
      p.means.push_back(m.mean());
      p.samples.insert(p.samples.end(), obs.sample().begin(), obs.sample().end());
      p.only = &obs;
      std::vector<double> sorted(obs.sample().begin(), obs.sample().end());
      std::sort(sorted.begin(), sorted.end());
      p.quantiles.resize(quantiles.size());
      for (size_t k = 0; k < quantiles.size(); ++k) {
        p.quantiles[k].push_back(SortedQuantile(sorted, quantiles[k] / 100));
      }
    }
  }
  // Every replication measured the window [warmup, horizon], those that
  // recorded no sample of a name too.
  double seconds = static_cast<double>(merged.replications.size()) *
                   (merged.first->horizon() - merged.first->warmup());
  for (auto& [name, pooled] : by_name) {
    AddObservation(name, pooled, quantiles, seconds, report);
  }
}

}  // namespace serq::report
