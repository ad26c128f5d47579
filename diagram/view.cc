#include "diagram/view.h"

#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/io.h"
#include "diagram/dot.h"
#include "diagram/layout.h"
#include "diagram/row.h"
#include "diagram/stats.h"
#include "diagram/svg.h"

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

int DrawProgram(const ir::Program& program, absl::string_view input_name,
                const std::string& format, const std::string& results_path,
                absl::string_view tool, std::string* out, std::string* err) {
  ViewOptions options;
  options.format = format;
  results::Results results;
  Diagnostics results_diags(InputName(results_path));
  options.results_diags = &results_diags;
  if (!results_path.empty()) {
    absl::StatusOr<std::string> bytes = ReadInput(results_path);
    if (!bytes.ok()) {
      *err = ToolError(tool, bytes.status().message());
      return kExitUsage;
    }
    if (!ReadResults(*bytes, &results, &results_diags)) {
      *err = results_diags.Render();
      return kExitInputRejected;
    }
    options.results = &results;
  }
  Diagnostics diags{std::string(input_name)};
  absl::StatusOr<std::string> drawing = RenderView(program, options, &diags);
  if (!drawing.ok()) {
    if (diags.empty() && results_diags.empty()) {
      *err = ToolError(tool, drawing.status().message());
      return kExitUsage;
    }
    if (!diags.empty()) *err = RenderProgramDiagnostics(diags, program, input_name);
    *err += results_diags.Render();
    return kExitInputRejected;
  }
  *out = *std::move(drawing);
  return kExitOk;
}

}  // namespace serq
