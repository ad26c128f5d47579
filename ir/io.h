// Reading and writing the IR (and results): one place for both encodings
// and for the version check, so no binary can drift from another.
//
// Readers autodetect the encoding: JSON starts with `{` after white space,
// anything else is protobuf binary. Writers write deterministic pretty JSON
// (the canonical proto3 mapping) or deterministic binary.
#ifndef SERQ_IR_IO_H_
#define SERQ_IR_IO_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"

namespace serq {

inline constexpr uint32_t kIrVersion = 8;        // read and written
inline constexpr uint32_t kOldestIrVersion = 7;  // read, without also/share

enum class Format { kJson, kBinary };

// Parses --format's value: "json" or "pb".
absl::StatusOr<Format> ParseFormat(absl::string_view name);

// True when `bytes` look like JSON (first non-space byte is `{`).
bool LooksLikeJson(absl::string_view bytes);

// Decodes one message from JSON or binary, autodetected. Errors (malformed
// input, unknown fields or enum names in JSON) go to `diags` as file-level
// diagnostics; returns false then.
bool DecodeMessage(absl::string_view bytes, google::protobuf::Message* out,
                   Diagnostics* diags);

// Decodes a Program and checks its version: 8 is read as is; 7 is read and
// upgraded to 8 in memory, unless it holds what 7 cannot (`also` on a run,
// `share` on the program), which is an error at its IR path; any other
// version is refused with a message naming the versions this build reads.
bool ReadProgram(absl::string_view bytes, ir::Program* out, Diagnostics* diags);

// Decodes Results and checks their version (8 only).
bool ReadResults(absl::string_view bytes, results::Results* out, Diagnostics* diags);

// Encodes a message: pretty JSON ending in a newline, or binary. Both are
// deterministic: the same message gives the same bytes.
std::string EncodeMessage(const google::protobuf::Message& message, Format format);

}  // namespace serq

#endif  // SERQ_IR_IO_H_
