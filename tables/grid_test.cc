#include "tables/grid.h"

#include <cmath>

#include "gtest/gtest.h"

namespace serq::tables {
namespace {

double At(const Grid& g, std::vector<double> x, Outside below = Outside::kClamp,
          Outside above = Outside::kExtrapolate) {
  double v = NAN;
  int axis = -1;
  EXPECT_TRUE(g.Lookup(x, below, above, &v, &axis));
  return v;
}

TEST(Grid, OneKeyInterpolatesBetweenRows) {
  // (1, 10), (2, 30), (4, 34): between 1 and 2 slope 20, between 2 and 4
  // slope 2.
  Rows rows{1, {1, 2, 4}, {10, 30, 34}};
  ASSERT_TRUE(CheckRows(rows).ok());
  Grid g(rows);
  EXPECT_EQ(At(g, {1.5}), 20);
  EXPECT_EQ(At(g, {3}), 32);
  EXPECT_EQ(At(g, {2}), 30);  // a row's key: its value exactly
  EXPECT_EQ(At(g, {4}), 34);
  EXPECT_EQ(g.Least(0), 1);
  EXPECT_EQ(g.Greatest(0), 4);
}

TEST(Grid, BeyondTheEndsByTheRules) {
  Rows rows{1, {1, 2, 4}, {10, 30, 34}};
  Grid g(rows);
  // Below 1: clamp gives the first row's 10; extrapolate the line through
  // (1, 10) and (2, 30): 10 + (0 - 1) * 20 = -10.
  EXPECT_EQ(At(g, {0}, Outside::kClamp), 10);
  EXPECT_EQ(At(g, {0}, Outside::kExtrapolate), -10);
  // Above 4: extrapolate through (2, 30) and (4, 34): 34 + 2 * 2 = 38.
  EXPECT_EQ(At(g, {6}, Outside::kClamp, Outside::kExtrapolate), 38);
  EXPECT_EQ(At(g, {6}, Outside::kClamp, Outside::kClamp), 34);
  double v;
  int axis = -1;
  EXPECT_FALSE(g.Lookup({std::vector<double>{6}}, Outside::kClamp, Outside::kError, &v, &axis));
  EXPECT_EQ(axis, 0);
  EXPECT_FALSE(g.Lookup({std::vector<double>{0.5}}, Outside::kError, Outside::kError, &v, &axis));
  // At the ends themselves no rule applies.
  EXPECT_TRUE(g.Lookup({std::vector<double>{1}}, Outside::kError, Outside::kError, &v, &axis));
  EXPECT_EQ(v, 10);
}

TEST(Grid, TwoKeysOnAFullGridIsBilinear) {
  // f(0,0) = 0, f(0,10) = 10, f(1,0) = 100, f(1,10) = 200. At (0.5, 5):
  // along key 2 at key 1 = 0: 5; at 1: 150; halfway: 77.5, the mean of
  // the four corners as bilinear interpolation gives at the centre.
  Rows rows{2, {0, 0, 0, 10, 1, 0, 1, 10}, {0, 10, 100, 200}};
  ASSERT_TRUE(CheckRows(rows).ok());
  Grid g(rows);
  EXPECT_EQ(At(g, {0.5, 5}), 77.5);
  EXPECT_EQ(At(g, {1, 5}), 150);
  EXPECT_EQ(At(g, {0.25, 10}), 10 + 0.25 * 190);
}

TEST(Grid, RaggedRowsInterpolateEachSubtree) {
  // Key 1 = 0 has key 2 at 0 and 16 (values 1, 2); key 1 = 512 has key 2
  // at 0 only (50): under it any key 2 is 50. At (256, 8): 1.5 under 0,
  // 50 under 512, halfway 25.75.
  Rows rows{2, {0, 0, 0, 16, 512, 0}, {1, 2, 50}};
  ASSERT_TRUE(CheckRows(rows).ok());
  Grid g(rows);
  EXPECT_EQ(At(g, {256, 8}), 25.75);
  EXPECT_EQ(At(g, {512, 4000}), 50);
  // Key 2 beyond 16 under key 1 = 0, extrapolated (slope 1/16): 1 + 32/16.
  EXPECT_EQ(At(g, {0, 32}), 3);
}

TEST(Grid, FourKeysReproduceAMultilinearFunction) {
  // f(a, b, c, d) = a + 2b + 4c + 8d on {0, 1}^4 is multilinear, so
  // interpolation gives it everywhere inside: at (0.5, 0.25, 0.75, 0.1),
  // 0.5 + 0.5 + 3 + 0.8 = 4.8.
  Rows rows{4, {}, {}};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 2; ++d) {
          rows.key.insert(rows.key.end(), {double(a), double(b), double(c), double(d)});
          rows.value.push_back(a + 2 * b + 4 * c + 8 * d);
        }
  ASSERT_TRUE(CheckRows(rows).ok());
  Grid g(rows);
  EXPECT_NEAR(At(g, {0.5, 0.25, 0.75, 0.1}), 4.8, 1e-12);
  EXPECT_EQ(At(g, {1, 1, 1, 1}), 15);
}

TEST(Grid, OneRowIsAConstant) {
  Rows rows{2, {3, 4}, {7}};
  ASSERT_TRUE(CheckRows(rows).ok());
  Grid g(rows);
  EXPECT_EQ(At(g, {-100, 1e9}), 7);
  double v;
  int axis;
  // An axis of one value has no beyond: the error rule does not apply.
  EXPECT_TRUE(g.Lookup({std::vector<double>{-1, -1}}, Outside::kError, Outside::kError, &v, &axis));
}

TEST(Grid, CheckRowsSaysWhatIsWrong) {
  EXPECT_EQ(CheckRows(Rows{1, {1, 1}, {1, 2}}).message(),
            "row 2: the same keys as the row before (a key twice)");
  EXPECT_EQ(CheckRows(Rows{2, {1, 5, 1, 4}, {1, 2}}).message(),
            "row 2: key 2 is 4 after 5 in the row before; rows must be in ascending key "
            "order, key 1 first");
  EXPECT_EQ(CheckRows(Rows{1, {1, 2}, {1, -1}}).message(),
            "row 2: the value is -1; a table's values are times: finite and >= 0");
  EXPECT_EQ(CheckRows(Rows{1, {1}, {NAN}}).message(),
            "row 1: the value is nan; a table's values are times: finite and >= 0");
  EXPECT_EQ(CheckRows(Rows{1, {INFINITY}, {1}}).message(),
            "row 1: key 1 is inf, not a finite number");
  EXPECT_EQ(CheckRows(Rows{2, {1}, {1}}).message(), "1 values need 2 keys (2 a row), not 1");
  EXPECT_EQ(CheckRows(Rows{1, {}, {}}).message(), "the table has no rows");
  // Ascending by the first key that differs: (1, 9) then (2, 0) is fine.
  EXPECT_TRUE(CheckRows(Rows{2, {1, 9, 2, 0}, {1, 1}}).ok());
}

}  // namespace
}  // namespace serq::tables
