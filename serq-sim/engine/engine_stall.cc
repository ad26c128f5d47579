// Stalls (docs/simulation.md §Runtime errors): waiting sessions that
// nothing left in the run can ever wake, found while events still come
// (arrivals, other stages), so that the run stops when the stall began
// rather than at the horizon.
//
// A waiting session waits for pools: a hold for admission on each pool of
// its request, a load or a stalled growth on its hold's pool, and a job at
// an idle step stage with `preempt by` for the pool its stage's blocked
// head watches. A pool is live, able to free units or to move its line,
// when a session that is not stuck holds it, waits in its line, or owns a
// lease on it that it may still release, or when a lease on it will
// expire (an event). A waiter is live when a pool it waits for is, and a
// live waiter makes live every pool it holds, leases or waits for; what
// is left, the greatest set that only waits for itself, is stuck. The
// analysis is conservative: a session in a run, a delay or a stage
// stepping is live, as is a job at an idle stage that grows another pool
// than the one the stage watches (an arrival at the stage forms a batch
// again, which may then take it), so a stall is never claimed where an
// event could still free a unit.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/words.h"
#include "serq-sim/engine/engine.h"

namespace serq::sim {
namespace {

// A count in full to 15 digits (1000000, not StrCat's 1e+06; 2.5 as 2.5).
std::string Units(double n) { return absl::StrCat(absl::StrFormat("%.15g", n), n == 1 ? " unit" : " units"); }

}  // namespace

struct Engine::StallSet {
  // The waiting sessions, each with the pools it waits for, since when it
  // waits (a job at an idle stage: since the stage idled or the job came,
  // the later), its statement and its stage (UINT32_MAX: none).
  std::vector<SessionId> waiter;
  std::vector<double> since;
  std::vector<absl::InlinedVector<uint32_t, 2>> pools;
  std::vector<uint32_t> statement;
  std::vector<uint32_t> station;
  // Stuck's answer for the waiters since at most `until`.
  std::vector<char> stuck;
};

void Engine::CollectWaiters(StallSet* set) const {
  // An idle step stage whose waiting head does not fit watches that
  // head's pool: nothing at the stage moves until it frees units.
  std::vector<uint32_t> watched(stations_.size(), UINT32_MAX);
  for (uint32_t st = 0; st < stations_.size(); ++st) {
    SessionId head;
    double units;
    if (stations_[st]->Blocked(&head, &units)) {
      watched[st] = pools_.hold(sessions_[head].grow_hold).pool;
    }
  }
  for (SessionId id = 0; id < sessions_.size(); ++id) {
    const Session& s = sessions_[id];
    absl::InlinedVector<uint32_t, 2> pools;
    uint32_t station = UINT32_MAX;
    uint32_t statement = s.wait_statement;
    double since = s.wait_since;
    switch (s.state) {
      case SessionState::kWaitHold: {
        const Session::Frame& f = s.frames.back();
        for (uint32_t k = 0; k < f.count; ++k) pools.push_back(pools_.hold(s.holds[f.first + k]).pool);
        break;
      }
      case SessionState::kWaitLoad:
        pools.push_back(pools_.hold(s.wait_hold).pool);
        break;
      case SessionState::kStalled:
        pools.push_back(pools_.hold(s.grow_hold).pool);
        break;
      case SessionState::kInRun: {
        if (s.run_stations.size() != 1 || watched[s.run_stations[0]] == UINT32_MAX) break;
        const uint32_t st = s.run_stations[0];
        const Instr& run = model_.code[s.pc - 1];  // the run in progress
        if (model_.runs[run.a].growing >= 0 && pools_.hold(s.grow_hold).pool != watched[st]) {
          break;  // it may join when its own pool has room: live
        }
        pools.push_back(watched[st]);
        station = st;
        statement = run.statement;
        since = std::max(since, blocked_since_[st]);
        break;
      }
      default:
        break;
    }
    if (pools.empty()) continue;
    set->waiter.push_back(id);
    set->since.push_back(since);
    set->pools.push_back(pools);
    set->statement.push_back(statement);
    set->station.push_back(station);
  }
}

bool Engine::Stuck(StallSet* set, double until) const {
  const size_t n = set->waiter.size();
  std::vector<int32_t> index(sessions_.size(), -1);
  for (size_t c = 0; c < n; ++c) {
    if (set->since[c] <= until) index[set->waiter[c]] = static_cast<int32_t>(c);
  }
  std::vector<char> live(pools_.count(), 0);
  std::vector<uint32_t> work;
  auto make_live = [&](uint32_t pool) {
    if (!live[pool]) {
      live[pool] = 1;
      work.push_back(pool);
    }
  };
  // What each waiter holds or leases, which becomes live with it.
  std::vector<absl::InlinedVector<uint32_t, 2>> owns(n);
  for (SessionId id = 0; id < sessions_.size(); ++id) {
    const Session& s = sessions_[id];
    if (s.state == SessionState::kFree) continue;
    const int32_t c = index[id];
    const bool alive = c < 0 && s.state != SessionState::kEnded;
    for (HoldId h : s.holds) {
      const Hold& hold = pools_.hold(h);
      // A hold of no units frees none (it may take free units and give
      // them back, which leaves the pool as it is).
      if (hold.state != Hold::State::kActive || !(hold.size > 0)) continue;
      if (alive) {
        make_live(hold.pool);
      } else if (c >= 0) {
        owns[c].push_back(hold.pool);
      }
    }
  }
  // Leases, by pool: an ended session's are no longer its own.
  for (uint32_t p = 0; p < pools_.count(); ++p) {
    for (LeaseId id : pools_.leases(p)) {
      const Lease& l = pools_.lease(id);
      if (!(l.units > 0)) continue;
      const int32_t c = index[l.owner];
      // A lease of an ended session without an expiry is there for good
      // (an `evict by` pool reclaims it for the first in line, who is
      // waiting here only because that would not be enough).
      if (l.expires || (c < 0 && sessions_[l.owner].state != SessionState::kEnded)) {
        make_live(p);
      } else if (c >= 0) {
        owns[c].push_back(p);
      }
    }
  }
  // A waiter that is not stuck may be admitted into free units and give
  // them back later (the line moves): it makes its pools live only when
  // they have free units; with none, its admission waits for a holder
  // as everyone's does. A waiter that began to wait after `until` was not
  // in the lines then (its holds count above, as any live session's).
  auto waits_live = [&](uint32_t pool) {
    if (pools_.free(pool) > 0) make_live(pool);
  };
  std::vector<std::vector<uint32_t>> waiting_on(pools_.count());
  for (size_t c = 0; c < n; ++c) {
    if (index[set->waiter[c]] < 0) continue;
    for (uint32_t p : set->pools[c]) waiting_on[p].push_back(static_cast<uint32_t>(c));
  }
  set->stuck.assign(n, 0);
  std::vector<char> woken(n, 0);
  while (!work.empty()) {
    const uint32_t p = work.back();
    work.pop_back();
    for (uint32_t c : waiting_on[p]) {
      if (woken[c]) continue;
      woken[c] = 1;
      for (uint32_t q : owns[c]) make_live(q);
      for (uint32_t q : set->pools[c]) waits_live(q);
    }
  }
  bool any = false;
  for (size_t c = 0; c < n; ++c) {
    if (index[set->waiter[c]] >= 0 && !woken[c]) set->stuck[c] = any = true;
  }
  return any;
}

bool Engine::StallStops(results::Replication* out) {
  StallSet set;
  if (!StallFound(&set)) return false;
  Stalled(&set, out);
  return true;
}

bool Engine::StallConfirmed() {
  StallSet set;
  if (!StallFound(&set)) return false;
  ReportStall(set);
  return true;
}

bool Engine::AnyWaiter() const {
  for (uint32_t st = 0; st < stations_.size(); ++st) {
    SessionId head;
    double units;
    if (stations_[st]->Blocked(&head, &units)) return true;
  }
  for (uint32_t p = 0; p < pools_.count(); ++p) {
    SessionId first;
    if (pools_.FirstInLine(p, &first)) return true;
  }
  return false;
}

bool Engine::StallFound(StallSet* set) const {
  // A waiter stands in a pool's line (a hold, a load, a stalled growth:
  // between instants, when this runs, every admitted one has resumed) or
  // is a job at a blocked stage: without either there is none, and the
  // walk over every session is not made. A run with many sessions in
  // flight would otherwise pay for them all at every check (every 2^16
  // events), quadratic in the run's length. Under check_pools the walk is
  // made anyway, and must agree.
  const bool any = AnyWaiter();
  if (!any && !options_.check_pools) return false;
  CollectWaiters(set);
  if (!any && !set->waiter.empty()) {
    std::fprintf(stderr, "serq-sim: internal error: a waiting session in no pool's line\n");
    std::abort();
  }
  if (set->waiter.empty()) return false;
  return Stuck(set, std::numeric_limits<double>::infinity());
}

double Engine::StallDate(StallSet* set) const {
  // The earliest time some of the waiters were stuck among themselves:
  // more waiters can only leave fewer pools live, so the search over
  // their times is a bisection.
  std::vector<double> times = set->since;
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  size_t lo = 0, hi = times.size() - 1;  // Stuck at times[hi]
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (Stuck(set, times[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  Stuck(set, times[hi]);
  // Units freed on their pools after the last of them began to wait (a
  // holder that has since left) were part of the story until then.
  double at = times[hi];
  for (size_t c = 0; c < set->waiter.size(); ++c) {
    if (!set->stuck[c]) continue;
    for (uint32_t p : set->pools[c]) at = std::max(at, pool_freed_at_[p]);
  }
  return at;
}

bool Engine::Stalled(StallSet* set, results::Replication* out) {
  if (progress_) progress_->Clear();
  const double at = StallDate(set);
  // The same replication again, up to the stall's time: its figures are
  // the run's up to then, and its sessions as they were when the last of
  // the stall began to wait, which the report names.
  EngineOptions again = options_;
  again.trace = nullptr;
  again.progress = ProgressLine::Mode::kNone;
  again.stop_at = at;
  {
    Engine second(model_, replication_, again, diags_);
    second.Run(out);
    if (second.stalled_at() >= 0) {
      stalled_at_ = second.stalled_at();
      return false;
    }
  }
  // Not found again there (it should be): report it as found now.
  out->Clear();
  Stuck(set, std::numeric_limits<double>::infinity());
  ReportStall(*set);
  return false;
}

std::string Engine::DescribeWait(const StallSet& set, uint32_t c) const {
  const Session& s = sessions_[set.waiter[c]];
  if (set.station[c] != UINT32_MAX) {
    SessionId head;
    double units;
    stations_[set.station[c]]->Blocked(&head, &units);
    const std::string pool = PoolName(set.pools[c][0]);
    if (head == set.waiter[c]) {
      // (The units its chunk needs, or with `reserve prompt` its whole
      // remaining prefill's: the stage's own account of what it waits for.)
      return absl::StrCat("its job at the head of '", StationName(set.station[c]), "' waits for ", Units(units),
                          " of '", pool, "'");
    }
    return absl::StrCat("its job on '", StationName(set.station[c]), "' waits behind session ",
                        sessions_[head].serial, ", whose job waits for ", Units(units), " of '",
                        pool, "'");
  }
  switch (s.state) {
    case SessionState::kWaitHold: {
      std::string what = "its hold waits for ";
      const Session::Frame& f = s.frames.back();
      for (uint32_t k = 0; k < f.count; ++k) {
        const Hold& h = pools_.hold(s.holds[f.first + k]);
        absl::StrAppend(&what, k ? " and " : "", Units(h.amount), " of '", PoolName(h.pool), "'");
      }
      return what;
    }
    case SessionState::kWaitLoad:
      return absl::StrCat("its load waits for ", Units(s.wait_units), " of '",
                          PoolName(pools_.hold(s.wait_hold).pool), "'");
    default:
      return absl::StrCat("its next token on '", StationName(s.run_stations[0]),
                          "' waits for a unit of '", PoolName(pools_.hold(s.grow_hold).pool), "'");
  }
}

void Engine::ReportStall(const StallSet& set) {
  // Per pool of the stall, who holds it: (serial, units, leased, waiter).
  struct Holder {
    uint64_t serial;
    double units;
    bool lease;
    int32_t waiter;  // its index in `set`, or -1
  };
  std::map<uint32_t, std::vector<Holder>> held;
  std::vector<int32_t> index(sessions_.size(), -1);
  for (size_t c = 0; c < set.waiter.size(); ++c) {
    if (set.stuck[c]) {
      index[set.waiter[c]] = static_cast<int32_t>(c);
      for (uint32_t p : set.pools[c]) held[p];
    }
  }
  for (SessionId id = 0; id < sessions_.size(); ++id) {
    const Session& s = sessions_[id];
    if (s.state == SessionState::kFree) continue;
    for (HoldId h : s.holds) {
      const Hold& hold = pools_.hold(h);
      auto it = held.find(hold.pool);
      if (hold.state != Hold::State::kActive || !(hold.size > 0) || it == held.end()) continue;
      // A session's nested holds on one pool, as one.
      std::vector<Holder>& hs = it->second;
      if (!hs.empty() && hs.back().serial == s.serial && !hs.back().lease) {
        hs.back().units += hold.size;
      } else {
        hs.push_back({s.serial, hold.size, false, index[id]});
      }
    }
  }
  for (auto& [pool, hs] : held) {
    for (LeaseId id : pools_.leases(pool)) {
      const Lease& l = pools_.lease(id);
      if (l.units > 0) hs.push_back({sessions_[l.owner].serial, l.units, true, index[l.owner]});
    }
  }
  auto describe_pool = [&](uint32_t pool, SessionId self) {
    std::vector<Holder>& hs = held[pool];
    std::sort(hs.begin(), hs.end(), [](const Holder& a, const Holder& b) {
      return a.units != b.units ? a.units > b.units : a.serial < b.serial;
    });
    std::string text = absl::StrCat("'", PoolName(pool), "' has ", Units(pools_.free(pool)),
                                    " free of ", Units(pools_.cap(pool)));
    constexpr size_t kHolders = 4;
    for (size_t i = 0; i < hs.size() && i < kHolders; ++i) {
      const Holder& h = hs[i];
      absl::StrAppend(&text, i ? "; " : ", held by ", "session ", h.serial, " (", Units(h.units),
                      h.lease ? ", a lease" : "");
      if (h.waiter < 0) {
        absl::StrAppend(&text, ", its session ended, without an expiry)");
      } else if (set.waiter[h.waiter] == self) {
        absl::StrAppend(&text, ", this session)");
      } else {
        const StatementInfo& info = model_.statements[set.statement[h.waiter]];
        absl::StrAppend(&text, "; ", DescribeWait(set, h.waiter));
        if (info.loc.line() != 0) absl::StrAppend(&text, " at ", info.loc.line(), ":", info.loc.column());
        absl::StrAppend(&text, ")");
      }
    }
    if (hs.size() > kHolders) {
      double rest = 0;
      for (size_t i = kHolders; i < hs.size(); ++i) rest += hs[i].units;
      absl::StrAppend(&text, "; ", hs.size() - kHolders, " more sessions (", Units(rest),
                      "), every one stalled too");
    }
    SessionId first;
    if (pools_.FirstInLine(pool, &first) && first != self) {
      absl::StrAppend(&text, "; first in its line: session ", sessions_[first].serial);
    }
    return text;
  };
  // The sessions that hold what the stall waits for come first: they are
  // the chain; then the others, in order of arrival.
  std::vector<uint32_t> order;
  for (size_t c = 0; c < set.waiter.size(); ++c) {
    if (set.stuck[c]) order.push_back(static_cast<uint32_t>(c));
  }
  std::vector<char> holds(set.waiter.size(), 0);
  for (auto& [pool, hs] : held) {
    for (const Holder& h : hs) {
      if (h.waiter >= 0) holds[h.waiter] = 1;
    }
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (holds[a] != holds[b]) return holds[a] > holds[b];
    return sessions_[set.waiter[a]].serial < sessions_[set.waiter[b]].serial;
  });
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < order.size() && i < kShown; ++i) {
    const uint32_t c = order[i];
    const SessionId id = set.waiter[c];
    std::string text = absl::StrCat("deadlock: ", DescribeWait(set, c), " since t=", set.since[c]);
    for (uint32_t p : set.pools[c]) absl::StrAppend(&text, "; ", describe_pool(p, id));
    absl::StrAppend(&text, "; no event left can free those units, so the run stops at t=", now_,
                    " (the figures are up to then)");
    current_ = id;
    has_current_ = true;
    failed_ = false;
    FailAt(set.statement[c], text);
  }
  if (order.size() > kShown) {
    diags_->ErrorInFile(absl::StrCat("deadlock: ", order.size() - kShown,
                                     " more sessions wait for those units"));
  }
  failed_ = true;
}

// The run ended with sessions that wait and no event to wake them (a
// deadlock): each said, with what it waits for.
bool Engine::ReportDeadlock() {
  std::vector<SessionId> blocked;
  for (SessionId id = 0; id < sessions_.size(); ++id) {
    SessionState st = sessions_[id].state;
    if (st == SessionState::kWaitHold || st == SessionState::kWaitLoad ||
        st == SessionState::kStalled) {
      blocked.push_back(id);
    }
  }
  // Jobs waiting at idle step stages with `preempt by` for units.
  std::map<SessionId, double> blocked_units;
  for (const auto& station : stations_) {
    SessionId session;
    double units;
    if (station->Blocked(&session, &units)) {
      blocked.push_back(session);
      blocked_units[session] = units;
    }
  }
  if (blocked.empty()) return true;
  std::sort(blocked.begin(), blocked.end(), [&](SessionId a, SessionId b) {
    return sessions_[a].serial < sessions_[b].serial;
  });
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < blocked.size() && i < kShown; ++i) {
    const Session& s = sessions_[blocked[i]];
    std::string what;
    if (s.state == SessionState::kWaitHold) {
      const Session::Frame& f = s.frames.back();
      for (uint32_t k = 0; k < f.count; ++k) {
        const Hold& h = pools_.hold(s.holds[f.first + k]);
        absl::StrAppend(&what, k ? "; and " : "", Units(h.amount), " of '", PoolName(h.pool),
                        "', ", pools_.DescribeUse(h.pool));
      }
    } else if (s.state == SessionState::kWaitLoad) {
      const Hold& h = pools_.hold(s.wait_hold);
      what = absl::StrCat("its hold on '", PoolName(h.pool), "' to grow by ", Units(s.wait_units),
                          ", ", pools_.DescribeUse(h.pool));
    } else if (s.state == SessionState::kStalled) {
      const Hold& h = pools_.hold(s.grow_hold);
      what = absl::StrCat("its hold on '", PoolName(h.pool), "' to grow by 1 unit for its next ",
                          "token on '", StationName(s.run_stations[0]), "', ",
                          pools_.DescribeUse(h.pool));
    } else {
      // A job waiting at a step stage with `preempt by` for its chunk.
      const Hold& h = pools_.hold(s.grow_hold);
      what = absl::StrCat("its hold on '", PoolName(h.pool), "' to grow by ",
                          Units(blocked_units[blocked[i]]), " for its chunk on '",
                          StationName(s.run_stations[0]), "', ", pools_.DescribeUse(h.pool));
    }
    current_ = blocked[i];
    has_current_ = true;
    failed_ = false;
    FailAt(s.wait_statement,
           model_.drain ? absl::StrCat("deadlock: waits for ", what, ", and no event is left")
                        : absl::StrCat("deadlock: waits for ", what,
                                       ", and no event is left before the horizon ",
                                       model_.horizon));
  }
  if (blocked.size() > kShown) {
    diags_->ErrorInFile(absl::StrCat("deadlock: ", blocked.size() - kShown,
                                     " more sessions are blocked"));
  }
  failed_ = true;
  return false;
}

}  // namespace serq::sim
