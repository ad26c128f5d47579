#include "serq/sweep/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/cli.h"
#include "ir/constant.h"
#include "ir/words.h"
#include "lang/link/link.h"
#include "stats/format.h"
#include "stats/merge.h"
#include "serq-report/table.h"
#include "serq/sweep/grid.h"

namespace serq {
namespace {

using report::FormatFixed;
using report::FormatShortest;

// lo + k * step as a grid's values are (GridValue: 15 significant digits,
// within [lo, hi]), so that the values print as the user would write them.
double ValueAt(const SearchSpec& s, int64_t k) { return GridValue(s.lo, s.step, k, s.hi); }

class Searcher {
 public:
  Searcher(const SearchSpec& spec, SearchOutcome* outcome) : spec_(spec), outcome_(outcome) {}

  // The verdict at grid index k (evaluated once), or false on an error.
  bool At(int64_t k, Verdict* verdict, CommandResult* error) {
    if (auto it = by_index_.find(k); it != by_index_.end()) {
      *verdict = outcome_->tried[it->second].verdict;
      return true;
    }
    SearchPoint point;
    point.value = ValueAt(spec_, k);
    if (!Evaluate(&point, error)) return false;
    by_index_[k] = static_cast<int>(outcome_->tried.size());
    *verdict = point.verdict;
    outcome_->tried.push_back(std::move(point));
    return true;
  }

  int IndexOf(int64_t k) const {
    auto it = by_index_.find(k);
    return it == by_index_.end() ? -1 : it->second;
  }

 private:
  bool Evaluate(SearchPoint* point, CommandResult* error) {
    DriverOptions options = spec_.base;
    options.defines.emplace_back(spec_.param, point->value);
    ir::Program program;
    if (!ParseAndLink(spec_.program, options, &program, error)) return false;
    results::Results all;
    uint32_t have = 0;
    uint32_t want = std::min(spec_.replications, spec_.max_replications);
    while (true) {
      SimOptions sim = options.sim;
      sim.replications = want;
      sim.first_replication = have;
      results::Results more;
      Diagnostics diags(InputName(spec_.program));
      if (!Simulate(program, sim, &more, &diags)) {
        *error = Failure(kExitInputRejected,
                         absl::StrCat(RenderProgramDiagnostics(diags, program, InputName(spec_.program)),
                                      ToolError("serq", absl::StrCat("the search stopped at ", spec_.param,
                                                                     "=", FormatShortest(point->value)))));
        return false;
      }
      if (have == 0) {
        all = more;
      } else {
        for (const results::Replication& r : more.replication()) *all.add_replication() = r;
      }
      all.set_replications(want);
      have = want;
      auto merged = report::MergeResults({{spec_.program, &all}});
      if (!merged.ok()) {
        *error = Failure(kExitInputRejected, ToolError("serq", merged.status().message()));
        return false;
      }
      auto figures = ComputeFigures(*merged, spec_.condition.metrics);
      if (!figures.ok()) {
        *error = Failure(kExitInputRejected, ToolError("serq", absl::StrCat("--until: ", figures.status().message())));
        return false;
      }
      point->figures = *std::move(figures);
      outcome_->times.insert(all.time_observation().begin(), all.time_observation().end());
      point->replications = have;
      point->health = ComputeHealth(*merged);
      point->verdict = Decide(spec_.condition, point->figures);
      point->why = point->verdict == Verdict::kPass ? "" : WhyNot(spec_.condition, point->figures);
      if (std::string overload = Overload(point->health); !overload.empty() && !spec_.allow_overload) {
        // Its figures are of completed work only: a point that did not
        // settle fails, whatever they say (more replications would not
        // change that).
        point->verdict = Verdict::kFail;
        point->why = overload;
        return true;
      }
      if (point->verdict != Verdict::kUndecided || have >= spec_.max_replications) return true;
      want = std::min(have * 2, spec_.max_replications);
    }
  }

  // Why a point is not in a steady state, or "" when it is.
  std::string Overload(const Health& h) const {
    std::string share = absl::StrCat(h.in_progress, " of the ", h.seen,
                                     " sessions its window saw in progress at the horizon");
    const bool flagged = spec_.flagged_share > 0
                             ? h.flagged > spec_.flagged_share * h.replications
                             : !Settled(h.verdict);
    if (flagged) {
      return absl::StrCat("not in a steady state (", VerdictWord(h.verdict),
                          spec_.flagged_share > 0 ? absl::StrCat(" in ", h.flagged, " of ", h.replications,
                                                                 " replications")
                                                  : "",
                          "): ", share,
                          "; its figures cover completed work only (--allow-overload judges them alone)");
    }
    if (h.in_progress_share > spec_.max_in_progress) {
      return absl::StrCat(share, ", more than ", FormatShortest(100 * spec_.max_in_progress),
                          "% (--max-in-progress)");
    }
    return "";
  }

  const SearchSpec& spec_;
  SearchOutcome* outcome_;
  std::map<int64_t, int> by_index_;
};

}  // namespace

bool RunSearch(const SearchSpec& spec, SearchOutcome* outcome, CommandResult* error) {
  *outcome = SearchOutcome();
  // The grid's last index, in doubles first: a range of 1e300 at a step
  // of 1e-300 would leave an int64 (and searched nothing, "every value
  // passes"). Up to 2^53, where every index is a double exactly.
  const double last = std::floor((spec.hi - spec.lo) / spec.step + 1e-9);
  if (last == 0) {
    // One point, lo: nothing to search between (an answer would call lo
    // the top of the range).
    *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("--step ", FormatShortest(spec.step),
                                                                " is more than the range [", FormatShortest(spec.lo),
                                                                ", ", FormatShortest(spec.hi),
                                                                "]: the search would try its low end alone")));
    return false;
  }
  if (!(last >= 0 && last <= 9007199254740992.0)) {
    *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("--step ", FormatShortest(spec.step), " over [",
                                                                FormatShortest(spec.lo), ", ", FormatShortest(spec.hi),
                                                                "] makes more than 2^53 points to search")));
    return false;
  }
  {
    // The range searched within the param's own (`in [low, high]`), which
    // every point's -D must keep: said here, before a point fails at its
    // edge. A program that does not link as it is says so below.
    ir::Program as_is;
    CommandResult unused;
    if (ParseAndLink(spec.program, spec.base, &as_is, &unused)) {
      absl::StatusOr<std::optional<std::pair<double, double>>> range = ParamRangeOf(as_is, spec.param);
      if (range.ok() && *range && (spec.lo < (*range)->first || spec.hi > (*range)->second)) {
        *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("--range ", FormatShortest(spec.lo), ":",
                                                                    FormatShortest(spec.hi), " of --param ",
                                                                    spec.param, " reaches outside the param's "
                                                                    "range [", FormatShortest((*range)->first), ", ",
                                                                    FormatShortest((*range)->second), "] in ",
                                                                    spec.program)));
        return false;
      }
    }
  }
  {
    // The condition's figures against the program, before any point runs.
    DriverOptions options = spec.base;
    options.defines.emplace_back(spec.param, spec.lo);
    ir::Program program;
    LinkFlagUses uses;
    if (!ParseAndLink(spec.program, options, &program, error, &uses)) {
      // --param naming no param of the program is a flag's mistake, said as
      // one (the link says "-D Q", a flag not given). Read from the program
      // as it is; one that links only at the searched values keeps its
      // link's error.
      ir::Program as_is;
      CommandResult unused;
      if (ParseAndLink(spec.program, spec.base, &as_is, &unused) &&
          std::none_of(as_is.param().begin(), as_is.param().end(),
                       [&](const ir::Param& p) { return p.name() == spec.param; })) {
        *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("--param ", spec.param, ": ", spec.program,
                                                                    " has no param '", spec.param, "'")));
      }
      return false;
    }
    if (spec.warn) {
      for (const std::string& w :
           UnusedLinkFlags(uses, ShareWord(spec.base.share), spec.base.sim.data_dir, spec.program)) {
        spec.warn(w);
      }
    }
    if (absl::Status s = CheckObserved(spec.condition.metrics, ProgramObservations(program)); !s.ok()) {
      *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("--until: ", s.message())));
      return false;
    }
  }
  Searcher s(spec, outcome);
  const auto top = static_cast<int64_t>(last);
  Verdict v;
  if (!s.At(0, &v, error)) return false;
  if (v != Verdict::kPass) {
    outcome->lowest = s.IndexOf(0);
    return true;
  }
  if (!s.At(top, &v, error)) return false;
  int64_t pass = 0, fail = top;
  if (v == Verdict::kPass) {
    pass = top;
  } else {
    // Invariant: pass passed, fail did not; the answer is in [pass, fail).
    while (fail - pass > 1) {
      if (spec.stop && spec.stop(outcome->tried[s.IndexOf(pass)], ValueAt(spec, fail))) {
        outcome->stopped = true;
        break;
      }
      int64_t mid = pass + (fail - pass) / 2;
      if (!s.At(mid, &v, error)) return false;
      (v == Verdict::kPass ? pass : fail) = mid;
    }
  }
  outcome->found = true;
  outcome->answer = ValueAt(spec, pass);
  outcome->above = pass == top ? -1 : s.IndexOf(fail);
  return true;
}

std::string RenderSearch(const SearchSpec& spec, const SearchOutcome& o) {
  const std::string& p = spec.param;
  std::string out = absl::StrCat("search of ", spec.program, ": the largest ", p, " in [",
                                 FormatShortest(spec.lo), ", ", FormatShortest(spec.hi), "] (step ",
                                 FormatShortest(spec.step), ") with ", spec.condition.text, "\n\n");
  auto at = [&](const SearchPoint& x) { return absl::StrCat(p, " = ", FormatShortest(x.value)); };
  int undecided = 0, grown = 0;
  for (const SearchPoint& x : o.tried) {
    if (x.verdict == Verdict::kUndecided) ++undecided;
    if (x.replications > std::min(spec.replications, spec.max_replications)) ++grown;
  }
  if (!o.found) {
    const SearchPoint& low = o.tried[o.lowest];
    absl::StrAppend(&out, "answer: none: ", at(low), ", the lowest value, ",
                    low.verdict == Verdict::kFail ? "fails"
                                                  : absl::StrCat("is undecided after ", low.replications,
                                                                 " replications"),
                    "\n");
  } else if (o.above < 0) {
    absl::StrAppend(&out, "answer: ", p, " = ", FormatShortest(o.answer),
                    ", the top of the range: every value searched passes\n");
  } else {
    const SearchPoint& above = o.tried[o.above];
    absl::StrAppend(&out, "answer: ", p, " = ", FormatShortest(o.answer), "; ", at(above),
                    ", one step above, ",
                    above.verdict == Verdict::kFail
                        ? "fails"
                        : absl::StrCat("is undecided after ", above.replications,
                                       " replications and counts as failing"),
                    "\n");
  }
  const size_t m = spec.condition.comparisons.size();
  absl::StrAppend(
      &out,
      "how sure: a point passes when the 95% interval of every figure meets its bound, and fails\n"
      "  when that of one misses it wholly; so a figure's verdict is wrong with probability at\n"
      "  most 2.5%",
      m > 1 ? absl::StrCat(" (a point's, over its ", m, " comparisons, at most ", m * 2.5, "%)") : "",
      ".\n  ", o.tried.size(), o.tried.size() == 1 ? " point" : " points", " tried; ", grown,
      " needed more than ", std::min(spec.replications, spec.max_replications),
      std::min(spec.replications, spec.max_replications) == 1 ? " replication; " : " replications; ", undecided, " stayed undecided at ", spec.max_replications,
      undecided > 0 ? " and counted as failing (the answer may be low)" : "",
      ".\n  The bisection takes the condition to hold below some ", p, " and fail above it.\n",
      spec.allow_overload
          ? "  --allow-overload: points are judged by their figures alone, settled or not.\n\n"
          : absl::StrCat("  A point not in a steady state, or with more than ",
                         FormatShortest(100 * spec.max_in_progress),
                         "% of its sessions in progress at the horizon,\n  fails: its figures "
                         "cover completed work only.\n\n"));
  std::vector<report::Column> columns = {{p, report::Align::kRight, 0},
                                         {"verdict", report::Align::kLeft, 0},
                                         {"reps", report::Align::kRight, 0}};
  for (const Metric& m : spec.condition.metrics) {
    columns.push_back({m.label, report::Align::kRight, 6});
    columns.push_back({"±95%", report::Align::kRight, 6});
  }
  columns.push_back({"steady state", report::Align::kLeft, 0});
  columns.push_back({"in progress", report::Align::kRight, 0});
  report::Table table(columns);
  std::vector<std::string> reasons;
  for (const SearchPoint& x : o.tried) {
    std::vector<std::string> row = {FormatShortest(x.value), std::string(VerdictWord(x.verdict)),
                                    absl::StrCat(x.replications)};
    for (const Figure& f : x.figures) {
      auto [value, half_width] = FigureCells(f);
      row.push_back(std::move(value));
      row.push_back(std::move(half_width));
    }
    row.push_back(VerdictWord(x.health.verdict));
    row.push_back(absl::StrCat(FormatFixed(100 * x.health.in_progress_share, 1), "%"));
    table.AddRow(std::move(row));
    if (!x.why.empty()) reasons.push_back(absl::StrCat("  ", at(x), ": ", x.why, "\n"));
  }
  absl::StrAppend(&out, "points tried, in order (in progress: of the sessions the window saw, at the horizon):\n",
                  table.RenderText());
  if (!reasons.empty()) absl::StrAppend(&out, "\nwhy a point did not pass:\n", absl::StrJoin(reasons, ""));
  return out;
}

}  // namespace serq
