#include "serq/plan/pareto.h"

#include <algorithm>

namespace serq::plan {

bool Dominates(const Point& a, const Point& b) {
  return a.x >= b.x && a.y >= b.y && (a.x > b.x || a.y > b.y);
}

std::vector<int> Front(const std::vector<Point>& points) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    bool kept = true;
    for (int j = 0; j < static_cast<int>(points.size()) && kept; ++j) {
      if (j == i) continue;
      const bool same = points[j].x == points[i].x && points[j].y == points[i].y;
      kept = !Dominates(points[j], points[i]) && !(same && j < i);
    }
    if (kept) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return points[a].x > points[b].x; });
  return out;
}

bool Covered(const std::vector<Point>& front, const Point& bound) {
  for (const Point& p : front) {
    if (p.x >= bound.x && p.y >= bound.y) return true;
  }
  return false;
}

}  // namespace serq::plan
