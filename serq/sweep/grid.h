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
absl::StatusOr<std::vector<double>> ParseAxisValues(absl::string_view name,
                                                    absl::string_view text);

inline constexpr size_t kMaxAxisValues = 100000;

// `--share=maxmin,bottleneck`: the words, each maxmin or bottleneck.
absl::StatusOr<std::vector<std::string>> ParseShareList(absl::string_view text);

// The number of points of `axes` (the product of their sizes).
uint64_t PointCount(const google::protobuf::RepeatedPtrField<sweep::Axis>& axes);

// Point `index`'s value on every axis (index < PointCount), first axis
// slowest.
std::vector<sweep::Setting> PointSettings(
    const google::protobuf::RepeatedPtrField<sweep::Axis>& axes, uint64_t index);

// A setting as the report prints it: the number in its shortest exact
// form, or the word.
std::string SettingText(const sweep::Setting& s);

}  // namespace serq

#endif  // SERQ_SERQ_GRID_H_
