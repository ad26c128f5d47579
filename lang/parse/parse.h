// serq-parse's library: .sq source to unlinked IR.
#ifndef SERQ_LANG_PARSE_PARSE_H_
#define SERQ_LANG_PARSE_PARSE_H_

#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"

namespace serq {

// Parses the program in `source` (read from `file`, the name recorded in the
// IR) into `out`: version 8, `file`, every declaration and statement with
// its source location, `transfer` lowered to run, load and release. Names
// are left unresolved (serq-link's job). Returns false, with every syntax
// error of the file in `diags`, when the source is not a program.
bool ParseProgram(absl::string_view file, absl::string_view source, ir::Program* out,
                  Diagnostics* diags);

}  // namespace serq

#endif  // SERQ_LANG_PARSE_PARSE_H_
