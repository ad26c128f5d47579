// serq-sim's library: simulate linked IR and fill results.proto. The
// serq-sim binary and the `serq run` driver both call Simulate.
#ifndef SERQ_SIM_ENGINE_SIMULATE_H_
#define SERQ_SIM_ENGINE_SIMULATE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ir/diagnostics.h"
#include "ir/limits.h"
#include "ir/progress.h"
#include "serq-sim/engine/run_limits.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"

namespace serq {

struct SimOptions {
  // -D name=value: params overridden (one that sizes an array is an error:
  // array sizes are fixed by serq-link -D).
  std::vector<std::pair<std::string, double>> defines;
  std::optional<uint64_t> seed;            // overrides run { seed }
  std::optional<uint32_t> replications;    // overrides run { replications }
  std::optional<double> horizon;           // overrides run { horizon }
  std::optional<double> warmup;            // overrides run { warmup }
  std::optional<double> sample;            // overrides run { sample }: the time series' DT
  // The flag that set `sample`, for its errors: --sample, or serq run's
  // --series, which asks for a series every second when nothing else does.
  const char* sample_flag = "--sample";
  std::string data_dir;    // relative trace paths resolve here ("" = the program's directory)
  std::string trace_path;  // --trace: a JSON-lines event log ("" = none)
  std::string trace_format = "jsonl";  // --trace-format: jsonl or chrome (Trace Event Format)
  // --trace-window FROM:TO and --trace-select KINDS (output/trace_select.h;
  // "" = all of the run, every kind).
  std::string trace_window;
  std::string trace_select;
  // A progress line on stderr (ir/progress.h): in place on a terminal, a
  // whole line every 5 s in a log, none; callers take ProgressLine::ForStderr().
  ProgressLine::Mode progress = ProgressLine::Mode::kNone;
  // The tool the progress line names: "serq-sim", or "serq" under `serq run`.
  const char* progress_tool = "serq-sim";
  // Tests: check the pools' invariants after every event (a violation is
  // an error naming the time and what is wrong).
  bool check_pools = false;
  // Tests: false steps every running decode job of a `preempt by` stage
  // one at a time, never as a lane (stage_step_lane.cc); the output is the
  // same bytes either way.
  bool lanes = true;
  // --jobs: replications on this many threads; the same bytes for every
  // value (serq-sim/replicate.h). A trace runs them on one thread.
  uint32_t jobs = 1;
  // Run only replications first_replication .. replications - 1, with
  // their own seeds (a sweep's task runs one; a search adds some to those
  // it ran). Must be below the number of replications.
  uint32_t first_replication = 0;
  SimLimits limits;  // --max-sessions, --max-events, --max-cpu
};

// Checks the options that come from the command line (--replications from
// 1 to kMaxReplications, --horizon and --sample > 0 and finite, --jobs and
// --max-sessions at least 1, --max-cpu >= 0, --trace-format, --trace-window,
// --trace-select): misuse, not
// an error of the program.
absl::Status ValidateSimOptions(const SimOptions& options);

// How a simulation ended: kRejected with the runtime error (or deadlock) in
// the diagnostics (exit 1); kWriteFailed when an output (the trace, or what
// the sink wrote) could not be written, with the reason in `*write_error`
// (exit 2).
// kStalled: the run stopped at a stall (docs/simulation.md §Runtime
// errors): the results hold the stalled replication's figures up to it
// (the header's horizon is its time, its replications 1), `diags` the
// stall.
enum class SimOutcome { kOk, kRejected, kWriteFailed, kStalled };

// Takes each replication as it finishes, in index order (it may move from
// it): serq-sim writes it out at once, so its memory does not grow with the
// replications; `serq run` keeps it. A non-OK status (a failed write) stops
// the run.
using ReplicationSink = std::function<absl::Status(results::Replication*)>;

// Simulates `linked` (IR that went through serq-link: Program.linked set).
// Fills `header` (every field but the replications) before the first call
// of `sink`. Runtime errors, deadlocks and errors in the options go to
// `diags`, located at the source (or at the IR path when the IR has no
// locations), with the time and session: "at t=1.5, session 3: ...".
SimOutcome SimulateStreaming(const ir::Program& linked, const SimOptions& options,
                             results::Results* header, const ReplicationSink& sink,
                             Diagnostics* diags, absl::Status* write_error);

// SimulateStreaming into one message: false after a runtime error (or a
// trace that cannot be written, as a diagnostic); `out` is incomplete then.
bool Simulate(const ir::Program& linked, const SimOptions& options, results::Results* out,
              Diagnostics* diags);

}  // namespace serq

#endif  // SERQ_SIM_ENGINE_SIMULATE_H_
