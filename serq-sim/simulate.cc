#include "serq-sim/simulate.h"

#include <cmath>
#include <ctime>
#include <memory>

#include "absl/strings/str_cat.h"
#include "ir/io.h"
#include "ir/output.h"
#include "serq-sim/engine.h"
#include "serq-sim/model.h"

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
  model_options.data_dir = options.data_dir;
  sim::Model model;
  if (!sim::CompileModel(linked, model_options, &model, diags)) return SimOutcome::kRejected;

  std::unique_ptr<OutputFile> trace;
  sim::EngineOptions engine_options;
  engine_options.progress = options.progress;
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
    if (absl::Status s = trace->Open(options.trace_path); !s.ok()) {
      diags->ErrorInFile(
          absl::StrCat("cannot write the trace '", options.trace_path, "': ", s.message()));
      return SimOutcome::kRejected;
    }
    engine_options.trace = &trace->stream();
  }

  header->Clear();
  header->set_version(kIrVersion);
  header->set_program(linked.file());
  header->set_horizon(model.horizon);
  header->set_warmup(model.warmup);
  header->set_seed(model.seed);
  header->set_replications(model.replications);
  for (uint32_t r = 0; r < model.replications; ++r) {
    if (trace) trace->stream() << "{\"replication\":" << r << "}\n";
    results::Replication replication;
    bool ran;
    {
      sim::Engine engine(model, r, engine_options, diags);
      ran = engine.Run(&replication);
    }
    if (trace && trace->failed()) return trace_failed(trace->Close());
    if (!ran) return SimOutcome::kRejected;
    if (absl::Status s = sink(&replication); !s.ok()) {
      *write_error = s;
      return SimOutcome::kWriteFailed;
    }
  }
  if (trace) {
    if (absl::Status s = trace->Close(); !s.ok()) return trace_failed(s);
  }
  return SimOutcome::kOk;
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
