// A compact, fully parenthesised dump of IR for tests: every operator
// explicit, so a test states exactly the tree the parser built
// ("(+ a (* b 2))"), and a golden's IR can be read by eye.
#ifndef SERQ_LANG_PARSE_DUMP_H_
#define SERQ_LANG_PARSE_DUMP_H_

#include <string>

#include "proto/ir.pb.h"

namespace serq {

// `3`, `inf`, `x`, `kvD[j]`, `(neg x)`, `(! x)`, `(+ a b)`, `min(a, b)`.
std::string DumpExpr(const ir::Expr& e);

// `(a, b)`.
std::string DumpKey(const ir::Key& k);

// One line per declaration and statement, blocks indented by two spaces.
// Statements from a transfer are marked `[transfer]`. Locations with
// `with_locations` as `@line:col` after each statement and declaration.
std::string DumpProgram(const ir::Program& p, bool with_locations = false);

}  // namespace serq

#endif  // SERQ_LANG_PARSE_DUMP_H_
