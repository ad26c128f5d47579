#include "serq-sim/flow/flow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace serq::flow {
namespace {

// Every test runs under both scopes: the component solve and the
// from-scratch reference must agree on everything.
struct Config {
  Policy policy;
  Scope scope;
};

std::string Name(const Config& c) {
  return std::string(c.policy == Policy::kMaxMin ? "MaxMin" : "Bottleneck") +
         (c.scope == Scope::kComponent ? "Component" : "Everything");
}

struct End {
  int flow;
  double time;
};

// The event loop of a simulator, reduced to flow ends: take the earliest
// end, finish every flow due then, until `until` or no flow is left.
std::vector<End> RunUntil(FlowSolver& solver, double until) {
  std::vector<End> ends;
  while (auto next = solver.NextEnd()) {
    if (next->first > until) break;
    double now = next->first;
    for (int f : solver.FinishDue(now)) ends.push_back({f, now});
  }
  return ends;
}

std::vector<End> RunToEnd(FlowSolver& solver) {
  return RunUntil(solver, std::numeric_limits<double>::infinity());
}

// --- The seed's expected values ---------------------------------------------

// The Before with the sender's NIC in the run: two flows of work 1, both on
// egress (capacity 1) and each on its own ingress (capacity 1), both start at
// t = 1. The egress is the tightest stage, 1/2 each under both policies
// (maxmin: egress fills at level 1/2 before either ingress at 1; bottleneck:
// min(1/2, 1/1)), so both end at 1 + 1 / (1/2) = 3.
TEST(FlowSeed, TwoReadsFromOneSender) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    for (Scope scope : {Scope::kComponent, Scope::kEverything}) {
      SCOPED_TRACE(Name({policy, scope}));
      FlowSolver solver(policy, scope);
      int egress = solver.AddStage(1);
      int ingress0 = solver.AddStage(1);
      int ingress1 = solver.AddStage(1);
      int f0 = solver.Start(1, {egress, ingress0}, 1);
      int f1 = solver.Start(1, {egress, ingress1}, 1);
      EXPECT_EQ(solver.Rate(f0), 0.5);
      EXPECT_EQ(solver.Rate(f1), 0.5);
      std::vector<End> ends = RunToEnd(solver);
      ASSERT_EQ(ends.size(), 2u);
      EXPECT_EQ(ends[0].flow, f0);
      EXPECT_EQ(ends[0].time, 3.0);
      EXPECT_EQ(ends[1].flow, f1);
      EXPECT_EQ(ends[1].time, 3.0);
    }
  }
}

// Three flows of work 1 from t = 0. A (capacity 1) carries f1, f2; B
// (capacity 2) carries f1 and f3, f3 a single-stage run on B.
//   maxmin: A fills first, at level 1/2 (B's level is 2/2 = 1), freezing f1
//   and f2 at 1/2; f3 takes the rest of B, 2 - 1/2 = 3/2, and ends at 2/3.
//   After that f1 and f2 keep 1/2 (A is still their bottleneck) and end at 2.
//   B carries 1/2 + 3/2 = 2 = phi_B until 2/3: utilisation 1.
//   bottleneck: f1 = min(1/2, 2/2) = 1/2, f2 = 1/2, f3 = 2/2 = 1; f3 ends at
//   1, f1 and f2 at 2. B carries 1/2 + 1 = 3/2 of 2 until 2/3: utilisation 3/4.
TEST(FlowSeed, SingleStageFlowTakesWhatIsLeft) {
  for (Scope scope : {Scope::kComponent, Scope::kEverything}) {
    SCOPED_TRACE(Name({Policy::kMaxMin, scope}));
    FlowSolver solver(Policy::kMaxMin, scope);
    int a = solver.AddStage(1);
    int b = solver.AddStage(2);
    int f1 = solver.Start(0, {a, b}, 1);
    int f2 = solver.Start(0, {a}, 1);
    int f3 = solver.Start(0, {b}, 1);
    EXPECT_EQ(solver.Rate(f1), 0.5);
    EXPECT_EQ(solver.Rate(f2), 0.5);
    EXPECT_EQ(solver.Rate(f3), 1.5);
    EXPECT_EQ(solver.CarriedAt(b), 2.0);
    std::vector<End> first = RunUntil(solver, 1.0);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].flow, f3);
    EXPECT_EQ(first[0].time, 2.0 / 3.0);
    EXPECT_EQ(solver.UtilisationIntegral(b, 2.0 / 3.0) / (2.0 / 3.0), 1.0);
    EXPECT_EQ(solver.PresentIntegral(b, 2.0 / 3.0) / (2.0 / 3.0), 2.0);
    EXPECT_EQ(solver.Rate(f1), 0.5);
    EXPECT_EQ(solver.Rate(f2), 0.5);
    std::vector<End> rest = RunToEnd(solver);
    ASSERT_EQ(rest.size(), 2u);
    EXPECT_EQ(rest[0].flow, f1);
    EXPECT_EQ(rest[0].time, 2.0);
    EXPECT_EQ(rest[1].flow, f2);
    EXPECT_EQ(rest[1].time, 2.0);
  }
  for (Scope scope : {Scope::kComponent, Scope::kEverything}) {
    SCOPED_TRACE(Name({Policy::kBottleneck, scope}));
    FlowSolver solver(Policy::kBottleneck, scope);
    int a = solver.AddStage(1);
    int b = solver.AddStage(2);
    int f1 = solver.Start(0, {a, b}, 1);
    int f2 = solver.Start(0, {a}, 1);
    int f3 = solver.Start(0, {b}, 1);
    EXPECT_EQ(solver.Rate(f1), 0.5);
    EXPECT_EQ(solver.Rate(f2), 0.5);
    EXPECT_EQ(solver.Rate(f3), 1.0);
    EXPECT_EQ(solver.CarriedAt(b), 1.5);
    // 3/2 * (2/3) / 2 rounds, so the quotient is within an ulp of 3/4.
    EXPECT_DOUBLE_EQ(solver.UtilisationIntegral(b, 2.0 / 3.0) / (2.0 / 3.0), 0.75);
    std::vector<End> ends = RunToEnd(solver);
    ASSERT_EQ(ends.size(), 3u);
    EXPECT_EQ(ends[0].flow, f3);
    EXPECT_EQ(ends[0].time, 1.0);
    EXPECT_EQ(ends[1].flow, f1);
    EXPECT_EQ(ends[1].time, 2.0);
    EXPECT_EQ(ends[2].flow, f2);
    EXPECT_EQ(ends[2].time, 2.0);
  }
}

// --- Random instances -------------------------------------------------------

// Capacities from a small set, so that ties between stages are common.
double DrawCapacity(std::mt19937_64& rng) {
  static constexpr double kCapacities[] = {0.5, 1, 1, 2, 3, 0.3};
  return kCapacities[rng() % 6];
}

std::vector<int> DrawStages(std::mt19937_64& rng, int first, int count, int k) {
  std::vector<int> stages;
  while (static_cast<int>(stages.size()) < k) {
    int s = first + static_cast<int>(rng() % count);
    if (std::find(stages.begin(), stages.end(), s) == stages.end()) stages.push_back(s);
  }
  return stages;
}

struct Instance {
  std::vector<double> capacity;
  std::vector<std::vector<int>> flows;
};

Instance DrawInstance(std::mt19937_64& rng) {
  Instance in;
  int stages = 1 + static_cast<int>(rng() % 10);
  int flows = 1 + static_cast<int>(rng() % 25);
  for (int s = 0; s < stages; ++s) in.capacity.push_back(DrawCapacity(rng));
  for (int f = 0; f < flows; ++f) {
    // Up to 5 stages: more than the solver keeps inline (3).
    int k = 1 + static_cast<int>(rng() % std::min(5, stages));
    in.flows.push_back(DrawStages(rng, 0, stages, k));
  }
  return in;
}

// Max-min fairness, checked by its characterisation: the rates are feasible
// (no stage carries more than phi) and every flow has a bottleneck, a stage
// that is full and on which no flow has a larger rate. (If a flow had none,
// its rate could be raised taking only from flows faster than it.)
TEST(FlowProperty, MaxMinIsFeasibleAndFair) {
  constexpr double kTol = 1e-12;
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    Instance in = DrawInstance(rng);
    FlowSolver solver(Policy::kMaxMin);
    for (double c : in.capacity) solver.AddStage(c);
    std::vector<int> ids;
    for (const auto& stages : in.flows) ids.push_back(solver.Start(0, stages, 1));
    int n_stages = static_cast<int>(in.capacity.size());
    std::vector<double> carried(n_stages, 0), fastest(n_stages, 0);
    for (size_t i = 0; i < ids.size(); ++i) {
      double r = solver.Rate(ids[i]);
      ASSERT_GT(r, 0);
      for (int s : in.flows[i]) {
        carried[s] += r;
        fastest[s] = std::max(fastest[s], r);
      }
    }
    for (int s = 0; s < n_stages; ++s) {
      EXPECT_LE(carried[s], in.capacity[s] * (1 + kTol));
      EXPECT_NEAR(solver.CarriedAt(s), carried[s], kTol * in.capacity[s]);
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      double r = solver.Rate(ids[i]);
      bool has_bottleneck = false;
      for (int s : in.flows[i]) {
        bool full = carried[s] >= in.capacity[s] * (1 - kTol);
        if (full && r >= fastest[s] * (1 - kTol)) has_bottleneck = true;
      }
      EXPECT_TRUE(has_bottleneck) << "flow " << i << " rate " << r;
    }
  }
}

// Bottleneck: the formula, bit for bit.
TEST(FlowProperty, BottleneckIsTheFormula) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    Instance in = DrawInstance(rng);
    FlowSolver solver(Policy::kBottleneck);
    std::vector<int> n(in.capacity.size(), 0);
    for (double c : in.capacity) solver.AddStage(c);
    std::vector<int> ids;
    for (const auto& stages : in.flows) {
      ids.push_back(solver.Start(0, stages, 1));
      for (int s : stages) ++n[s];
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      double expected = std::numeric_limits<double>::infinity();
      for (int s : in.flows[i]) expected = std::min(expected, in.capacity[s] / n[s]);
      EXPECT_EQ(solver.Rate(ids[i]), expected);
    }
  }
}

// Drives a component solver and a from-scratch one through the same random
// starts and ends, and asks that they agree bit for bit after every event:
// rates, remaining work, end times, stage figures and integrals. Stages come
// in groups, most flows stay in one group and a few cross, so components
// form, merge and split; starts come `gap` apart on average, so a small gap
// piles many flows up (long solves, where the maxmin solve re-fills only
// part of the component).
struct Traffic {
  int groups;
  int per_group;
  int flows;
  double gap;
  bool unit_capacity;  // every stage of capacity 1: many equal fill levels
};

void CompareWithFromScratch(Policy policy, uint64_t seed, Traffic traffic) {
  std::mt19937_64 rng(seed);
  const int kGroups = traffic.groups, kPerGroup = traffic.per_group, kFlows = traffic.flows;
  FlowSolver component(policy, Scope::kComponent);
  FlowSolver scratch(policy, Scope::kEverything);
  for (int s = 0; s < kGroups * kPerGroup; ++s) {
    double c = traffic.unit_capacity ? 1.0 : DrawCapacity(rng);
    component.AddStage(c);
    scratch.AddStage(c);
  }
  auto unit = [](std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1p-53; };
  double now = 0;
  double next_start = 0;
  int started = 0;   // starts so far
  int max_id = 0;    // ids are reused: every id seen is below this
  uint64_t last_version = component.version();
  auto check = [&](double t) {
    ASSERT_EQ(component.FlowCount(), scratch.FlowCount());
    auto a = component.NextEnd();
    auto b = scratch.NextEnd();
    ASSERT_EQ(a.has_value(), b.has_value());
    if (a) {
      EXPECT_EQ(a->first, b->first);
      EXPECT_EQ(a->second, b->second);
    }
    for (int f = 0; f < max_id; ++f) {
      ASSERT_EQ(component.InProgress(f), scratch.InProgress(f));
      if (!component.InProgress(f)) continue;
      ASSERT_EQ(component.Rate(f), scratch.Rate(f)) << "flow " << f;
      ASSERT_EQ(component.Remaining(f, t), scratch.Remaining(f, t)) << "flow " << f;
    }
    for (int s = 0; s < component.StageCount(); ++s) {
      ASSERT_EQ(component.FlowsAt(s), scratch.FlowsAt(s));
      ASSERT_EQ(component.CarriedAt(s), scratch.CarriedAt(s));
      ASSERT_EQ(component.WorkAt(s, t), scratch.WorkAt(s, t));
      ASSERT_EQ(component.PresentIntegral(s, t), scratch.PresentIntegral(s, t));
      ASSERT_EQ(component.UtilisationIntegral(s, t), scratch.UtilisationIntegral(s, t));
    }
    // Every event changes the set of flows, so the version moves.
    uint64_t v = component.version();
    EXPECT_NE(v, last_version);
    last_version = v;
  };
  while (started < kFlows || component.FlowCount() > 0) {
    auto end = component.NextEnd();
    if (started < kFlows && (!end || next_start < end->first)) {
      now = next_start;
      int group = static_cast<int>(rng() % kGroups);
      int k = 1 + static_cast<int>(rng() % std::min(5, kPerGroup));
      std::vector<int> stages;
      if (rng() % 8 == 0) {
        stages = DrawStages(rng, 0, kGroups * kPerGroup, k);  // crosses groups
      } else {
        stages = DrawStages(rng, group * kPerGroup, kPerGroup, k);
      }
      double work = 0.05 + unit(rng);
      int a = component.Start(now, stages, work);
      int b = scratch.Start(now, stages, work);
      ASSERT_EQ(a, b);
      max_id = std::max(max_id, a + 1);
      ++started;
      // Sometimes a second flow at the same instant (one solve for both).
      if (rng() % 5 == 0) {
        std::vector<int> more = DrawStages(rng, group * kPerGroup, kPerGroup, 1);
        a = component.Start(now, more, work);
        b = scratch.Start(now, more, work);
        ASSERT_EQ(a, b);
        max_id = std::max(max_id, a + 1);
        ++started;
      }
      next_start = now + 2 * traffic.gap * unit(rng);
    } else {
      now = end->first;
      std::vector<int> a = component.FinishDue(now);
      std::vector<int> b = scratch.FinishDue(now);
      ASSERT_EQ(a, b);
      ASSERT_FALSE(a.empty());
    }
    check(now);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

constexpr Traffic kGroupsOfFour = {6, 4, 400, 0.2, false};
constexpr Traffic kOneCrowd = {1, 24, 1500, 0.01, false};
// Like the benchmark: equal links, flows of 1 to 4 of them, so that levels
// tie and rounding decides which stage fills first.
constexpr Traffic kEqualLinks = {1, 64, 1500, 0.01, true};

TEST(FlowProperty, ComponentSolveEqualsFromScratchMaxMin) {
  for (Traffic traffic : {kGroupsOfFour, kOneCrowd, kEqualLinks}) {
    for (uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(seed);
      CompareWithFromScratch(Policy::kMaxMin, seed, traffic);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(FlowProperty, ComponentSolveEqualsFromScratchBottleneck) {
  for (Traffic traffic : {kGroupsOfFour, kOneCrowd}) {
    for (uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(seed);
      CompareWithFromScratch(Policy::kBottleneck, seed, traffic);
      if (HasFatalFailure()) return;
    }
  }
}

// --- Versions and stale end events -------------------------------------------

// f0 alone on A (capacity 1, work 2) is due at 2; f1 joins A at 1, so from 1
// both run at 1/2: f0 has 1 left and ends at 1 + 1 / (1/2) = 3, f1 at 3 too.
// The end event scheduled for 2 carries the old version and is stale.
TEST(FlowVersion, StaleEndIsDetectable) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    FlowSolver solver(policy);
    int a = solver.AddStage(1);
    int other = solver.AddStage(1);
    int f0 = solver.Start(0, {a}, 2);
    auto scheduled = solver.NextEnd();
    uint64_t scheduled_version = solver.version();
    ASSERT_TRUE(scheduled);
    EXPECT_EQ(scheduled->first, 2.0);
    EXPECT_EQ(scheduled->second, f0);
    // Queries do not move the version.
    EXPECT_EQ(solver.version(), scheduled_version);
    EXPECT_EQ(solver.Rate(f0), 1.0);
    EXPECT_EQ(solver.version(), scheduled_version);
    // Nothing is due at 0.5: nothing changes.
    EXPECT_TRUE(solver.FinishDue(0.5).empty());
    EXPECT_EQ(solver.version(), scheduled_version);

    int f1 = solver.Start(1, {a, other}, 1);
    EXPECT_NE(solver.version(), scheduled_version);  // the event for 2 is stale
    EXPECT_EQ(solver.Rate(f0), 0.5);
    EXPECT_EQ(solver.Remaining(f0, 1), 1.0);
    EXPECT_EQ(solver.Remaining(f0, 2), 0.5);  // computed on demand
    auto next = solver.NextEnd();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->first, 3.0);
    EXPECT_EQ(next->second, f0);  // tie with f1: the flow started first
    // A stale event, acted on anyway, finds nothing due.
    EXPECT_TRUE(solver.FinishDue(2.0).empty());
    std::vector<int> done = solver.FinishDue(3.0);
    EXPECT_EQ(done, (std::vector<int>{f0, f1}));
  }
}

// --- Edge cases -------------------------------------------------------------

// A flow ends at 1 exactly when another starts on its stage: whichever order
// the event loop takes them in, the new flow has A to itself from 1 and ends
// at 1 + 1 = 2 (work 1, capacity 1), and the old one ends at 1.
TEST(FlowEdge, EndExactlyWhenAnotherStarts) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    for (bool end_first : {true, false}) {
      SCOPED_TRACE(end_first);
      FlowSolver solver(policy);
      int a = solver.AddStage(1);
      int f0 = solver.Start(0, {a}, 1);
      int f1;
      if (end_first) {
        EXPECT_EQ(solver.FinishDue(1), std::vector<int>{f0});
        f1 = solver.Start(1, {a}, 1);
      } else {
        f1 = solver.Start(1, {a}, 1);
        // f0 has nothing left; sharing A at 1/2 it is still due at 1.
        EXPECT_EQ(solver.FinishDue(1), std::vector<int>{f0});
      }
      EXPECT_EQ(solver.Rate(f1), 1.0);
      std::vector<End> ends = RunToEnd(solver);
      ASSERT_EQ(ends.size(), 1u);
      EXPECT_EQ(ends[0].flow, f1);
      EXPECT_EQ(ends[0].time, 2.0);
    }
  }
}

// 100 flows of work 1 on one stage of capacity 4 from t = 0: 4/100 each, all
// end at 100 / 4 = 25 in one FinishDue, in start order; the stage is empty
// afterwards and so is the solver.
TEST(FlowEdge, ManyEndAtOneInstant) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    FlowSolver solver(policy);
    int a = solver.AddStage(4);
    std::vector<int> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(solver.Start(0, {a}, 1));
    auto next = solver.NextEnd();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->first, 25.0);
    EXPECT_EQ(solver.FinishDue(25.0), ids);
    EXPECT_EQ(solver.FlowCount(), 0);
    EXPECT_FALSE(solver.NextEnd());
    EXPECT_EQ(solver.FlowsAt(a), 0);
    EXPECT_EQ(solver.CarriedAt(a), 0.0);
  }
}

// Two flows that end together in exact arithmetic but not in floating point:
// A (capacity 1), f0 from 0 with work 0.1 + 0.3, f1 from 0.1 with work 0.3.
// At 0.1 f0 has 0.3 left; both run at 1/2 and are due at 0.1 + 0.6 = 0.7.
// The two end times differ in the last bits; the end tolerance ends both at
// once, at the same instant.
TEST(FlowEdge, EndsThatDifferByRoundingEndTogether) {
  ASSERT_NE(0.1 + ((0.1 + 0.3) - 0.1) / 0.5, 0.1 + 0.3 / 0.5);  // the premise
  FlowSolver solver(Policy::kMaxMin);
  int a = solver.AddStage(1);
  int f0 = solver.Start(0, {a}, 0.1 + 0.3);
  int f1 = solver.Start(0.1, {a}, 0.3);
  std::vector<End> ends = RunToEnd(solver);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].flow, f0);
  EXPECT_EQ(ends[1].flow, f1);
  EXPECT_EQ(ends[0].time, ends[1].time);
  EXPECT_NEAR(ends[0].time, 0.7, 1e-15);
}

// One flow alone on one stage runs at the stage's capacity under both
// policies: work 3 on capacity 2 ends at 3/2. While it runs the stage has
// n = 1, carries 2 (utilisation 1) and holds 3 - 2t of work.
TEST(FlowEdge, OneFlowOnOneStage) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    FlowSolver solver(policy);
    int a = solver.AddStage(2);
    int f = solver.Start(0, {a}, 3);
    EXPECT_EQ(solver.Rate(f), 2.0);
    EXPECT_EQ(solver.FlowsAt(a), 1);
    EXPECT_EQ(solver.CarriedAt(a), 2.0);
    EXPECT_EQ(solver.WorkAt(a, 0.5), 2.0);
    EXPECT_EQ(solver.UtilisationIntegral(a, 1.0), 1.0);
    std::vector<End> ends = RunToEnd(solver);
    ASSERT_EQ(ends.size(), 1u);
    EXPECT_EQ(ends[0].time, 1.5);
  }
}

// Removing the last flow leaves the stage empty: n_s = 0, nothing carried,
// and from then on the integrals stop growing. Flow of work 1 on A (capacity
// 1) over [0, 1]: the integrals at 4 are 1 (n = 1 for one unit of time) and
// 1 (utilisation 1 for one unit). After a reset at 4, both restart from 0.
TEST(FlowEdge, RemovingTheLastFlow) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    FlowSolver solver(policy);
    int a = solver.AddStage(1);
    solver.Start(0, {a}, 1);
    RunToEnd(solver);
    EXPECT_EQ(solver.FlowCount(), 0);
    EXPECT_EQ(solver.FlowsAt(a), 0);
    EXPECT_EQ(solver.CarriedAt(a), 0.0);
    EXPECT_EQ(solver.WorkAt(a, 4), 0.0);
    EXPECT_EQ(solver.PresentIntegral(a, 4), 1.0);
    EXPECT_EQ(solver.UtilisationIntegral(a, 4), 1.0);
    solver.ResetIntegrals(4);
    EXPECT_EQ(solver.PresentIntegral(a, 6), 0.0);
    // A flow from 6 to 7: the integrals over [4, 8] are 1 each again.
    solver.Start(6, {a}, 1);
    RunToEnd(solver);
    EXPECT_EQ(solver.PresentIntegral(a, 8), 1.0);
    EXPECT_EQ(solver.UtilisationIntegral(a, 8), 1.0);
  }
}

// Ids are reused after a flow ends, and the reused id is a fresh flow: f0
// (work 1, alone on A of capacity 1) ends at 1; the next flow gets id f0
// back and, with work 2 from 1, runs at 1 and ends at 3, its remaining work
// 2 at its start, not what the old flow had.
TEST(FlowEdge, IdReuse) {
  for (Policy policy : {Policy::kMaxMin, Policy::kBottleneck}) {
    FlowSolver solver(policy);
    int a = solver.AddStage(1);
    int b = solver.AddStage(1);
    int f0 = solver.Start(0, {a}, 1);
    int f1 = solver.Start(0, {b}, 5);
    EXPECT_NE(f0, f1);
    EXPECT_EQ(solver.FinishDue(1), std::vector<int>{f0});
    EXPECT_FALSE(solver.InProgress(f0));
    int g = solver.Start(1, {a}, 2);
    EXPECT_EQ(g, f0);
    EXPECT_TRUE(solver.InProgress(g));
    EXPECT_EQ(solver.Remaining(g, 1), 2.0);
    EXPECT_EQ(solver.Rate(g), 1.0);
    auto next = solver.NextEnd();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->first, 3.0);
    EXPECT_EQ(next->second, g);
  }
}

// A flow's rate goes up when the flow that held it back ends (maxmin is
// work-conserving): A (capacity 1) carries f0 (work 1) and f1 (work 3); B
// (capacity 4) carries f1 and f2 (work 10). maxmin: A fills at 1/2 (B's level
// is 2); f2 takes 4 - 1/2 = 7/2. f0 ends at 2; then f1 is alone on A and runs
// at 1 with 3 - 1 = 2 left: it ends at 4, and f2 drops to 3 at t = 2.
TEST(FlowEdge, RateRisesWhenTheBottleneckClears) {
  FlowSolver solver(Policy::kMaxMin);
  int a = solver.AddStage(1);
  int b = solver.AddStage(4);
  int f0 = solver.Start(0, {a}, 1);
  int f1 = solver.Start(0, {a, b}, 3);
  int f2 = solver.Start(0, {b}, 10);
  EXPECT_EQ(solver.Rate(f1), 0.5);
  EXPECT_EQ(solver.Rate(f2), 3.5);
  EXPECT_EQ(solver.FinishDue(2), std::vector<int>{f0});
  EXPECT_EQ(solver.Rate(f1), 1.0);
  EXPECT_EQ(solver.Rate(f2), 3.0);
  EXPECT_EQ(solver.Remaining(f2, 2), 3.0);  // 10 - 2 * 7/2
  auto next = solver.NextEnd();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->first, 3.0);  // f2: 2 + 3/3
  EXPECT_EQ(next->second, f2);
}

}  // namespace
}  // namespace serq::flow
