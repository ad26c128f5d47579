#include "serq-sim/simulate.h"

#include <cmath>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ir/io.h"
#include "serq-sim/engine.h"
#include "serq-sim/model.h"
#include "serq-sim/replicate.h"
#include "serq-sim/trace_chrome.h"

namespace serq {

absl::Status ValidateSimOptions(const SimOptions& options) {
  if (options.replications && *options.replications == 0) {
    return absl::InvalidArgumentError("--replications must be at least 1");
  }
  if (options.horizon && !(*options.horizon > 0 && *options.horizon < INFINITY)) {
    return absl::InvalidArgumentError("--horizon must be > 0 and finite");
  }
  if (options.jobs == 0) return absl::InvalidArgumentError("--jobs must be at least 1");
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
  return absl::OkStatus();
}

bool Simulate(const ir::Program& linked, const SimOptions& options, results::Results* out,
              Diagnostics* diags) {
  if (!linked.linked()) {
    diags->ErrorInFile(
        "the IR is not linked; run serq-link first (serq-parse x.sq | serq-link | serq-sim)");
    return false;
  }
  sim::ModelOptions model_options;
  model_options.defines = options.defines;
  model_options.seed = options.seed;
  model_options.replications = options.replications;
  model_options.horizon = options.horizon;
  model_options.sample = options.sample;
  model_options.data_dir = options.data_dir;
  sim::Model model;
  if (!sim::CompileModel(linked, model_options, &model, diags)) return false;

  std::unique_ptr<std::ofstream> trace;
  sim::EngineOptions engine_options;
  engine_options.progress = options.progress;
  engine_options.check_pools = options.check_pools;
  if (!options.trace_path.empty()) {
    trace = std::make_unique<std::ofstream>(options.trace_path, std::ios::binary);
    if (!*trace) {
      diags->ErrorInFile(absl::StrCat("cannot write the trace '", options.trace_path, "'"));
      return false;
    }
    engine_options.trace = trace.get();
  }
  // Chrome's format: the JSON lines converted as they are written.
  std::unique_ptr<sim::ChromeTrace> chrome;
  std::unique_ptr<sim::ChromeTrace::LineBuffer> lines;
  std::unique_ptr<std::ostream> converter;
  if (trace && options.trace_format == "chrome") {
    chrome = std::make_unique<sim::ChromeTrace>(trace.get(), model.horizon);
    lines = std::make_unique<sim::ChromeTrace::LineBuffer>(chrome.get());
    converter = std::make_unique<std::ostream>(lines.get());
    engine_options.trace = converter.get();
  }
  std::ostream* log = engine_options.trace;
  bool ok = true;

  out->Clear();
  out->set_version(kIrVersion);
  out->set_program(linked.file());
  out->set_horizon(model.horizon);
  out->set_warmup(model.warmup);
  out->set_seed(model.seed);
  out->set_replications(model.replications);
  out->set_sample(model.sample);
  if (options.first_replication >= model.replications) {
    diags->ErrorInFile(absl::StrCat("replication ", options.first_replication,
                                    " asked for, but the run has ", model.replications));
    return false;
  }
  ok = sim::RunReplications(
      model, engine_options, options.first_replication, options.jobs,
      [out](results::Replication* r) {
        out->add_replication()->Swap(r);
        return true;
      },
      diags);
  // After a runtime error too: the trace up to the error is a document.
  if (chrome) {
    converter->flush();
    chrome->Finish();
    if (!lines->status().ok()) {
      diags->ErrorInFile(absl::StrCat("internal error writing the Chrome trace: ",
                                      lines->status().message()));
      return false;
    }
  }
  return ok;
}

}  // namespace serq
