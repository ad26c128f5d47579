// The language's own words for the IR's enums, in one place: what the
// formatter prints, what diagnostics and reports call a stage kind, an
// operator or a sharing policy.
#ifndef SERQ_IR_WORDS_H_
#define SERQ_IR_WORDS_H_

#include "absl/strings/string_view.h"
#include "proto/ir.pb.h"

namespace serq {

// "||", "&&", "<", ..., "%"; "?" for a value outside the enum.
absl::string_view OperatorSpelling(ir::Expr::BinaryOp op);

// How tightly a binary operator binds (language.md §4): 1 for `||`, 2 `&&`,
// kComparisonPrecedence the comparisons, 4 `+` `-`, 5 `*` `/` `%`; 0 for a
// value outside the enum. The parser builds trees by it and the formatter
// parenthesises by it, so what `serq fmt` prints parses back to the tree.
int OperatorPrecedence(ir::Expr::BinaryOp op);
inline constexpr int kComparisonPrecedence = 3;

// "delay", "ps", "fifo", "step"; "" for KIND_UNSPECIFIED or an unknown value.
absl::string_view StageKindWord(ir::Stage::Kind kind);

// "maxmin", "bottleneck"; "" when unset or unknown.
absl::string_view ShareWord(ir::Program::Share share);
// The policy a word names ("maxmin", "bottleneck"); SHARE_UNSPECIFIED for
// any other word.
ir::Program::Share ShareFromWord(absl::string_view word);

}  // namespace serq

#endif  // SERQ_IR_WORDS_H_
