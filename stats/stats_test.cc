#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace serq::report {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The textbook two-pass variance, the reference the accumulators must meet.
double TwoPassVariance(const std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return ss / static_cast<double>(x.size() - 1);
}

TEST(Moments, SeedSamplesHaveMeanTwoAndNoSpread) {
  Moments m;
  m.Add(2.0);
  m.Add(2.0);
  EXPECT_EQ(m.count(), 2u);
  EXPECT_EQ(m.mean(), 2.0);
  EXPECT_EQ(*m.Stddev(), 0.0);
}

TEST(Moments, FewerThanTwoSamplesHaveNoVariance) {
  Moments m;
  EXPECT_FALSE(m.Variance().has_value());
  m.Add(3);
  EXPECT_EQ(m.mean(), 3);
  EXPECT_FALSE(m.Stddev().has_value());
}

TEST(Moments, WelfordMatchesTwoPassOnLargeCloseSamples) {
  // 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, deviations -6, -3, 3, 6, so the
  // variance is (36 + 9 + 9 + 36) / 3 = 30 exactly; sums of squares would
  // lose it to cancellation (1e18 needs more than 53 bits).
  std::vector<double> x = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  Moments m;
  for (double v : x) m.Add(v);
  EXPECT_EQ(m.mean(), 1e9 + 10);
  EXPECT_DOUBLE_EQ(*m.Variance(), 30.0);
  EXPECT_DOUBLE_EQ(*m.Variance(), TwoPassVariance(x));
}

TEST(Moments, ChanMergeMatchesOneAccumulatorAndTwoPass) {
  std::vector<double> x;
  for (int i = 0; i < 37; ++i) x.push_back(std::sin(i) * 100 + i * 0.25);
  Moments whole;
  for (double v : x) whole.Add(v);
  for (size_t split : {size_t{0}, size_t{1}, size_t{10}, size_t{36}, size_t{37}}) {
    Moments a, b;
    for (size_t i = 0; i < x.size(); ++i) (i < split ? a : b).Add(x[i]);
    a.Merge(b);
    EXPECT_EQ(a.count(), x.size()) << split;
    EXPECT_NEAR(a.mean(), whole.mean(), 1e-12) << split;
    EXPECT_NEAR(*a.Variance(), TwoPassVariance(x), 1e-9) << split;
    EXPECT_NEAR(*a.Variance(), *whole.Variance(), 1e-9) << split;
  }
}

TEST(Moments, MergingEqualMeansKeepsTheMeanExactly) {
  // Two replications of docs/language.md §1's program (2.0, 2.0 each) merge to 2.0 with no
  // spread; 0.1 three times and five times merge to 0.1, not a neighbour
  // of it (a weighted average of the means would round).
  Moments a, b;
  for (double v : {2.0, 2.0}) a.Add(v), b.Add(v);
  a.Merge(b);
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(a.mean(), 2.0);
  EXPECT_EQ(*a.Stddev(), 0.0);
  Moments c, d;
  for (int i = 0; i < 3; ++i) c.Add(0.1);
  for (int i = 0; i < 5; ++i) d.Add(0.1);
  c.Merge(d);
  EXPECT_EQ(c.mean(), 0.1);
  EXPECT_EQ(c.m2(), 0.0);
}

// Infinite samples (`observe x = inf`): the mean of two replications of
// +inf each is +inf (inf - inf in the update was NaN, and the report's
// mean went missing once replications merged); +inf beside -inf has no mean.
TEST(Moments, MergingInfiniteMeansKeepsThem) {
  Moments a, b;
  a.Add(INFINITY);
  b.Add(INFINITY);
  b.Add(INFINITY);
  a.Merge(b);
  EXPECT_EQ(a.count(), 3u);
  EXPECT_EQ(a.mean(), INFINITY);
  Moments c, d;
  c.Add(-INFINITY);
  d.Add(INFINITY);
  c.Merge(d);
  EXPECT_TRUE(std::isnan(c.mean()));
}

TEST(Moments, MergingAnEmptyAccumulatorChangesNothing) {
  Moments a, empty;
  a.Add(1);
  a.Add(4);
  a.Merge(empty);
  EXPECT_EQ(a.count(), 2u);
  EXPECT_EQ(a.mean(), 2.5);
  empty.Merge(a);
  EXPECT_EQ(empty.count(), 2u);
  EXPECT_EQ(*empty.Variance(), 4.5);  // (1.5^2 + 1.5^2) / 1
}

// A run of k equal samples as one group is Welford's update for k at once: 1
// (x5), 4, 1 (x2) (the itl of docs/simulation.md §The LLM engine as vLLM runs
// it's example, in recording order) by hand: five 1s: mean 1, M2 0; then 4:
// delta 3, n 6, mean 1 + 3/6 = 1.5, M2 3 (4 - 1.5) = 7.5; then two 1s: delta
// -0.5, weighted -1, n 8, mean 1.5 - 1/8 = 1.375, M2 7.5 + (-1)(1 - 1.375) =
// 7.875. The same as the two-pass sums: 11 / 8 = 1.375; 5 (0.375)^2 + 2.625^2 +
// 2 (0.375)^2 = 0.984375 + 6.890625 = 7.875. Every operation here is exact.
TEST(Moments, ARunIsOneGroup) {
  Moments m;
  m.AddRun(1, 5);
  m.AddRun(4, 1);
  m.AddRun(1, 2);
  EXPECT_EQ(m.count(), 8u);
  EXPECT_EQ(m.mean(), 1.375);
  EXPECT_EQ(m.m2(), 7.875);
  Moments s;
  s.AddSamples(std::vector<double>{1, 1, 1, 1, 1, 4, 1, 1});
  EXPECT_EQ(s.mean(), m.mean());
  EXPECT_EQ(s.m2(), m.m2());
}

// A run of one is Add's very operations (delta * 1 is delta), so samples
// without equal neighbours have the moments they had before runs: bit for
// bit. Runs of more agree with one Add each to rounding, and with the
// two-pass variance.
TEST(Moments, RunsAgreeWithOneSampleAtATime) {
  std::vector<double> x;
  for (int i = 0; i < 200; ++i) {
    double v = std::sin(i) * 0.01 + 0.02;
    for (int k = 0; k <= i % 5; ++k) x.push_back(v);
  }
  Moments each, ones;
  for (double v : x) each.Add(v);
  for (int i = 0; i < 200; ++i) ones.AddRun(std::sin(i) * 0.01 + 0.02, 1);
  Moments singles;
  for (int i = 0; i < 200; ++i) singles.Add(std::sin(i) * 0.01 + 0.02);
  EXPECT_EQ(ones.mean(), singles.mean());
  EXPECT_EQ(ones.m2(), singles.m2());
  Moments runs;
  runs.AddSamples(x);
  EXPECT_EQ(runs.count(), x.size());
  EXPECT_NEAR(runs.mean(), each.mean(), 1e-15);
  EXPECT_NEAR(*runs.Variance(), *each.Variance(), 1e-15);
  EXPECT_NEAR(*runs.Variance(), TwoPassVariance(x), 1e-15);
}

// Non-finite samples are never grouped: inf, inf is inf then inf - inf
// (NaN), as one at a time, not one group of mean inf.
TEST(Moments, InfiniteSamplesAreNotRuns) {
  double inf = std::numeric_limits<double>::infinity();
  Moments runs, each;
  runs.AddSamples(std::vector<double>{1, inf, inf});
  for (double v : {1.0, inf, inf}) each.Add(v);
  EXPECT_EQ(runs.count(), 3u);
  // The mean of samples one of which is infinite is that infinity (it was
  // NaN here, inf - inf, and inf for {inf, 1}: it hung on the order);
  // opposite infinities have none; the spread is NaN either way.
  EXPECT_EQ(runs.mean(), inf);
  EXPECT_EQ(each.mean(), inf);
  EXPECT_TRUE(std::isnan(each.m2()));
  for (const std::vector<double>& order : {std::vector<double>{inf, 1}, std::vector<double>{1, inf}}) {
    Moments m;
    for (double v : order) m.Add(v);
    EXPECT_EQ(m.mean(), inf);
  }
  Moments both;
  for (double v : {1.0, inf, -inf, 2.0}) both.Add(v);
  EXPECT_TRUE(std::isnan(both.mean()));
}

TEST(IncompleteBeta, ClosedForms) {
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b.
  for (double x : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, x), x, 1e-14);
    EXPECT_NEAR(RegularizedIncompleteBeta(3, 1, x), x * x * x, 1e-14);
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 4, x), 1 - std::pow(1 - x, 4), 1e-14);
  }
}

TEST(StudentT, CdfIsSymmetricAboutZero) {
  for (double dof : {1.0, 4.0, 30.0, std::numeric_limits<double>::infinity()}) {
    EXPECT_DOUBLE_EQ(StudentTCdf(0, dof), 0.5);
    EXPECT_NEAR(StudentTCdf(-1.3, dof) + StudentTCdf(1.3, dof), 1, 1e-14);
  }
}

TEST(StudentT, QuantilesMatchTables) {
  // Two-sided 95% critical values from any t table.
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.7062, 5e-5);
  EXPECT_NEAR(StudentTQuantile(0.975, 9), 2.2622, 5e-5);
  EXPECT_NEAR(StudentTQuantile(0.975, 29), 2.0452, 5e-5);
  EXPECT_NEAR(StudentTQuantile(0.975, std::numeric_limits<double>::infinity()), 1.9600, 5e-5);
  EXPECT_NEAR(StudentTQuantile(0.95, 5), 2.0150, 5e-5);
  EXPECT_NEAR(StudentTQuantile(0.995, 10), 3.1693, 5e-5);
  // Many degrees of freedom approach the normal's 1.959964.
  EXPECT_NEAR(StudentTQuantile(0.975, 1e5), 1.959964, 1e-4);
}

TEST(StudentT, QuantilesMatchClosedForms) {
  // dof = 1 is the Cauchy distribution: tan(pi (p - 1/2)); dof = 2:
  // (2p - 1) / sqrt(2 p (1 - p)).
  for (double p : {0.6, 0.9, 0.975, 0.999}) {
    EXPECT_NEAR(StudentTQuantile(p, 1), std::tan(kPi * (p - 0.5)),
                1e-9 * std::tan(kPi * (p - 0.5)));
    EXPECT_NEAR(StudentTQuantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-9);
  }
  // tan(0.475 pi) = cot(pi / 40) = 12.70620473617470465 (to 20 digits, by
  // the series of sin and cos in 40-digit decimal arithmetic).
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.70620473617470465, 2e-14);  // ~5 ulps
  EXPECT_EQ(StudentTQuantile(0.5, 7), 0);
  EXPECT_DOUBLE_EQ(StudentTQuantile(0.025, 9), -StudentTQuantile(0.975, 9));
}

TEST(SortedQuantile, LinearInterpolationBetweenOrderStatistics) {
  // Type 7: h = (n - 1) q. For 1, 2, 3, 4: q = 0.5 gives h = 1.5, halfway
  // between 2 and 3; q = 0.25 gives h = 0.75, 1 + 0.75 (2 - 1); q = 0.99
  // gives h = 2.97, 3 + 0.97 (4 - 3).
  std::vector<double> x = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(SortedQuantile(x, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(SortedQuantile(x, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(SortedQuantile(x, 0.99), 3.97);
  EXPECT_DOUBLE_EQ(SortedQuantile(x, 0), 1);
  EXPECT_DOUBLE_EQ(SortedQuantile(x, 1), 4);
  // 10, 20 at q = 0.9: h = 0.9, 10 + 0.9 * 10.
  EXPECT_DOUBLE_EQ(SortedQuantile(std::vector<double>{10, 20}, 0.9), 19);
  // One sample is every quantile; that program's 2, 2 has p99 = 2.
  EXPECT_EQ(SortedQuantile(std::vector<double>{5}, 0.99), 5);
  EXPECT_EQ(SortedQuantile(std::vector<double>{2, 2}, 0.99), 2);
}

TEST(SortedQuantile, InfinitiesDoNotMakeNaN) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(SortedQuantile(std::vector<double>{1, inf}, 0.5), inf);
  EXPECT_EQ(SortedQuantile(std::vector<double>{inf, inf}, 0.5), inf);
  EXPECT_EQ(SortedQuantile(std::vector<double>{-inf, inf}, 0.25), -inf);
  EXPECT_EQ(SortedQuantile(std::vector<double>{-inf, inf}, 0.75), inf);
  // h = 0.75 between -inf and 1: -inf + 0.75 (1 + inf) would be NaN.
  EXPECT_EQ(SortedQuantile(std::vector<double>{-inf, 1}, 0.75), -inf);
  EXPECT_EQ(SortedQuantile(std::vector<double>{1, inf}, 0.25), inf);
}

// Selection must give what sorting gives, bit for bit (the report's bytes
// do not depend on which one ran): unsorted values with ties, infinities,
// one and two values, quantiles in any order and repeated.
TEST(SelectQuantiles, SameAsSortingThenSortedQuantile) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> qs = {0.99, 0.5, 0, 1, 0.9, 0.5, 0.999, 0.25};
  std::vector<std::vector<double>> cases = {{5}, {2, 1}, {3, 3, 3}, {-inf, inf, 1, inf}};
  std::vector<double> big;
  uint64_t state = 12345;
  for (int i = 0; i < 10007; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    big.push_back(static_cast<double>(state >> 40) / 64);  // many ties
  }
  cases.push_back(big);
  for (const std::vector<double>& values : cases) {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> scratch = values;
    std::vector<double> got = SelectQuantiles(absl::MakeSpan(scratch), qs);
    ASSERT_EQ(got.size(), qs.size());
    for (size_t k = 0; k < qs.size(); ++k) {
      EXPECT_EQ(got[k], SortedQuantile(sorted, qs[k])) << "q " << qs[k] << ", n " << values.size();
    }
  }
}

std::vector<double> OneTo(int n) {
  std::vector<double> x;
  for (int i = 1; i <= n; ++i) x.push_back(i);
  return x;
}

// 1, 2, ..., 100 in 10 batches: means 5.5, 15.5, ..., 95.5, i.e. 10 k + 5.5.
// Their standard deviation is 10 times that of 0..9, 10 sqrt(55 / 6) =
// 30.2765035, so the half-width is t(0.975, 9) 30.2765035 / sqrt(10) =
// 2.2621572 * 9.5742711 = 21.6585.
constexpr double kHalfWidthOfTenBatches = 21.6585;

TEST(BatchMeans, HundredSamplesByHand) {
  std::vector<double> means = BatchMeans(OneTo(100), kBatches);
  ASSERT_EQ(means.size(), 10u);
  for (int k = 0; k < 10; ++k) EXPECT_DOUBLE_EQ(means[k], 10 * k + 5.5) << k;
  EXPECT_NEAR(*HalfWidth95(means), kHalfWidthOfTenBatches, 1e-4);
}

TEST(BatchMeans, TheEarliestRemainderIsLeftOut) {
  // 105 samples: batches of floor(105 / 10) = 10; the first 5 (1..5) are in
  // no batch, so the batches are 6..15, ..., 96..105 with means 10 k + 10.5,
  // the same spread as above.
  std::vector<double> means = BatchMeans(OneTo(105), kBatches);
  ASSERT_EQ(means.size(), 10u);
  for (int k = 0; k < 10; ++k) EXPECT_DOUBLE_EQ(means[k], 10 * k + 10.5) << k;
  EXPECT_NEAR(*HalfWidth95(means), kHalfWidthOfTenBatches, 1e-4);
}

TEST(BatchMeans, TooFewSamplesMakeNoBatches) {
  EXPECT_TRUE(BatchMeans(OneTo(9), kBatches).empty());
  EXPECT_EQ(BatchMeans(OneTo(10), kBatches).size(), 10u);
}

TEST(HalfWidth95, ReplicationMeansByHand) {
  // Means 1 and 3: s = sqrt(2), k = 2, so t(0.975, 1) sqrt(2) / sqrt(2) =
  // 12.7062.
  EXPECT_NEAR(*HalfWidth95(std::vector<double>{1, 3}), 12.7062, 5e-5);
  // Equal means: no spread, a half-width of 0.
  EXPECT_EQ(*HalfWidth95(std::vector<double>{2, 2}), 0);
  EXPECT_FALSE(HalfWidth95(std::vector<double>{2}).has_value());
}

}  // namespace
}  // namespace serq::report
