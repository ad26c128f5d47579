// The sweep's pieces alone: grids, points, figures with their intervals,
// and the search's condition. Expected values are derived in the comments.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "stats/merge.h"
#include "stats/sketch.h"
#include "serq/sweep/condition.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/metrics.h"
#include "serq/sweep/sweep.h"
#include "serq/sweep/sweep_chart.h"

namespace serq {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GridTest, RangesListsAndValues) {
  EXPECT_THAT(*ParseAxisValues("Rate", "10:30:5"), ElementsAre(10, 15, 20, 25, 30));
  EXPECT_THAT(*ParseAxisValues("Rate", "10:32:5"), ElementsAre(10, 15, 20, 25, 30));
  // 0.1 + 2 * 0.1 is 0.30000000000000004 in doubles; the grid has 0.3.
  EXPECT_THAT(*ParseAxisValues("X", "0.1:0.3:0.1"), ElementsAre(0.1, 0.2, 0.3));
  // inf is a list's value; 1e400, past the largest double, is not.
  EXPECT_EQ(ParseAxisValues("Cap", "1,inf")->size(), 2u);
  EXPECT_EQ(ParseAxisValues("Cap", "1,1e400").status().message(),
            "malformed -D 'Cap=1,1e400': the value 1e400 is past the largest number (write inf for an unlimited "
            "value)");
  EXPECT_THAT(*ParseAxisValues("ND", "2,4,6"), ElementsAre(2, 4, 6));
  EXPECT_THAT(*ParseAxisValues("ND", "7"), ElementsAre(7));
  EXPECT_THAT(*ParseAxisValues("ND", "3:3:1"), ElementsAre(3));
}

TEST(GridTest, MalformedGrids) {
  auto msg = [](absl::string_view text) {
    return std::string(ParseAxisValues("Rate", text).status().message());
  };
  EXPECT_EQ(msg("10:30"), "malformed -D 'Rate=10:30': expected start:stop:step, e.g. -D Rate=10:30:5");
  EXPECT_EQ(msg("10:30:0"), "malformed -D 'Rate=10:30:0': the step must be > 0");
  EXPECT_EQ(msg("30:10:5"), "malformed -D 'Rate=30:10:5': the start is above the stop");
  EXPECT_THAT(msg("2,,4"), HasSubstr("expected a number, a list (2,4,6) or a range"));
  EXPECT_THAT(msg("2,4,2"), HasSubstr("the value 2 is listed twice"));
  EXPECT_THAT(msg("0:1e9:1"), HasSubstr("more than 100000 values"));
  // 1e16 + 1 and 1e16 + 2 are 1e16 to 15 significant digits: a value twice.
  EXPECT_THAT(msg("1e16:1.0000000000000002e16:1"),
              HasSubstr("the step 1 repeats the value 1e+16 (15 significant digits tell no finer steps apart)"));
  EXPECT_THAT(std::string(ParseShareList("maxmin,fair").status().message()),
              HasSubstr("unknown --share 'fair'"));
}

TEST(GridTest, CartesianProductFirstAxisSlowest) {
  google::protobuf::RepeatedPtrField<sweep::Axis> axes;
  sweep::Axis* a = axes.Add();
  a->set_name("Rate");
  a->add_value(10);
  a->add_value(20);
  sweep::Axis* b = axes.Add();
  b->set_name("share");
  b->add_word("maxmin");
  b->add_word("bottleneck");
  b->add_word("maxmin2");
  ASSERT_EQ(PointCount(axes), 6u);
  // Point 4 = (4 / 3, 4 % 3) = (Rate 20, the second word).
  std::vector<sweep::Setting> s = PointSettings(axes, 4);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name(), "Rate");
  EXPECT_EQ(s[0].value(), 20);
  EXPECT_EQ(s[1].word(), "bottleneck");
  EXPECT_EQ(SettingText(s[0]), "20");
}

// Two programs over W (0.5, 1.5), Cap (1, 2) and share (one word): a.sq
// lacks Cap, b.sq lacks W. a.sq's points are W x share = 2, b.sq's Cap x
// share = 2, a.sq's first: point 2 is b.sq's first, Cap 1, its W lacked.
TEST(GridTest, SeveralProgramsEachOverTheAxesItHas) {
  sweep::Plan plan;
  sweep::Axis* w = plan.add_axis();
  w->set_name("W");
  w->add_value(0.5);
  w->add_value(1.5);
  sweep::Axis* cap = plan.add_axis();
  cap->set_name("Cap");
  cap->add_value(1);
  cap->add_value(2);
  sweep::Axis* share = plan.add_axis();
  share->set_name("share");
  share->add_word("maxmin");
  // One program: the axes' product, no program index.
  plan.set_program("a.sq");
  EXPECT_EQ(PlanPointCount(plan), 4u);
  PlanPoint one = PointOfPlan(plan, 3);
  EXPECT_EQ(one.program, -1);
  EXPECT_EQ(one.path, "a.sq");
  EXPECT_EQ(SettingText(one.settings[0]), "1.5");
  EXPECT_EQ(SettingText(one.settings[1]), "2");
  EXPECT_EQ(PlanPrograms(plan), "a.sq");

  plan.clear_program();
  sweep::SweptProgram* a = plan.add_programs();
  a->set_path("a.sq");
  a->add_lacks("Cap");
  sweep::SweptProgram* b = plan.add_programs();
  b->set_path("b.sq");
  b->add_lacks("W");
  EXPECT_EQ(PlanPointCount(plan), 4u);
  EXPECT_EQ(PlanPrograms(plan), "a.sq and b.sq");
  PlanPoint p1 = PointOfPlan(plan, 1);
  EXPECT_EQ(p1.program, 0);
  EXPECT_EQ(p1.path, "a.sq");
  ASSERT_EQ(p1.settings.size(), 3u);
  EXPECT_EQ(SettingText(p1.settings[0]), "1.5");
  EXPECT_TRUE(p1.settings[1].lacked());
  EXPECT_EQ(p1.settings[1].name(), "Cap");
  EXPECT_EQ(SettingText(p1.settings[1]), "-");
  EXPECT_EQ(p1.settings[2].word(), "maxmin");
  PlanPoint p2 = PointOfPlan(plan, 2);
  EXPECT_EQ(p2.program, 1);
  EXPECT_EQ(p2.path, "b.sq");
  EXPECT_TRUE(p2.settings[0].lacked());
  EXPECT_EQ(SettingText(p2.settings[1]), "1");
  EXPECT_EQ(SettingText(PointOfPlan(plan, 3).settings[1]), "2");
  // A program with every axis: its whole product (2 x 2 x 1), after b.sq's.
  plan.add_programs()->set_path("c.sq");
  EXPECT_EQ(PlanPointCount(plan), 8u);
  EXPECT_EQ(PlanPrograms(plan), "a.sq, b.sq and c.sq");
  PlanPoint last = PointOfPlan(plan, 7);
  EXPECT_EQ(last.path, "c.sq");
  EXPECT_EQ(SettingText(last.settings[0]), "1.5");
  EXPECT_EQ(SettingText(last.settings[1]), "2");
}

// A chart's unit (sweep_chart.h): a latency's in ms when every value drawn
// is under a second, else s (a latency by its name, or one the results
// say is a time); another observation's none; rates /s; the
// throughputs in their own units.
// A plan.pb is checked as planning made it: a damaged one (by hand, or a
// disk's) is refused before a merge allocates for it (4294967295
// replications aborted with bad_alloc; an axis of no value, or 0
// replications, merged an empty sweep with exit 0).
TEST(PlanTest, ADamagedPlanIsRefused) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/damaged-plan";
  std::filesystem::create_directories(dir);
  auto with = [&](const sweep::Plan& plan) {
    std::ofstream(PlanPath(dir), std::ios::binary) << plan.SerializeAsString();
    absl::StatusOr<sweep::Plan> read = ReadPlan(dir);
    return read.ok() ? std::string("(read)") : std::string(read.status().message());
  };
  sweep::Plan plan;
  plan.set_version(kPlanVersion);
  plan.set_replications(2);
  sweep::Axis* axis = plan.add_axis();
  axis->set_name("W");
  axis->add_value(1);
  axis->add_value(2);
  EXPECT_EQ(with(plan), "(read)");
  const std::string at = "'" + PlanPath(dir) + "' is damaged: ";
  plan.set_replications(4294967295u);
  EXPECT_EQ(with(plan), at + "replications 4294967295, not 1 to 100000");
  plan.set_replications(0);
  EXPECT_EQ(with(plan), at + "replications 0, not 1 to 100000");
  plan.set_replications(2);
  axis->clear_value();
  EXPECT_EQ(with(plan), at + "the axis of 'W' has no value");
  // 2^16 x 2^16 points: 2^32, past 2^31 tasks.
  for (int i = 0; i < 65536; ++i) axis->add_value(i);
  *plan.add_axis() = *axis;
  plan.mutable_axis(1)->set_name("V");
  EXPECT_EQ(with(plan), at + "more than 2147483648 points");
}

TEST(ChartUnitTest, UnitsOfFigures) {
  ChartUnit ms = MetricUnit(*ParseMetric("p99(ttft)"), 0.5);
  EXPECT_EQ(ms.scale, 1000);
  EXPECT_EQ(ms.unit, "ms");
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(e2e)"), 2).unit, "s");
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(e2e)"), 2).scale, 1);
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(t)"), 0.5).unit, "");
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(t)"), 0.5).scale, 1);
  // ... unless the results say it is a time (`observe t = now - arrival`).
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(t)"), 0.5, {"t"}).unit, "ms");
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(t)"), 0.5, {"t"}).scale, 1000);
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(t)"), 2, {"t"}).unit, "s");
  EXPECT_EQ(MetricUnit(*ParseMetric("mean(size)"), 0.5, {"t"}).unit, "");
  EXPECT_EQ(MetricUnit(*ParseMetric("rate(e2e)"), 3).unit, "/s");
  EXPECT_EQ(MetricUnit(*ParseMetric("request_throughput"), 3).unit, "requests/s");
  EXPECT_EQ(MetricUnit(*ParseMetric("output_throughput_per_gpu"), 3).unit, "tokens/s per GPU");
  EXPECT_EQ(WithChartUnit("p99(ttft)", ms), "p99(ttft) (ms)");
  EXPECT_EQ(WithChartUnit("mean(t)", ChartUnit()), "mean(t)");
}

// The bounds on one figure become its rules, in the axis's unit: 0.2 s on
// an axis in ms is at 200, and says both.
TEST(ChartUnitTest, BoundsOnTheFigureBecomeRules) {
  auto c = ParseCondition("p99(ttft) <= 0.2 && mean(t) < 1 && 0.05 < p99(ttft)");
  ASSERT_TRUE(c.ok()) << c.status();
  std::vector<view::ChartRule> rules = BoundRules(c->comparisons, c->metrics[0], ChartUnit{1000, "ms"});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].y, 200);
  EXPECT_EQ(rules[0].label, "p99(ttft) <= 0.2 (200 ms)");
  EXPECT_EQ(rules[1].y, 50);
  EXPECT_EQ(rules[1].label, "p99(ttft) > 0.05 (50 ms)");
  rules = BoundRules(c->comparisons, c->metrics[1], ChartUnit());
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].label, "mean(t) < 1");
}

results::Results TwoReplications() {
  // Replication 0: x = 1, 2, 3 (mean 2, median 2); replication 1: x = 3, 4,
  // 5 (mean 4, median 4), y's one sample in replication 0; window 10 - 0.
  results::Results r;
  r.set_version(kIrVersion);  // what the readers take
  r.set_horizon(10);
  for (int i = 0; i < 2; ++i) {
    results::Replication* rep = r.add_replication();
    rep->set_index(i);
    rep->set_seed(100 + i);
    results::Observation* x = rep->add_observation();
    x->set_name("x");
    for (double v : {1.0, 2.0, 3.0}) x->add_sample(v + 2 * i);
    // Every replication writes every observation; y has a sample in
    // replication 0 only.
    results::Observation* y = rep->add_observation();
    y->set_name("y");
    if (i == 0) y->add_sample(7);
  }
  return r;
}

TEST(MetricsTest, FiguresAndIntervals) {
  results::Results r = TwoReplications();
  auto merged = report::MergeResults({{"r", &r}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  auto metrics = ParseMetrics("mean(x),p50(x),rate(x),rate(y)");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto f = ComputeFigures(*merged, *metrics);
  ASSERT_TRUE(f.ok()) << f.status();
  // t(0.975, 1) = 12.7062; two estimates a, b: s = |a - b| / sqrt 2, so
  // the half-width is 12.7062 * |a - b| / 2.
  const double t1 = 12.706204736174705;
  // mean: pooled 1, 2, 3, 3, 4, 5 = 3; replication means 2 and 4.
  EXPECT_DOUBLE_EQ((*f)[0].value, 3);
  EXPECT_NEAR((*f)[0].half_width, t1 * 2 / 2, 1e-9);
  // p50: pooled median of 1 2 3 3 4 5 = 3; replication medians 2 and 4.
  EXPECT_DOUBLE_EQ((*f)[1].value, 3);
  EXPECT_NEAR((*f)[1].half_width, t1 * 2 / 2, 1e-9);
  // rate(x): 3 samples / 10 s in each: 0.3, half-width 0.
  EXPECT_DOUBLE_EQ((*f)[2].value, 0.3);
  EXPECT_DOUBLE_EQ((*f)[2].half_width, 0);
  // rate(y): 0.1 and 0 (no sample in replication 1): mean 0.05, hw t1 * 0.1 / 2.
  EXPECT_DOUBLE_EQ((*f)[3].value, 0.05);
  EXPECT_NEAR((*f)[3].half_width, t1 * 0.1 / 2, 1e-12);
}

// goodput(x): the sum of x a second. Replication 0's x sums to 6 over 10 s
// (0.6), replication 1's to 12 (1.2): the value 1.8 / 2 = 0.9 (serq-report's
// sum/s, 18 over 2 x 10 s), the half-width t1 * 0.6 / 2. y: 0.7 and 0.
// A summarised replication (no samples kept, past 2^20) counts its summary's
// sum, and rate(x) its count: x of replication 1 as count 3, sum 12.
// A figure is printed to the decimal its 95% interval supports: the
// half-width's two leading digits, the figure to the same place (issue 36:
// "1.87 ± 9.88" from 2 replications read as precise to 0.01).
TEST(MetricsTest, FiguresRoundedToTheirInterval) {
  auto cells = [](double value, double hw) { return FigureCells(Figure{true, value, hw}); };
  using Cells = std::pair<std::string, std::string>;
  EXPECT_EQ(cells(1.8734, 9.8812), (Cells{"1.9", "9.9"}));        // 9.88: 1 decimal
  EXPECT_EQ(cells(5.4817, 34.3825), (Cells{"5", "34"}));          // 34.4: none
  EXPECT_EQ(cells(1.9777, 0.0341), (Cells{"1.978", "0.034"}));    // 0.0341: 3
  EXPECT_EQ(cells(262.894, 135.2648), (Cells{"263", "135"}));     // above 100: none still
  // At most 4 decimals, as before: 0.0003 keeps 4, not 5.
  EXPECT_EQ(cells(0.0173, 0.0003), (Cells{"0.0173", "0.0003"}));
  // A half-width of 0 or infinity says nothing of the digits: 4 decimals.
  EXPECT_EQ(cells(0.3333333, 0), (Cells{"0.3333", "0.0000"}));
  EXPECT_EQ(cells(2.5, std::numeric_limits<double>::infinity()).first, "2.5000");
  EXPECT_EQ(FigureCells(Figure{}), (Cells{"-", "-"}));
}

TEST(MetricsTest, Goodput) {
  results::Results r = TwoReplications();
  const double t1 = 12.706204736174705;
  for (bool summarised : {false, true}) {
    if (summarised) {
      results::Observation* x = r.mutable_replication(1)->mutable_observation(0);
      x->clear_sample();
      x->set_count(3);
      x->set_mean(4);
      x->set_m2(2);
      x->set_sum(12);
      report::QuantileSketch sketch;
      for (double v : {3.0, 4.0, 5.0}) sketch.Add(v);
      sketch.WriteTo(x->mutable_sketch());
    }
    auto merged = report::MergeResults({{"r", &r}});
    ASSERT_TRUE(merged.ok()) << merged.status();
    auto f = ComputeFigures(*merged, *ParseMetrics("goodput(x),goodput(y),rate(x)"));
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_DOUBLE_EQ((*f)[0].value, 0.9) << summarised;
    EXPECT_NEAR((*f)[0].half_width, t1 * 0.6 / 2, 1e-9) << summarised;
    EXPECT_DOUBLE_EQ((*f)[1].value, 0.35);
    EXPECT_NEAR((*f)[1].half_width, t1 * 0.7 / 2, 1e-9);
    EXPECT_DOUBLE_EQ((*f)[2].value, 0.3) << summarised;
    EXPECT_DOUBLE_EQ((*f)[2].half_width, 0) << summarised;
  }
}

TEST(MetricsTest, OneReplicationHasNoReplicationInterval) {
  results::Results r = TwoReplications();
  r.mutable_replication()->RemoveLast();
  auto merged = report::MergeResults({{"r", &r}});
  auto f = ComputeFigures(*merged, *ParseMetrics("p50(x),rate(x)"));
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ((*f)[0].value, 2);
  EXPECT_TRUE(std::isinf((*f)[0].half_width));  // 3 samples: too few for batches
  EXPECT_TRUE(std::isinf((*f)[1].half_width));
}

TEST(MetricsTest, Errors) {
  results::Results r = TwoReplications();
  auto merged = report::MergeResults({{"r", &r}});
  auto f = ComputeFigures(*merged, *ParseMetrics("mean(z)"));
  EXPECT_EQ(f.status().message(), "no observation 'z' in the results (there are 'x', 'y')");
  EXPECT_THAT(std::string(ParseMetric("median(x)").status().message()),
              HasSubstr("unknown function 'median' (expected mean, pNN, rate or goodput)"));
  EXPECT_THAT(std::string(ParseMetric("p100(x)").status().message()),
              HasSubstr("strictly between 0 and 100"));
  EXPECT_THAT(std::string(ParseMetric("mean x").status().message()),
              HasSubstr("expected mean(x), pNN(x), rate(x) or goodput(x)"));
  EXPECT_THAT(std::string(ParseMetrics("mean(x),mean(x)").status().message()),
              HasSubstr("'mean(x)' is listed twice"));
  // A percentage has one spelling: p50.0 and p050 are p50, and listed
  // beside it they are the same figure twice (they were two columns).
  EXPECT_EQ(ParseMetric("p50.0(x)")->label, "p50(x)");
  EXPECT_EQ(ParseMetric("p050( x )")->label, "p50(x)");
  EXPECT_EQ(ParseMetric("p99.90(x)")->label, "p99.9(x)");
  EXPECT_EQ(ParseMetric("p1e-4(x)")->label, "p0.0001(x)");  // fixed, never scientific
  EXPECT_THAT(std::string(ParseMetrics("p50(x),p50.0(x)").status().message()),
              HasSubstr("'p50(x)' is listed twice"));
}

Figure F(double value, double hw) { return Figure{true, value, hw}; }

TEST(ConditionTest, ParsesAndDecidesByTheInterval) {
  auto c = ParseCondition("p99(ttft) <= 2 && mean(ok) >= 0.9");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->comparisons.size(), 2u);
  ASSERT_EQ(c->metrics.size(), 2u);
  EXPECT_EQ(c->metrics[0].label, "p99(ttft)");
  // [1.5, 1.9] <= 2 and [0.92, 0.98] >= 0.9: pass.
  EXPECT_EQ(Decide(*c, {F(1.7, 0.2), F(0.95, 0.03)}), Verdict::kPass);
  // [1.9, 2.1] straddles 2: undecided.
  EXPECT_EQ(Decide(*c, {F(2.0, 0.1), F(0.95, 0.03)}), Verdict::kUndecided);
  // [2.1, 2.3] is wholly above 2: fail, whatever the other.
  EXPECT_EQ(Decide(*c, {F(2.2, 0.1), F(0.95, 0.5)}), Verdict::kFail);
  // An infinite half-width never decides; an undefined figure neither.
  EXPECT_EQ(Decide(*c, {F(1, std::numeric_limits<double>::infinity()), F(0.95, 0)}),
            Verdict::kUndecided);
  EXPECT_EQ(Decide(*c, {Figure{}, F(0.95, 0)}), Verdict::kUndecided);
  // A figure of its own name, as --metrics takes it (it was "expected ')'
  // to close the figure").
  auto t = ParseCondition("request_throughput >= 5 && p99(ttft) <= 2");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->metrics[0].label, "request_throughput");
  EXPECT_EQ(t->metrics[1].label, "p99(ttft)");
}

TEST(ConditionTest, NumberFirstAndStrictComparisons) {
  auto c = ParseCondition("2 > p99(ttft)");  // p99(ttft) < 2
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->comparisons[0].op, Comparison::kLt);
  EXPECT_EQ(Decide(*c, {F(1.9, 0.1)}), Verdict::kUndecided);  // 2 is not < 2
  EXPECT_EQ(Decide(*c, {F(1.8, 0.1)}), Verdict::kPass);
  // The same figure twice is one metric, in any spelling.
  auto d = ParseCondition("mean(x) > 1 && mean(x) < 3");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->metrics.size(), 1u);
  auto q = ParseCondition("p99(x) > 1 && p99.0(x) < 3");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->metrics.size(), 1u);
  // A percentile with a fraction (it was read as the figure 'p99').
  auto f = ParseCondition("p99.9(x) <= 2");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->metrics[0].label, "p99.9(x)");
  EXPECT_EQ(Decide(*d, {F(2, 0.5)}), Verdict::kPass);
  EXPECT_EQ(Decide(*d, {F(3.5, 0.1)}), Verdict::kFail);
}

TEST(ConditionTest, Errors) {
  auto msg = [](absl::string_view text) {
    return std::string(ParseCondition(text).status().message());
  };
  EXPECT_EQ(msg("p99(ttft) <= 2 &&"),
            "col 18: expected a figure such as p99(ttft) after '&&'\n  p99(ttft) <= 2 &&\n"
            "                   ^");
  EXPECT_THAT(msg("p99(ttft) = 2"), HasSubstr("col 11: expected a comparison: <=, <, >= or >"));
  EXPECT_THAT(msg("p99(ttft) <= x"), HasSubstr("col 14: expected a number"));
  // Bounds within a double: -inf and 1e999 were infinite bounds, 1e-400 a
  // bound of 0.
  for (const char* bound : {"-inf", "1e999", "-1e999", "1e-400"}) {
    EXPECT_THAT(msg(absl::StrCat("p99(ttft) <= ", bound)),
                HasSubstr("col 14: expected a finite number within a double's range"))
        << bound;
  }
  EXPECT_THAT(msg("p99(ttft) <= 2 || mean(ok) > 1"),
              HasSubstr("col 16: expected '&&' or the end of the condition"));
  EXPECT_THAT(msg("avg(ttft) <= 2"), HasSubstr("unknown function 'avg'"));
  EXPECT_THAT(msg(""), HasSubstr("col 1: expected a figure such as p99(ttft)"));
}

}  // namespace
}  // namespace serq
