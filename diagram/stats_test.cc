#include "diagram/stats.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "diagram/test_programs.h"

namespace serq::view {
namespace {

TEST(Stats, ColourScale) {
  EXPECT_EQ(UtilisationColour(0), "#d9f0d3");
  EXPECT_EQ(UtilisationColour(0.5), "#fee08b");
  EXPECT_EQ(UtilisationColour(1), "#f46d43");
  // Half way from #d9f0d3 to #fee08b: (217+254)/2 = 235.5 -> 236 (ec),
  // (240+224)/2 = 232 (e8), (211+139)/2 = 175 (af).
  EXPECT_EQ(UtilisationColour(0.25), "#ece8af");
  // Clamped, and NaN as 0.
  EXPECT_EQ(UtilisationColour(-1), "#d9f0d3");
  EXPECT_EQ(UtilisationColour(2), "#f46d43");
  EXPECT_EQ(UtilisationColour(std::nan("")), "#d9f0d3");
}

results::StageStats* AddStage(results::Replication* rep, const std::string& name, int index,
                              double present, double util) {
  results::StageStats* s = rep->add_stage();
  s->set_name(name);
  s->set_index(index);
  s->set_mean_present(present);
  s->set_utilisation(util);
  return s;
}

TEST(Stats, ElementsAndReplicationsAggregate) {
  // The Before: P (delay), link[2] (ps), D[2] (delay).
  ir::Program program = Parse(TestPrograms()[0].source);
  Drawing d;
  Diagnostics diags;
  ASSERT_TRUE(BuildDrawing(program, &d, &diags));
  results::Results r;
  results::Replication* r0 = r.add_replication();
  results::Replication* r1 = r.add_replication();
  AddStage(r0, "P", 0, 0.2, 0);
  AddStage(r1, "P", 0, 0.4, 0);
  AddStage(r0, "link", 0, 0.2, 0.1);
  AddStage(r0, "link", 1, 0.6, 0.3);
  AddStage(r1, "link", 0, 0.4, 0.3);
  AddStage(r1, "link", 1, 0.2, 0.5);
  ASSERT_TRUE(AttachResults(r, program, &d, &diags)) << diags.Render();
  const Row& row = d.rows[0];
  // P: (0.2 + 0.4) / 2 = 0.3 present; a delay stage has no utilisation.
  ASSERT_TRUE(row.stations[0].stats.has_value());
  EXPECT_DOUBLE_EQ(row.stations[0].stats->present, 0.3);
  EXPECT_FALSE(row.stations[0].stats->has_util);
  // link[0]: present (0.2+0.4)/2 = 0.3, util (0.1+0.3)/2 = 0.2;
  // link[1]: present (0.6+0.2)/2 = 0.4, util (0.3+0.5)/2 = 0.4.
  // Station: present 0.3 + 0.4 = 0.7; util mean 0.3, max 0.4.
  const StationStats& link = *row.stations[1].stats;
  EXPECT_DOUBLE_EQ(link.present, 0.7);
  EXPECT_DOUBLE_EQ(link.util_mean, 0.3);
  EXPECT_DOUBLE_EQ(link.util_max, 0.4);
  EXPECT_TRUE(link.has_util);
  EXPECT_EQ(StatsLines(row.stations[1]),
            (std::vector<std::string>{"present 0.70", "util 0.30 max 0.40"}));
  EXPECT_EQ(StationFill(row.stations[1], true), UtilisationColour(0.4));
  EXPECT_EQ(StationFill(row.stations[1], false), kPlainFill);
  EXPECT_EQ(StationFill(row.stations[0], true), kNoCapacityFill);
  // D has no figures in these results.
  EXPECT_FALSE(row.stations[2].stats.has_value());
  EXPECT_EQ(StatsLines(row.stations[2]), (std::vector<std::string>{"no results"}));
}

results::StageStats* AddStep(results::Replication* rep, int index, double util, uint64_t steps,
                             uint64_t jobs, uint64_t tokens, double seqs, double budget) {
  results::StageStats* s = AddStage(rep, "E", index, 1, util);
  s->set_kind("step");
  s->set_steps(steps);
  s->set_batch_jobs(jobs);
  s->set_batch_tokens(tokens);
  s->set_step_seqs(seqs);
  s->set_step_tokens(budget);
  return s;
}

results::PoolStats* AddPool(results::Replication* rep, int index, double cap, double used,
                            double max) {
  results::PoolStats* p = rep->add_pool();
  p->set_name("kv");
  p->set_index(index);
  p->set_cap(cap);
  p->set_mean_used(used);
  p->set_max_used(max);
  return p;
}

TEST(Stats, AStepIsFilledByItsBatchesAndAPoolByItsOccupancy) {
  ir::Program program = Parse(R"(
    pool kv[2] { cap 100; }
    stage E[2] : step(1) { seqs 8; tokens 100; }
    workload { arrive batch(1); }
    session { hold kv[0] (1) { run E[0] decode (1); } }
    run { horizon 10; })");
  Drawing d;
  Diagnostics diags;
  ASSERT_TRUE(BuildDrawing(program, &d, &diags));
  results::Results r;
  results::Replication* r0 = r.add_replication();
  results::Replication* r1 = r.add_replication();
  // Both elements in a step all the time (util 1), with small batches:
  // E[0]: (10 + 30) jobs over (10 + 10) steps = 2 a step, 2 / 8 = 0.25 of
  //   seqs; (100 + 300) tokens / 20 steps = 20, 20 / 100 = 0.2 of tokens:
  //   fill 0.25, of seqs (a ratio of the sums, not the mean of 0.125, 0.375).
  // E[1]: 20 jobs / 20 steps = 1: 0.125 of seqs; 1200 tokens / 20 = 60:
  //   0.6 of tokens: fill 0.6, of tokens.
  // Station: fill mean (0.25 + 0.6) / 2 = 0.425, max 0.6 (tokens); busy 1.
  AddStep(r0, 0, 1, 10, 10, 100, 8, 100);
  AddStep(r1, 0, 1, 10, 30, 300, 8, 100);
  AddStep(r0, 1, 1, 10, 10, 600, 8, 100);
  AddStep(r1, 1, 1, 10, 10, 600, 8, 100);
  // kv[0]: used (10 + 30) / 2 = 20 of 100: 0.2, peak max(40, 90) = 0.9;
  // kv[1]: (50 + 70) / 2 = 60: 0.6, peak 0.7. The bar: the fullest
  // element's mean 0.6, the peak over the elements 0.9.
  AddPool(r0, 0, 100, 10, 40);
  AddPool(r1, 0, 100, 30, 90);
  AddPool(r0, 1, 100, 50, 70);
  AddPool(r1, 1, 100, 70, 60);
  ASSERT_TRUE(AttachResults(r, program, &d, &diags)) << diags.Render();
  const Station& e = d.rows[0].stations[0];
  ASSERT_TRUE(e.stats.has_value());
  EXPECT_TRUE(e.stats->step);
  ASSERT_TRUE(e.stats->has_fill);
  EXPECT_DOUBLE_EQ(e.stats->fill_mean, 0.425);
  EXPECT_DOUBLE_EQ(e.stats->fill_max, 0.6);
  EXPECT_EQ(e.stats->fill_budget, "tokens");
  EXPECT_EQ(StatsLines(e), (std::vector<std::string>{"present 2.00", "tokens fill 0.42 max 0.60",
                                                      "busy 1.00 max 1.00"}));
  // Coloured by the fill, not by the time in a step (which would be #f46d43).
  EXPECT_EQ(StationFill(e, true), UtilisationColour(0.6));
  const PoolSpan& kv = d.rows[0].pools[0];
  ASSERT_TRUE(kv.stats.has_value());
  EXPECT_DOUBLE_EQ(kv.stats->mean, 0.6);
  EXPECT_DOUBLE_EQ(kv.stats->peak, 0.9);
  EXPECT_EQ(kv.label, "kv[2] cap 100; used 0.60 of cap (fullest), peak 0.90");
}

TEST(Stats, AStepWithoutABoundedBudgetHasNoFill) {
  ir::Program program = Parse(R"(
    stage E : step(1);
    workload { arrive batch(1); }
    session { run E decode (1); }
    run { horizon 10; })");
  Drawing d;
  Diagnostics diags;
  ASSERT_TRUE(BuildDrawing(program, &d, &diags));
  results::Results r;
  AddStep(r.add_replication(), 0, 0.1, 1, 1, 1, 0, 0);
  ASSERT_TRUE(AttachResults(r, program, &d, &diags)) << diags.Render();
  const Station& e = d.rows[0].stations[0];
  EXPECT_FALSE(e.stats->has_fill);
  EXPECT_EQ(StatsLines(e), (std::vector<std::string>{"present 1.00", "fill n/a", "busy 0.10"}));
  EXPECT_EQ(StationFill(e, true), kNoCapacityFill);
}

TEST(Stats, ResultsOfAnotherProgramAreRefused) {
  ir::Program program = Parse(TestPrograms()[0].source);
  Drawing d;
  Diagnostics diags("r.json");
  ASSERT_TRUE(BuildDrawing(program, &d, &diags));
  results::Results r;
  AddStage(r.add_replication(), "egress", 0, 1, 1);
  AddStage(r.mutable_replication(0), "link", 2, 1, 1);
  EXPECT_FALSE(AttachResults(r, program, &d, &diags));
  EXPECT_EQ(diags.Render(),
            "r.json:replication[0].stage[0].name: error: the program declares no stage "
            "'egress'\n"
            "r.json:replication[0].stage[1].index: error: element 2 of 'link', which has 2\n");
  Diagnostics empty_diags("r.json");
  EXPECT_FALSE(AttachResults(results::Results(), program, &d, &empty_diags));
  EXPECT_EQ(empty_diags.Render(), "r.json: error: the results hold no replication\n");
}

}  // namespace
}  // namespace serq::view
