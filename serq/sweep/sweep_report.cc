#include "serq/sweep/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "stats/format.h"
#include "stats/stats.h"
#include "serq-report/render.h"
#include "serq-report/table.h"
#include "serq/sweep/grid.h"
#include "ir/json.h"

namespace serq {
namespace {

using report::Align;
using report::Column;
using report::CsvField;
using report::FormatFixed;
using report::FormatShortest;

// "10 to 20" of the merged points' figures `of` gives (`none`: of the
// points it gives none of, a drained run's horizon), for a window that
// differs by point.
template <typename Of>
std::string Range(const SweepTable& t, Of of) {
  double lo = 0, hi = 0;
  bool any = false, none = false;
  for (const SweepPoint& p : t.points) {
    if (p.status != SweepPoint::kMerged) continue;
    std::optional<double> x = of(p);
    if (!x) {
      none = true;
      continue;
    }
    lo = any ? std::min(lo, *x) : *x;
    hi = any ? std::max(hi, *x) : *x;
    any = true;
  }
  std::string out = any ? (lo == hi ? FormatShortest(lo) : absl::StrCat(FormatShortest(lo), " to ",
                                                                        FormatShortest(hi)))
                        : "";
  if (none) absl::StrAppend(&out, any ? ", or " : "", "none");
  return out;
}

std::string RunLine(const SweepTable& t) {
  std::vector<std::string> seeds;
  for (uint64_t s : t.seeds) seeds.push_back(absl::StrCat(s));
  size_t points = t.points.size();
  // The horizon, warmup and seeds are the merged results'; with no point
  // merged (every one failed or missing) there are none to say: "horizon
  // 0, warmup 0, seeds " was said instead. A window that differs by point
  // is said as the range of its points' (a swept param may set it).
  const std::string horizon =
      t.horizon_by_point
          ? absl::StrCat(", horizon by point (", Range(t, [](const SweepPoint& p) {
                           return p.drained ? std::nullopt : std::optional<double>(p.horizon);
                         }), ")")
      : t.drained ? ", no horizon (each run to its last event)"
                  : absl::StrCat(", horizon ", FormatShortest(t.horizon));
  const std::string warmup =
      t.warmup_by_point
          ? absl::StrCat(", warmup by point (",
                         Range(t, [](const SweepPoint& p) { return std::optional<double>(p.warmup); }), ")")
          : absl::StrCat(", warmup ", FormatShortest(t.warmup));
  const std::string run = seeds.empty()
                              ? std::string(", no point merged: horizon, warmup and seed as the program gives them")
                              : absl::StrCat(horizon, warmup, seeds.size() == 1 ? ", seed " : ", seeds ",
                                             absl::StrJoin(seeds, ", "));
  return absl::StrCat("sweep of ", PlanPrograms(t.plan), ": ", points, points == 1 ? " point" : " points",
                      " x ", t.plan.replications(),
                      t.plan.replications() == 1 ? " replication" : " replications", run);
}

// A point's last column: its steady-state verdict (docs/report.md §steady
// state), or why it has no figures.
std::string Status(const SweepPoint& p) {
  switch (p.status) {
    case SweepPoint::kFailed: return "failed";
    case SweepPoint::kMissing: return "missing";
    case SweepPoint::kMerged: break;
  }
  return VerdictWord(p.health.verdict);
}

// The figures of a point that has none (failed, missing): undefined.
std::vector<Figure> FiguresOf(const SweepTable& t, const SweepPoint& p) {
  return p.status == SweepPoint::kMerged ? p.figures : std::vector<Figure>(t.metrics.size());
}

std::string Shortest(const Figure& f, double x) { return f.defined ? FormatShortest(x) : ""; }

// A note under the table when some figure's 95% interval is finite and
// wider than the figure itself: the status (a steady-state verdict) says
// nothing of it, and with few replications Student's t is large (12.71 at
// 2, 4.30 at 3, 2.78 at 5). "" when there is none.
std::string WideIntervals(const SweepTable& t) {
  int wide = 0;
  std::string first;
  uint32_t fewest = 0;
  for (const SweepPoint& p : t.points) {
    if (p.status != SweepPoint::kMerged) continue;
    for (size_t k = 0; k < p.figures.size(); ++k) {
      const Figure& f = p.figures[k];
      if (!f.defined || !std::isfinite(f.half_width) || !(f.half_width > std::fabs(f.value))) continue;
      if (wide++ == 0) {
        std::vector<std::string> at;
        if (!p.program.empty()) at.push_back(absl::StrCat("program=", p.program));
        for (const sweep::Setting& s : p.settings) {
          if (!s.lacked()) at.push_back(absl::StrCat(s.name(), "=", SettingText(s)));
        }
        first = absl::StrCat(t.metrics[k].label, at.empty() ? "" : absl::StrCat(" at ", absl::StrJoin(at, ", ")),
                             ": ", FigureCells(f).first, " ± ", FigureCells(f).second);
        fewest = p.replications;
      }
    }
  }
  if (wide == 0) return "";
  std::string why =
      fewest >= 2
          ? absl::StrCat("; with ", fewest, " replications a half-width is ",
                         FormatFixed(report::StudentTQuantile(0.975, fewest - 1), 2),
                         " standard errors of the replications' figures (t(0.975, ", fewest - 1,
                         ")), so more replications narrow it fast (5: ",
                         FormatFixed(report::StudentTQuantile(0.975, 4), 2), "; 10: ",
                         FormatFixed(report::StudentTQuantile(0.975, 9), 2), ")")
          : "";
  return absl::StrCat("\nnote: ", wide, wide == 1 ? " figure has" : " figures have",
                      " a 95% interval wider than the figure itself (", first, ")", why,
                      "; a status says whether a point settled, not how precise its figures are\n");
}

// Under a table of several programs: the params each program lacks ("-"
// in its rows), "" when none lacks one.
std::string Lacks(const SweepTable& t) {
  std::string out;
  for (const sweep::SweptProgram& p : t.plan.programs()) {
    if (p.lacks().empty()) continue;
    std::vector<std::string> names(p.lacks().begin(), p.lacks().end());
    absl::StrAppend(&out, "\nnote: ", p.path(), " has no param ", absl::StrJoin(names, ", "),
                    " (\"-\" in its rows): its points are over the others");
  }
  return out.empty() ? "" : absl::StrCat(out, "\n");
}

std::string TextTable(const SweepTable& t, bool markdown) {
  std::vector<Column> columns;
  // A sweep of several programs: which, first.
  const bool several = t.plan.programs_size() > 0;
  if (several) columns.push_back({"program", Align::kLeft, 0});
  // Numbers right-aligned, words (a policy) left.
  for (const sweep::Axis& a : t.plan.axis()) {
    columns.push_back({a.name(), a.word_size() > 0 ? Align::kLeft : Align::kRight, 0});
  }
  for (const Metric& m : t.metrics) {
    columns.push_back({m.label, Align::kRight, 6});
    columns.push_back({"±95%", Align::kRight, 6});
  }
  columns.push_back({"status", Align::kLeft, 0});
  report::Table table(columns);
  for (const SweepPoint& p : t.points) {
    std::vector<std::string> row;
    if (several) row.push_back(p.program);
    for (const sweep::Setting& s : p.settings) row.push_back(SettingText(s));
    for (const Figure& f : FiguresOf(t, p)) {
      auto [value, half_width] = FigureCells(f);
      row.push_back(std::move(value));
      row.push_back(std::move(half_width));
    }
    row.push_back(Status(p));
    table.AddRow(std::move(row));
  }
  std::string note = WideIntervals(t);
  if (several) note = absl::StrCat(Lacks(t), note);
  if (!markdown) return absl::StrCat(RunLine(t), "\n\n", table.RenderText(), note);
  // Labels such as p99(ttft) have nothing markdown reads; names may.
  return absl::StrCat(report::EscapeMarkdown(RunLine(t)), "\n\n", table.RenderMarkdown(),
                      note.empty() ? "" : absl::StrCat("\n", report::EscapeMarkdown(note)));
}

// `rounded`: each figure and its half-width as the text table prints them
// (FigureCells: to what the ± supports), for the page's table; else every
// digit, for a program to read.
std::string Csv(const SweepTable& t, bool rounded) {
  std::vector<std::string> header;
  const bool several = t.plan.programs_size() > 0;
  if (several) header.push_back("program");
  for (const sweep::Axis& a : t.plan.axis()) header.push_back(CsvField(a.name()));
  header.push_back("replications");
  for (const Metric& m : t.metrics) {
    header.push_back(CsvField(m.label));
    header.push_back(CsvField(absl::StrCat(m.label, " hw95")));
  }
  header.push_back("status");
  std::string out = absl::StrCat(absl::StrJoin(header, ","), "\n");
  for (const SweepPoint& p : t.points) {
    std::vector<std::string> row;
    if (several) row.push_back(CsvField(p.program));
    // A param the point's program lacks: an empty field.
    for (const sweep::Setting& s : p.settings) row.push_back(s.lacked() ? "" : CsvField(SettingText(s)));
    row.push_back(absl::StrCat(p.replications));
    for (const Figure& f : FiguresOf(t, p)) {
      if (rounded && f.defined) {
        auto [value, half_width] = FigureCells(f);
        row.push_back(std::move(value));
        row.push_back(std::move(half_width));
        continue;
      }
      row.push_back(Shortest(f, f.value));
      row.push_back(Shortest(f, f.half_width));
    }
    row.push_back(Status(p));
    absl::StrAppend(&out, absl::StrJoin(row, ","), "\n");
  }
  return out;
}

std::string Json(const SweepTable& t) {
  std::vector<std::string> seeds;
  for (uint64_t s : t.seeds) seeds.push_back(absl::StrCat(s));
  std::vector<std::string> params;
  for (const sweep::Axis& a : t.plan.axis()) params.push_back(JsonString(a.name()));
  std::vector<std::string> metrics;
  for (const Metric& m : t.metrics) metrics.push_back(JsonString(m.label));
  // Several programs: "programs" lists them, and each point names its own.
  std::vector<std::string> programs;
  for (const sweep::SweptProgram& p : t.plan.programs()) programs.push_back(JsonString(p.path()));
  std::string head = programs.empty() ? absl::StrCat("\"program\": ", JsonString(t.plan.program()))
                                      : absl::StrCat("\"programs\": [", absl::StrJoin(programs, ", "), "]");
  std::string out = absl::StrCat("{\n  ", head,
                                 ",\n  \"horizon\": ",
                                 seeds.empty() || t.drained || t.horizon_by_point ? "null" : JsonNumber(t.horizon),
                                 ",\n  \"warmup\": ", seeds.empty() || t.warmup_by_point ? "null" : JsonNumber(t.warmup),
                                 ",\n  \"seed\": [",
                                 absl::StrJoin(seeds, ", "), "],\n  \"replications\": ",
                                 t.plan.replications(), ",\n  \"parameters\": [",
                                 absl::StrJoin(params, ", "), "],\n  \"metrics\": [",
                                 absl::StrJoin(metrics, ", "), "],\n  \"points\": [");
  for (size_t i = 0; i < t.points.size(); ++i) {
    const SweepPoint& p = t.points[i];
    std::vector<std::string> settings;
    for (const sweep::Setting& s : p.settings) {
      if (s.lacked()) continue;  // the point's program has no such param
      settings.push_back(absl::StrCat(JsonString(s.name()), ": ",
                                      s.word().empty() ? JsonNumber(s.value()) : JsonString(s.word())));
    }
    std::vector<std::string> figures;
    const std::vector<Figure> point_figures = FiguresOf(t, p);
    for (size_t k = 0; k < point_figures.size(); ++k) {
      const Figure& f = point_figures[k];
      figures.push_back(
          f.defined ? absl::StrCat(JsonString(t.metrics[k].label), ": {\"value\": ", JsonNumber(f.value),
                                   ", \"half_width\": ", JsonNumber(f.half_width), "}")
                    : absl::StrCat(JsonString(t.metrics[k].label), ": {}"));
    }
    std::string status = absl::StrCat(", \"status\": ", JsonString(Status(p)));
    if (p.status == SweepPoint::kFailed) absl::StrAppend(&status, ", \"failure\": ", JsonString(p.failure));
    if (p.status == SweepPoint::kMerged) {
      absl::StrAppend(&status, ", \"in_progress_share\": ", JsonNumber(p.health.in_progress_share));
      // The window where it differs by point: the top level's is null.
      if (t.horizon_by_point) {
        absl::StrAppend(&status, ", \"horizon\": ", p.drained ? "null" : JsonNumber(p.horizon));
      }
      if (t.warmup_by_point) absl::StrAppend(&status, ", \"warmup\": ", JsonNumber(p.warmup));
    }
    absl::StrAppend(&out, i == 0 ? "\n" : ",\n", "    {",
                    p.program.empty() ? "" : absl::StrCat("\"program\": ", JsonString(p.program), ", "),
                    "\"settings\": {", absl::StrJoin(settings, ", "),
                    "}, \"figures\": {", absl::StrJoin(figures, ", "), "}", status, "}");
  }
  absl::StrAppend(&out, t.points.empty() ? "]\n}\n" : "\n  ]\n}\n");
  return out;
}

}  // namespace

std::string RoundedSweepCsv(const SweepTable& table) { return Csv(table, true); }

absl::StatusOr<std::string> RenderSweepReport(const SweepTable& table, absl::string_view format) {
  if (format == "text") return TextTable(table, false);
  if (format == "md") return TextTable(table, true);
  if (format == "csv") return Csv(table, false);
  if (format == "json") return Json(table);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --format '", format, "' (expected text, csv, json or md)"));
}

}  // namespace serq
