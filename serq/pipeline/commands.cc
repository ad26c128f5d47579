#include "serq/pipeline/commands.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "ir/cli.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "ir/output.h"
#include "ir/utf8.h"
#include "ir/words.h"
#include "lang/link/link.h"
#include "lang/parse/format.h"
#include "lang/parse/parse.h"
#include "serq-report/html.h"
#include "stats/series.h"

namespace serq {

CommandResult Failure(int code, std::string err) {
  CommandResult r;
  r.exit_code = code;
  r.err = std::move(err);
  return r;
}

CommandResult FailureLine(int code, absl::string_view message) {
  std::string err(message);
  if (!err.empty() && err.back() != '\n') err += '\n';
  return Failure(code, std::move(err));
}

namespace {

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

}  // namespace

bool ParseAndLink(const std::string& path, const DriverOptions& options, ir::Program* program,
                  CommandResult* result, LinkFlagUses* uses) {
  if (!Parse(path, program, result)) return false;
  if (!options.replay.empty()) {
    // The path becomes the IR's `file`, a protobuf string: UTF-8 only. It
    // is opened, so it cannot be escaped as a shown name is.
    if (size_t ok = Utf8Prefix(options.replay); ok < options.replay.size()) {
      *result = Failure(
          kExitInputRejected,
          ToolError("serq", absl::StrFormat("trace '%s': the path is not UTF-8 (byte 0x%02x); "
                                            "rename the file",
                                            Utf8Escaped(options.replay),
                                            static_cast<unsigned char>(options.replay[ok]))));
      return false;
    }
    for (ir::Workload& w : *program->mutable_workload()) {
      if (w.process() != ir::Workload::TRACE) continue;
      // At its own times: the measured run, whatever scale the program's
      // trace(...) gives its own file.
      w.set_file(options.replay);
      w.clear_arg();
    }
  }
  if (uses != nullptr) *uses = UsesOfLinkFlags(*program, /*traces=*/true);
  Diagnostics diags(InputName(path));
  LinkOptions link_options;
  link_options.defines = options.defines;
  link_options.share = options.share;
  link_options.data_dir = options.sim.data_dir;
  if (!LinkProgram(program, link_options, &diags)) {
    *result = Failure(kExitInputRejected, RenderProgramDiagnostics(diags, *program, InputName(path)));
    return false;
  }
  return true;
}

bool LinkGenerated(const std::string& out, const std::string& source, CommandResult* result) {
  const std::filesystem::path folder = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) return true;
  const std::string name = out.empty() ? "<stdout>" : out;
  ir::Program program;
  Diagnostics diags(name, source);
  if (!ParseProgram(name, source, &program, &diags)) {
    *result = Failure(kExitInputRejected, diags.Render());
    return false;
  }
  if (!LinkProgram(&program, LinkOptions(), &diags)) {
    *result = Failure(kExitInputRejected, RenderProgramDiagnostics(diags, program, name));
    return false;
  }
  return true;
}

namespace {

// Writes `results` to `path` in the encoding its extension names.
absl::Status WriteResultsFile(const std::string& path, const results::Results& results) {
  absl::StatusOr<Format> format = ResultsFormatForPath(path);
  if (!format.ok()) return format.status();
  return WriteFile(path, EncodeMessage(results, *format));
}

}  // namespace

absl::StatusOr<Format> ResultsFormatForPath(absl::string_view path) {
  if (absl::EndsWith(path, ".json")) return Format::kJson;
  if (absl::EndsWith(path, ".pb") || absl::EndsWith(path, ".binpb")) return Format::kBinary;
  return absl::InvalidArgumentError(
      absl::StrCat("--results '", path,
                   "': the name must end in .json (JSON) or .pb (protobuf binary)"));
}

std::string UnusedFlagWarnings(const LinkFlagUses& uses, const DriverOptions& options, const std::string& path) {
  std::string out;
  for (const std::string& w : UnusedLinkFlags(uses, ShareWord(options.share), options.sim.data_dir, InputName(path))) {
    absl::StrAppend(&out, ToolWarning("serq", w));
  }
  return out;
}

CommandResult CheckCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  LinkFlagUses uses;
  if (ParseAndLink(path, options, &program, &result, &uses)) result.err = UnusedFlagWarnings(uses, options, path);
  return result;
}

CommandResult FmtCommand(const std::string& path) {
  CommandResult result;
  ir::Program program;
  if (Parse(path, &program, &result)) result.out = FormatProgram(program);
  return result;
}

bool SimulateProgram(const std::string& path, const DriverOptions& options, ir::Program* program,
                     results::Results* results, CommandResult* result, bool* stalled, LinkFlagUses* uses) {
  if (!ParseAndLink(path, options, program, result, uses)) return false;
  // --series without an interval: one sample a second (docs/cli.md §run).
  SimOptions sim = options.sim;
  if (!options.series_path.empty() && !sim.sample && !program->run().has_sample()) {
    sim.sample = 1;
    sim.sample_flag = "--series";  // its error names the flag the user gave
  }
  Diagnostics diags(InputName(path));
  absl::Status write_error;
  SimOutcome outcome = SimulateStreaming(
      *program, sim, results,
      [results](results::Replication* r) {
        results->add_replication()->Swap(r);
        return absl::OkStatus();
      },
      &diags, &write_error);
  if (outcome == SimOutcome::kRejected || outcome == SimOutcome::kStalled) {
    *result = Failure(kExitInputRejected, RenderProgramDiagnostics(diags, *program, InputName(path)));
    if (stalled != nullptr) *stalled = outcome == SimOutcome::kStalled;
    return false;
  }
  if (outcome == SimOutcome::kWriteFailed) {
    *result = Failure(kExitUsage, ToolError("serq", write_error.message()));
    return false;
  }
  return true;
}

CommandResult RunCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  // The results are made in place in the vector the report reads: no copy
  // of every replication (which would double the peak memory).
  std::vector<results::Results> all(1);
  results::Results& results = all[0];
  // A stall is an error whose figures up to it are still written and
  // reported (after the error on stderr).
  bool stalled = false;
  // Outputs on one file, or over the program (--series x.sq), would
  // destroy what the run meant to keep: misuse, before anything runs.
  if (absl::Status s = DistinctFiles({{"--results", options.results_path},
                                      {"--series", options.series_path},
                                      {"--trace", options.sim.trace_path}},
                                     {{"the program", path}});
      !s.ok()) {
    return Failure(kExitUsage, ToolError("serq", s.message()));
  }
  LinkFlagUses uses;
  if (!SimulateProgram(path, options, &program, &results, &result, &stalled, &uses) && !stalled) {
    return result;
  }
  // Said before whatever follows: a stall's error, and a failure below,
  // each of which keeps what stderr has so far (result.err).
  result.err = UnusedFlagWarnings(uses, options, path) + result.err;
  // The file first: a results file that cannot be written is misuse (as
  // an output that cannot be written is for every tool), and the report
  // is not printed then.
  if (!options.results_path.empty()) {
    if (absl::Status s = WriteResultsFile(options.results_path, results); !s.ok()) {
      return Failure(kExitUsage, absl::StrCat(result.err, ToolError("serq", s.message())));
    }
  }
  if (!options.series_path.empty()) {
    auto series = report::CollectSeries(all, {InputName(path)});
    if (!series.ok()) return Failure(kExitInputRejected, absl::StrCat(result.err, series.status().message()));
    if (absl::Status s = WriteFile(options.series_path, report::RenderSeriesCsv(*series));
        !s.ok()) {
      return Failure(kExitUsage, absl::StrCat(result.err, ToolError("serq", s.message())));
    }
  }
  auto report = report::RenderAnyReport(all, options.report, {}, &program);
  if (!report.ok()) {
    return Failure(kExitInputRejected,
                   absl::StrCat(result.err, report.status().message()));
  }
  result.out = *std::move(report);
  return result;
}

CommandResult ViewCommand(const std::string& path, const DriverOptions& options) {
  CommandResult result;
  ir::Program program;
  LinkFlagUses uses;
  if (!ParseAndLink(path, options, &program, &result, &uses)) return result;
  result.err = UnusedFlagWarnings(uses, options, path);
  result.exit_code = DrawProgram(program, InputName(path), options.view_format,
                                 options.results_path, "serq", &result.out, &result.err);
  return result;
}

}  // namespace serq
