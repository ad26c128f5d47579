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

}  // namespace serq
