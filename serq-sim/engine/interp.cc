// The sessions interpreter: runs a session's instructions from where it
// stopped until it waits (a run, a hold not admitted, a load that must
// wait for units), ends, or fails.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serq-sim/engine/engine.h"
#include "ir/json.h"

namespace serq::sim {
namespace {

bool Less(const std::vector<double>& a, const std::vector<double>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

bool Engine::InnermostHold(const Session& s, uint32_t pool, HoldId* hold) const {
  for (size_t k = s.holds.size(); k-- > 0;) {
    const Hold& h = pools_.hold(s.holds[k]);
    if (h.pool == pool && h.state == Hold::State::kActive) {
      *hold = s.holds[k];
      return true;
    }
  }
  return false;
}

EvalFrame Engine::FrameOf(const Session& s) const {
  const SessionDecl& d = model_.sessions[s.decl];
  EvalFrame f;
  f.variables = s.variables.data();
  f.key_slots = d.key_slots.data();
  f.variable_names = &d.variables;
  f.now = now_;
  f.arrival = s.arrival;
  f.queued = s.queued;
  // Through int64: the same values (below 2^63), without the unsigned
  // conversion's branches (a frame is made for every statement).
  f.serial = static_cast<double>(static_cast<int64_t>(s.serial));
  f.index = static_cast<double>(static_cast<int64_t>(s.index));
  return f;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline SessionId Engine::NewSession() {
  if (!free_sessions_.empty()) {
    SessionId id = free_sessions_.back();
    free_sessions_.pop_back();
    return id;
  }
  sessions_.emplace_back();
  return sessions_.size() - 1;
}

void Engine::Spawn(uint32_t workload, const double* row) {
  const WorkloadDecl& w = model_.workloads[workload];
  const SessionDecl& d = model_.sessions[w.session];
  SessionId id = NewSession();
  Session& s = sessions_[id];
  s.decl = w.session;
  s.serial = next_serial_++;
  s.index = arrived_[w.session];  // a workload drives its session alone
  s.arrival = now_;
  s.queued = now_;
  s.pc = d.entry;
  s.state = SessionState::kRunning;
  // In place when the record (reused) has the slots already: the same
  // values as assign(), which costs several times the instructions.
  if (s.variables.size() == d.slots) {
    std::fill(s.variables.begin(), s.variables.end(), std::numeric_limits<double>::quiet_NaN());
  } else {
    s.variables.assign(d.slots, std::numeric_limits<double>::quiet_NaN());
  }
  s.frames.clear();
  s.holds.clear();
  s.leases.clear();
  s.live_leases = 0;
  s.prefill_station = Session::kNoPrefill;
  if (row != nullptr) {
    const std::vector<int32_t>& slots = w.plan.column_slot;
    for (size_t c = 0; c < slots.size(); ++c) {
      if (slots[c] >= 0) s.variables[slots[c]] = row[c];
    }
  }
  // SetBlocks clears the block list and sets it from a trace's row: not
  // called when there is nothing to clear and no row (most sessions).
  if (row != nullptr || !s.blocks.empty() || !s.families.empty() || !s.hits.empty() ||
      s.trace_block != 0) {
    SetBlocks(s, workload, row);
  }
  ++arrived_[w.session];
  if (window_started_) ++arrived_window_[w.session];
  InProgressChanged(w.session);
  if (model_.drain) {
    last_arrival_[w.session] = now_;
    in_progress_last_arrival_[w.session] = arrived_[w.session] - ended_[w.session];
  }
  if (options_.trace) LogSession("arrive", s, "workload", w.name);
  Execute(id);
}

void Engine::Execute(SessionId id) {
  current_ = id;
  has_current_ = true;
  const std::vector<Instr>& code = model_.code;
  for (uint64_t steps = 0;; ++steps) {
    // sessions_ does not grow while a session runs (only arrivals add
    // sessions), so this reference stays valid.
    Session& s = sessions_[id];
    const Instr& in = code[s.pc];
    if (steps == options_.limits.statements_per_instant) {
      TooManyStatements(in.statement, steps);
      break;
    }
    switch (in.code) {
      case Code::kSet: {
        double v = Eval(in.b, s);
        if (evaluator_.failed()) return FailEval(in.statement);
        s.variables[in.a] = v;
        ++s.pc;
        continue;
      }
      case Code::kIf: {
        double c = Eval(in.a, s);
        if (evaluator_.failed()) return FailEval(in.statement);
        s.pc = c != 0 ? s.pc + 1 : in.b;
        continue;
      }
      case Code::kJump:
        s.pc = in.a;
        continue;
      case Code::kRepeat: {
        double n = Eval(in.a, s);
        if (evaluator_.failed()) return FailEval(in.statement);
        if (!std::isfinite(n)) return RepeatNotFinite(in.statement, n);
        double times = std::floor(n);
        if (times <= 0) {
          s.pc = in.c;
        } else {
          s.variables[in.b] = times;
          ++s.pc;
        }
        continue;
      }
      case Code::kLoop:
        s.variables[in.a] -= 1;
        s.pc = s.variables[in.a] > 0 ? in.b : s.pc + 1;
        continue;
      case Code::kEnd:
        EndSession(id);
        break;
      case Code::kRun:
        if (!(plain_runs_[in.a] ? ExecPlainRun(s, id, in, model_.runs[in.a]) : ExecRun(id, in))) {
          break;
        }
        continue;
      case Code::kChoose:
        if (!ExecChoose(s, in)) break;
        continue;
      case Code::kHold:
        if (!ExecHold(id, in)) break;
        continue;
      case Code::kHoldEnd:
        if (!ExecHoldEnd(s, in)) break;
        continue;
      case Code::kRelease:
        if (!ExecRelease(s, in)) break;
        continue;
      case Code::kLoad:
        if (!ExecLoad(id, in)) break;
        continue;
      case Code::kPrefix:
        if (!ExecPrefix(s, in)) break;
        continue;
      case Code::kObserve: {
        double v = Eval(in.b, s);
        if (evaluator_.failed()) return FailEval(in.statement);
        if (now_ >= model_.warmup) observations_[in.a].Add(v);
        if (series_) series_->Observe(in.a, v, 1);
        if (options_.trace) LogSession("observe", s, "name", model_.observations[in.a], "value", v);
        ++s.pc;
        continue;
      }
    }
    break;  // the session waits, ended or failed
  }
  has_current_ = false;
}

void Engine::TooManyStatements(uint32_t statement, uint64_t steps) {
  FailAt(statement, absl::StrCat("the session ran ", steps,
                                 " statements at one instant without waiting "
                                 "(a repeat that never ends?)"));
}

void Engine::RepeatNotFinite(uint32_t statement, double n) {
  FailAt(statement, absl::StrCat("repeat count ", n, " is not finite"));
}

// Returns true when the session goes on at once (a run of work 0). A
// plain run (plain_runs_) goes to ExecPlainRun instead.
bool Engine::ExecRun(SessionId id, const Instr& in) {
  Session& s = sessions_[id];
  const RunSite& r = model_.runs[in.a];
  // One frame for the statement's expressions: nothing here sets a
  // variable or moves the clock.
  const EvalFrame frame = FrameOf(s);
  s.run_stations.clear();
  s.wait_since = now_;
  uint32_t station;
  if (!evaluator_.Element(r.stage, frame, &station)) return FailEval(in.statement), false;
  s.run_stations.push_back(station);
  for (uint32_t ref : r.also) {
    if (!evaluator_.Element(ref, frame, &station)) return FailEval(in.statement), false;
    s.run_stations.push_back(station);
  }
  double work = evaluator_.Eval(r.work, frame);
  if (evaluator_.failed()) return FailEval(in.statement), false;
  if (!(work >= 0 && std::isfinite(work))) return BadWork(in.statement, work);
  Job job;
  s.run_mode = r.mode;
  s.run_work = work;
  if (r.growing >= 0) {
    // The hold a run grows is the session's innermost active hold on the
    // pool, found when the run starts (as a load's).
    uint32_t pool;
    if (!evaluator_.Element(r.growing, frame, &pool)) return FailEval(in.statement), false;
    if (!InnermostHold(s, pool, &s.grow_hold)) {
      FailAt(in.statement, absl::StrCat(r.mode == ir::Statement::Run::PREFILL ? "a prefill" : "a decode",
                                        " run growing '", PoolName(pool),
                                        "', which the session does not hold"));
      return false;
    }
    job.growing = true;
    job.hold = s.grow_hold;
    job.pool = pool;
    const Hold& h = pools_.hold(s.grow_hold);
    job.content = h.content;
    job.received = h.received > 0 && h.content == h.received;
    s.wait_statement = in.statement;
  }
  job.observation = r.observe;
  ++s.pc;
  if (options_.trace) LogStation("run", s, "work", work);
  if (work == 0) {
    // Complete at once, without an event: a service of 0 at every stage.
    for (uint32_t st : s.run_stations) stations_[st]->RecordDone(0);
    return true;
  }
  s.state = SessionState::kInRun;
  s.service_start = now_;
  // `queued`: a step stage says when it takes the job in (StageHost::Queued);
  // any other takes it at once.
  if (model_.stages[r.decl].kind != ir::Stage::STEP) s.queued = now_;
  if (r.shared) {
    shared_->Start(*this, id, s.run_stations, work);
    return false;
  }
  job.session = id;
  job.serial = s.serial;
  job.work = work;
  job.mode = r.mode;
  const StageDecl& d = model_.stages[r.decl];
  if (!d.serve_by.empty()) {
    key_.clear();
    for (uint32_t node : d.serve_by) {
      key_.push_back(evaluator_.Eval(node, frame));
      if (evaluator_.failed()) return FailEvalAt(absl::StrCat("stage[", r.decl, "].serveBy")), false;
    }
    job.key = key_;
  }
  stations_[s.run_stations[0]]->Arrive(*this, job);
  return false;
}

// ExecRun's way for a plain run (plain_runs_): its station is the stage
// reference's element, its one expression the work; the same steps in the
// same order, without those a plain run skips.
bool Engine::ExecPlainRun(Session& s, SessionId id, const Instr& in, const RunSite& r) {
  const uint32_t station = model_.exprs.refs[r.stage].base;
  if (s.run_stations.size() == 1) {
    s.run_stations[0] = station;
  } else {
    s.run_stations.clear();
    s.run_stations.push_back(station);
  }
  s.wait_since = now_;
  const double work = evaluator_.Eval(r.work, FrameOf(s));
  if (evaluator_.failed()) return FailEval(in.statement), false;
  if (!(work >= 0 && std::isfinite(work))) return BadWork(in.statement, work);
  s.run_mode = r.mode;
  s.run_work = work;
  ++s.pc;
  if (options_.trace) LogStation("run", s, "work", work);
  if (work == 0) {
    stations_[station]->RecordDone(0);
    return true;
  }
  s.state = SessionState::kInRun;
  s.service_start = now_;
  s.queued = now_;
  Job job;
  job.observation = r.observe;
  job.session = id;
  job.serial = s.serial;
  job.work = work;
  job.mode = r.mode;
  stations_[station]->Arrive(*this, job);
  return false;
}

bool Engine::BadWork(uint32_t statement, double work) {
  FailAt(statement, absl::StrCat("the work of a run must be >= 0 and finite, got ", work));
  return false;
}

bool Engine::ExecChoose(Session& s, const Instr& in) {
  const ChooseSite& c = model_.chooses[in.a];
  uint32_t best = 0;
  // One frame for every candidate: it reads the variables in place, the
  // candidate's index among them.
  const EvalFrame frame = FrameOf(s);
  // With `every`, the key's state functions read the site's copy.
  ChooseCopy* copy = copies_[in.a].get();
  if (copy != nullptr) evaluator_.set_state(copy);
  for (uint32_t i = 0; i < c.size; ++i) {
    s.variables[c.slot] = i;
    key_.clear();
    for (uint32_t node : c.key) {
      key_.push_back(evaluator_.Eval(node, frame));
      if (evaluator_.failed()) {
        evaluator_.set_state(this);
        return FailEval(in.statement), false;
      }
    }
    // Strictly smaller wins: ties go to the lowest index.
    if (i == 0 || Less(key_, best_key_)) {
      best = i;
      best_key_.swap(key_);
    }
  }
  if (copy != nullptr) {
    evaluator_.set_state(this);
    copy->Chose(best);
  }
  s.variables[c.slot] = best;
  ++s.pc;
  return true;
}

bool Engine::ExecHold(SessionId id, const Instr& in) {
  Session& s = sessions_[id];
  const HoldSite& h = model_.holds[in.a];
  pool_ids_.clear();
  amounts_.clear();
  const EvalFrame frame = FrameOf(s);
  for (const auto& [ref, amount_node] : h.pools) {
    uint32_t pool;
    if (!evaluator_.Element(ref, frame, &pool)) return FailEval(in.statement), false;
    double amount = evaluator_.Eval(amount_node, frame);
    if (evaluator_.failed()) return FailEval(in.statement), false;
    if (!(amount >= 0)) {
      FailAt(in.statement, absl::StrCat("a hold of ", amount, " units of '", PoolName(pool),
                                        "': the amount must be >= 0"));
      return false;
    }
    // On a pool with `block G` the hold takes whole blocks.
    if (double size = pools_.ExtentOn(pool, amount, 0); size > pools_.cap(pool)) {
      FailAt(in.statement,
             absl::StrCat("a hold of ", amount, " units of '", PoolName(pool), "' is ",
                          size == amount ? "" : absl::StrCat(size, " units in whole blocks, "),
                          "larger than its cap ", pools_.cap(pool)));
      return false;
    }
    for (uint32_t other : pool_ids_) {
      if (other == pool) {
        FailAt(in.statement, absl::StrCat("the hold names '", PoolName(pool), "' twice"));
        return false;
      }
    }
    pool_ids_.push_back(pool);
    amounts_.push_back(amount);
  }
  s.frames.push_back(Session::Frame{in.a, static_cast<uint32_t>(s.holds.size()),
                                    static_cast<uint32_t>(pool_ids_.size())});
  ++s.pc;
  bool admitted = pools_.RequestHold(id, pool_ids_, amounts_, &s.holds);
  if (failed()) return false;
  if (options_.trace) LogHolds(admitted ? "admit" : "wait", s);
  if (admitted) return true;
  s.state = SessionState::kWaitHold;
  s.wait_statement = in.statement;
  s.wait_since = now_;
  return false;
}

bool Engine::ExecHoldEnd(Session& s, const Instr& in) {
  const Session::Frame f = s.frames.back();
  const HoldSite& h = model_.holds[f.site];
  constexpr HoldId kTaken = UINT32_MAX;
  const EvalFrame frame = FrameOf(s);
  for (const auto& [ref, duration_node] : h.leases) {
    uint32_t pool;
    if (!evaluator_.Element(ref, frame, &pool)) return FailEval(in.statement), false;
    double duration = evaluator_.Eval(duration_node, frame);
    if (evaluator_.failed()) return FailEval(in.statement), false;
    if (!(duration >= 0)) {
      FailAt(in.statement, absl::StrCat("a lease of '", PoolName(pool), "' for ", duration,
                                        " s: the duration must be >= 0"));
      return false;
    }
    bool found = false;
    for (uint32_t k = f.first; k < f.first + f.count; ++k) {
      HoldId hold = s.holds[k];
      if (hold == kTaken || pools_.hold(hold).pool != pool) continue;
      found = true;
      if (pools_.hold(hold).state == Hold::State::kActive) {
        // Saturated: --max-sessions near 2^64 must not wrap to a few leases.
        const uint64_t most = options_.limits.max_sessions > UINT64_MAX / kLeasesPerSession
                                  ? UINT64_MAX
                                  : options_.limits.max_sessions * kLeasesPerSession;
        if (live_leases_ >= most) {
          FailAt(in.statement, absl::StrCat("a lease of '", PoolName(pool), "' while ", most,
                                            " leases are alive (", kLeasesPerSession,
                                            " times --max-sessions): leases are made faster "
                                            "than they end (raise --max-sessions, or shorten "
                                            "the leases)"));
          return false;
        }
        // Counted first: the pool may evict the new lease at once (its
        // units are reclaimable by the request first in line).
        ++s.live_leases;
        ++live_leases_;
        s.leases.push_back(pools_.LeaseHold(hold, duration));
      } else {
        pools_.FreeHold(hold);  // returned early by a release: nothing to lease
      }
      s.holds[k] = kTaken;
      break;
    }
    if (!found) {
      FailAt(in.statement, absl::StrCat("the hold does not hold '", PoolName(pool),
                                        "' (or leases it twice), so it cannot lease it"));
      return false;
    }
  }
  for (uint32_t k = f.first; k < f.first + f.count; ++k) {
    if (s.holds[k] == kTaken) continue;
    if (options_.trace) LogRelease(s, s.holds[k], "block");
    pools_.EndHold(s.holds[k]);
  }
  s.holds.resize(f.first);
  s.frames.pop_back();
  ++s.pc;
  return !failed();
}

bool Engine::ExecRelease(Session& s, const Instr& in) {
  uint32_t pool;
  if (!Element(in.a, s, &pool)) return FailEval(in.statement), false;
  ++s.pc;
  // Inside a hold on the pool: return the innermost such hold early.
  if (HoldId hold; InnermostHold(s, pool, &hold)) {
    if (options_.trace) LogRelease(s, hold, "release");
    pools_.ReturnHold(hold);
    return !failed();
  }
  // Else the oldest lease it made on the pool, gone or not: one the pool
  // evicted (or that expired) is released without complaint.
  for (size_t i = 0; i < s.leases.size(); ++i) {
    if (s.leases[i].pool != pool) continue;
    LeaseRef ref = s.leases[i];
    s.leases.erase(s.leases.begin() + i);
    pools_.ReleaseLease(ref);
    return !failed();
  }
  FailAt(in.statement, absl::StrCat("release of '", PoolName(pool),
                                    "', which the session neither holds nor leases"));
  return false;
}

bool Engine::ExecLoad(SessionId id, const Instr& in) {
  Session& s = sessions_[id];
  uint32_t pool;
  const EvalFrame frame = FrameOf(s);
  if (!evaluator_.Element(in.a, frame, &pool)) return FailEval(in.statement), false;
  double units = evaluator_.Eval(in.b, frame);
  if (evaluator_.failed()) return FailEval(in.statement), false;
  if (!(units >= 0 && std::isfinite(units))) {
    FailAt(in.statement, absl::StrCat("a load of ", units, " units into '", PoolName(pool),
                                      "': the amount must be >= 0 and finite"));
    return false;
  }
  HoldId hold;
  if (!InnermostHold(s, pool, &hold)) {
    FailAt(in.statement, absl::StrCat("a load into '", PoolName(pool),
                                      "', which the session does not hold"));
    return false;
  }
  double size = pools_.SizeAfterLoad(hold, units);
  if (size > pools_.cap(pool)) {
    FailAt(in.statement, absl::StrCat("a load of ", units, " units into '", PoolName(pool),
                                      "' makes its hold ", size, " units, larger than its cap ",
                                      pools_.cap(pool)));
    return false;
  }
  ++s.pc;
  double before = pools_.hold(hold).size;
  pools_.NoteReceived(hold, units);
  if (pools_.Load(hold, units)) return !failed();
  s.state = SessionState::kWaitLoad;
  s.wait_statement = in.statement;
  s.wait_since = now_;
  s.wait_hold = hold;
  s.wait_units = size - before;
  return false;
}

void Engine::EndSession(SessionId id) {
  Session& s = sessions_[id];
  s.frames.clear();
  s.state = SessionState::kEnded;
  ++ended_[s.decl];
  if (window_started_) ++ended_window_[s.decl];
  InProgressChanged(s.decl);
  if (options_.trace) LogSession("end", s);
  if (!s.holds.empty()) EndHolds(id);
  Session& again = sessions_[id];
  again.leases.clear();  // nobody can release them now; they run out or are evicted
  if (again.live_leases == 0) FreeSession(id);
}

// Ending releases every hold, innermost first; leases stay. Out of
// EndSession's way: most sessions end holding nothing.
void Engine::EndHolds(SessionId id) {
  std::vector<HoldId> holds;
  holds.swap(sessions_[id].holds);
  const Session& s = sessions_[id];
  for (size_t k = holds.size(); k-- > 0;) {
    if (options_.trace) LogRelease(s, holds[k], "end");
    pools_.EndHold(holds[k]);
  }
  holds.clear();
  sessions_[id].holds.swap(holds);  // keep the capacity for the next session in the slot
}

}  // namespace serq::sim
