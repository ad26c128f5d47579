#include "diagram/layout.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "diagram/stats.h"

namespace serq::view {

int TextWidth(absl::string_view text, int size) {
  int chars = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;  // not a continuation byte
  }
  return int(std::ceil(chars * size * 0.61));
}

Rect Text::Bounds() const {
  int w = TextWidth(text, size);
  int left = anchor == Anchor::kStart ? x : anchor == Anchor::kMiddle ? x - w / 2 : x - w;
  int ascent = int(std::ceil(size * 0.78));
  int descent = int(std::ceil(size * 0.24));
  return {left, y - ascent, w, ascent + descent};
}

namespace {

constexpr int kMargin = 16;
constexpr int kNameSize = 12;    // a station's name, the session's name
constexpr int kDetailSize = 11;  // a station's kind and figures
constexpr int kSmallSize = 10;   // labels of arrows and pools; the key
constexpr int kLineStep = 14;    // between the lines in a station
constexpr int kPad = 10;         // text to a station's sides
constexpr int kMinStation = 56;
constexpr int kMinGap = 36;      // between neighbouring stations
constexpr int kMarker = 14;      // start and end markers are 14 x 14
constexpr int kSkipLane = 16;
constexpr int kRailLane = 10;
constexpr int kReturnLane = 16;
constexpr int kPoolLane = 24;
constexpr int kRowGap = 24;
constexpr int kPort = 8;      // first arrow end from a station's side
constexpr int kPortStep = 6;  // between arrow ends on one side
constexpr int kLoop = 8;      // a loop on one station: its ends from the middle
constexpr int kOverhang = 5;  // a rail beyond its stations
constexpr int kLanePad = 8;   // horizontal room between marks in one lane

// Packing of horizontal intervals into lanes: lane 0 is the one nearest the
// stations.
class Lanes {
 public:
  // First fit: the nearest lane where [lo, hi] meets no mark.
  int Place(int lo, int hi) {
    int lane = 0;
    while (lane < count() && Meets(lane, lo, hi)) ++lane;
    return Put(lane, lo, hi);
  }
  // The first lane beyond every lane where [lo, hi] meets a mark.
  int PlaceBeyond(int lo, int hi) {
    int lane = 0;
    for (int k = 0; k < count(); ++k) {
      if (Meets(k, lo, hi)) lane = k + 1;
    }
    return Put(lane, lo, hi);
  }
  int count() const { return int(used_.size()); }

 private:
  bool Meets(int lane, int lo, int hi) const {
    return std::any_of(used_[lane].begin(), used_[lane].end(), [&](const auto& u) {
      return lo < u.second + kLanePad && u.first < hi + kLanePad;
    });
  }
  int Put(int lane, int lo, int hi) {
    if (lane == count()) used_.emplace_back();
    used_[lane].emplace_back(lo, hi);
    return lane;
  }

  std::vector<std::vector<std::pair<int, int>>> used_;
};

struct Span {
  int left = 0, right = 0;
  int cx() const { return (left + right) / 2; }
};

// An arrow that leaves the row: over it (a forward skip) or under it (a
// return), in one lane.
struct Arc {
  const Edge* edge;
  int x_out, x_in;
  int lane = 0;
};

struct RailPlan {
  std::vector<std::pair<int, int>> parts;  // x ranges of contiguous stations
  int lane = 0;
};

struct Bar {
  int x0, x1;
  bool lease;
};

struct PoolPlan {
  std::vector<Bar> bars;  // by x
  const PoolSpan* span;
  int lane = 0;
};

// Runs of consecutive columns, e.g. {1, 2, 4} -> {1, 2}, {4, 4}.
std::vector<std::pair<int, int>> Runs(std::vector<int> columns) {
  std::sort(columns.begin(), columns.end());
  std::vector<std::pair<int, int>> runs;
  for (int c : columns) {
    if (!runs.empty() && runs.back().second + 1 == c) {
      runs.back().second = c;
    } else {
      runs.emplace_back(c, c);
    }
  }
  return runs;
}

// A vertical part of an arc, which labels of other arcs keep clear of.
struct Vertical {
  int x, y0, y1;
  const Arc* arc;
};

// Where along its arc's horizontal part a label stands: the middle, or the
// nearest place (in steps of 4 px) where no other arc's vertical part runs
// through it; the middle when there is none.
int LabelCentre(const Arc& arc, Text label, const std::vector<Vertical>& verticals) {
  int lo = std::min(arc.x_out, arc.x_in), hi = std::max(arc.x_out, arc.x_in);
  int w = TextWidth(label.text, label.size);
  int centre = (lo + hi) / 2;
  auto clear = [&](int c) {
    label.x = c;
    Rect r = label.Bounds();
    return std::none_of(verticals.begin(), verticals.end(), [&](const Vertical& v) {
      return v.arc != &arc && v.x > r.x - 3 && v.x < r.right() + 3 && v.y0 < r.bottom() &&
             v.y1 > r.y;
    });
  };
  if (clear(centre)) return centre;
  for (int d = 4;; d += 4) {
    bool inside = false;
    for (int c : {centre - d, centre + d}) {
      if (c - w / 2 < lo + 3 || c - w / 2 + w > hi - 3) continue;
      inside = true;
      if (clear(c)) return c;
    }
    if (!inside) return centre;
  }
}

class RowLayout {
 public:
  RowLayout(const Row& row, int index, bool with_results, int x0, Figure* figure)
      : row_(row), index_(index), with_results_(with_results), figure_(figure) {
    PlaceColumns(x0);
    PlanArcs();
    PlanRails();
    PlanPools();
  }

  // Emits the row with its top at `top`; returns its bottom.
  int Emit(int top);

 private:
  const Span& At(int column) const { return spans_[column + 1]; }
  bool IsMarker(int column) const { return column == kStart || column == row_.end(); }

  void PlaceColumns(int x0);
  void PlanArcs();
  void PlanRails();
  void PlanPools();
  int Port(int column, int side);

  void AddText(std::string text, int x, int y, int size, Anchor anchor, bool bold = false,
               int inside = -1) {
    figure_->texts.push_back({std::move(text), x, y, size, bold, anchor, inside});
  }
  void AddLine(LineMark mark, std::vector<Point> points) {
    figure_->lines.push_back({mark, std::move(points), index_});
  }
  int AddBox(BoxMark mark, Rect rect, std::string fill = "", int column = -1) {
    figure_->boxes.push_back({mark, rect, std::move(fill), index_, column});
    return int(figure_->boxes.size()) - 1;
  }

  const Row& row_;
  int index_;
  bool with_results_;
  Figure* figure_;

  std::vector<Span> spans_;  // start marker, stations, end marker
  std::vector<std::vector<std::string>> lines_;  // each station's text
  int station_lines_ = 2;                         // the lines of the row's tallest station
  std::vector<Arc> skips_, returns_;
  std::vector<const Edge*> neighbours_;
  std::vector<RailPlan> rails_;
  std::vector<PoolPlan> pools_;
  Lanes skip_lanes_, rail_lanes_, return_lanes_, pool_lanes_;
  std::map<std::pair<int, int>, int> ports_used_;
};

void RowLayout::PlaceColumns(int x0) {
  int n = row_.end();
  std::vector<int> gap(n + 1, kMinGap);  // gap[k]: before column k (k = n: the end)
  for (const Edge& e : row_.edges) {
    if (e.to == e.from + 1 && !e.label.empty()) {
      gap[e.to] = std::max(gap[e.to], TextWidth(e.label, kSmallSize) + 16);
    }
  }
  spans_.push_back({x0, x0 + kMarker});
  // Every station of the row as tall as its tallest: two lines of figures,
  // three where a step stage has its fill and its time busy.
  station_lines_ = 2;
  for (int c = 0; c < n; ++c) {
    station_lines_ = std::max(station_lines_,
                              int(StationLines(row_.stations[c], with_results_).size()));
  }
  if (with_results_) station_lines_ = std::max(station_lines_, 4);
  for (int c = 0; c <= n; ++c) {
    int width = kMarker;
    if (c < n) {
      lines_.push_back(StationLines(row_.stations[c], with_results_));
      lines_.back().resize(station_lines_);
      width = kMinStation;
      for (size_t i = 0; i < lines_.back().size(); ++i) {
        int size = i == 0 ? kNameSize : kDetailSize;
        width = std::max(width, TextWidth(lines_.back()[i], size) + 2 * kPad);
      }
    }
    int left = spans_.back().right + gap[c];
    spans_.push_back({left, left + width});
  }
}

// Sides of a station where arrows end: 0 top, left half (arrows in); 1 top,
// right half (out); 2 bottom, left half; 3 bottom, right half. Ends are
// handed out from the sides inwards, shortest arrows first, so that an
// arrow in a higher lane never crosses one in a lower lane at a station.
// A loop on the station takes the middle of its bottom, inside all others,
// and the lane below all others.
int RowLayout::Port(int column, int side) {
  const Span& s = At(column);
  if (IsMarker(column)) return s.cx();
  int k = ports_used_[{column, side}]++;
  // The middle of a station's bottom, cx +- kLoop, is its loop's.
  int offset = std::min(kPort + kPortStep * k, (s.right - s.left) / 2 - kLoop - kPortStep);
  return side % 2 == 0 ? s.left + offset : s.right - offset;
}

void RowLayout::PlanArcs() {
  std::vector<const Edge*> skips, returns;
  for (const Edge& e : row_.edges) {
    if (e.to == e.from + 1) {
      neighbours_.push_back(&e);
    } else if (e.to > e.from) {
      skips.push_back(&e);
    } else {
      returns.push_back(&e);
    }
  }
  auto shortest_first = [](const Edge* a, const Edge* b) {
    return std::make_tuple(std::abs(a->to - a->from), a->from, a->to) <
           std::make_tuple(std::abs(b->to - b->from), b->from, b->to);
  };
  std::stable_sort(skips.begin(), skips.end(), shortest_first);
  // Loops on one station last: in the outermost lanes under it, where no
  // other arrow's vertical runs through their labels.
  std::stable_sort(returns.begin(), returns.end(), [&](const Edge* a, const Edge* b) {
    bool loop_a = a->from == a->to, loop_b = b->from == b->to;
    if (loop_a != loop_b) return loop_b;
    return shortest_first(a, b);
  });
  auto place = [&](Arc& arc, Lanes& lanes) {
    int lo = std::min(arc.x_out, arc.x_in), hi = std::max(arc.x_out, arc.x_in);
    if (!arc.edge->label.empty()) {
      int w = TextWidth(arc.edge->label, kSmallSize);
      lo = std::min(lo, (arc.x_out + arc.x_in) / 2 - w / 2);
      hi = std::max(hi, (arc.x_out + arc.x_in) / 2 - w / 2 + w);
    }
    bool loop = arc.edge->from == arc.edge->to;
    arc.lane = loop ? lanes.PlaceBeyond(lo, hi) : lanes.Place(lo, hi);
  };
  for (const Edge* e : skips) {
    Arc arc{e, Port(e->from, 1), Port(e->to, 0)};
    place(arc, skip_lanes_);
    skips_.push_back(arc);
  }
  for (const Edge* e : returns) {
    // A loop on one station leaves on the right and comes back on the left;
    // a return leaves its station on the left and comes in on the right.
    Arc arc = e->from == e->to ? Arc{e, At(e->from).cx() + kLoop, At(e->to).cx() - kLoop}
                               : Arc{e, Port(e->from, 2), Port(e->to, 3)};
    place(arc, return_lanes_);
    returns_.push_back(arc);
  }
}

void RowLayout::PlanRails() {
  for (const Flow& flow : row_.flows) {
    RailPlan rail;
    for (auto [first, last] : Runs(flow.columns)) {
      rail.parts.emplace_back(At(first).left - kOverhang, At(last).right + kOverhang);
    }
    rail.lane = rail_lanes_.Place(rail.parts.front().first, rail.parts.back().second);
    rails_.push_back(std::move(rail));
  }
}

void RowLayout::PlanPools() {
  for (const PoolSpan& span : row_.pools) {
    PoolPlan plan;
    plan.span = &span;
    for (auto [first, last] : Runs(span.held)) {
      plan.bars.push_back({At(first).left, At(last).right, false});
    }
    for (auto [first, last] : Runs(span.leased)) {
      plan.bars.push_back({At(first).left, At(last).right, true});
    }
    std::sort(plan.bars.begin(), plan.bars.end(),
              [](const Bar& a, const Bar& b) { return a.x0 < b.x0; });
    if (span.lease_to_end) {
      // The lease outlives the path: its dashed bar runs on to the end marker.
      int last = span.anchor;
      if (!span.held.empty()) last = std::max(last, span.held.back());
      if (!span.leased.empty()) last = std::max(last, span.leased.back());
      if (!span.leased.empty() && span.leased.back() == last) {
        plan.bars.back().x1 = At(row_.end()).cx();
      } else {
        plan.bars.push_back({At(last).right + 6, At(row_.end()).cx(), true});
      }
    }
    if (plan.bars.empty()) {
      // A hold that visits no station: a short bar where it stands.
      plan.bars.push_back({At(span.anchor).right + 6, At(span.anchor + 1).left - 6, false});
    }
    int lo = plan.bars.front().x0;
    int hi = std::max(plan.bars.back().x1, lo + TextWidth(span.label, kSmallSize));
    plan.lane = pool_lanes_.Place(lo, hi);
    pools_.push_back(std::move(plan));
  }
}

int RowLayout::Emit(int top) {
  int skip_h = skip_lanes_.count() ? kSkipLane * skip_lanes_.count() + 8 : 0;
  int rail_h = rail_lanes_.count() ? kRailLane * rail_lanes_.count() + 4 : 0;
  int box_top = top + skip_h + rail_h;
  int box_h = kLineStep * station_lines_ + 10;
  int box_bottom = box_top + box_h;
  int mid = box_top + box_h / 2;
  int return_h = return_lanes_.count() ? kReturnLane * return_lanes_.count() + 8 : 0;
  int pool_top = box_bottom + return_h + 6;

  AddText(row_.session, kMargin, mid + 4, kNameSize, Anchor::kStart, true);

  AddBox(BoxMark::kStart, {At(kStart).left, mid - kMarker / 2, kMarker, kMarker});
  AddBox(BoxMark::kEnd, {At(row_.end()).left, mid - kMarker / 2, kMarker, kMarker});
  for (int c = 0; c < row_.end(); ++c) {
    const Station& s = row_.stations[c];
    const Span& x = At(c);
    int box = AddBox(BoxMark::kStation, {x.left, box_top, x.right - x.left, box_h},
                     StationFill(s, with_results_), c);
    for (size_t i = 0; i < lines_[c].size(); ++i) {
      if (lines_[c][i].empty()) continue;
      AddText(lines_[c][i], x.cx(), box_top + 17 + kLineStep * int(i),
              i == 0 ? kNameSize : kDetailSize, Anchor::kMiddle, i == 0, box);
    }
  }

  auto top_of = [&](int c) { return IsMarker(c) ? mid - kMarker / 2 : box_top; };
  auto bottom_of = [&](int c) { return IsMarker(c) ? mid + kMarker / 2 : box_bottom; };
  for (const Edge* e : neighbours_) {
    int x0 = At(e->from).right, x1 = At(e->to).left;
    AddLine(LineMark::kArrow, {{x0, mid}, {x1, mid}});
    if (!e->label.empty()) AddText(e->label, (x0 + x1) / 2, mid - 5, kSmallSize, Anchor::kMiddle);
  }
  // Arcs go up (skips) or down (returns) from the stations to their lanes.
  std::vector<Vertical> verticals;
  auto lane_y = [&](const Arc& a, bool skip) {
    return skip ? box_top - rail_h - 6 - kSkipLane * a.lane
                : box_bottom + 8 + kReturnLane * a.lane;
  };
  for (const Arc& a : skips_) {
    int y = lane_y(a, true);
    verticals.push_back({a.x_out, y, top_of(a.edge->from), &a});
    verticals.push_back({a.x_in, y, top_of(a.edge->to), &a});
  }
  for (const Arc& a : returns_) {
    int y = lane_y(a, false);
    verticals.push_back({a.x_out, bottom_of(a.edge->from), y, &a});
    verticals.push_back({a.x_in, bottom_of(a.edge->to), y, &a});
  }
  for (const std::vector<Arc>* arcs : {&skips_, &returns_}) {
    bool skip = arcs == &skips_;
    for (const Arc& a : *arcs) {
      int y = lane_y(a, skip);
      int from_y = skip ? top_of(a.edge->from) : bottom_of(a.edge->from);
      int to_y = skip ? top_of(a.edge->to) : bottom_of(a.edge->to);
      AddLine(LineMark::kArrow, {{a.x_out, from_y}, {a.x_out, y}, {a.x_in, y}, {a.x_in, to_y}});
      if (a.edge->label.empty()) continue;
      Text label{a.edge->label, 0, skip ? y - 4 : y + 12, kSmallSize, false, Anchor::kMiddle};
      label.x = LabelCentre(a, label, verticals);
      figure_->texts.push_back(std::move(label));
    }
  }

  for (const RailPlan& rail : rails_) {
    int y = box_top - 10 - kRailLane * rail.lane;
    for (size_t i = 0; i < rail.parts.size(); ++i) {
      auto [lo, hi] = rail.parts[i];
      AddBox(BoxMark::kRail, {lo, y, hi - lo, 4});
      AddLine(LineMark::kRailEnd, {{lo, y + 2}, {lo, box_top + 8}});
      AddLine(LineMark::kRailEnd, {{hi, y + 2}, {hi, box_top + 8}});
      if (i > 0) AddLine(LineMark::kRailLink, {{rail.parts[i - 1].second, y + 2}, {lo, y + 2}});
    }
  }

  for (const PoolPlan& pool : pools_) {
    int y = pool_top + kPoolLane * pool.lane;
    AddText(pool.span->label, pool.bars.front().x0, y + 11, kSmallSize, Anchor::kStart);
    for (size_t i = 0; i < pool.bars.size(); ++i) {
      const Bar& bar = pool.bars[i];
      int box = AddBox(bar.lease ? BoxMark::kLease : BoxMark::kHold,
                       {bar.x0, y + 15, bar.x1 - bar.x0, 6});
      // With results a bar is filled by its pool's occupancy, as a station
      // by its utilisation, so the pool that binds stands out.
      // A flag or counter is full by design: grey, as a stage without a
      // utilisation.
      if (pool.span->stats) {
        figure_->boxes[box].fill = pool.span->stats->flag
                                       ? kNoCapacityFill
                                       : UtilisationColour(pool.span->stats->mean);
      }
      if (i > 0 && pool.bars[i - 1].x1 < bar.x0) {
        bool lease = bar.lease || pool.bars[i - 1].lease;
        AddLine(lease ? LineMark::kLeaseLink : LineMark::kHoldLink,
                {{pool.bars[i - 1].x1, y + 18}, {bar.x0, y + 18}});
      }
    }
  }
  if (!pools_.empty()) return pool_top + kPoolLane * pool_lanes_.count() + 2;
  return box_bottom + return_h;
}

// The key under the rows: what a rail and a pool bar mean (when the
// drawing has one), and with results the colour scale and the figures.
int EmitKey(int top, const Drawing& drawing, bool with_results, Figure* figure) {
  const std::string& share = drawing.share;
  auto has = [&](BoxMark mark) {
    return std::any_of(figure->boxes.begin(), figure->boxes.end(),
                       [&](const Box& b) { return b.mark == mark; });
  };
  auto text = [&](std::string s, int x, int y, Anchor anchor) {
    figure->texts.push_back({std::move(s), x, y, kSmallSize, false, anchor, -1});
  };
  auto mark = [&](BoxMark m, Rect r) { figure->boxes.push_back({m, r, "", -1, -1}); };
  int y = top;
  int x = kMargin + 36;
  if (has(BoxMark::kRail)) {
    mark(BoxMark::kRail, {kMargin, y + 4, 28, 4});
    text(absl::StrCat("flow: one job holds all these stations at once",
                      share.empty() ? "" : absl::StrCat(" (share ", share, ")")),
         x, y + 10, Anchor::kStart);
    y += 18;
  }
  if (has(BoxMark::kHold)) {
    mark(BoxMark::kHold, {kMargin, y + 3, 28, 6});
    text("pool held while the session visits these stations", x, y + 10, Anchor::kStart);
    y += 18;
  }
  if (has(BoxMark::kLease)) {
    mark(BoxMark::kLease, {kMargin, y + 3, 28, 6});
    text("its lease after the hold, to the release (or past the end)", x, y + 10,
         Anchor::kStart);
    y += 18;
  }
  if (!with_results) return y;
  if (y > top) y += 8;
  // One scale for three loads: a station's util, a step stage's batch fill
  // and a pool's occupancy, each its share of a capacity.
  text("load", kMargin, y + 10, Anchor::kStart);
  x = kMargin + TextWidth("load ", kSmallSize);
  for (int i = 0; i <= 10; ++i) {
    figure->boxes.push_back(
        {BoxMark::kSwatch, {x + 18 * i, y + 1, 18, 10}, UtilisationColour(i / 10.0), -1, -1});
  }
  text("0", x + 9, y + 24, Anchor::kMiddle);
  text("0.5", x + 18 * 5 + 9, y + 24, Anchor::kMiddle);
  text("1", x + 18 * 10 + 9, y + 24, Anchor::kMiddle);
  // The grey of a delay stage, only where the drawing has one.
  bool delays = false;
  for (const Row& row : drawing.rows) {
    for (const Station& s : row.stations) delays |= s.stats && !s.stats->has_util;
  }
  if (delays) {
    x += 18 * 11 + 24;
    figure->boxes.push_back({BoxMark::kSwatch, {x, y + 1, 18, 10}, kNoCapacityFill, -1, -1});
    text("delay: no capacity", x + 24, y + 10, Anchor::kStart);
  }
  text("present: mean jobs present, summed over the elements of an array", kMargin, y + 42,
       Anchor::kStart);
  text("util: mean utilisation over the elements; max: the busiest element, which the fill "
       "shows",
       kMargin, y + 56, Anchor::kStart);
  text("load: util (ps, fifo, shared), batch fill (step), used / cap (pool)", kMargin, y + 70,
       Anchor::kStart);
  y += 74;
  bool steps = false, pools = false;
  for (const Row& row : drawing.rows) {
    for (const Station& s : row.stations) steps |= s.stats && s.stats->step;
    for (const PoolSpan& p : row.pools) pools |= p.stats.has_value();
  }
  // A step stage is in a step whenever a job is present, so its time busy
  // says little of its headroom: the fill is its batches' share of a budget.
  if (steps) {
    text("step: filled by its batch fill, the mean batch over its budget (jobs / seqs or "
         "tokens / tokens, the fuller)",
         kMargin, y + 10, Anchor::kStart);
    text("busy: the time in a step, which is all the time a job is present: not headroom",
         kMargin, y + 24, Anchor::kStart);
    y += 28;
  }
  if (pools) {
    text("pool bar: filled by the mean used / cap (an array: its fullest element); peak: the "
         "most used at once / cap",
         kMargin, y + 10, Anchor::kStart);
    y += 14;
  }
  return y;
}

}  // namespace

Figure Layout(const Drawing& drawing, bool with_results) {
  Figure figure;
  int label_w = 0;
  for (const Row& row : drawing.rows) {
    label_w = std::max(label_w, TextWidth(row.session, kNameSize));
  }
  int x0 = kMargin + label_w + 12;
  int y = kMargin;
  for (int i = 0; i < int(drawing.rows.size()); ++i) {
    RowLayout row(drawing.rows[i], i, with_results, x0, &figure);
    y = row.Emit(y) + kRowGap;
  }
  y = EmitKey(y, drawing, with_results, &figure);
  int right = 0, bottom = 0;
  for (const Box& b : figure.boxes) {
    right = std::max(right, b.rect.right());
    bottom = std::max(bottom, b.rect.bottom());
  }
  for (const Text& t : figure.texts) {
    right = std::max(right, t.Bounds().right());
    bottom = std::max(bottom, t.Bounds().bottom());
  }
  for (const Line& l : figure.lines) {
    for (const Point& p : l.points) {
      right = std::max(right, p.x);
      bottom = std::max(bottom, p.y);
    }
  }
  figure.width = right + kMargin;
  figure.height = bottom + kMargin;
  return figure;
}

}  // namespace serq::view
