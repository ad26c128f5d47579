#include "diagram/stats.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "diagram/decls.h"

namespace serq::view {
namespace {

struct Sum {
  double present = 0;
  double utilisation = 0;
  int replications = 0;
};

}  // namespace

bool AttachResults(const results::Results& results, const ir::Program& program,
                   Drawing* drawing, Diagnostics* diags) {
  size_t errors = diags->size();
  if (results.replication_size() == 0) {
    diags->ErrorInFile("the results hold no replication");
    return false;
  }
  Declarations decls(program);
  std::map<std::string, int> stage_by_name;
  std::map<int, int> size;  // stage -> elements
  for (int i = 0; i < program.stage_size(); ++i) {
    stage_by_name.emplace(program.stage(i).name(), i);
    const ir::Stage& s = program.stage(i);
    int n = decls.ArraySize(s.has_size() ? &s.size() : nullptr, s.loc(),
                            absl::StrCat("stage[", i, "].size"), diags);
    size[i] = std::max(n, 1);
  }
  std::map<std::pair<int, uint32_t>, Sum> sums;  // (stage, element)
  for (int r = 0; r < results.replication_size(); ++r) {
    const results::Replication& rep = results.replication(r);
    for (int k = 0; k < rep.stage_size(); ++k) {
      const results::StageStats& st = rep.stage(k);
      std::string path = absl::StrCat("replication[", r, "].stage[", k, "]");
      auto it = stage_by_name.find(st.name());
      if (it == stage_by_name.end()) {
        diags->ErrorAtPath(path + ".name", absl::StrCat("the program declares no stage '",
                                                        st.name(), "'"));
        continue;
      }
      if (st.index() >= uint32_t(size[it->second])) {
        diags->ErrorAtPath(path + ".index",
                           absl::StrCat("element ", st.index(), " of '", st.name(),
                                        "', which has ", size[it->second]));
        continue;
      }
      Sum& sum = sums[{it->second, st.index()}];
      sum.present += st.mean_present();
      sum.utilisation += st.utilisation();
      sum.replications += 1;
    }
  }
  if (diags->size() != errors) return false;

  std::map<int, StationStats> by_stage;
  std::map<int, int> elements;
  for (const auto& [key, sum] : sums) {
    StationStats& s = by_stage[key.first];
    double present = sum.present / sum.replications;
    double util = sum.utilisation / sum.replications;
    s.present += present;
    s.util_mean += util;
    s.util_max = elements[key.first] == 0 ? util : std::max(s.util_max, util);
    elements[key.first] += 1;
  }
  for (auto& [stage, s] : by_stage) {
    s.elements = elements[stage];
    s.util_mean /= s.elements;
    s.has_util = program.stage(stage).kind() != ir::Stage::DELAY;
  }
  for (Row& row : drawing->rows) {
    for (Station& station : row.stations) {
      auto it = by_stage.find(station.stage);
      if (it != by_stage.end()) station.stats = it->second;
    }
  }
  return true;
}

std::vector<std::string> StatsLines(const Station& station) {
  if (!station.stats) return {"no results"};
  const StationStats& s = *station.stats;
  std::vector<std::string> lines = {absl::StrFormat("present %.2f", s.present)};
  if (!s.has_util) {
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
  return station.stats->has_util ? UtilisationColour(station.stats->util_max) : kNoCapacityFill;
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
