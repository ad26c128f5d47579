#include "serq-sim/random/random.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace serq::sim {
namespace {

// Published test vectors: SplitMix64 from seed 1234567 (Vigna's reference
// implementation), and xoshiro256++ from the state {1, 2, 3, 4} (the first
// output is rotl(1 + 4, 23) + 1 = 5 * 2^23 + 1 = 41943041 by hand).
TEST(RandomTest, SplitMix64MatchesReference) {
  uint64_t state = 1234567;
  const uint64_t want[] = {6457827717110365317ULL, 3203168211198807973ULL,
                           9817491932198370423ULL, 4593380528125082431ULL,
                           16408922859458223821ULL};
  for (uint64_t w : want) EXPECT_EQ(SplitMix64(&state), w);
}

TEST(RandomTest, Xoshiro256PlusPlusMatchesReference) {
  Random r = Random::FromState(1, 2, 3, 4);
  const uint64_t want[] = {41943041ULL, 58720359ULL, 3588806011781223ULL,
                           3591011842654386ULL, 9228616714210784205ULL,
                           9973669472204895162ULL};
  for (uint64_t w : want) EXPECT_EQ(r.Next(), w);
}

TEST(RandomTest, StreamsAreReproducibleAndDistinct) {
  EXPECT_EQ(StreamSeed(1, 0), StreamSeed(1, 0));
  EXPECT_NE(StreamSeed(1, 0), StreamSeed(1, 1));
  EXPECT_NE(StreamSeed(1, 0), StreamSeed(2, 0));
  EXPECT_NE(StreamSeed(1, 1), StreamSeed(2, 0));
  Random a(StreamSeed(7, 3)), b(StreamSeed(7, 3));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.Next(), b.Next());
}

TEST(RandomTest, UniformBounds) {
  Random r(1);
  for (int i = 0; i < 100000; ++i) {
    double u = r.Uniform01(), v = r.Uniform01Open();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_GT(v, 0.0);
    ASSERT_LE(v, 1.0);
  }
}

struct Moments {
  const char* name;
  Function f;
  std::vector<double> args;
  double mean;
  double variance;
};

// Each distribution against its known mean and variance over N draws. The
// tolerances are 5 standard errors: for the mean sigma / sqrt(N); for the
// variance sqrt((m4 - s^4) / N), with m4 the sample's fourth central moment
// (the large-sample standard error of a sample variance).
class MomentsTest : public testing::TestWithParam<Moments> {};

TEST_P(MomentsTest, MeanAndVariance) {
  const Moments& m = GetParam();
  ASSERT_EQ(CheckDraw(m.f, m.args), "");
  constexpr int kN = 1000000;
  Random r(StreamSeed(42, 0));
  std::vector<double> x(kN);
  double sum = 0;
  for (double& v : x) sum += v = Draw(m.f, m.args, r);
  double mean = sum / kN;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    double d = v - mean;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= kN;
  m4 /= kN;
  double se_mean = std::sqrt(m.variance / kN);
  double se_var = std::sqrt((m4 - m2 * m2) / kN);
  EXPECT_NEAR(mean, m.mean, 5 * se_mean) << m.name;
  EXPECT_NEAR(m2, m.variance, 5 * se_var) << m.name;
}

const double kE = std::exp(1.0);

INSTANTIATE_TEST_SUITE_P(
    Distributions, MomentsTest,
    testing::Values(
        // exponential(m): mean m, variance m^2.
        Moments{"exponential", Function::kExponential, {2}, 2, 4},
        // uniform(a, b): (a + b) / 2, (b - a)^2 / 12.
        Moments{"uniform", Function::kUniform, {1, 3}, 2, 4.0 / 12},
        // normal(mu, sd): mu, sd^2.
        Moments{"normal", Function::kNormal, {1, 2}, 1, 4},
        // lognormal(mu, s): exp(mu + s^2/2), (exp(s^2) - 1) exp(2 mu + s^2).
        Moments{"lognormal", Function::kLognormal, {0.5, 0.5}, std::pow(kE, 0.625),
                (std::pow(kE, 0.25) - 1) * std::pow(kE, 1.25)},
        // gamma(k, theta): k theta, k theta^2; shape >= 1 and the < 1 boost.
        Moments{"gamma", Function::kGamma, {2.5, 2}, 5, 10},
        Moments{"gamma_small_shape", Function::kGamma, {0.5, 3}, 1.5, 4.5},
        // erlang(k, m): the sum of k exponentials of mean m/k: m, k (m/k)^2.
        Moments{"erlang", Function::kErlang, {3, 6}, 6, 12},
        // geometric(m), p = 1/m, on 1, 2, ...: 1/p, (1 - p)/p^2 = 0.75 * 16.
        Moments{"geometric", Function::kGeometric, {4}, 4, 12},
        // bernoulli(p): p, p (1 - p).
        Moments{"bernoulli", Function::kBernoulli, {0.3}, 0.3, 0.21}),
    [](const testing::TestParamInfo<Moments>& info) { return info.param.name; });

TEST(RandomTest, GeometricGivesWholeNumbersFromOne) {
  Random r(3);
  for (int i = 0; i < 10000; ++i) {
    double g = r.Geometric(2.5);
    ASSERT_GE(g, 1.0);
    ASSERT_EQ(g, std::floor(g));
  }
  EXPECT_EQ(r.Geometric(1), 1.0);  // p = 1: the first trial succeeds
}

TEST(RandomTest, DegenerateParametersGiveTheirLimit) {
  Random r(5);
  EXPECT_EQ(r.Exponential(0), 0.0);
  EXPECT_EQ(r.Uniform(2, 2), 2.0);
  EXPECT_EQ(r.Normal(3, 0), 3.0);
}

TEST(RandomTest, InvalidParametersAreRefused) {
  EXPECT_EQ(CheckDraw(Function::kExponential, {-1}),
            "exponential(-1): the mean must be >= 0 and finite");
  EXPECT_EQ(CheckDraw(Function::kUniform, {2, 1}),
            "uniform(2, 1): the lower bound must be <= the upper bound");
  EXPECT_EQ(CheckDraw(Function::kBernoulli, {1.5}), "bernoulli(1.5): p must be between 0 and 1");
  EXPECT_EQ(CheckDraw(Function::kGeometric, {0.5}),
            "geometric(0.5): the mean must be >= 1 and finite");
  EXPECT_NE(CheckDraw(Function::kNormal, {0, -1}), "");
  EXPECT_NE(CheckDraw(Function::kLognormal, {0, -0.1}), "");
  EXPECT_NE(CheckDraw(Function::kGamma, {0, 1}), "");
  EXPECT_NE(CheckDraw(Function::kErlang, {2.5, 1}), "");
  EXPECT_NE(CheckDraw(Function::kExponential, {INFINITY}), "");
  EXPECT_NE(CheckDraw(Function::kBernoulli, {NAN}), "");
  EXPECT_EQ(CheckDraw(Function::kErlang, {2, 1}), "");
}

// The named lengths (IR 11): the inverse of the piecewise-linear CDF
// through the quantile table of random.cc, rounded to a whole token.
// - Mean: the sum over the table's segments of their width in probability
//   times their mid value, 862.77 tokens for prompts and 659.09 for
//   outputs (rounding moves a draw by at most 0.5 and, over a segment,
//   its mean by far less). The fit's standard deviations, 547 and 108,
//   make a mean of 10^5 draws' standard error 1.73 and 0.34 (five: 8.7
//   and 1.7).
// - Quantiles: the table holds the data's p50, p90 and p99 (729.5, 1460.1,
//   2768.17 prompt tokens; 634, 775, 882.43 output tokens), so a draw is
//   at most round(q) with probability p up to rounding; over 10^5 draws the
//   fraction's standard error is sqrt(p(1-p)/10^5), at most 0.0016 (five:
//   0.008), and a draw lands on round(q) itself with probability under
//   0.001: 0.009.
// - Every draw is a whole number in the data's range (257 to 4570, 512 to
//   1224).
TEST(RandomTest, NamedLengths) {
  Random random(5);
  constexpr int kDraws = 100000;
  double input = 0, output = 0;
  const double in_q[] = {730, 1460, 2768}, out_q[] = {634, 775, 882}, p[] = {0.5, 0.9, 0.99};
  int in_below[3] = {0, 0, 0}, out_below[3] = {0, 0, 0};
  for (int i = 0; i < kDraws; ++i) {
    const double x = ShareGptInput(random), y = ShareGptOutput(random);
    ASSERT_EQ(x, std::floor(x));
    ASSERT_EQ(y, std::floor(y));
    ASSERT_GE(x, 257);
    ASSERT_LE(x, 4570);
    ASSERT_GE(y, 512);
    ASSERT_LE(y, 1224);
    input += x;
    output += y;
    for (int k = 0; k < 3; ++k) {
      in_below[k] += x <= in_q[k];
      out_below[k] += y <= out_q[k];
    }
  }
  EXPECT_NEAR(input / kDraws, 862.77, 8.7);
  EXPECT_NEAR(output / kDraws, 659.09, 1.7);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(static_cast<double>(in_below[k]) / kDraws, p[k], 0.009) << "prompt p" << p[k];
    EXPECT_NEAR(static_cast<double>(out_below[k]) / kDraws, p[k], 0.009) << "output p" << p[k];
  }
  // Draws go through Draw as the other functions do: no parameters.
  EXPECT_EQ(CheckDraw(Function::kShareGptInput, {}), "");
}

}  // namespace
}  // namespace serq::sim
