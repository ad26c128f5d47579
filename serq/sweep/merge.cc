#include "serq/sweep/merge.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "stats/merge.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/sweep.h"

namespace serq {
namespace {

// The first line of a task's error that says something (its diagnostics'
// first line), for the one-line list of failed points.
std::string FirstLine(absl::string_view text) {
  size_t end = text.find('\n');
  return std::string(text.substr(0, end));
}

}  // namespace

absl::StatusOr<SweepTable> MergeSweep(const std::string& dir, const std::vector<Metric>& metrics) {
  auto plan = ReadPlan(dir);
  if (!plan.ok()) return plan.status();
  SweepTable table;
  table.plan = *plan;
  const uint64_t count = TaskCount(*plan);
  const uint32_t reps = plan->replications();
  std::vector<sweep::Task> tasks(count);
  std::vector<bool> present(count, false);
  for (uint64_t i = 0; i < count; ++i) {
    std::string path = TaskPath(dir, i);
    absl::StatusOr<sweep::Task> read = ReadTask(dir, i);
    if (absl::IsNotFound(read.status())) continue;
    if (!read.ok()) return read.status();
    sweep::Task& t = tasks[i] = *std::move(read);
    const PlanPoint at = PointOfPlan(*plan, i / reps);
    const std::vector<sweep::Setting>& want = at.settings;
    bool same = t.task() == i && t.point() == i / reps && t.replication() == i % reps &&
                t.program() == static_cast<uint32_t>(std::max(at.program, 0)) &&
                t.setting_size() == static_cast<int>(want.size());
    for (size_t k = 0; same && k < want.size(); ++k) {
      same = t.setting(k).SerializeAsString() == want[k].SerializeAsString();
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: the file is task ", t.task(), " (", PointText({t.setting().begin(), t.setting().end()}),
          ", replication ", t.replication(), "), not task ", i, " of this sweep (", PointText(at),
          ", replication ", i % reps, ")"));
    }
    // Its results are its one replication (a task file with another's
    // merged as that one, silently).
    if (t.has_results() &&
        (t.results().replication_size() != 1 || t.results().replication(0).index() != i % reps)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: task ", i, " is replication ", i % reps, ", and its results hold ",
          t.results().replication_size() == 1 ? absl::StrCat("replication ", t.results().replication(0).index())
                                              : absl::StrCat(t.results().replication_size(), " replications")));
    }
    present[i] = true;
  }
  table.metrics = metrics;
  std::set<uint64_t> seeds;
  bool first = true;
  // Each point's replications merged, then the figures: with several
  // programs the default figures are known only once every program's
  // first point is.
  std::vector<std::optional<report::MergedResults>> merged_at;
  std::vector<Metric> common;   // several programs: the default figures every program has
  std::set<int> defaulted;      // the programs whose first merged point gave them
  for (uint64_t p = 0; p * reps < count; ++p) {
    SweepPoint point;
    const PlanPoint at = PointOfPlan(*plan, p);
    point.settings = at.settings;
    if (at.program >= 0) point.program = at.path;
    point.replications = reps;
    merged_at.emplace_back();
    std::vector<report::ResultsFile> files;
    for (uint32_t r = 0; r < reps; ++r) {
      const uint64_t i = p * reps + r;
      if (!present[i]) {
        if (point.status == SweepPoint::kMerged) point.status = SweepPoint::kMissing;
        table.missing.push_back(i);
        continue;
      }
      if (tasks[i].has_failure()) {
        if (point.status != SweepPoint::kFailed) {
          point.status = SweepPoint::kFailed;
          point.failure = absl::StrCat("task ", i, " ", tasks[i].failure().what(), ": ",
                                       FirstLine(tasks[i].failure().error()));
        }
        continue;
      }
      files.push_back({TaskPath(dir, i), &tasks[i].results()});
    }
    if (point.status != SweepPoint::kMerged) {
      table.points.push_back(std::move(point));
      continue;
    }
    auto merged = report::MergeResults(files);
    if (!merged.ok()) return merged.status();
    point.horizon = merged->first->horizon();
    point.drained = merged->first->drained();
    point.warmup = merged->first->warmup();
    if (first) {
      first = false;
      table.horizon = point.horizon;
      table.drained = point.drained;
      table.warmup = point.warmup;
    }
    if (point.drained != table.drained || (!point.drained && point.horizon != table.horizon)) {
      table.horizon_by_point = true;
    }
    if (point.warmup != table.warmup) table.warmup_by_point = true;
    if (metrics.empty() && defaulted.insert(at.program).second) {
      std::vector<Metric> mine = DefaultMetrics(*merged);
      if (defaulted.size() == 1) {
        common = std::move(mine);
      } else {
        std::vector<Metric> both;
        for (const Metric& m : common) {
          for (const Metric& x : mine) {
            if (x.label == m.label) {
              both.push_back(m);
              break;
            }
          }
        }
        common = std::move(both);
      }
    }
    seeds.insert(merged->seeds.begin(), merged->seeds.end());
    table.times.insert(merged->first->time_observation().begin(), merged->first->time_observation().end());
    point.health = ComputeHealth(*merged);
    merged_at.back() = *std::move(merged);
    table.points.push_back(std::move(point));
  }
  if (table.metrics.empty()) table.metrics = std::move(common);
  for (size_t p = 0; p < table.points.size(); ++p) {
    if (!merged_at[p]) continue;
    auto figures = ComputeFigures(*merged_at[p], table.metrics);
    if (!figures.ok()) return figures.status();
    table.points[p].figures = *std::move(figures);
  }
  table.seeds.assign(seeds.begin(), seeds.end());
  return table;
}

std::vector<std::string> SweepProblems(const std::string& dir, const SweepTable& table) {
  std::vector<std::string> lines;
  std::vector<const SweepPoint*> failed;
  for (const SweepPoint& p : table.points) {
    if (p.status == SweepPoint::kFailed) failed.push_back(&p);
  }
  const size_t points = table.points.size();
  if (!failed.empty()) {
    std::string head = absl::StrCat(failed.size(), " of ", points, points == 1 ? " point" : " points",
                                    " failed:");
    // One failure on one line; more, one a line under the count.
    if (failed.size() == 1) {
      lines.push_back(absl::StrCat(head, " ", PointText(failed[0]->settings, failed[0]->program), ": ",
                                   failed[0]->failure));
    } else {
      lines.push_back(head);
      for (const SweepPoint* p : failed) {
        lines.push_back(absl::StrCat("  ", PointText(p->settings, p->program), ": ", p->failure));
      }
    }
  }
  const std::vector<uint64_t>& missing = table.missing;
  if (!missing.empty()) {
    const uint64_t count = TaskCount(table.plan);
    std::vector<uint64_t> shown(missing.begin(), missing.begin() + std::min<size_t>(missing.size(), 10));
    lines.push_back(absl::StrCat(
        "'", dir, "' lacks ", missing.size(), " of its ", count, " task files: task",
        missing.size() == 1 ? " " : "s ", absl::StrJoin(shown, ", "), missing.size() > 10 ? ", ..." : "",
        "; run one with: serq sweep --out ", dir, " --task ", missing[0]));
  }
  return lines;
}

}  // namespace serq
