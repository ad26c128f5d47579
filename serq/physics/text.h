// What the files of serq/physics write alike: the error of serq physics
// and a number as the generated programs show it.
#ifndef SERQ_SERQ_PHYSICS_TEXT_H_
#define SERQ_SERQ_PHYSICS_TEXT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ir/json.h"

namespace serq::physics {

// InvalidArgument, "serq physics: error: MESSAGE".
inline absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("serq physics: error: ", message));
}

// A number in its shortest exact text (ShortestDouble): 0.152128, 48e9.
inline std::string N(double x) { return ShortestDouble(x); }

}  // namespace serq::physics

#endif  // SERQ_SERQ_PHYSICS_TEXT_H_
