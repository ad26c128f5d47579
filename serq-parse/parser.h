// The recursive-descent parser behind ParseProgram (parse.h), with the
// entry points the tests use on their own.
#ifndef SERQ_PARSE_PARSER_H_
#define SERQ_PARSE_PARSER_H_

#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "serq-parse/parse.h"

namespace serq {

// Parses `source` as one expression (and nothing after it). Returns false
// with the errors in `diags` otherwise.
bool ParseExpression(absl::string_view source, ir::Expr* out, Diagnostics* diags);

// The deepest message nesting of the IR the parser writes (the program is
// level 1, a session 2, its statements 3, ...). Blocks, `else if` chains and
// expressions nest messages, and protobuf's JSON writer gives up beyond 64
// levels (its reader of binary beyond 100), so a program nested deeper is a
// syntax error here rather than IR that no tool can read back.
inline constexpr int kMaxIrDepth = 64;

}  // namespace serq

#endif  // SERQ_PARSE_PARSER_H_
