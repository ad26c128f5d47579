#include "diagram/layout.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "diagram/svg.h"
#include "diagram/test_programs.h"

namespace serq::view {
namespace {

// Every station gets figures, so that the boxes are as wide and tall as
// with results (the widest case).
void AddFakeStats(Drawing* d, uint64_t seed) {
  for (Row& row : d->rows) {
    for (Station& s : row.stations) {
      StationStats stats;
      stats.present = double((seed * 7 + s.stage * 13) % 1000) / 7;
      stats.util_mean = double((seed + s.stage) % 11) / 10;
      stats.util_max = stats.util_mean;
      stats.has_util = s.kind != "delay";
      stats.elements = s.array ? 2 : 1;  // the widest lines
      s.stats = stats;
    }
  }
}

// The picture is readable: no two boxes overlap (stations, markers, rails,
// pool bars, legend swatches), no text overlaps another text or a box,
// except that a station's own lines are written inside it; and everything
// lies inside the figure.
void ExpectNoOverlaps(const Figure& f, const std::string& context) {
  for (size_t i = 0; i < f.boxes.size(); ++i) {
    const Rect& a = f.boxes[i].rect;
    EXPECT_TRUE(a.x >= 0 && a.y >= 0 && a.right() <= f.width && a.bottom() <= f.height)
        << "box " << i << " outside the figure\n" << context;
    EXPECT_GT(a.w, 0) << context;
    for (size_t j = i + 1; j < f.boxes.size(); ++j) {
      EXPECT_FALSE(a.Overlaps(f.boxes[j].rect))
          << "boxes " << i << " and " << j << " overlap\n" << context;
    }
  }
  for (size_t i = 0; i < f.texts.size(); ++i) {
    const Text& t = f.texts[i];
    Rect a = t.Bounds();
    EXPECT_TRUE(a.x >= 0 && a.y >= 0 && a.right() <= f.width && a.bottom() <= f.height)
        << "text '" << t.text << "' outside the figure\n" << context;
    if (t.inside >= 0) {
      EXPECT_TRUE(f.boxes[t.inside].rect.Contains(a))
          << "text '" << t.text << "' sticks out of its station\n" << context;
    }
    for (size_t j = 0; j < f.boxes.size(); ++j) {
      if (int(j) == t.inside) continue;
      EXPECT_FALSE(a.Overlaps(f.boxes[j].rect))
          << "text '" << t.text << "' overlaps box " << j << "\n" << context;
    }
    for (size_t j = i + 1; j < f.texts.size(); ++j) {
      EXPECT_FALSE(a.Overlaps(f.texts[j].Bounds()))
          << "texts '" << t.text << "' and '" << f.texts[j].text << "' overlap\n" << context;
    }
  }
}

// How many labels a line runs through: none, in the programs drawn here.
int CrossedLabels(const Figure& f) {
  int crossed = 0;
  for (const Text& t : f.texts) {
    Rect r = t.Bounds();
    bool hit = false;
    for (const Line& l : f.lines) {
      for (size_t k = 1; k < l.points.size(); ++k) {
        Point a = l.points[k - 1], b = l.points[k];
        Rect seg{std::min(a.x, b.x), std::min(a.y, b.y), std::abs(a.x - b.x) + 1,
                 std::abs(a.y - b.y) + 1};
        hit = hit || seg.Overlaps(r);
      }
    }
    crossed += hit;
  }
  return crossed;
}

TEST(Layout, TextWidthCountsCharactersNotBytes) {
  // 0.61 em a character: 10 px text, 4 characters -> ceil(24.4) = 25.
  EXPECT_EQ(TextWidth("else", 10), 25);
  // "ps(…)": five characters though the ellipsis is three bytes.
  EXPECT_EQ(TextWidth("ps(\u2026)", 10), TextWidth("ps(x)", 10));
}

TEST(Layout, NoOverlapsInTheTestPrograms) {
  for (const NamedProgram& p : TestPrograms()) {
    Drawing d = Draw(p.source);
    ExpectNoOverlaps(Layout(d, false), p.name);
    AddFakeStats(&d, 1);
    ExpectNoOverlaps(Layout(d, true), p.name + " with results");
  }
}

TEST(Layout, NoLineRunsThroughALabelOfTheTestPrograms) {
  for (const NamedProgram& p : TestPrograms()) {
    EXPECT_EQ(CrossedLabels(Layout(Draw(p.source), false)), 0) << p.name;
  }
}

TEST(Layout, NoOverlapsInRandomPrograms) {
  int crossed = 0, labels = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::string source = RandomProgram(seed);
    Drawing d = Draw(source);
    Figure plain = Layout(d, false);
    ExpectNoOverlaps(plain, source);
    crossed += CrossedLabels(plain);
    labels += int(plain.texts.size());
    AddFakeStats(&d, seed);
    ExpectNoOverlaps(Layout(d, true), source);
  }
  // Labels slide along their arrow to keep clear of other arrows; in the
  // densest random programs (many conflicting flows and branches) a few
  // find no clear place: 5 of 4405 texts when this was written.
  std::cout << crossed << " of " << labels << " texts crossed by a line\n";
  EXPECT_LE(crossed * 200, labels);
}

// The station box of `column` in row 0.
const Box& StationBox(const Figure& f, int column) {
  for (const Box& b : f.boxes) {
    if (b.mark == BoxMark::kStation && b.row == 0 && b.column == column) return b;
  }
  ADD_FAILURE() << "no station in column " << column;
  return f.boxes[0];
}

TEST(Layout, StationsStandLeftToRightInColumnOrder) {
  for (const NamedProgram& p : TestPrograms()) {
    Drawing d = Draw(p.source);
    Figure f = Layout(d, false);
    for (int c = 1; c < d.rows[0].end(); ++c) {
      EXPECT_LT(StationBox(f, c - 1).rect.right(), StationBox(f, c).rect.x) << p.name;
      EXPECT_EQ(StationBox(f, c - 1).rect.y, StationBox(f, c).rect.y) << p.name;
    }
  }
}

TEST(Layout, ReturnsRunBelowTheRowAndSkipsAbove) {
  // flow_return: D, egress, ingress[2]; the start skips to ingress (above)
  // and ingress returns to D (below).
  Drawing d = Draw(TestPrograms()[3].source);
  Figure f = Layout(d, false);
  int top = StationBox(f, 0).rect.y, bottom = StationBox(f, 0).rect.bottom();
  int above = 0, below = 0, straight = 0;
  for (const Line& l : f.lines) {
    if (l.mark != LineMark::kArrow) continue;
    if (l.points.size() == 2) {
      ++straight;
      EXPECT_EQ(l.points[0].y, l.points[1].y);  // neighbours: level
      EXPECT_LT(l.points[0].x, l.points[1].x);  // and rightwards
      continue;
    }
    ASSERT_EQ(l.points.size(), 4u);
    int lane = l.points[1].y;
    if (l.points[3].x < l.points[0].x) {
      EXPECT_GT(lane, bottom) << "a return runs below the stations";
      ++below;
    } else {
      EXPECT_LT(lane, top) << "a forward skip runs above the stations";
      ++above;
    }
  }
  // S>2 above; 2>0 below; 0>1 and 2>E between neighbours.
  EXPECT_EQ(above, 1);
  EXPECT_EQ(below, 1);
  EXPECT_EQ(straight, 2);
}

TEST(Layout, RailTakesInItsStationsAndNoOther) {
  Drawing d = Draw(TestPrograms()[1].source);  // egress: P, egress, ingress, D
  Figure f = Layout(d, false);
  int rails = 0;
  for (const Box& b : f.boxes) {
    if (b.mark != BoxMark::kRail || b.row != 0) continue;  // not the key's
    ++rails;
    EXPECT_LT(b.rect.x, StationBox(f, 1).rect.x);
    EXPECT_GT(b.rect.right(), StationBox(f, 2).rect.right());
    EXPECT_GT(b.rect.x, StationBox(f, 0).rect.right());
    EXPECT_LT(b.rect.right(), StationBox(f, 3).rect.x);
    EXPECT_LT(b.rect.bottom(), StationBox(f, 1).rect.y);
  }
  EXPECT_EQ(rails, 1);
  // And no arrow between egress and ingress: every arrow's end points lie
  // outside the gap between them.
  int gap_lo = StationBox(f, 1).rect.right(), gap_hi = StationBox(f, 2).rect.x;
  for (const Line& l : f.lines) {
    if (l.mark != LineMark::kArrow) continue;
    for (const Point& p : l.points) EXPECT_FALSE(p.x > gap_lo && p.x < gap_hi);
  }
}

TEST(Layout, PoolBarsLieUnderTheirStations) {
  Drawing d = Draw(TestPrograms()[0].source);  // before: P, link, D
  Figure f = Layout(d, false);
  std::vector<Box> holds, leases;
  for (const Box& b : f.boxes) {
    if (b.row != 0) continue;  // the key's
    if (b.mark == BoxMark::kHold) holds.push_back(b);
    if (b.mark == BoxMark::kLease) leases.push_back(b);
  }
  // kvP held under P, leased under link; kvD held under link and D.
  ASSERT_EQ(holds.size(), 2u);
  ASSERT_EQ(leases.size(), 1u);
  EXPECT_EQ(holds[0].rect.x, StationBox(f, 0).rect.x);
  EXPECT_EQ(holds[0].rect.right(), StationBox(f, 0).rect.right());
  EXPECT_EQ(leases[0].rect.x, StationBox(f, 1).rect.x);
  EXPECT_EQ(leases[0].rect.right(), StationBox(f, 1).rect.right());
  EXPECT_EQ(holds[1].rect.x, StationBox(f, 1).rect.x);
  EXPECT_EQ(holds[1].rect.right(), StationBox(f, 2).rect.right());
  for (const Box& b : holds) EXPECT_GT(b.rect.y, StationBox(f, 0).rect.bottom());
  // kvP's lease and kvD's hold share link's column: two lanes.
  EXPECT_NE(leases[0].rect.y, holds[1].rect.y);
}

TEST(Layout, SameDrawingSameBytes) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::string source = RandomProgram(seed);
    EXPECT_EQ(RenderSvg(Layout(Draw(source), false)), RenderSvg(Layout(Draw(source), false)));
  }
}

}  // namespace
}  // namespace serq::view
