#include "diagram/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "diagram/decls.h"
#include "diagram/pool_kind.h"

namespace serq::view {
namespace {

struct Sum {
  double present = 0;
  double utilisation = 0;
  int replications = 0;
  // step: the batches' sums over the replications and the budgets (0:
  // unbounded), so that the fill is a ratio of sums, as the report's.
  uint64_t steps = 0, batch_jobs = 0, batch_tokens = 0;
  double seqs = 0, tokens = 0;
};

struct PoolSum {
  double used = 0;  // sum over the replications of the time-average used
  double peak = 0;  // the most used at once, over the replications
  double cap = 0;
  int replications = 0;
};

// The declarations of one kind (stages or pools) by name, with their
// array sizes, to place the results' elements on them.
class Elements {
 public:
  template <typename Decls>
  Elements(const Decls& all, const std::string& what, const Declarations& decls,
           Diagnostics* diags)
      : what_(what) {
    for (int i = 0; i < all.size(); ++i) {
      const auto& d = all.Get(i);
      by_name_.emplace(d.name(), i);
      int n = decls.ArraySize(d.has_size() ? &d.size() : nullptr, d.loc(),
                              absl::StrCat(what, "[", i, "].size"), diags);
      size_.push_back(std::max(n, 1));
    }
  }
  // The declaration of element `index` of `name`, or -1 with an error at
  // `path` (in the results) when the program has no such element.
  int Find(const std::string& name, uint32_t index, const std::string& path,
           Diagnostics* diags) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      diags->ErrorAtPath(path + ".name",
                         absl::StrCat("the program declares no ", what_, " '", name, "'"));
      return -1;
    }
    if (index >= uint32_t(size_[it->second])) {
      diags->ErrorAtPath(path + ".index", absl::StrCat("element ", index, " of '", name,
                                                       "', which has ", size_[it->second]));
      return -1;
    }
    return it->second;
  }
  int size(int decl) const { return size_[decl]; }

 private:
  std::string what_;
  std::map<std::string, int> by_name_;
  std::vector<int> size_;
};

// The fuller of a step element's two fills (jobs over seqs, tokens over
// tokens) and its budget's name; false when neither budget is bounded or
// no step started.
bool StepFill(const Sum& sum, double* fill, std::string* budget) {
  if (sum.steps == 0) return false;
  bool has = false;
  auto consider = [&](double budget_size, uint64_t batch, const char* name) {
    if (!(budget_size > 0) || std::isinf(budget_size)) return;
    double f = double(batch) / double(sum.steps) / budget_size;
    if (!has || f > *fill) {
      *fill = f;
      *budget = name;
    }
    has = true;
  };
  consider(sum.seqs, sum.batch_jobs, "seqs");
  consider(sum.tokens, sum.batch_tokens, "tokens");
  return has;
}

}  // namespace

bool AttachResults(const results::Results& results, const ir::Program& program,
                   Drawing* drawing, Diagnostics* diags) {
  size_t errors = diags->size();
  if (results.replication_size() == 0) {
    diags->ErrorInFile("the results hold no replication");
    return false;
  }
  Declarations decls(program);
  Elements stages(program.stage(), "stage", decls, diags);
  std::map<std::pair<int, uint32_t>, Sum> sums;  // (stage, element)
  for (int r = 0; r < results.replication_size(); ++r) {
    const results::Replication& rep = results.replication(r);
    for (int k = 0; k < rep.stage_size(); ++k) {
      const results::StageStats& st = rep.stage(k);
      int stage = stages.Find(st.name(), st.index(),
                              absl::StrCat("replication[", r, "].stage[", k, "]"), diags);
      if (stage < 0) continue;
      Sum& sum = sums[{stage, st.index()}];
      sum.present += st.mean_present();
      sum.utilisation += st.utilisation();
      sum.replications += 1;
      sum.steps += st.steps();
      sum.batch_jobs += st.batch_jobs();
      sum.batch_tokens += st.batch_tokens();
      sum.seqs = st.step_seqs();
      sum.tokens = st.step_tokens();
    }
  }
  Elements pools(program.pool(), "pool", decls, diags);
  std::map<std::pair<int, uint32_t>, PoolSum> pool_sums;  // (pool, element)
  for (int r = 0; r < results.replication_size(); ++r) {
    const results::Replication& rep = results.replication(r);
    for (int k = 0; k < rep.pool_size(); ++k) {
      const results::PoolStats& ps = rep.pool(k);
      int pool = pools.Find(ps.name(), ps.index(),
                            absl::StrCat("replication[", r, "].pool[", k, "]"), diags);
      if (pool < 0) continue;
      PoolSum& sum = pool_sums[{pool, ps.index()}];
      sum.used += ps.mean_used();
      sum.peak = std::max(sum.peak, ps.max_used());
      sum.cap = ps.cap();
      sum.replications += 1;
    }
  }
  if (diags->size() != errors) return false;

  std::map<int, StationStats> by_stage;
  std::map<int, int> elements, filled;
  for (const auto& [key, sum] : sums) {
    StationStats& s = by_stage[key.first];
    double present = sum.present / sum.replications;
    double util = sum.utilisation / sum.replications;
    s.present += present;
    s.util_mean += util;
    s.util_max = elements[key.first] == 0 ? util : std::max(s.util_max, util);
    elements[key.first] += 1;
    double fill = 0;
    std::string budget;
    if (StepFill(sum, &fill, &budget)) {
      s.fill_mean += fill;
      if (!s.has_fill || fill > s.fill_max) {
        s.fill_max = fill;
        s.fill_budget = budget;
      }
      s.has_fill = true;
      filled[key.first] += 1;
    }
  }
  for (auto& [stage, s] : by_stage) {
    s.elements = elements[stage];
    s.util_mean /= s.elements;
    s.has_util = program.stage(stage).kind() != ir::Stage::DELAY;
    s.step = program.stage(stage).kind() == ir::Stage::STEP;
    if (s.has_fill) s.fill_mean /= filled[stage];
  }
  // A pool is as full as its fullest element (the one that binds first).
  std::map<int, PoolSpanStats> by_pool;
  for (const auto& [key, sum] : pool_sums) {
    if (!(sum.cap > 0) || std::isinf(sum.cap)) continue;
    double mean = sum.used / sum.replications / sum.cap, peak = sum.peak / sum.cap;
    auto [it, first] = by_pool.emplace(key.first, PoolSpanStats{mean, peak});
    if (!first) {
      it->second.mean = std::max(it->second.mean, mean);
      it->second.peak = std::max(it->second.peak, peak);
    }
  }
  for (Row& row : drawing->rows) {
    for (Station& station : row.stations) {
      auto it = by_stage.find(station.stage);
      if (it != by_stage.end()) station.stats = it->second;
    }
    for (PoolSpan& span : row.pools) {
      auto it = by_pool.find(span.pool);
      if (it == by_pool.end()) continue;
      span.stats = it->second;
      span.stats->flag = FlagOrCounterPool(program, span.pool);
      bool array = pools.size(span.pool) > 1;
      absl::StrAppend(&span.label, "; used ",
                      absl::StrFormat("%.2f", it->second.mean), " of cap",
                      array ? " (fullest)" : "", ", peak ",
                      absl::StrFormat("%.2f", it->second.peak),
                      span.stats->flag ? " (a flag or counter, not load)" : "");
    }
  }
  return true;
}

std::vector<std::string> StatsLines(const Station& station) {
  if (!station.stats) return {"no results"};
  const StationStats& s = *station.stats;
  std::vector<std::string> lines = {absl::StrFormat("present %.2f", s.present)};
  if (s.step) {
    // The fill first: it is what the colour shows; then the time in a step.
    if (!s.has_fill) {
      lines.push_back("fill n/a");
    } else if (s.elements > 1) {
      lines.push_back(absl::StrFormat("%s fill %.2f max %.2f", s.fill_budget, s.fill_mean,
                                      s.fill_max));
    } else {
      lines.push_back(absl::StrFormat("%s fill %.2f", s.fill_budget, s.fill_max));
    }
    lines.push_back(s.elements > 1
                        ? absl::StrFormat("busy %.2f max %.2f", s.util_mean, s.util_max)
                        : absl::StrFormat("busy %.2f", s.util_mean));
  } else if (!s.has_util) {
    lines.push_back("util n/a");
  } else if (s.elements > 1) {
    lines.push_back(absl::StrFormat("util %.2f max %.2f", s.util_mean, s.util_max));
  } else {
    lines.push_back(absl::StrFormat("util %.2f", s.util_mean));
  }
  return lines;
}

std::vector<std::string> StationLines(const Station& station, bool with_results) {
  std::vector<std::string> lines = {station.name, station.kind};
  if (with_results) {
    std::vector<std::string> figures = StatsLines(station);
    lines.insert(lines.end(), figures.begin(), figures.end());
  }
  return lines;
}

std::string StationFill(const Station& station, bool with_results) {
  if (!with_results || !station.stats) return kPlainFill;
  const StationStats& s = *station.stats;
  if (s.step) return s.has_fill ? UtilisationColour(s.fill_max) : kNoCapacityFill;
  return s.has_util ? UtilisationColour(s.util_max) : kNoCapacityFill;
}

std::string UtilisationColour(double u) {
  struct Rgb { double r, g, b; };
  constexpr Rgb kLow{0xd9, 0xf0, 0xd3}, kMid{0xfe, 0xe0, 0x8b}, kHigh{0xf4, 0x6d, 0x43};
  if (!(u > 0)) u = 0;  // NaN too
  if (u > 1) u = 1;
  const Rgb& a = u <= 0.5 ? kLow : kMid;
  const Rgb& b = u <= 0.5 ? kMid : kHigh;
  double t = u <= 0.5 ? u / 0.5 : (u - 0.5) / 0.5;
  auto channel = [t](double x, double y) { return int(std::lround(x + (y - x) * t)); };
  return absl::StrFormat("#%02x%02x%02x", channel(a.r, b.r), channel(a.g, b.g),
                         channel(a.b, b.b));
}

}  // namespace serq::view
