// The canonical formatter: IR (linked or not) back to .sq source, for
// `serq fmt`. parse(FormatProgram(p)) has the IR of p, locations and the
// file name aside, for every program the parser accepts.
//
// Canonical form: declarations grouped in the order params, pools, stages,
// share, workloads, sessions, run (a blank line between groups and between
// sessions); option blocks on one line; one statement per line, indented by
// two spaces; operators spaced, with only the parentheses precedence
// needs; keys always as a parenthesised tuple; numbers as the shortest text
// that reads back as the same double; a lowered transfer as the `transfer`
// it came from. Comments are not in the IR, so they are not kept.
#ifndef SERQ_LANG_PARSE_FORMAT_H_
#define SERQ_LANG_PARSE_FORMAT_H_

#include <string>

#include "proto/ir.pb.h"

namespace serq {

std::string FormatProgram(const ir::Program& program);

// One expression, as FormatProgram prints it.
std::string FormatExpr(const ir::Expr& expr);

// A number as FormatProgram prints it: whole numbers below 10^7 in digits
// (8192, 100000), anything else in the shortest form that reads back as
// the same double (0.004, 1.5e-5, 2.5e10); `inf` for +infinity.
std::string FormatNumber(double value);

}  // namespace serq

#endif  // SERQ_LANG_PARSE_FORMAT_H_
