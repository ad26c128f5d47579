#include "serq-report/steady_state.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "stats/format.h"

namespace serq::report {

bool Growing(const QueueWindow& q) {
  if (q.thirds.size() != 3 || q.end < q.start) return false;
  uint64_t growth = q.end - q.start;
  return growth >= kMinGrowth &&
         static_cast<double>(growth) >= kBacklogShare * static_cast<double>(q.arrived) &&
         q.thirds[0] < q.thirds[1] && q.thirds[1] < q.thirds[2];
}

namespace {

double MeanOfThirds(const QueueWindow& q) {
  double sum = 0;
  for (double x : q.thirds) sum += x;
  return q.thirds.empty() ? 0 : sum / static_cast<double>(q.thirds.size());
}

}  // namespace

bool Backlogged(const QueueWindow& q) {
  if (q.end == 0 || q.thirds.size() != 3) return false;
  // Those it saw in the window: the ones that left it in the window and
  // the ones still there at the horizon.
  uint64_t left = q.start + q.arrived - q.end;
  const double saw = static_cast<double>(left + q.end);
  if (static_cast<double>(q.end) < kBacklogShare * saw) return false;
  // Left in progress is the steady state of long sessions (Little's law:
  // as many as the window's average): a backlog is a queue draining
  // through the window, or one left above its average by a burst.
  const double margin = std::max(static_cast<double>(kMinGrowth), kBacklogShare * saw);
  const bool draining = q.thirds[0] - q.thirds[2] >= margin;
  const bool excess = static_cast<double>(q.end) - MeanOfThirds(q) >= margin;
  return draining || excess;
}

double Stay(const QueueWindow& q, double window) {
  if (!(window > 0) || q.arrived == 0) return 0;
  return MeanOfThirds(q) / (static_cast<double>(q.arrived) / window);
}

bool Settling(const QueueWindow& q, double window, double warmup) {
  if (!Growing(q)) return false;
  // A queue filling to its level rises less in each third (its approach
  // slows: by e^(-T/3/stay) for exponential stays); an overloaded one
  // rises by as much in each, give or take its noise, so a slowing below
  // 3/4 is asked for. Only a warm-up shorter than three stays leaves a
  // queue still filling.
  const bool slowing = q.thirds[2] - q.thirds[1] < kSlowing * (q.thirds[1] - q.thirds[0]);
  return slowing && warmup < 3 * Stay(q, window);
}

QueueWindow SessionWindow(const results::SessionStats& s) {
  QueueWindow q;
  // In progress at warmup: arrived before it and not ended before it.
  uint64_t arrived_before = s.arrived() - std::min(s.arrived(), s.arrived_window());
  uint64_t ended_before = s.ended() - std::min(s.ended(), s.ended_window());
  q.start = arrived_before >= ended_before ? arrived_before - ended_before : 0;
  q.end = s.in_progress();
  q.arrived = s.arrived_window();
  q.thirds.assign(s.in_progress_third().begin(), s.in_progress_third().end());
  return q;
}

QueueWindow StageWindow(const results::StageStats& s) {
  QueueWindow q;
  q.start = s.present_start();
  q.end = s.present_end();
  // Every job present at the horizon arrived, and every one done left:
  // arrived = done + end - start.
  uint64_t through = s.done() + s.present_end();
  q.arrived = through >= s.present_start() ? through - s.present_start() : 0;
  q.thirds.assign(s.present_third().begin(), s.present_third().end());
  return q;
}

namespace {

struct Tally {
  bool flagged = false;
  bool growing = false;
  bool settling = false;
  uint64_t start = 0, end = 0, arrived = 0;
  double thirds[3] = {0, 0, 0};
  double window = 0;  // summed over the replications
};

void Add(const QueueWindow& q, double window, bool growing, bool settling, bool flagged, Tally* t) {
  t->growing |= growing && !settling;
  t->settling |= settling;
  t->flagged |= flagged;
  t->start += q.start;
  t->end += q.end;
  t->arrived += q.arrived;
  t->window += window;
  for (size_t k = 0; k < 3 && k < q.thirds.size(); ++k) t->thirds[k] += q.thirds[k];
}

void Fill(const Tally& t, double replications, Backlog* b) {
  b->set_growing(t.growing);
  if (t.settling) b->set_settling(true);
  b->set_start(t.start);
  b->set_end(t.end);
  b->set_arrived(t.arrived);
  double mean = 0;
  for (double x : t.thirds) {
    b->add_third(x / replications);
    mean += x / replications / 3;
  }
  if (t.arrived > 0 && t.window > 0) b->set_stay(mean / (static_cast<double>(t.arrived) / t.window));
}

// The verdicts from the least to the most serious.
int Rank(SteadyState::Verdict v) {
  switch (v) {
    case SteadyState::UNSETTLED: return 1;
    case SteadyState::BACKLOGGED: return 2;
    case SteadyState::OVERLOADED: return 3;
    default: return 0;
  }
}

void Worsen(SteadyState::Verdict v, SteadyState::Verdict* verdict) {
  if (Rank(v) > Rank(*verdict)) *verdict = v;
}

}  // namespace

SteadyState JudgeSteadyState(const MergedResults& merged) {
  SteadyState out;
  const auto& reps = merged.replications;
  if (reps.empty()) return out;
  // Results written before the window's thirds were recorded (or of a
  // window of no length) cannot be judged: say so rather than guess.
  bool recorded = true;
  for (const results::Replication* rep : reps) {
    for (const results::SessionStats& s : rep->session()) recorded &= s.in_progress_third_size() == 3;
    for (const results::StageStats& s : rep->stage()) recorded &= s.present_third_size() == 3;
  }
  if (!recorded || reps[0]->session_size() == 0) {
    out.set_verdict(SteadyState::UNASSESSED);
    return out;
  }
  const double warmup = merged.first->warmup();
  std::vector<Tally> sessions(reps[0]->session_size()), stages(reps[0]->stage_size());
  SteadyState::Verdict worst = SteadyState::STABLE;
  uint32_t flagged = 0;
  for (const results::Replication* rep : reps) {
    SteadyState::Verdict verdict = SteadyState::STABLE;
    const double window = merged.Window(*rep);
    for (int j = 0; j < rep->session_size(); ++j) {
      QueueWindow q = SessionWindow(rep->session(j));
      // A queue that rose ends above its average: that is its rise (filling
      // or overload), judged as such, not a backlog.
      bool growing = Growing(q), settling = Settling(q, window, warmup);
      bool backlogged = !growing && Backlogged(q);
      if (growing) Worsen(settling ? SteadyState::UNSETTLED : SteadyState::OVERLOADED, &verdict);
      if (backlogged) Worsen(SteadyState::BACKLOGGED, &verdict);
      Add(q, window, growing, settling, growing || backlogged, &sessions[j]);
    }
    // A stage's jobs present grow with the sessions waiting there: a
    // stage says where, and in a closed workload it may grow alone.
    for (int j = 0; j < rep->stage_size(); ++j) {
      QueueWindow q = StageWindow(rep->stage(j));
      bool growing = Growing(q), settling = Settling(q, window, warmup);
      if (growing) Worsen(settling ? SteadyState::UNSETTLED : SteadyState::OVERLOADED, &verdict);
      Add(q, window, growing, settling, growing, &stages[j]);
    }
    if (verdict != SteadyState::STABLE) ++flagged;
    Worsen(verdict, &worst);
  }
  out.set_verdict(worst);
  out.set_replications_flagged(flagged);
  double r = static_cast<double>(reps.size());
  for (size_t j = 0; j < sessions.size(); ++j) {
    if (!sessions[j].flagged) continue;
    Backlog* b = out.add_backlog();
    b->set_session(reps[0]->session(j).name());
    Fill(sessions[j], r, b);
  }
  for (size_t j = 0; j < stages.size(); ++j) {
    if (!stages[j].flagged) continue;
    const results::StageStats& s = reps[0]->stage(j);
    Backlog* b = out.add_backlog();
    b->set_stage(ElementName(s.name(), s.array(), s.index()));
    Fill(stages[j], r, b);
  }
  return out;
}

std::vector<std::string> DrainedLines(const Report& report) {
  std::vector<std::string> lines;
  for (const Session& s : report.session()) {
    if (!s.has_last_arrival()) continue;
    const uint64_t backlog = s.in_progress_last_arrival();
    const double share = kBacklogShare * static_cast<double>(s.arrived());
    if (backlog < kMinGrowth || static_cast<double>(backlog) < share) continue;
    if (lines.empty()) {
      lines.push_back(
          "steady state not assessed: a run without a horizon runs until every queue has drained, "
          "so its end shows no backlog; the arrivals left one");
    }
    lines.push_back(absl::StrCat(
        "  session ", s.name().empty() ? "(unnamed)" : s.name(), ": ", backlog, " of ", s.arrived(),
        " in progress at the last arrival (t = ", FormatShortest(s.last_arrival()),
        "), the last event at ", FormatShortest(report.end()), "; --horizon ",
        FormatShortest(s.last_arrival()), " judges the arrivals' span (OVERLOADED when the "
        "deployment fell behind them)"));
  }
  return lines;
}

std::vector<std::string> SteadyStateLines(const Report& report) {
  std::vector<std::string> lines;
  if (report.drained()) return DrainedLines(report);
  if (!report.has_steady_state()) return lines;
  const SteadyState& s = report.steady_state();
  if (s.verdict() != SteadyState::OVERLOADED && s.verdict() != SteadyState::BACKLOGGED &&
      s.verdict() != SteadyState::UNSETTLED) {
    return lines;
  }
  uint32_t r = report.replications();
  lines.push_back(absl::StrCat(
      "not in a steady state: ", SteadyState::Verdict_Name(s.verdict()), " in ",
      s.replications_flagged(), " of ", r, r == 1 ? " replication" : " replications",
      "; the figures cover completed work only (quantiles: completed sessions)"));
  double longest_stay = 0;  // of the queues still filling
  for (const Backlog& b : s.backlog()) {
    std::vector<std::string> thirds;
    for (double x : b.third()) thirds.push_back(FormatFixed(x, 1));
    const std::string trend = b.settling()  ? "rising and slowing"
                              : b.growing() ? "growing"
                                            : "average";
    std::string stay = b.has_stay() ? absl::StrCat("; stay ", FormatFixed(b.stay(), 1),
                                                   " s (Little's law)")
                                    : "";
    if (b.settling()) longest_stay = std::max(longest_stay, b.stay());
    if (b.has_session()) {
      uint64_t saw = b.start() + b.arrived();
      lines.push_back(absl::StrCat(
          "  session ", b.session().empty() ? "(unnamed)" : b.session(), ": in progress ",
          b.start(), " at warmup, ", b.end(), " at the horizon (", b.end(), " of ", saw,
          " not ended); ", trend, " over the window's thirds ", absl::StrJoin(thirds, ", "), stay));
    } else {
      lines.push_back(absl::StrCat("  stage ", b.stage(), ": present ", b.start(),
                                   " at warmup, ", b.end(), " at the horizon; ", trend,
                                   " over the window's thirds ", absl::StrJoin(thirds, ", "), stay));
    }
  }
  // What to change, with the numbers.
  if (s.verdict() == SteadyState::UNSETTLED && longest_stay > 0) {
    lines.push_back(absl::StrCat(
        "  still filling when the window began: the warm-up ", FormatShortest(report.warmup()),
        " s is shorter than three stays; give a warm-up of at least ",
        FormatShortest(std::ceil(3 * longest_stay)), " s (run { warmup }, --warmup) and a horizon "
        "some ten stays past it"));
  } else if (s.verdict() == SteadyState::OVERLOADED) {
    lines.push_back("  arrivals outpace completions: lower the load or add capacity; a longer run "
                    "only grows the queue");
  } else if (s.verdict() == SteadyState::BACKLOGGED) {
    lines.push_back("  left with a backlog at the horizon (a burst not yet drained): lengthen the "
                    "horizon, or replicate to see how often");
  }
  return lines;
}

}  // namespace serq::report
