#include "diagram/svg.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "chart/xml.h"

namespace serq::view {
namespace {

constexpr char kInk[] = "#222222";
constexpr char kArrowInk[] = "#444444";
constexpr char kRailInk[] = "#2b6cb0";
constexpr char kPoolInk[] = "#b7791f";

void Rectangle(const Rect& r, absl::string_view attributes, std::string* out) {
  absl::StrAppend(out, "<rect x=\"", r.x, "\" y=\"", r.y, "\" width=\"", r.w, "\" height=\"",
                  r.h, "\" ", attributes, "/>\n");
}

void Segment(Point a, Point b, absl::string_view attributes, std::string* out) {
  absl::StrAppend(out, "<line x1=\"", a.x, "\" y1=\"", a.y, "\" x2=\"", b.x, "\" y2=\"", b.y,
                  "\" ", attributes, "/>\n");
}

void DrawBox(const Box& box, std::string* out) {
  const Rect& r = box.rect;
  switch (box.mark) {
    case BoxMark::kStation:
      Rectangle(r, absl::StrCat("rx=\"4\" fill=\"", box.fill, "\" stroke=\"", kInk,
                                "\" stroke-width=\"1\""),
                out);
      return;
    case BoxMark::kStart:
      absl::StrAppend(out, "<circle cx=\"", r.x + r.w / 2, "\" cy=\"", r.y + r.h / 2,
                      "\" r=\"6\" fill=\"", kInk, "\"/>\n");
      return;
    case BoxMark::kEnd:
      absl::StrAppend(out, "<circle cx=\"", r.x + r.w / 2, "\" cy=\"", r.y + r.h / 2,
                      "\" r=\"6\" fill=\"#ffffff\" stroke=\"", kInk,
                      "\" stroke-width=\"1.5\"/>\n");
      absl::StrAppend(out, "<circle cx=\"", r.x + r.w / 2, "\" cy=\"", r.y + r.h / 2,
                      "\" r=\"3\" fill=\"", kInk, "\"/>\n");
      return;
    case BoxMark::kRail:
      Rectangle(r, absl::StrCat("fill=\"", kRailInk, "\""), out);
      return;
    case BoxMark::kHold:
      // With results, filled by the pool's occupancy inside the pool's ink.
      Rectangle(r,
                box.fill.empty() ? absl::StrCat("fill=\"", kPoolInk, "\"")
                                 : absl::StrCat("fill=\"", box.fill, "\" stroke=\"", kPoolInk,
                                                "\" stroke-width=\"1\""),
                out);
      return;
    case BoxMark::kLease:
      if (!box.fill.empty()) {
        // The same fill in a dashed outline.
        Rectangle(r,
                  absl::StrCat("fill=\"", box.fill, "\" stroke=\"", kPoolInk,
                               "\" stroke-width=\"1\" stroke-dasharray=\"6 4\""),
                  out);
        return;
      }
      // A dashed bar: a thick dashed line through the box's middle.
      Segment({r.x, r.y + r.h / 2}, {r.right(), r.y + r.h / 2},
              absl::StrCat("stroke=\"", kPoolInk, "\" stroke-width=\"", r.h,
                           "\" stroke-dasharray=\"6 4\""),
              out);
      return;
    case BoxMark::kSwatch:
      Rectangle(r, absl::StrCat("fill=\"", box.fill, "\" stroke=\"#999999\" stroke-width=\"1\""),
                out);
      return;
  }
}

// An arrow: the polyline stops where its head begins, and the head is a
// triangle whose tip is the last point. Segments are horizontal or
// vertical, so the head points along one axis.
void DrawArrow(const Line& line, std::string* out) {
  constexpr int kLength = 7, kHalf = 4;
  std::vector<Point> points = line.points;
  Point tip = points.back();
  const Point& from = points[points.size() - 2];
  int dx = tip.x > from.x ? 1 : tip.x < from.x ? -1 : 0;
  int dy = tip.y > from.y ? 1 : tip.y < from.y ? -1 : 0;
  Point base{tip.x - dx * kLength, tip.y - dy * kLength};
  points.back() = base;
  std::vector<std::string> coords;
  for (const Point& p : points) coords.push_back(absl::StrCat(p.x, ",", p.y));
  absl::StrAppend(out, "<polyline points=\"", absl::StrJoin(coords, " "),
                  "\" fill=\"none\" stroke=\"", kArrowInk, "\" stroke-width=\"1.25\"/>\n");
  Point left{base.x - dy * kHalf, base.y - dx * kHalf};
  Point right{base.x + dy * kHalf, base.y + dx * kHalf};
  absl::StrAppend(out, "<polygon points=\"", tip.x, ",", tip.y, " ", left.x, ",", left.y, " ",
                  right.x, ",", right.y, "\" fill=\"", kArrowInk, "\"/>\n");
}

void DrawLine(const Line& line, std::string* out) {
  switch (line.mark) {
    case LineMark::kArrow:
      DrawArrow(line, out);
      return;
    case LineMark::kRailEnd:
      Segment(line.points[0], line.points[1],
              absl::StrCat("stroke=\"", kRailInk, "\" stroke-width=\"2\""), out);
      return;
    case LineMark::kRailLink:
      Segment(line.points[0], line.points[1],
              absl::StrCat("stroke=\"", kRailInk,
                           "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\""),
              out);
      return;
    case LineMark::kHoldLink:
      Segment(line.points[0], line.points[1],
              absl::StrCat("stroke=\"", kPoolInk, "\" stroke-width=\"1.5\""), out);
      return;
    case LineMark::kLeaseLink:
      Segment(line.points[0], line.points[1],
              absl::StrCat("stroke=\"", kPoolInk,
                           "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\""),
              out);
      return;
  }
}

void DrawText(const Text& text, std::string* out) {
  absl::string_view anchor = text.anchor == Anchor::kStart    ? "start"
                             : text.anchor == Anchor::kMiddle ? "middle"
                                                              : "end";
  absl::StrAppend(out, "<text x=\"", text.x, "\" y=\"", text.y, "\" font-size=\"", text.size,
                  "\" text-anchor=\"", anchor, "\"", text.bold ? " font-weight=\"bold\"" : "",
                  ">", XmlEscape(text.text), "</text>\n");
}

}  // namespace

std::string RenderSvg(const Figure& figure) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"",
                  figure.width, "\" height=\"", figure.height, "\" viewBox=\"0 0 ",
                  figure.width, " ", figure.height,
                  "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" fill=\"",
                  kInk, "\">\n");
  Rectangle({0, 0, figure.width, figure.height}, "fill=\"#ffffff\"", &out);
  // Bars under the arrows, the arrows under the stations, text on top.
  for (const Box& b : figure.boxes) {
    if (b.mark == BoxMark::kHold || b.mark == BoxMark::kLease || b.mark == BoxMark::kRail) {
      DrawBox(b, &out);
    }
  }
  for (const Line& l : figure.lines) DrawLine(l, &out);
  for (const Box& b : figure.boxes) {
    if (!(b.mark == BoxMark::kHold || b.mark == BoxMark::kLease || b.mark == BoxMark::kRail)) {
      DrawBox(b, &out);
    }
  }
  for (const Text& t : figure.texts) DrawText(t, &out);
  out += "</svg>\n";
  return out;
}

}  // namespace serq::view
