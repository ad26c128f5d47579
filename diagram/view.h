// serq-view's library: the station row of a program as SVG or DOT, with a
// simulation's results on it when given. The serq driver's `view` and the
// serq-view binary both call DrawProgram, so they cannot differ.
#ifndef SERQ_DIAGRAM_VIEW_H_
#define SERQ_DIAGRAM_VIEW_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"

namespace serq {

struct ViewOptions {
  std::string format = "svg";  // "svg" or "dot"
  const results::Results* results = nullptr;  // not owned; null: no figures
  // Where errors about the results go, located by their path in the
  // results (`replication[0].stage[3].name`); null: into the program's.
  Diagnostics* results_diags = nullptr;
};

// The drawing of `program`, linked or not (docs/view.md). A program the
// view cannot draw (a reference to nothing, an array size that is not a
// whole number, results of another program) puts its errors in `diags` and
// returns InvalidArgument; an unknown format returns InvalidArgument with
// no diagnostic (a misuse, not bad input).
absl::StatusOr<std::string> RenderView(const ir::Program& program, const ViewOptions& options,
                                       Diagnostics* diags);

// What serq-view and `serq view` do once they have the program (named
// `input_name` in diagnostics): read the results file `results_path` (none
// when empty), draw in `format`, and put the drawing in `out`, or in `err`
// why not: ToolError(tool, …) for misuse (a results file that cannot be
// read, an unknown format), diagnostics for bad input. Returns the exit
// code (ir/cli.h).
int DrawProgram(const ir::Program& program, absl::string_view input_name,
                const std::string& format, const std::string& results_path,
                absl::string_view tool, std::string* out, std::string* err);

}  // namespace serq

#endif  // SERQ_DIAGRAM_VIEW_H_
