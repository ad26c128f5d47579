#include "ir/words.h"

namespace serq {

absl::string_view OperatorSpelling(ir::Expr::BinaryOp op) {
  switch (op) {
    case ir::Expr::OR: return "||";
    case ir::Expr::AND: return "&&";
    case ir::Expr::LT: return "<";
    case ir::Expr::LE: return "<=";
    case ir::Expr::GT: return ">";
    case ir::Expr::GE: return ">=";
    case ir::Expr::EQ: return "==";
    case ir::Expr::NE: return "!=";
    case ir::Expr::ADD: return "+";
    case ir::Expr::SUB: return "-";
    case ir::Expr::MUL: return "*";
    case ir::Expr::DIV: return "/";
    case ir::Expr::MOD: return "%";
    default: return "?";
  }
}

absl::string_view StageKindWord(ir::Stage::Kind kind) {
  switch (kind) {
    case ir::Stage::DELAY: return "delay";
    case ir::Stage::PS: return "ps";
    case ir::Stage::FIFO: return "fifo";
    case ir::Stage::STEP: return "step";
    default: return "";
  }
}

absl::string_view ShareWord(ir::Program::Share share) {
  switch (share) {
    case ir::Program::MAXMIN: return "maxmin";
    case ir::Program::BOTTLENECK: return "bottleneck";
    default: return "";
  }
}

}  // namespace serq
