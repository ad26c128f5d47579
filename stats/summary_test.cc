// The recorder's summaries: AddTimes (a run of equal samples added at
// once) gives the bits of one addition at a time, and a damaged summary in
// a results file is refused with its path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "stats/merge.h"
#include "stats/summary.h"

namespace serq::report {
namespace {

double OneAtATime(double sum, double x, uint64_t k) {
  for (uint64_t i = 0; i < k; ++i) sum += x;
  return sum;
}

uint64_t Bits(double x) { return absl::bit_cast<uint64_t>(x); }

// AddTimes takes a run inside one binade at once: the same bits as k
// additions one at a time, for every kind of sum and step. The cases that
// must not be taken at once are checked too: ties (q an odd multiple of
// 1/2, which rounds by S's parity), a run that ends exactly at the
// binade's top, or one past it, and x just at or past the half-ulp.
// The kept samples' buffer holds what a vector would: 100,003 samples by
// push_back and append (through several reallocations), in order; a move
// leaves the source empty; release gives the memory back and empties it.
TEST(SampleBuffer, HoldsWhatAVectorWould) {
  SampleBuffer b;
  std::vector<double> want;
  for (int i = 0; i < 100000; ++i) {
    b.push_back(i * 0.5);
    want.push_back(i * 0.5);
  }
  b.append(3, -1.25);
  want.insert(want.end(), 3, -1.25);
  b.append(0, 7);
  ASSERT_EQ(b.size(), want.size());
  EXPECT_TRUE(std::equal(b.begin(), b.end(), want.begin()));
  absl::Span<const double> span = b;
  EXPECT_EQ(span.size(), 100003u);
  EXPECT_EQ(span[99999], 49999.5);
  SampleBuffer moved(std::move(b));
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from buffer is empty
  EXPECT_EQ(moved.size(), 100003u);
  EXPECT_EQ(*(moved.end() - 1), -1.25);
  b = std::move(moved);
  EXPECT_EQ(b.size(), 100003u);
  b.release();
  EXPECT_EQ(b.size(), 0u);
  b.push_back(2);
  EXPECT_EQ(*b.begin(), 2);
}

TEST(AddTimes, SameBitsAsOneAtATime) {
  // What the engine adds: a decoder's step gaps onto a sum of seconds.
  double sum = 1e4;
  EXPECT_TRUE(AddTimesInBinade(&sum, 0.0071, 40));
  EXPECT_EQ(Bits(sum), Bits(OneAtATime(1e4, 0.0071, 40)));

  const uint64_t ks[] = {0, 1, 7, 8, 9, 22, 40, 255, 4095, 4096, 5000};
  auto check = [&](double s, double x) {
    for (uint64_t k : ks) {
      ASSERT_EQ(Bits(AddTimes(s, x, k)), Bits(OneAtATime(s, x, k)))
          << "s " << s << " x " << x << " k " << k;
    }
  };
  // Ties at s = 1 (ulp 2^-52): x = 2^-53 (q = 1/2) and 3 2^-53 (3/2),
  // from an even and an odd significand; and the odd multiples of 1/2 of
  // a larger q.
  for (double s : {1.0, std::nextafter(1.0, 2.0), 3.0, std::nextafter(3.0, 4.0)}) {
    for (double q : {0.5, 1.5, 2.5, 1023.5, 0.25, 0.75, 1.25, 0.4999999, 0.5000001}) {
      double ulp = std::ldexp(1.0, std::ilogb(s) - 52);
      check(s, q * ulp);
    }
  }
  // x at shifts of 52, 53, 54 and 55 below s's binade: d = 1, a tie or 1
  // at 53, nothing at 54 and beyond.
  for (int shift = 50; shift <= 56; ++shift) {
    for (double m : {1.0, 1.5, 1.9999999999999998}) check(1.0, std::ldexp(m, -shift));
  }
  // Runs that end just inside the binade, exactly at its top, and past it:
  // s = 2 - j ulp, x = 1 ulp.
  const double ulp1 = std::ldexp(1.0, -52);
  for (int j = 1; j <= 50; ++j) check(2.0 - j * ulp1, ulp1);
  // Random sums and steps: magnitudes apart by 0 to 60 binades, either
  // sign, and zeros, subnormals, infinities and NaN.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (int i = 0; i < 20000; ++i) {
    double s = std::ldexp(unit(rng), static_cast<int>(rng() % 200) - 100);
    double x = std::ldexp(unit(rng), std::ilogb(s) - static_cast<int>(rng() % 61));
    if (rng() % 8 == 0) s = -s;
    if (rng() % 8 == 0) x = -x;
    check(s, x);
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {0.0, -0.0, 5e-324, 1e-310, 1e308, inf, -inf,
                             std::numeric_limits<double>::quiet_NaN()};
  for (double s : specials) {
    for (double x : specials) check(s, x);
    check(s, 1.0);
    check(1.0, s);
  }
}

// Inputs without a name are named by their place: alone "<results>", one
// of several "<results N>" counted from 1; a name given stands.
TEST(NamedResults, NamesWhatIsNotNamed) {
  const std::vector<results::Results> one(1), three(3);
  std::vector<ResultsFile> named = NamedResults(one, {});
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].name, "<results>");
  EXPECT_EQ(named[0].results, &one[0]);
  named = NamedResults(three, {"a.json"});
  ASSERT_EQ(named.size(), 3u);
  EXPECT_EQ(named[0].name, "a.json");
  EXPECT_EQ(named[1].name, "<results 2>");
  EXPECT_EQ(named[2].name, "<results 3>");
  EXPECT_EQ(named[2].results, &three[2]);
}

TEST(Summary, DamagedSummariesAreRefused) {
  results::Results r;
  r.set_version(kIrVersion);
  r.set_horizon(10);
  results::Replication* rep = r.add_replication();
  results::Observation* o = rep->add_observation();
  o->set_name("x");
  ObservationRecorder rec(2);
  for (double x : {1.0, 2.0, 3.0}) rec.Add(x);
  rec.WriteTo(o);
  EXPECT_TRUE(MergeResults({{"r.json", &r}}).ok());
  o->set_count(4);
  EXPECT_EQ(MergeResults({{"r.json", &r}}).status().message(),
            "r.json:replication[0].observation[0].sketch: error: the sketch of 'x' counts 3 "
            "samples, the summary 4\n");
  o->set_count(3);
  o->add_sample(1);
  EXPECT_EQ(MergeResults({{"r.json", &r}}).status().message(),
            "r.json:replication[0].observation[0].count: error: observation 'x' has both "
            "samples and a summary; expected one\n");
  o->clear_sample();
  o->mutable_sketch()->set_alpha(2);
  EXPECT_EQ(MergeResults({{"r.json", &r}}).status().message(),
            "r.json:replication[0].observation[0].sketch: error: sketch alpha 2 is not in "
            "[1e-4, 1)\n");
  // Buckets where no finite double falls (an offset of 2^31 - 1 made a
  // store of 2^31 counts and aborted): at alpha 0.001 the indices run from
  // ceil(ln(denorm_min) / ln(1.001 / 0.999)) = ceil(-744.44 / 0.0020000007)
  // = -372219 to ceil(ln(DBL_MAX) / ...) = ceil(709.78 / 0.0020000007) =
  // 354892.
  o->mutable_sketch()->set_alpha(0.001);
  o->mutable_sketch()->set_positive_offset(2147483647);
  o->mutable_sketch()->clear_positive();
  o->mutable_sketch()->add_positive(3);
  EXPECT_EQ(MergeResults({{"r.json", &r}}).status().message(),
            "r.json:replication[0].observation[0].sketch: error: sketch's positive buckets run from index "
            "2147483647 to 2147483647, past the finite doubles' -372219 to 354892 at alpha 0.001\n");
  o->mutable_sketch()->set_positive_offset(354892);
  o->mutable_sketch()->set_min(5);
  o->mutable_sketch()->set_max(1);
  EXPECT_EQ(MergeResults({{"r.json", &r}}).status().message(),
            "r.json:replication[0].observation[0].sketch: error: sketch's min 5 is not at most its max 1\n");
}

}  // namespace
}  // namespace serq::report
