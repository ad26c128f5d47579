// Which observations are times: the report shows a time in ms or s with
// its unit, a count or a size in its own units. A name the report knows
// (ttft, e2e, ...: serq-report/html_tables.h IsLatency) says it, and so
// does the program: an observation whose every value is a time.
#ifndef SERQ_IR_UNITS_H_
#define SERQ_IR_UNITS_H_

#include <string>
#include <vector>

#include "proto/ir.pb.h"

namespace serq {

// The names of the linked program's observations whose every sample is a
// time in seconds, sorted: each `observe NAME = E` where E is a time, and
// each decode run's `observe NAME` (its gaps between tokens). A time is
// `now`, `arrival` or `queued`, a variable only ever set to times, and
// what keeps a time a time: a time plus or minus a time or a number
// (`now - arrival`, `now - first + 0.001`), times or divided by a number
// (`(now - first) / (output_toks - 1)`), min, max, abs, floor, ceil or
// round of times and numbers. A number is a literal, a param, a draw, a
// table lookup or interp; a count (serial, queue, used, ...), a ratio of
// two times or a comparison is not a time, nor is an observation with any
// value that is not one.
std::vector<std::string> TimeObservations(const ir::Program& program);

}  // namespace serq

#endif  // SERQ_IR_UNITS_H_
