// Checks of an input's shape made before decoding it, so that work and
// memory proportional to a hostile input are refused up front: JSON nested
// deeper than any IR (protobuf's parser would build 10^6 levels, 311 MB,
// before failing), JSON objects with a key twice (protobuf keeps the last
// silently), and binary IR with more entries of one kind than serq takes
// (10^7 empty stages are 20 MB of bytes and gigabytes decoded).
#ifndef SERQ_IR_INPUT_SHAPE_H_
#define SERQ_IR_INPUT_SHAPE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "ir/diagnostics.h"
#include "ir/limits.h"

namespace serq {

// Where `json` first opens more than `most` objects and arrays inside one
// another (strings skipped): the line and column, from 1, of that '{' or
// '['; nullopt when it never does. One pass, no memory: every JSON reader
// asks it first (ir/limits.h's kMaxJsonDepth, kMaxDataJsonDepth).
struct JsonPlace {
  int line = 0;
  int column = 0;
};
std::optional<JsonPlace> JsonDeeperThan(absl::string_view json, int most);

// JSON: at most kMaxJsonDepth nested objects and arrays, at most
// kMaxJsonObjects objects, no key twice in an object (`a_b` and `aB` are
// one key, as for protobuf), every string UTF-8. Text that is not well-formed JSON passes:
// the decoder says what is wrong with it.
bool CheckJsonShape(absl::string_view json, Diagnostics* diags);

// Binary: each repeated field of the top-level message `type` at most
// `most` times (the encoding's fields are counted, nothing is decoded).
bool CheckBinaryShape(absl::string_view bytes, const google::protobuf::Descriptor* type,
                      int64_t most, Diagnostics* diags);

// Binary: every string field, at any depth, UTF-8 (protobuf refuses the
// message otherwise, with a log line and no place): the first one that is
// not is reported at its IR path (`table[0].file`).
bool CheckBinaryStrings(absl::string_view bytes, const google::protobuf::Descriptor* type,
                        Diagnostics* diags);

inline constexpr int64_t kMaxJsonObjects = 10000000;

}  // namespace serq

#endif  // SERQ_IR_INPUT_SHAPE_H_
