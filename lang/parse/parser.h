// The recursive-descent parser behind ParseProgram (parse.h), with the
// entry points the tests use on their own.
#ifndef SERQ_LANG_PARSE_PARSER_H_
#define SERQ_LANG_PARSE_PARSER_H_

#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "proto/ir.pb.h"
#include "lang/parse/parse.h"

namespace serq {

// Parses `source` as one expression (and nothing after it). Returns false
// with the errors in `diags` otherwise.
bool ParseExpression(absl::string_view source, ir::Expr* out, Diagnostics* diags);

// kMaxIrDepth (ir/io.h) bounds what the parser produces.

}  // namespace serq

#endif  // SERQ_LANG_PARSE_PARSER_H_
