// Walking the statements of a program with their IR paths, the one way
// every tool names a place in IR that has no source location; and the
// parts of an expression.
#ifndef SERQ_IR_WALK_H_
#define SERQ_IR_WALK_H_

#include <functional>
#include <string>

#include "proto/ir.pb.h"

namespace serq {

using StatementVisitor =
    std::function<void(const ir::Statement& statement, const std::string& path)>;

// Calls `visit` on every statement of `body`, depth first in source order
// (a block's statements after the statement that holds them). `path` is the
// IR path of `body` itself, e.g. "session[0].body".
void ForEachStatement(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
                      const std::string& path, const StatementVisitor& visit);

// Every statement of every session; paths start at "session[i].body[k]".
void ForEachStatement(const ir::Program& program, const StatementVisitor& visit);

// True when `pred` holds for `e` or for an expression in it: an element
// reference's index, an operand, a call's arguments.
bool AnyExpr(const ir::Expr& e, const std::function<bool(const ir::Expr&)>& pred);

}  // namespace serq

#endif  // SERQ_IR_WALK_H_
