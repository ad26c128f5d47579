// The Pareto front of `serq plan`: candidates as points (tokens a second
// a GPU, tokens a second a user), both to be maximised; the front is the
// points no other point dominates (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_PARETO_H_
#define SERQ_SERQ_PLAN_PARETO_H_

#include <vector>

namespace serq::plan {

struct Point {
  double x = 0;  // tokens/s/GPU
  double y = 0;  // tokens/s/user
};

// a dominates b: at least as good on both axes and better on one.
bool Dominates(const Point& a, const Point& b);

// The indexes of the points no other point dominates, by x descending (y
// ascending along the front); of equal points, the first.
std::vector<int> Front(const std::vector<Point>& points);

// Whether some point of `front` is at least as good as `bound` on both
// axes: a candidate whose best possible point is `bound` cannot join the
// front (it could at most tie a point already there).
bool Covered(const std::vector<Point>& front, const Point& bound);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_PARETO_H_
