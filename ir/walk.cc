#include "ir/walk.h"

#include "absl/strings/str_cat.h"

namespace serq {

void ForEachStatement(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
                      const std::string& path, const StatementVisitor& visit) {
  for (int i = 0; i < body.size(); ++i) {
    const ir::Statement& s = body[i];
    std::string here = absl::StrCat(path, "[", i, "]");
    visit(s, here);
    if (s.has_if_()) {
      ForEachStatement(s.if_().then(), here + ".if.then", visit);
      ForEachStatement(s.if_().else_(), here + ".if.else", visit);
    } else if (s.has_repeat()) {
      ForEachStatement(s.repeat().body(), here + ".repeat.body", visit);
    } else if (s.has_hold()) {
      ForEachStatement(s.hold().body(), here + ".hold.body", visit);
    }
  }
}

void ForEachStatement(const ir::Program& program, const StatementVisitor& visit) {
  for (int i = 0; i < program.session_size(); ++i) {
    ForEachStatement(program.session(i).body(), absl::StrCat("session[", i, "].body"), visit);
  }
}

bool AnyExpr(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& pred) {
  if (pred(e)) return true;
  switch (e.kind_case()) {
    case ir::Expr::kRef: return e.ref().has_index() && AnyExpr(e.ref().index(), pred);
    case ir::Expr::kUnary: return AnyExpr(e.unary().operand(), pred);
    case ir::Expr::kBinary: return AnyExpr(e.binary().lhs(), pred) || AnyExpr(e.binary().rhs(), pred);
    case ir::Expr::kCall:
      for (const ir::Expr& a : e.call().arg()) {
        if (AnyExpr(a, pred)) return true;
      }
      return false;
    default: return false;
  }
}

}  // namespace serq
