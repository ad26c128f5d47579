// Geometry of the drawing: every mark of the SVG as a rectangle, a
// polyline or a text, in whole pixels, so that the renderer only prints
// and the tests can check the picture (no two boxes overlap, returns run
// below the row) without parsing SVG.
//
// A row, top to bottom: the lanes of forward arrows that skip stations
// (above), the lanes of flow rails, the stations (with the session's
// start and end markers and the arrows between neighbours), the lanes of
// returns (arrows that go leftwards, below), the lanes of pool bars.
#ifndef SERQ_DIAGRAM_LAYOUT_H_
#define SERQ_DIAGRAM_LAYOUT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "diagram/row.h"

namespace serq::view {

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
  int right() const { return x + w; }
  int bottom() const { return y + h; }
  // Interiors intersect (touching edges do not overlap).
  bool Overlaps(const Rect& o) const {
    return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
  }
  bool Contains(const Rect& o) const {
    return x <= o.x && o.right() <= right() && y <= o.y && o.bottom() <= bottom();
  }
};

struct Point {
  int x = 0, y = 0;
};

// What a box is, which decides how it is drawn.
enum class BoxMark {
  kStation,  // a stage (an array is one station)
  kStart,    // the session's start: a filled circle
  kEnd,      // the session's end: a ringed dot
  kRail,     // a flow's bracket: a bar over its stations
  kHold,     // a pool held: a solid bar under the stations
  kLease,    // the lease after the hold: a dashed bar
  kSwatch,   // a colour of the legend
};

enum class LineMark {
  kArrow,     // the session's path; ends in an arrowhead
  kRailEnd,   // the down-strokes at the ends of a rail
  kRailLink,  // joins the parts of a flow an earlier flow kept apart
  kHoldLink,  // joins the parts of a pool bar across stations not visited
  kLeaseLink,
};

struct Box {
  BoxMark mark;
  Rect rect;
  std::string fill;  // stations and swatches
  int row = -1;      // -1 for the legend
  int column = -1;   // a station's column
};

struct Line {
  LineMark mark;
  std::vector<Point> points;  // an arrow's tip is its last point
  int row = -1;
};

enum class Anchor { kStart, kMiddle, kEnd };

struct Text {
  std::string text;
  int x = 0, y = 0;  // the anchor point on the baseline
  int size = 10;     // font size in pixels
  bool bold = false;
  Anchor anchor = Anchor::kStart;
  int inside = -1;  // the box (index into Figure::boxes) it is written in
  Rect Bounds() const;
};

struct Figure {
  int width = 0, height = 0;
  std::vector<Box> boxes;
  std::vector<Line> lines;
  std::vector<Text> texts;
};

// The width a text takes in the drawing's fixed-width font (DejaVu Sans
// Mono advances 0.602 em; 0.61 em leaves a little room), counted in
// characters, not bytes.
int TextWidth(absl::string_view text, int size);

// Lays out every row of `drawing`; `with_results` adds the stations'
// figures and a legend of the colour scale.
Figure Layout(const Drawing& drawing, bool with_results);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_LAYOUT_H_
