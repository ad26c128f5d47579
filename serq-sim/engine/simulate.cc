#include "serq-sim/engine/simulate.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ir/io.h"
#include "ir/output.h"
#include "ir/units.h"
#include "serq-sim/engine/engine.h"
#include "serq-sim/model/model.h"
#include "serq-sim/engine/replicate.h"
#include "serq-sim/output/trace_chrome.h"

namespace serq {

absl::Status ValidateSimOptions(const SimOptions& options) {
  if (options.replications &&
      !(*options.replications >= 1 && *options.replications <= kMaxReplications)) {
    return absl::InvalidArgumentError(absl::StrCat("--replications must be from 1 to ",
                                                   kMaxReplications, ", not ",
                                                   *options.replications));
  }
  if (options.horizon && !(*options.horizon > 0 && *options.horizon < INFINITY)) {
    return absl::InvalidArgumentError("--horizon must be > 0 and finite");
  }
  if (options.warmup && !(*options.warmup >= 0 && *options.warmup < INFINITY)) {
    return absl::InvalidArgumentError("--warmup must be >= 0 and finite");
  }
  if (options.sample && !(*options.sample > 0 && *options.sample < INFINITY)) {
    return absl::InvalidArgumentError("--sample must be > 0 and finite");
  }
  if (options.trace_format != "jsonl" && options.trace_format != "chrome") {
    return absl::InvalidArgumentError(absl::StrCat("unknown --trace-format '", options.trace_format,
                                                   "' (expected jsonl or chrome)"));
  }
  if (options.trace_format != "jsonl" && options.trace_path.empty()) {
    return absl::InvalidArgumentError("--trace-format needs --trace FILE");
  }
  if ((!options.trace_window.empty() || !options.trace_select.empty()) &&
      options.trace_path.empty()) {
    return absl::InvalidArgumentError("--trace-window and --trace-select need --trace FILE");
  }
  if (absl::StatusOr<sim::TraceSelect> select =
          sim::ParseTraceSelect(options.trace_window, options.trace_select);
      !select.ok()) {
    return select.status();
  }
  if (options.jobs == 0) return absl::InvalidArgumentError("--jobs must be at least 1");
  if (options.limits.max_sessions < 1) {
    return absl::InvalidArgumentError("--max-sessions must be at least 1");
  }
  if (!(options.limits.max_cpu >= 0 && options.limits.max_cpu < INFINITY)) {
    return absl::InvalidArgumentError("--max-cpu must be >= 0 and finite (0: no limit)");
  }
  return absl::OkStatus();
}

SimOutcome SimulateStreaming(const ir::Program& linked, const SimOptions& options,
                             results::Results* header, const ReplicationSink& sink,
                             Diagnostics* diags, absl::Status* write_error) {
  if (!linked.linked()) {
    diags->ErrorInFile(
        "the IR is not linked; run serq-link first (serq-parse x.sq | serq-link | serq-sim)");
    return SimOutcome::kRejected;
  }
  sim::ModelOptions model_options;
  model_options.defines = options.defines;
  model_options.seed = options.seed;
  model_options.replications = options.replications;
  model_options.horizon = options.horizon;
  model_options.warmup = options.warmup;
  model_options.sample = options.sample;
  model_options.sample_flag = options.sample_flag;
  model_options.data_dir = options.data_dir;
  sim::Model model;
  if (!sim::CompileModel(linked, model_options, &model, diags)) return SimOutcome::kRejected;
  if (options.first_replication >= model.replications) {
    diags->ErrorInFile(absl::StrCat("replication ", options.first_replication,
                                    " asked for, but the run has ", model.replications));
    return SimOutcome::kRejected;
  }

  std::unique_ptr<OutputFile> trace;
  sim::EngineOptions engine_options;
  engine_options.progress = options.progress;
  engine_options.progress_tool = options.progress_tool;
  engine_options.check_pools = options.check_pools;
  engine_options.lanes = options.lanes;
  engine_options.limits = options.limits;
  // --max-cpu counts the process's CPU time from here, over every replication.
  engine_options.cpu_deadline =
      options.limits.max_cpu > 0
          ? static_cast<double>(std::clock()) / CLOCKS_PER_SEC + options.limits.max_cpu
          : 0;
  auto trace_failed = [&](const absl::Status& s) {
    *write_error = absl::ResourceExhaustedError(absl::StrCat(
        "cannot write output '", options.trace_path, "' (--trace): ", s.message()));
    return SimOutcome::kWriteFailed;
  };
  if (!options.trace_path.empty()) {
    trace = std::make_unique<OutputFile>();
    // A trace that cannot be opened is an output that cannot be written
    // (misuse, exit 2), as one that fails while written.
    if (absl::Status s = trace->Open(options.trace_path); !s.ok()) return trace_failed(s);
    engine_options.trace = &trace->stream();
  }
  // Chrome's format: the JSON lines converted as they are written; the
  // JSON lines narrowed by --trace-window and --trace-select as written.
  std::unique_ptr<sim::ChromeTrace> chrome;
  std::unique_ptr<sim::ChromeTrace::LineBuffer> lines;
  std::unique_ptr<sim::TraceFilter> filter;
  std::unique_ptr<std::ostream> converter;
  // Validated by ValidateSimOptions; a caller that did not gets all.
  absl::StatusOr<sim::TraceSelect> parsed =
      sim::ParseTraceSelect(options.trace_window, options.trace_select);
  const sim::TraceSelect select = parsed.ok() ? *parsed : sim::TraceSelect();
  if (trace && !model.drain && select.from > model.horizon) {
    // Every event is before the window: the trace would be empty, and a
    // user would look for a bug in the program.
    diags->ErrorInFile(absl::StrCat("--trace-window starts at ", select.from, " s, after the run's horizon (",
                                    model.horizon, " s): nothing would be traced"));
    return SimOutcome::kRejected;
  }
  if (trace && options.trace_format == "chrome") {
    chrome = std::make_unique<sim::ChromeTrace>(&trace->stream(), model.horizon, select);
    lines = std::make_unique<sim::ChromeTrace::LineBuffer>(chrome.get());
    converter = std::make_unique<std::ostream>(lines.get());
    engine_options.trace = converter.get();
  } else if (trace && !select.everything()) {
    filter = std::make_unique<sim::TraceFilter>(&trace->stream(), select);
    converter = std::make_unique<std::ostream>(filter.get());
    engine_options.trace = converter.get();
  }

  header->Clear();
  header->set_version(kIrVersion);
  header->set_mark(kResultsMark);
  header->set_program(linked.file());
  header->set_horizon(model.drain ? 0 : model.horizon);
  header->set_drained(model.drain);
  header->set_warmup(model.warmup);
  header->set_seed(model.seed);
  header->set_replications(model.replications);
  header->set_sample(model.sample);
  header->set_gpus(model.gpus);
  for (const std::string& name : TimeObservations(linked)) header->add_time_observation(name);
  absl::Status sink_error;
  bool trace_lost = false;
  // A trace that cannot be written stops the run at the next replication's
  // end, not after the last (a run with a trace is one replication at a time).
  auto checked_sink = [&](results::Replication* r) {
    if (trace && trace->failed()) {
      trace_lost = true;
      return absl::ResourceExhaustedError("the trace failed");
    }
    return sink(r);
  };
  // A stall's figures are the stalled replication's alone, up to its time.
  auto on_stall = [&](double at) {
    header->set_horizon(std::max(at, model.warmup));
    header->set_replications(1);
  };
  sim::ReplicationsEnd end =
      sim::RunReplications(model, engine_options, options.first_replication, options.jobs,
                           checked_sink, diags, &sink_error, on_stall);
  // After a runtime error too: the trace up to the error is a document.
  if (chrome) {
    converter->flush();
    chrome->Finish();
    if (!lines->status().ok()) {
      diags->ErrorInFile(absl::StrCat("internal error writing the Chrome trace: ",
                                      lines->status().message()));
      return SimOutcome::kRejected;
    }
  }
  if (trace) {
    // Renamed into place after a runtime error too (the log up to the
    // error); a trace that lost a write is removed, the old file kept.
    if (absl::Status s = trace->Commit(); !s.ok() || trace_lost) return trace_failed(s);
  }
  if (end == sim::ReplicationsEnd::kRejected) return SimOutcome::kRejected;
  if (end == sim::ReplicationsEnd::kSinkFailed) {
    *write_error = sink_error;
    return SimOutcome::kWriteFailed;
  }
  return end == sim::ReplicationsEnd::kStalled ? SimOutcome::kStalled : SimOutcome::kOk;
}

bool Simulate(const ir::Program& linked, const SimOptions& options, results::Results* out,
              Diagnostics* diags) {
  absl::Status write_error;
  SimOutcome outcome = SimulateStreaming(
      linked, options, out,
      [out](results::Replication* r) {
        out->add_replication()->Swap(r);
        return absl::OkStatus();
      },
      diags, &write_error);
  if (outcome == SimOutcome::kWriteFailed) diags->ErrorInFile(std::string(write_error.message()));
  return outcome == SimOutcome::kOk;
}

}  // namespace serq
