// The quantile sketch against exact quantiles, and the recorder that
// switches to it. The sketch's promise (docs/report.md §quantiles): every
// order statistic within alpha relative, so a quantile interpolated between
// two order statistics of one sign is within alpha of the exact one.
#include "stats/sketch.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "stats/stats.h"
#include "stats/summary.h"

namespace serq::report {
namespace {

// Relative error, with a few ulps of the logarithm's rounding at a bucket's
// edge allowed above alpha.
void ExpectWithin(double got, double want, double alpha, const char* what, double q) {
  double err = want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want);
  EXPECT_LE(err, alpha * (1 + 1e-9)) << what << " q=" << q << " got " << got << " want " << want;
}

void CheckAgainstExact(std::vector<double> x, const char* what) {
  QuantileSketch s;
  for (double v : x) s.Add(v);
  std::sort(x.begin(), x.end());
  for (double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0}) {
    double exact = SortedQuantile(x, q);
    double lo = x[static_cast<size_t>(std::floor((x.size() - 1) * q))];
    double hi = x[std::min(x.size() - 1, static_cast<size_t>(std::floor((x.size() - 1) * q)) + 1)];
    if ((lo < 0) != (hi < 0)) continue;  // across zero: alpha of the larger magnitude
    ExpectWithin(s.Quantile(q), exact, kSketchAlpha, what, q);
  }
  EXPECT_EQ(s.Quantile(0), x.front());  // the extremes are exact
  EXPECT_EQ(s.Quantile(1), x.back());
}

TEST(Sketch, EveryQuantileWithinAlphaOfTheExactOne) {
  std::mt19937_64 rng(7);
  std::vector<double> exp, logn, unif, pareto, mixed, ints;
  std::exponential_distribution<double> e(1.0);
  std::lognormal_distribution<double> l(0, 2.5);  // spans ~1e-5 .. 1e5
  std::uniform_real_distribution<double> u(1e-9, 1);
  for (int i = 0; i < 200000; ++i) {
    exp.push_back(e(rng));
    logn.push_back(l(rng));
    unif.push_back(u(rng));
    pareto.push_back(1 / std::pow(u(rng), 1 / 1.2));  // heavy tail
    mixed.push_back(i % 3 == 0 ? -l(rng) : (i % 7 == 0 ? 0.0 : l(rng)));
    ints.push_back(std::floor(200 * e(rng)));  // many ties, zeros
  }
  CheckAgainstExact(exp, "exponential");
  CheckAgainstExact(logn, "lognormal");
  CheckAgainstExact(unif, "uniform");
  CheckAgainstExact(pareto, "pareto");
  CheckAgainstExact(mixed, "mixed signs");
  CheckAgainstExact(ints, "integers");
  CheckAgainstExact({42}, "one sample");
  CheckAgainstExact({-3, -2, -1}, "negative");
}

TEST(Sketch, InfiniteSamplesAndTheirQuantiles) {
  double inf = std::numeric_limits<double>::infinity();
  QuantileSketch s;
  for (double v : {1.0, 2.0, inf, -inf}) s.Add(v);
  EXPECT_EQ(s.Quantile(0), -inf);
  EXPECT_EQ(s.Quantile(1), inf);
  ExpectWithin(s.Quantile(0.5), 1.5, kSketchAlpha, "middle", 0.5);  // h = 1.5: 1 and 2
}

TEST(Sketch, MergeIsTheSketchOfAllSamples) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> l(0, 1);
  QuantileSketch a, b, all;
  for (int i = 0; i < 10000; ++i) {
    double x = (i % 2 ? -1 : 1) * l(rng) * (i < 5000 ? 1 : 1000);  // b's range is far from a's
    (i < 5000 ? a : b).Add(x);
    all.Add(x);
  }
  a.Merge(b);
  results::QuantileSketch pa, pall;
  a.WriteTo(&pa);
  all.WriteTo(&pall);
  EXPECT_EQ(pa.SerializeAsString(), pall.SerializeAsString());  // the same bytes
  QuantileSketch back;
  ASSERT_TRUE(QuantileSketch::Read(pa, &back).ok());
  EXPECT_EQ(back.count(), 10000);
  for (double q : {0.1, 0.5, 0.99}) EXPECT_EQ(back.Quantile(q), all.Quantile(q));
  pa.set_alpha(0);
  EXPECT_FALSE(QuantileSketch::Read(pa, &back).ok());
}

// Runs of repeated samples (Add counts a sample in a range its memo knows
// inline) give the sketch of the same samples in another order, the same
// bytes: a sketch does not depend on the order. -1 first (before any
// positive sample: the memo empty), then runs of positive samples whose
// buckets move the store's range, zeros and negatives between them.
TEST(Sketch, RepeatedSamplesAsAnyOrder) {
  std::mt19937_64 rng(5);
  std::vector<double> samples = {-1, -1, -1};
  const double values[] = {3, 3e-6, 0, 7e5, -2, 3, 1e9, 4.25};
  for (int round = 0; round < 50; ++round) {
    for (double v : values) {
      int run = static_cast<int>(rng() % 6);
      for (int i = 0; i < run; ++i) samples.push_back(v * (round % 7 + 1));
    }
  }
  QuantileSketch runs, shuffled;
  for (double x : samples) runs.Add(x);
  std::shuffle(samples.begin(), samples.end(), rng);
  for (double x : samples) shuffled.Add(x);
  results::QuantileSketch a, b;
  runs.WriteTo(&a);
  shuffled.WriteTo(&b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_EQ(runs.count(), samples.size());
  EXPECT_EQ(runs.min(), -14);
  EXPECT_EQ(runs.max(), 7e9);
  EXPECT_LT(runs.Quantile(0), 0);
}

// The memo of known ranges gives each sample the bucket a log gives it:
// samples at and around a bucket's edges (within a few ulps, and at the
// relative distances of the memo's margin and beyond), added between
// samples of the bucket's middle that keep its range known, make the same
// bytes as the same samples each indexed by a sketch of its own (no memo)
// and merged. Over magnitudes from 1e-12 to 1e12 and three alphas.
TEST(Sketch, SamplesAtABucketsEdgesAsAlone) {
  for (double alpha : {0.001, 0.01, 1e-5}) {
    QuantileSketch known(alpha), alone(alpha);
    auto add = [&](double x) {
      known.Add(x);
      QuantileSketch one(alpha);
      one.Add(x);
      alone.Merge(one);
    };
    const double gamma = (1 + alpha) / (1 - alpha);
    const double log_gamma = std::log(gamma);
    for (double magnitude = 1e-12; magnitude < 1e12; magnitude *= 7.3) {
      const int i = static_cast<int>(std::ceil(std::log(magnitude) / log_gamma));
      for (int edge : {i - 1, i}) {  // the bucket's lower and upper ends
        const double middle = std::exp((i - 0.5) * log_gamma);
        const double end = std::exp(edge * log_gamma);
        for (double d : {0.0, 1e-15, 1e-13, 1e-11, 1e-10, 5e-10, 1e-9, 1.5e-9, 3e-9, 1e-8,
                         1e-6}) {
          for (double x : {end * (1 - d), end * (1 + d)}) {
            add(middle);
            add(x);
            add(std::nextafter(x, 0.0));
            add(middle);
            add(std::nextafter(x, 1e300));
          }
        }
      }
    }
    results::QuantileSketch a, b;
    known.WriteTo(&a);
    alone.WriteTo(&b);
    EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString()) << "alpha " << alpha;
    EXPECT_EQ(known.count(), alone.count());
  }
}

// {-inf, -20, -20, -3, 0, 0, 5, 5, 5, 1e6, inf}: the buckets ascending, one
// per distinct value here (the values are more than 2 alpha apart), each
// value within alpha of its samples, the counts adding to the count.
TEST(Sketch, BucketsWalkTheValuesInOrder) {
  double inf = std::numeric_limits<double>::infinity();
  QuantileSketch s;
  for (double v : {5.0, -20.0, 0.0, inf, 1e6, -3.0, 5.0, -inf, 0.0, -20.0, 5.0}) s.Add(v);
  std::vector<QuantileSketch::Bucket> b = s.Buckets();
  std::vector<double> values = {-inf, -20, -3, 0, 5, 1e6, inf};
  std::vector<uint64_t> counts = {1, 2, 1, 2, 3, 1, 1};
  ASSERT_EQ(b.size(), values.size());
  for (size_t i = 0; i < b.size(); ++i) {
    if (std::isinf(values[i]) || values[i] == 0) {
      EXPECT_EQ(b[i].value, values[i]) << i;
    } else {
      ExpectWithin(b[i].value, values[i], kSketchAlpha, "bucket", i);
    }
    EXPECT_EQ(b[i].count, counts[i]) << i;
  }
  EXPECT_TRUE(QuantileSketch().Buckets().empty());
}

TEST(Sketch, BucketsAreFewAndBytesBounded) {
  // The buckets span [min, max]: at most log(max / min) / log(gamma) + 2 of
  // them (10^6 exponential samples span some 1e-7 .. 14: ~9300), each
  // count a varint of a few bytes.
  std::mt19937_64 rng(1);
  std::exponential_distribution<double> e(1.0);
  QuantileSketch s;
  for (int i = 0; i < 1000000; ++i) s.Add(e(rng));
  results::QuantileSketch p;
  s.WriteTo(&p);
  double gamma = (1 + kSketchAlpha) / (1 - kSketchAlpha);
  EXPECT_LE(p.positive_size(), std::log(p.max() / p.min()) / std::log(gamma) + 2);
  EXPECT_LT(p.ByteSizeLong(), 4 * p.positive_size() + 64);
}

TEST(Recorder, ExactBelowTheLimitASummaryAbove) {
  ObservationRecorder exact(100);
  for (int i = 1; i <= 100; ++i) exact.Add(i);
  results::Observation o;
  exact.WriteTo(&o);
  EXPECT_EQ(o.sample_size(), 100);
  EXPECT_EQ(o.count(), 0);  // no summary: the samples are the figures

  ObservationRecorder r(100);
  Moments m;
  double sum = 0;
  for (int i = 1; i <= 5000; ++i) {
    r.Add(i);
    m.Add(i);
    sum += i;
  }
  results::Observation s;
  r.WriteTo(&s);
  EXPECT_EQ(s.sample_size(), 0);
  EXPECT_EQ(s.count(), 5000);
  EXPECT_EQ(s.mean(), m.mean());  // bit for bit: the same updates in the same order
  EXPECT_EQ(s.m2(), m.m2());
  EXPECT_EQ(s.sum(), 12502500);   // 5000 * 5001 / 2
  EXPECT_EQ(s.sketch().min(), 1);
  EXPECT_EQ(s.sketch().max(), 5000);
  // 5000 samples in batches: 1024 batches of 1 merge into 512 of 2, 1024
  // of 2 into 512 of 4: 5000 / 8 = 625 batches of 8 (full), none left over.
  EXPECT_EQ(s.batches().size(), 8);
  EXPECT_EQ(s.batches().sum_size(), 625);
  EXPECT_EQ(s.batches().sum(0), 36);  // 1 + ... + 8
  // 10 batches of 62 stored batches (496 samples), the first 5 stored
  // batches (40 samples) in none: batch k holds samples 41 + 496k ..
  // 536 + 496k, mean 288.5 + 496k.
  std::vector<double> means = BatchMeansOfSums(s.batches(), 10);
  ASSERT_EQ(means.size(), 10);
  for (int k = 0; k < 10; ++k) EXPECT_DOUBLE_EQ(means[k], 288.5 + 496 * k) << k;
}

// A recorder fed runs (AddRun, as serq-sim's step tokens come) keeps what
// one Add a sample keeps, and its summary's moments are the kept samples'
// (Moments::AddSamples, what the report computes): the same bits either
// way, the limit crossed inside a run. Runs of 1 to 7 of 0.004 + k / 2^20
// (steps of different lengths), the same value sometimes twice running
// (a run split over two calls).
TEST(Recorder, RunsKeepWhatSamplesKeep) {
  std::vector<std::pair<double, uint64_t>> runs;
  std::vector<double> samples;
  for (int k = 0; k < 400; ++k) {
    double x = 0.004 + (k / 3) / 1048576.0;
    uint64_t n = 1 + k % 7;
    runs.push_back({x, n});
    samples.insert(samples.end(), n, x);
  }
  ObservationRecorder by_runs(1000), by_samples(1000), kept(samples.size());
  for (auto [x, n] : runs) by_runs.AddRun(x, n);
  for (double x : samples) by_samples.Add(x);
  for (double x : samples) kept.Add(x);
  ASSERT_GT(samples.size(), 1000u);
  results::Observation a, b, c;
  by_runs.WriteTo(&a);
  by_samples.WriteTo(&b);
  kept.WriteTo(&c);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_EQ(a.count(), samples.size());
  ASSERT_EQ(c.sample_size(), static_cast<int>(samples.size()));
  Moments m;
  m.AddSamples(c.sample());
  double sum = 0;
  for (double x : c.sample()) sum += x;
  EXPECT_EQ(a.mean(), m.mean());
  EXPECT_EQ(a.m2(), m.m2());
  EXPECT_EQ(a.sum(), sum);
  // The batch sums are one Add a sample's: the same additions.
  BatchSums each;
  for (double x : samples) each.Add(x);
  ASSERT_EQ(a.batches().sum_size(), static_cast<int>(each.sums().size()));
  for (size_t i = 0; i < each.sums().size(); ++i) EXPECT_EQ(a.batches().sum(i), each.sums()[i]);
}

// Below the limit a recorder keeps the samples only; the moments and the
// sum a summary needs are made from them when the limit is crossed. They
// are the same bits as Moments::AddSamples and an addition a sample over
// every sample, a non-finite one among them (each its own group: a NaN
// joins no run), and count() counts the kept samples before it.
TEST(Recorder, MomentsMadeWhenTheLimitIsCrossed) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> samples = {0.5, 0.5, 0.25, inf, 3.0, 3.0, 3.0, 0.1, 0.2};
  for (int k = 0; k < 20; ++k) samples.push_back(0.001 * k + 0.3);
  samples.push_back(0.7);
  // The summary of `xs` through a recorder of `limit` kept samples, and
  // what Moments::AddSamples and a sum in order make of them.
  auto check = [](const std::vector<double>& xs, uint64_t limit) {
    ObservationRecorder r(limit);
    for (size_t i = 0; i < xs.size(); ++i) {
      r.Add(xs[i]);
      EXPECT_EQ(r.count(), i + 1);
      EXPECT_EQ(r.summarised(), i + 1 > limit);
    }
    results::Observation o;
    r.WriteTo(&o);
    Moments m;
    m.AddSamples(xs);
    double sum = 0;
    for (double x : xs) sum += x;
    EXPECT_EQ(o.count(), xs.size());
    // The same bits; a NaN's mean, m2 and sum are NaN either way.
    for (auto [got, want] : {std::pair{o.mean(), m.mean()}, {o.m2(), m.m2()}, {o.sum(), sum}}) {
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got));
      } else {
        EXPECT_EQ(got, want);
      }
    }
  };
  check(samples, 12);  // an infinity kept, then summarised
  samples.insert(samples.begin() + 3, {nan, nan});
  check(samples, 12);  // two NaNs, each its own group
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](double x) { return !std::isfinite(x); }),
                samples.end());
  check(samples, 7);  // finite only: every figure a number
}

}  // namespace
}  // namespace serq::report
