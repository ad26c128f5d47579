// The grid of a sweep: each `-D name=...` an axis (a value, a list
// "2,4,6" or a range "10:30:5", start:stop:step, stop included), `--share`
// an axis of policies, and the points their cartesian product, the first
// axis varying slowest.
#ifndef SERQ_SERQ_GRID_H_
#define SERQ_SERQ_GRID_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/sweep.pb.h"

namespace serq {

// The values of `-D name=text`: "v", "v1,v2,...", or "start:stop:step"
// with step > 0 and start <= stop; the values of a range are
// start + i * step for i = 0, 1, ... while not above stop by more than
// step * 1e-9 (so 0.1:0.3:0.1 has 0.3), each computed from i, not summed.
// Errors name the -D as written. At most kMaxAxisValues values.
// The i-th value of the grid start, start + step, ... up to stop:
// start + i x step rounded to 15 significant digits (0.1:0.3:0.1 gives 0.3,
// the double the user would write, not 0.30000000000000004), kept within
// [start, stop], so that the rounding never takes a value past an end the
// user gave (1/3 as 0.333333333333333 below a param's range [1/3, 1]).
// serq sweep's axes and serq search's points.
double GridValue(double start, double step, int64_t i, double stop);

absl::StatusOr<std::vector<double>> ParseAxisValues(absl::string_view name,
                                                    absl::string_view text);

inline constexpr size_t kMaxAxisValues = 100000;

// `--share=maxmin,bottleneck`: the words, each maxmin or bottleneck.
absl::StatusOr<std::vector<std::string>> ParseShareList(absl::string_view text);

// The number of points of `axes` (the product of their sizes), UINT64_MAX
// where the product passes it (a hand-made plan's axes).
uint64_t PointCount(const google::protobuf::RepeatedPtrField<sweep::Axis>& axes);

// Point `index`'s value on every axis (index < PointCount), first axis
// slowest.
std::vector<sweep::Setting> PointSettings(
    const google::protobuf::RepeatedPtrField<sweep::Axis>& axes, uint64_t index);

// A setting as the report prints it: the number in its shortest exact
// form, or the word; "-" when the point's program lacks the param.
std::string SettingText(const sweep::Setting& s);

// A plan's points: those of its axes (one program), or, with several
// programs (Plan.programs), each program's points in turn, each over the
// axes it has; an axis it lacks is in its settings as `lacked`, so that
// every point has a setting an axis, in axis order. UINT64_MAX where the
// count passes it.
uint64_t PlanPointCount(const sweep::Plan& plan);
struct PlanPoint {
  int program = -1;  // several programs: the index in Plan.programs; else -1
  std::string path;  // the point's program file
  std::vector<sweep::Setting> settings;
};
PlanPoint PointOfPlan(const sweep::Plan& plan, uint64_t index);

// The program(s) a plan sweeps, as a report's first line names them:
// "a.sq", or "a.sq and b.sq", "a.sq, b.sq and c.sq".
std::string PlanPrograms(const sweep::Plan& plan);

}  // namespace serq

#endif  // SERQ_SERQ_GRID_H_
