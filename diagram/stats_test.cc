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
