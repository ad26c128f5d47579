#include "serq-view/view.h"

#include "absl/strings/str_cat.h"
#include "serq-view/dot.h"
#include "serq-view/layout.h"
#include "serq-view/row.h"
#include "serq-view/stats.h"
#include "serq-view/svg.h"

namespace serq {

absl::StatusOr<std::string> RenderView(const ir::Program& program, const ViewOptions& options,
                                       Diagnostics* diags) {
  if (options.format != "svg" && options.format != "dot") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown format '", options.format, "' (expected svg or dot)"));
  }
  view::Drawing drawing;
  if (!view::BuildDrawing(program, &drawing, diags)) {
    return absl::InvalidArgumentError("the program cannot be drawn");
  }
  bool with_results = options.results != nullptr;
  Diagnostics* results_diags = options.results_diags ? options.results_diags : diags;
  if (with_results &&
      !view::AttachResults(*options.results, program, &drawing, results_diags)) {
    return absl::InvalidArgumentError("the results do not fit the program");
  }
  if (options.format == "dot") return view::RenderDot(drawing, with_results);
  return view::RenderSvg(view::Layout(drawing, with_results));
}

}  // namespace serq
