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

// "delay", "ps", "fifo", "step"; "" for KIND_UNSPECIFIED or an unknown value.
absl::string_view StageKindWord(ir::Stage::Kind kind);

// "maxmin", "bottleneck"; "" when unset or unknown.
absl::string_view ShareWord(ir::Program::Share share);

}  // namespace serq

#endif  // SERQ_IR_WORDS_H_
