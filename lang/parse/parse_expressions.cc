// Expressions, a `by` key, a reference to a stage or pool, and a
// parenthesized amount: each parsed to the IR with its height counted, so
// that nothing deeper than the IR holds (kMaxIrDepth) is ever built.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/words.h"
#include "lang/parse/lexer.h"
#include "lang/parse/parser_internal.h"

namespace serq::parser_internal {
namespace {

// The binary operator a token spells.
bool BinaryOperator(TokenKind kind, ir::Expr::BinaryOp* op) {
  switch (kind) {
    case K::kOrOr: *op = ir::Expr::OR; return true;
    case K::kAndAnd: *op = ir::Expr::AND; return true;
    case K::kLt: *op = ir::Expr::LT; return true;
    case K::kLe: *op = ir::Expr::LE; return true;
    case K::kGt: *op = ir::Expr::GT; return true;
    case K::kGe: *op = ir::Expr::GE; return true;
    case K::kEq: *op = ir::Expr::EQ; return true;
    case K::kNe: *op = ir::Expr::NE; return true;
    case K::kPlus: *op = ir::Expr::ADD; return true;
    case K::kMinus: *op = ir::Expr::SUB; return true;
    case K::kStar: *op = ir::Expr::MUL; return true;
    case K::kSlash: *op = ir::Expr::DIV; return true;
    case K::kPercent: *op = ir::Expr::MOD; return true;
    default: return false;
  }
}

}  // namespace

int Parser::Expr(int level, ir::Expr* out) {
  int saved = expr_level_;
  expr_level_ = level;
  int height = Binary(kLowestPrecedence, out);
  expr_level_ = saved;
  return height;
}

// Checks a node of `height` under the current expression's root.
bool Parser::FitsDepth(int height, size_t token_index) {
  if (expr_level_ + height - 1 <= kMaxIrDepth) return true;
  ErrorAtIndex(token_index, TooDeep());
  return false;
}

std::string Parser::TooDeep() {
  return absl::StrCat("nested too deeply: the IR holds at most ", kMaxIrDepth,
                      " levels of blocks and expressions (split the expression with "
                      "'set' or a 'param')");
}

int Parser::Binary(int min_precedence, ir::Expr* out) {
  int height = Unary(out);
  if (height < 0) return -1;
  return BinaryRest(min_precedence, height, out);
}

// Operators after an operand already parsed into `lhs` (of `height`).
// Left-associative; comparisons do not chain (`a < b < c` is an error,
// since reading it as (a < b) < c is never what was meant).
int Parser::BinaryRest(int min_precedence, int height, ir::Expr* lhs) {
  bool after_comparison = false;
  while (true) {
    ir::Expr::BinaryOp op;
    if (!BinaryOperator(Peek().kind, &op)) return height;
    int precedence = OperatorPrecedence(op);
    if (precedence < min_precedence) return height;
    size_t op_index = pos_;
    const Token& op_token = Take();
    if (precedence == kComparisonPrecedence) {
      if (after_comparison) {
        ErrorAtIndex(op_index,
                     absl::StrCat("comparisons do not chain: add parentheses, or use '&&', "
                                  "before '", op_token.text, "'"));
        return -1;
      }
      after_comparison = true;
    } else {
      after_comparison = false;
    }
    ir::Expr rhs;
    int rhs_height = Binary(precedence + 1, &rhs);
    if (rhs_height < 0) return -1;
    height = 2 + std::max(height, rhs_height);
    if (!FitsDepth(height, op_index)) return -1;
    ir::Expr node;
    SetLoc(op_token, node.mutable_loc());
    ir::Expr::Binary* b = node.mutable_binary();
    b->set_op(op);
    *b->mutable_lhs() = std::move(*lhs);
    *b->mutable_rhs() = std::move(rhs);
    *lhs = std::move(node);
  }
}

int Parser::Unary(ir::Expr* out) {
  if (!At(K::kMinus) && !At(K::kNot)) return Primary(out);
  size_t op_index = pos_;
  const Token& op_token = Take();
  Nest nest(this);
  if (!nest.ok()) {
    ErrorAtIndex(op_index, TooDeep());
    return -1;
  }
  SetLoc(op_token, out->mutable_loc());
  ir::Expr::Unary* u = out->mutable_unary();
  u->set_op(op_token.kind == K::kMinus ? ir::Expr::NEG : ir::Expr::NOT);
  int height = Unary(u->mutable_operand());
  if (height < 0) return -1;
  height += 2;
  if (!FitsDepth(height, op_index)) return -1;
  return height;
}

int Parser::Primary(ir::Expr* out) {
  const Token& t = Peek();
  switch (t.kind) {
    case K::kNumber:
      Take();
      SetLoc(t, out->mutable_loc());
      out->set_number(t.number);
      return 1;
    case K::kInf:
      Take();
      SetLoc(t, out->mutable_loc());
      out->set_number(std::numeric_limits<double>::infinity());
      return 1;
    case K::kIdentifier:
    // The step variables of a tau: reserved words everywhere else.
    case K::kPrefill:
    case K::kDecode: {
      size_t name_index = pos_;
      Take();
      SetLoc(t, out->mutable_loc());
      if (At(K::kLParen)) return Call(name_index, out);
      ir::Ref* ref = out->mutable_ref();
      ref->set_name(std::string(t.text));
      SetLoc(t, ref->mutable_loc());
      if (!At(K::kLBracket)) return 2;
      Take();
      Nest nest(this);
      if (!nest.ok()) {
        ErrorAtIndex(name_index, TooDeep());
        return -1;
      }
      int height = Binary(kLowestPrecedence, ref->mutable_index());
      if (height < 0) return -1;
      if (!Expect(K::kRBracket, "after the index of '", t.text, "'")) return -1;
      height += 2;
      if (!FitsDepth(height, name_index)) return -1;
      return height;
    }
    case K::kLParen: {
      Take();
      Nest nest(this);
      if (!nest.ok()) {
        ErrorAtPrevious(TooDeep());
        return -1;
      }
      int height = Binary(kLowestPrecedence, out);
      if (height < 0) return -1;
      if (!Expect(K::kRParen, "to close the parenthesis")) return -1;
      return height;
    }
    default:
      ErrorHere(absl::StrCat("expected an expression, found ", DescribeToken(t)));
      return -1;
  }
}

// `f(args)`: the name is taken, `(` is next.
int Parser::Call(size_t name_index, ir::Expr* out) {
  const Token& name = tokens_[name_index];
  ir::Expr::Call* call = out->mutable_call();
  call->set_function(std::string(name.text));
  Take();  // (
  Nest nest(this);
  if (!nest.ok()) {
    ErrorAtIndex(name_index, TooDeep());
    return -1;
  }
  int height = 1;
  if (!Accept(K::kRParen)) {
    while (true) {
      int arg = Binary(kLowestPrecedence, call->add_arg());
      if (arg < 0) return -1;
      height = std::max(height, arg);
      if (Accept(K::kComma)) continue;
      if (Accept(K::kRParen)) break;
      ErrorHere(absl::StrCat("expected ',' or ')' after an argument of '", name.text,
                             "', found ", DescribeToken(Peek())));
      return -1;
    }
  }
  height += 2;
  if (!FitsDepth(height, name_index)) return -1;
  return height;
}

// KEY at IR level `level`: `(e1, e2, …)` compared lexicographically, or one expression. A key
// that starts with `(` is a tuple when a `,` follows its first element;
// otherwise the parenthesis belongs to a single expression, which may go
// on (`by (a + b) * 2`).
bool Parser::Key(int level, ir::Key* key) {
  int saved = expr_level_;
  expr_level_ = level + 1;
  bool ok = KeyElements(key);
  expr_level_ = saved;
  return ok;
}

bool Parser::KeyElements(ir::Key* key) {
  if (!At(K::kLParen)) return Binary(kLowestPrecedence, key->add_expr()) >= 0;
  Take();
  if (At(K::kRParen)) {
    ErrorHere("empty key: '()' needs at least one expression");
    return false;
  }
  ir::Expr* first = key->add_expr();
  int height = Binary(kLowestPrecedence, first);
  if (height < 0) return false;
  if (At(K::kComma)) {
    while (Accept(K::kComma)) {
      if (Binary(kLowestPrecedence, key->add_expr()) < 0) return false;
    }
    return Expect(K::kRParen, "to close the key");
  }
  if (!Expect(K::kRParen, "to close the key")) return false;
  return BinaryRest(kLowestPrecedence, height, first) >= 0;
}

// REF: `name` or `name[e]`, the Ref at IR level `level`.
bool Parser::Ref(int level, absl::string_view what, ir::Ref* out) {
  const Token& t = Peek();
  std::string name;
  if (!Name(what, &name)) return false;
  out->set_name(name);
  SetLoc(t, out->mutable_loc());
  if (!Accept(K::kLBracket)) return true;
  if (Expr(level + 1, out->mutable_index()) < 0) return false;
  return Expect(K::kRBracket, "after the index of '", name, "'");
}

// `(e)`: a statement's amount, work or count.
bool Parser::Parenthesized(int level, absl::string_view what, ir::Expr* out) {
  if (!Expect(K::kLParen, what)) return false;
  if (Expr(level, out) < 0) return false;
  return Expect(K::kRParen, "to close the parenthesis");
}

}  // namespace serq::parser_internal
