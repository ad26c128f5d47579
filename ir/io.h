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

inline constexpr uint32_t kIrVersion = 11;       // read and written
inline constexpr uint32_t kOldestIrVersion = 7;  // read, without what 8, 9, 10 and 11 added
// Results carry the IR version that wrote them: 11 is written, 8 to 10 are
// read (IR 9 to 11 only added fields that 8 leaves at zero) and upgraded
// in memory.
inline constexpr uint32_t kOldestResultsVersion = 8;
// Results.mark: what every results file serq writes says it is.
inline constexpr char kResultsMark[] = "serq results";

// The deepest message nesting of IR serq reads or writes (the program is
// level 1, a session 2, its statements 3, ...). Blocks, `else if` chains and
// expressions nest messages; protobuf's JSON writer gives up beyond 65
// levels (its binary reader beyond 100), so deeper IR is refused when read
// and the parser refuses source that would produce it, rather than write
// JSON that no tool can read back.
inline constexpr int kMaxIrDepth = 64;

// The message nesting of `message` (1 for a message with no message fields).
int MessageDepth(const google::protobuf::Message& message);

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

// Decodes a Program and checks its version: kIrVersion is read as is;
// kOldestIrVersion and the versions after it are read and upgraded to
// kIrVersion in memory, unless they hold what
// their version cannot (docs/ir.md §Versions lists each field and the
// version that added it), each an error at its IR path; any other version
// is refused with a message naming the versions this build reads.
// IR nested deeper than kMaxIrDepth is refused.
bool ReadProgram(absl::string_view bytes, ir::Program* out, Diagnostics* diags);

// Decodes Results and checks their version: kIrVersion, or from
// kOldestResultsVersion on, upgraded to it.
bool ReadResults(absl::string_view bytes, results::Results* out, Diagnostics* diags);

// Encodes a message: pretty JSON ending in a newline, or binary. Both are
// deterministic: the same message gives the same bytes. The message must be
// at most kMaxIrDepth deep (as everything serq reads or builds is); a
// deeper one is an internal error that stops the process with exit code 2,
// never truncated output.
std::string EncodeMessage(const google::protobuf::Message& message, Format format);

// Where a data file a program names (a trace, a table) is: `file` itself
// when absolute; else relative to `data_dir` when one is given (--data-dir),
// else to the directory of `program_file` (Program.file: "" or no
// directory means the working directory).
std::string DataPath(absl::string_view file, absl::string_view program_file,
                     absl::string_view data_dir);

}  // namespace serq

#endif  // SERQ_IR_IO_H_
