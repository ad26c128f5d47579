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

bool Backlogged(const QueueWindow& q) {
  if (q.end == 0) return false;
  // Those it saw in the window: the ones that left it in the window and
  // the ones still there at the horizon.
  uint64_t left = q.start + q.arrived - q.end;
  return static_cast<double>(q.end) >= kBacklogShare * static_cast<double>(left + q.end);
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
  uint64_t start = 0, end = 0, arrived = 0;
  double thirds[3] = {0, 0, 0};
};

void Add(const QueueWindow& q, bool growing, bool flagged, Tally* t) {
  t->growing |= growing;
  t->flagged |= flagged;
  t->start += q.start;
  t->end += q.end;
  t->arrived += q.arrived;
  for (size_t k = 0; k < 3 && k < q.thirds.size(); ++k) t->thirds[k] += q.thirds[k];
}

void Fill(const Tally& t, double replications, Backlog* b) {
  b->set_growing(t.growing);
  b->set_start(t.start);
  b->set_end(t.end);
  b->set_arrived(t.arrived);
  for (double x : t.thirds) b->add_third(x / replications);
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
  std::vector<Tally> sessions(reps[0]->session_size()), stages(reps[0]->stage_size());
  SteadyState::Verdict worst = SteadyState::STABLE;
  uint32_t flagged = 0;
  for (const results::Replication* rep : reps) {
    SteadyState::Verdict verdict = SteadyState::STABLE;
    for (int j = 0; j < rep->session_size(); ++j) {
      QueueWindow q = SessionWindow(rep->session(j));
      bool growing = Growing(q), backlogged = Backlogged(q);
      if (growing) verdict = SteadyState::OVERLOADED;
      if (backlogged && verdict == SteadyState::STABLE) verdict = SteadyState::BACKLOGGED;
      Add(q, growing, growing || backlogged, &sessions[j]);
    }
    // A stage's jobs present grow with the sessions waiting there: a
    // stage says where, and in a closed workload it may grow alone.
    for (int j = 0; j < rep->stage_size(); ++j) {
      QueueWindow q = StageWindow(rep->stage(j));
      bool growing = Growing(q);
      if (growing) verdict = SteadyState::OVERLOADED;
      Add(q, growing, growing, &stages[j]);
    }
    if (verdict != SteadyState::STABLE) ++flagged;
    worst = std::max(worst, verdict);
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

std::vector<std::string> SteadyStateLines(const Report& report) {
  std::vector<std::string> lines;
  if (!report.has_steady_state()) return lines;
  const SteadyState& s = report.steady_state();
  if (s.verdict() != SteadyState::OVERLOADED && s.verdict() != SteadyState::BACKLOGGED) {
    return lines;
  }
  uint32_t r = report.replications();
  lines.push_back(absl::StrCat(
      "not in a steady state: ",
      s.verdict() == SteadyState::OVERLOADED ? "OVERLOADED" : "BACKLOGGED", " in ",
      s.replications_flagged(), " of ", r, r == 1 ? " replication" : " replications",
      "; the figures cover completed work only (quantiles: completed sessions)"));
  for (const Backlog& b : s.backlog()) {
    std::vector<std::string> thirds;
    for (double x : b.third()) thirds.push_back(FormatFixed(x, 1));
    if (b.has_session()) {
      uint64_t saw = b.start() + b.arrived();
      lines.push_back(absl::StrCat(
          "  session ", b.session().empty() ? "(unnamed)" : b.session(), ": in progress ",
          b.start(), " at warmup, ", b.end(), " at the horizon (", b.end(), " of ", saw,
          " not ended); ", b.growing() ? "growing" : "average",
          " over the window's thirds ", absl::StrJoin(thirds, ", ")));
    } else {
      lines.push_back(absl::StrCat("  stage ", b.stage(), ": present ", b.start(),
                                   " at warmup, ", b.end(), " at the horizon; growing over "
                                   "the window's thirds ", absl::StrJoin(thirds, ", ")));
    }
  }
  return lines;
}

}  // namespace serq::report
