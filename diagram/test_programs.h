// Programs for the view's tests: docs/language.md §1's first program, ones that exercise each mark
// of the drawing, and random ones for the properties that must hold for
// every program (no overlapping boxes, no arrow inside a rail).
#ifndef SERQ_DIAGRAM_TEST_PROGRAMS_H_
#define SERQ_DIAGRAM_TEST_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/ir.pb.h"
#include "diagram/row.h"

namespace serq::view {

struct NamedProgram {
  std::string name;
  std::string source;
};

// The seed's Before, its egress program, the three flows, and programs
// with branches, repeats, several pools and sessions, and a flow whose
// placement turns an arrow leftwards.
const std::vector<NamedProgram>& TestPrograms();

// A random program (valid syntax; not always valid for serq-link, which
// the view does not need): 1-6 stages, some arrays, 1-3 pools, one or two
// sessions of runs, flows, ifs, repeats, holds, leases and releases. With
// `disjoint_flows`, every stage is in at most one flow (always listed in
// the same order) and no stage of a flow is run alone.
std::string RandomProgram(uint64_t seed, bool disjoint_flows = false);

// Parses `source`; a test failure (with the diagnostics) if it does not.
ir::Program Parse(absl::string_view source);

// Parses and builds the drawing; a test failure if either fails.
Drawing Draw(absl::string_view source);

// Parses and links `source` into `out`; false (no test failure) when the
// linker refuses it, as it refuses some random programs.
bool ParseAndLink(absl::string_view source, ir::Program* out);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_TEST_PROGRAMS_H_
