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

int OperatorPrecedence(ir::Expr::BinaryOp op) {
  switch (op) {
    case ir::Expr::OR: return 1;
    case ir::Expr::AND: return 2;
    case ir::Expr::LT: case ir::Expr::LE: case ir::Expr::GT: case ir::Expr::GE:
    case ir::Expr::EQ: case ir::Expr::NE:
      return kComparisonPrecedence;
    case ir::Expr::ADD: case ir::Expr::SUB: return 4;
    case ir::Expr::MUL: case ir::Expr::DIV: case ir::Expr::MOD: return 5;
    default: return 0;
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

ir::Program::Share ShareFromWord(absl::string_view word) {
  if (word == "maxmin") return ir::Program::MAXMIN;
  if (word == "bottleneck") return ir::Program::BOTTLENECK;
  return ir::Program::SHARE_UNSPECIFIED;
}

}  // namespace serq
