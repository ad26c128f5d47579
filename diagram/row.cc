#include "diagram/row.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "diagram/decls.h"
#include "ir/words.h"

namespace serq::view {

bool Flow::Contiguous() const {
  if (columns.empty()) return true;
  auto [lo, hi] = std::minmax_element(columns.begin(), columns.end());
  return *hi - *lo + 1 == int(columns.size());
}

namespace {

// Visit ids in the walk: a run statement is one visit. Two more ids stand
// for the session's start and end, and one for "the top of a repeat body",
// which the repeat turns into its loop edges.
constexpr int kStartVisit = -1;
constexpr int kEndVisit = -2;
constexpr int kLoopTop = -3;

struct Visit {
  std::vector<int> stages;  // the run's stage, then its `also`, duplicates dropped
};

// An edge waiting for the next visit: the session may come from `from`.
struct Pending {
  int from;
  std::string label;
};

struct RawEdge {
  int from;
  int to;
  std::string label;
};

struct SpanInProgress {
  int pool;
  std::string label;
  std::vector<int> held;    // visit ids
  std::vector<int> leased;  // visit ids
  bool lease_to_end = false;
  int anchor = kStartVisit;
};

// Where holds and leases stand at one point of the walk. Branches each
// start from the same state and merge afterwards.
struct PoolState {
  std::map<int, std::set<int>> open_leases;  // pool -> spans, oldest first
  std::set<int> returned;                    // holds given back by `release`
};

// The latest branch taken names the arrow: after `if (a) {} else {}`
// with no run in it, the next arrow is labelled by the next if, not both.
std::string Relabel(const std::string& old_label, const std::string& label) {
  return label.empty() ? old_label : label;
}

std::vector<Pending> Relabel(std::vector<Pending> pending, const std::string& label) {
  for (Pending& p : pending) p.label = Relabel(p.label, label);
  return pending;
}

class SessionWalker {
 public:
  SessionWalker(const ir::Program& program, const Declarations& decls, Diagnostics* diags)
      : program_(program), decls_(decls), diags_(diags) {}

  void WalkSession(const ir::Session& session, const std::string& path) {
    std::vector<Pending> out = Walk(session.body(), path, {{kStartVisit, ""}});
    EndHere(out);
  }

  std::vector<Visit> visits;
  std::vector<RawEdge> edges;
  std::vector<SpanInProgress> spans;

 private:
  std::vector<Pending> Walk(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
                            const std::string& path, std::vector<Pending> pending) {
    for (int i = 0; i < body.size(); ++i) {
      pending = Statement(body[i], absl::StrCat(path, "[", i, "]"), std::move(pending));
    }
    return pending;
  }

  std::vector<Pending> Statement(const ir::Statement& s, const std::string& path,
                                 std::vector<Pending> pending) {
    switch (s.kind_case()) {
      case ir::Statement::kRun:
        return Run(s.run(), path + ".run", std::move(pending));
      case ir::Statement::kIf:
        return If(s.if_(), path + ".if", std::move(pending), "if");
      case ir::Statement::kRepeat:
        return Repeat(s.repeat(), path + ".repeat.body", std::move(pending));
      case ir::Statement::kHold:
        return Hold(s.hold(), path + ".hold", std::move(pending));
      case ir::Statement::kRelease:
        Release(s.release().pool(), path + ".release.pool");
        return pending;
      case ir::Statement::kEnd:
        EndHere(pending);
        return {};
      default:  // set, choose, load, observe: no station, no arrow
        return pending;
    }
  }

  std::vector<Pending> Run(const ir::Statement::Run& run, const std::string& path,
                           std::vector<Pending> pending) {
    Visit visit;
    auto add = [&](int stage) {
      if (stage >= 0 && std::find(visit.stages.begin(), visit.stages.end(), stage) ==
                            visit.stages.end()) {
        visit.stages.push_back(stage);
      }
    };
    add(decls_.Stage(run.stage(), path + ".stage", diags_));
    for (int k = 0; k < run.also_size(); ++k) {
      add(decls_.Stage(run.also(k), absl::StrCat(path, ".also[", k, "]"), diags_));
    }
    if (visit.stages.empty()) return pending;  // an error was reported
    int id = int(visits.size());
    visits.push_back(std::move(visit));
    for (const Pending& p : pending) edges.push_back({p.from, id, p.label});
    for (int span : active_holds_) {
      if (!state_.returned.count(span)) spans[span].held.push_back(id);
    }
    for (const auto& [pool, open] : state_.open_leases) {
      for (int span : open) spans[span].leased.push_back(id);
    }
    last_visit_ = id;
    return {{id, ""}};
  }

  // An if, and an else that holds one if (`else if`) as the chain it is:
  // its branches are labelled "if", "else if", ..., "else".
  std::vector<Pending> If(const ir::Statement::If& s, const std::string& path,
                          std::vector<Pending> pending, const std::string& label) {
    PoolState before = state_;
    std::vector<Pending> then_out = Walk(s.then(), path + ".then", Relabel(pending, label));
    PoolState after_then = std::move(state_);
    state_ = std::move(before);
    std::vector<Pending> else_out;
    if (s.else__size() == 1 && s.else_(0).has_if_()) {
      else_out = If(s.else_(0).if_(), path + ".else[0].if", std::move(pending), "else if");
    } else {
      else_out = Walk(s.else_(), path + ".else", Relabel(std::move(pending), "else"));
    }
    Merge(after_then);
    then_out.insert(then_out.end(), else_out.begin(), else_out.end());
    return then_out;
  }

  // The body is walked once. Its entries are found by walking it from a
  // placeholder (kLoopTop): every edge from the placeholder goes to a visit
  // the body can start with, and the loop edge runs to it from every visit
  // the body can end with.
  std::vector<Pending> Repeat(const ir::Statement::Repeat& repeat, const std::string& path,
                              std::vector<Pending> pending) {
    size_t first_edge = edges.size();
    std::vector<Pending> out = Walk(repeat.body(), path, {{kLoopTop, ""}});
    std::vector<RawEdge> entries;
    std::vector<RawEdge> kept;
    for (size_t e = first_edge; e < edges.size(); ++e) {
      (edges[e].from == kLoopTop ? entries : kept).push_back(edges[e]);
    }
    edges.resize(first_edge);
    for (const RawEdge& entry : entries) {
      for (const Pending& p : pending) {
        edges.push_back({p.from, entry.to, Relabel(p.label, entry.label)});
      }
    }
    edges.insert(edges.end(), kept.begin(), kept.end());
    std::vector<Pending> after;
    for (const Pending& p : out) {
      if (p.from == kLoopTop) {  // a way through the body that visits nothing
        for (const Pending& q : pending) after.push_back({q.from, Relabel(q.label, p.label)});
        continue;
      }
      for (const RawEdge& entry : entries) {
        if (entry.to != kEndVisit) edges.push_back({p.from, entry.to, "repeat"});
      }
      after.push_back(p);
    }
    return after;
  }

  std::vector<Pending> Hold(const ir::Statement::Hold& hold, const std::string& path,
                            std::vector<Pending> pending) {
    std::vector<int> mine;
    for (int k = 0; k < hold.pool_size(); ++k) {
      int pool = decls_.Pool(hold.pool(k).pool(), absl::StrCat(path, ".pool[", k, "].pool"),
                             diags_);
      if (pool < 0) continue;
      mine.push_back(int(spans.size()));
      spans.push_back({pool, PoolLabel(pool), {}, {}, false, last_visit_});
    }
    active_holds_.insert(active_holds_.end(), mine.begin(), mine.end());
    std::vector<Pending> out = Walk(hold.body(), path + ".body", std::move(pending));
    active_holds_.resize(active_holds_.size() - mine.size());
    std::set<int> leased;
    for (int k = 0; k < hold.lease_size(); ++k) {
      std::string lease_path = absl::StrCat(path, ".lease[", k, "]");
      const ir::Statement::Amount& lease = hold.lease(k);
      int pool = decls_.Pool(lease.pool(), lease_path + ".pool", diags_);
      if (pool < 0) continue;
      auto span = std::find_if(mine.begin(), mine.end(), [&](int s) {
        return spans[s].pool == pool && !leased.count(s);
      });
      if (span == mine.end()) {
        diags_->Error(lease.loc(), lease_path,
                      absl::StrCat("lease of '", lease.pool().name(),
                                   "', which the hold does not hold"));
        continue;
      }
      leased.insert(*span);
      absl::StatusOr<double> duration = decls_.Constant(lease.amount());
      absl::StrAppend(&spans[*span].label, ", lease",
                      duration.ok() ? absl::StrCat(" ", FormatNumber(*duration)) : "");
      state_.open_leases[pool].insert(*span);
    }
    return out;
  }

  // `release P` ends the session's oldest lease on P, or else gives back
  // the innermost hold of P early (language.md 5.4).
  void Release(const ir::Ref& ref, const std::string& path) {
    int pool = decls_.Pool(ref, path, diags_);
    if (pool < 0) return;
    auto open = state_.open_leases.find(pool);
    if (open != state_.open_leases.end() && !open->second.empty()) {
      open->second.erase(open->second.begin());
      if (open->second.empty()) state_.open_leases.erase(open);
      return;
    }
    for (auto it = active_holds_.rbegin(); it != active_holds_.rend(); ++it) {
      if (spans[*it].pool == pool && !state_.returned.count(*it)) {
        state_.returned.insert(*it);
        return;
      }
    }
  }

  // After an if: a lease is open if either branch left it open; a hold is
  // given back only if both branches gave it back.
  void Merge(const PoolState& other) {
    for (const auto& [pool, open] : other.open_leases) {
      state_.open_leases[pool].insert(open.begin(), open.end());
    }
    std::set<int> both;
    std::set_intersection(state_.returned.begin(), state_.returned.end(),
                          other.returned.begin(), other.returned.end(),
                          std::inserter(both, both.begin()));
    state_.returned = std::move(both);
  }

  void EndHere(const std::vector<Pending>& pending) {
    for (const Pending& p : pending) edges.push_back({p.from, kEndVisit, p.label});
    for (const auto& [pool, open] : state_.open_leases) {
      for (int span : open) spans[span].lease_to_end = true;
    }
  }

  std::string PoolLabel(int pool) {
    const ir::Pool& decl = program_.pool(pool);
    std::string path = absl::StrCat("pool[", pool, "]");
    std::string label = decl.name();
    int size = decls_.ArraySize(decl.has_size() ? &decl.size() : nullptr, decl.loc(),
                                path + ".size", diags_);
    if (size > 0) absl::StrAppend(&label, "[", size, "]");
    if (decl.has_cap()) {
      absl::StatusOr<double> cap = decls_.Constant(decl.cap());
      if (cap.ok()) {
        absl::StrAppend(&label, " cap ", FormatNumber(*cap));
      } else {
        diags_->Error(decl.cap().loc().line() ? decl.cap().loc() : decl.loc(), path + ".cap",
                      absl::StrCat("cap: ", cap.status().message()));
      }
    }
    return label;
  }

  const ir::Program& program_;
  const Declarations& decls_;
  Diagnostics* diags_;
  std::vector<int> active_holds_;  // spans of the holds the walk is inside
  PoolState state_;
  int last_visit_ = kStartVisit;
};

// Order of first visit, then each flow moved together, in the run's order,
// to where its first station stands (a flow's stations side by side: the
// paragraph Flows of docs/view.md). A flow that shares a station with a
// flow placed before it stays where it is: it cannot be made adjacent
// without pulling the earlier one apart.
std::vector<int> StationOrder(const std::vector<Visit>& visits,
                              const std::vector<std::vector<int>>& flows) {
  std::vector<int> order;
  for (const Visit& v : visits) {
    for (int s : v.stages) {
      if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
    }
  }
  std::set<int> placed;
  for (const std::vector<int>& flow : flows) {
    if (std::any_of(flow.begin(), flow.end(), [&](int s) { return placed.count(s) > 0; })) {
      continue;
    }
    auto in_flow = [&](int s) { return std::find(flow.begin(), flow.end(), s) != flow.end(); };
    std::vector<int> rest;
    int at = 0;
    for (int s : order) {
      if (s == flow[0]) at = int(rest.size());
      if (!in_flow(s)) rest.push_back(s);
    }
    rest.insert(rest.begin() + at, flow.begin(), flow.end());
    order = std::move(rest);
    placed.insert(flow.begin(), flow.end());
  }
  return order;
}

std::string KindLabel(const ir::Stage& stage, const Declarations& decls) {
  auto rate = [&]() -> std::string {
    std::string name = decls.ParamName(stage.rate());
    if (!name.empty()) return name;
    absl::StatusOr<double> value = decls.Constant(stage.rate());
    // A rate that reads `present` or a step's variables is not one number.
    return value.ok() ? FormatNumber(*value) : "\u2026";
  };
  switch (stage.kind()) {
    case ir::Stage::DELAY: return "delay";
    case ir::Stage::PS: return absl::StrCat("ps(", rate(), ")");
    case ir::Stage::FIFO: return absl::StrCat("fifo(", rate(), ")");
    case ir::Stage::STEP: return "step";
    default: return "?";
  }
}

std::vector<int> Columns(const std::vector<int>& visit_ids, const std::vector<Visit>& visits,
                         const std::map<int, int>& column) {
  std::set<int> cols;
  for (int v : visit_ids) {
    for (int s : visits[v].stages) cols.insert(column.at(s));
  }
  return std::vector<int>(cols.begin(), cols.end());
}

Row BuildRow(const ir::Program& program, int index, const Declarations& decls,
             Diagnostics* diags) {
  const ir::Session& session = program.session(index);
  SessionWalker walker(program, decls, diags);
  walker.WalkSession(session, absl::StrCat("session[", index, "].body"));

  Row row;
  row.session = session.name().empty() ? "session" : absl::StrCat("session ", session.name());

  std::vector<std::vector<int>> flows;
  for (const Visit& v : walker.visits) {
    if (v.stages.size() > 1 && std::find(flows.begin(), flows.end(), v.stages) == flows.end()) {
      flows.push_back(v.stages);
    }
  }
  std::vector<int> order = StationOrder(walker.visits, flows);
  std::map<int, int> column;  // stage -> column
  for (int i = 0; i < int(order.size()); ++i) column[order[i]] = i;

  for (int stage : order) {
    const ir::Stage& decl = program.stage(stage);
    Station station;
    station.stage = stage;
    station.name = decl.name();
    int size = decls.ArraySize(decl.has_size() ? &decl.size() : nullptr, decl.loc(),
                               absl::StrCat("stage[", stage, "].size"), diags);
    if (size > 0) {
      absl::StrAppend(&station.name, "[", size, "]");
      station.array = true;
    }
    station.kind = KindLabel(decl, decls);
    row.stations.push_back(std::move(station));
  }

  for (const std::vector<int>& stages : flows) {
    Flow flow;
    for (int s : stages) flow.columns.push_back(column[s]);
    row.flows.push_back(std::move(flow));
  }

  // One arrow per pair of columns, whatever number of visits it stands
  // for; its labels in order of first appearance.
  std::map<std::pair<int, int>, std::vector<std::string>> arrows;
  auto column_of = [&](int visit, bool leaving) {
    if (visit == kStartVisit) return kStart;
    if (visit == kEndVisit) return row.end();
    const std::vector<int>& s = walker.visits[visit].stages;
    return column[leaving ? s.back() : s.front()];
  };
  for (const RawEdge& e : walker.edges) {
    std::vector<std::string>& labels = arrows[{column_of(e.from, true), column_of(e.to, false)}];
    if (!e.label.empty() && std::find(labels.begin(), labels.end(), e.label) == labels.end()) {
      labels.push_back(e.label);
    }
  }
  for (const auto& [ends, labels] : arrows) {
    row.edges.push_back({ends.first, ends.second, absl::StrJoin(labels, "/")});
  }

  for (const SpanInProgress& s : walker.spans) {
    PoolSpan span;
    span.pool = s.pool;
    span.label = s.label;
    span.held = Columns(s.held, walker.visits, column);
    for (int c : Columns(s.leased, walker.visits, column)) {
      if (!std::binary_search(span.held.begin(), span.held.end(), c)) span.leased.push_back(c);
    }
    span.lease_to_end = s.lease_to_end;
    span.anchor = column_of(s.anchor, true);
    row.pools.push_back(std::move(span));
  }
  return row;
}

}  // namespace

bool BuildDrawing(const ir::Program& program, Drawing* out, Diagnostics* diags) {
  size_t errors = diags->size();
  Declarations decls(program);
  out->share = std::string(ShareWord(program.share()));
  out->rows.clear();
  for (int i = 0; i < program.session_size(); ++i) {
    out->rows.push_back(BuildRow(program, i, decls, diags));
  }
  return diags->size() == errors;
}

}  // namespace serq::view
