#include "serq/commands.h"

#include <string>
#include <vector>

#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "serq-link/link.h"
#include "serq-parse/format.h"
#include "serq-parse/parse.h"

namespace serq {
namespace {

CommandResult Failure(int code, std::string err) {
  CommandResult r;
  r.exit_code = code;
  r.err = std::move(err);
  return r;
}

// Reads and parses `path` into `program`; on failure fills `result`.
bool Parse(const std::string& path, ir::Program* program, CommandResult* result) {
  auto source = ReadInput(path);
  if (!source.ok()) {
    *result = Failure(kExitUsage, ToolError("serq", source.status().message()));
    return false;
  }
  std::string name = InputName(path);
  Diagnostics diags(name, *source);
  if (!ParseProgram(name, *source, program, &diags)) {
    *result = Failure(kExitInputRejected, diags.Render());
    return false;
  }
  return true;
}

// Parses and links `path` as `serq-parse path | serq-link -D…` would.
bool ParseAndLink(const std::string& path, const DriverOptions& options, ir::Program* program,
                  CommandResult* result) {
  if (!Parse(path, program, result)) return false;
  Diagnostics diags(InputName(path));
  LinkOptions link_options;
  link_options.defines = options.defines;
  if (!LinkProgram(program, link_options, &diags)) {
    *result = Failure(kExitInputRejected, RenderProgramDiagnostics(diags, *program, InputName(path)));
    return false;
  }
  return true;
}

}  // namespace

CommandResult CheckCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  ParseAndLink(path, options, &program, &result);
  return result;
}

CommandResult FmtCommand(const std::string& path) {
  CommandResult result;
  ir::Program program;
  if (Parse(path, &program, &result)) result.out = FormatProgram(program);
  return result;
}

CommandResult RunCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  if (!ParseAndLink(path, options, &program, &result)) return result;
  Diagnostics diags(InputName(path));
  // The results are made in place in the vector the report reads: no copy
  // of every replication (which would double the peak memory).
  std::vector<results::Results> all(1);
  results::Results& results = all[0];
  absl::Status write_error;
  SimOutcome outcome = SimulateStreaming(
      program, options.sim, &results,
      [&results](results::Replication* r) {
        results.add_replication()->Swap(r);
        return absl::OkStatus();
      },
      &diags, &write_error);
  if (outcome == SimOutcome::kRejected) {
    return Failure(kExitInputRejected, RenderProgramDiagnostics(diags, program, InputName(path)));
  }
  if (outcome == SimOutcome::kWriteFailed) {
    return Failure(kExitUsage, ToolError("serq", write_error.message()));
  }
  auto report = report::RenderReport(all, options.report);
  if (!report.ok()) return Failure(kExitInputRejected, std::string(report.status().message()));
  result.out = *std::move(report);
  return result;
}

CommandResult ViewCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  if (!ParseAndLink(path, options, &program, &result)) return result;
  result.exit_code = DrawProgram(program, InputName(path), options.view_format,
                                 options.results_path, "serq", &result.out, &result.err);
  return result;
}

}  // namespace serq
