// serq-sim's library: simulate linked IR and fill results.proto. The
// serq-sim binary and the `serq run` driver both call Simulate.
#ifndef SERQ_SIM_SIMULATE_H_
#define SERQ_SIM_SIMULATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ir/diagnostics.h"
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
  std::optional<double> sample;            // overrides run { sample }: the time series' DT
  std::string data_dir;    // relative trace paths resolve here ("" = the program's directory)
  std::string trace_path;  // --trace: a JSON-lines event log ("" = none)
  std::string trace_format = "jsonl";  // --trace-format: jsonl or chrome (Trace Event Format)
  bool progress = false;   // a progress line on stderr (the caller checks it is a terminal)
  // --jobs: replications on this many threads; the same bytes for every
  // value (serq-sim/replicate.h). A trace runs them on one thread.
  uint32_t jobs = 1;
  // Run only replications first_replication .. replications - 1, with
  // their own seeds (a sweep's task runs one; a search adds some to those
  // it ran). Must be below the number of replications.
  uint32_t first_replication = 0;
  // Tests: check the pools' invariants after every event (a violation is
  // an error naming the time and what is wrong).
  bool check_pools = false;
};

// Checks the options that come from the command line (--replications at
// least 1, --horizon > 0 and finite, --jobs at least 1): misuse, not an error of the program.
absl::Status ValidateSimOptions(const SimOptions& options);

// Simulates `linked` (IR that went through serq-link: Program.linked set)
// and fills `out`. Runtime errors, deadlocks and errors in the options go
// to `diags`, located at the source (or at the IR path when the IR has no
// locations), with the time and session: "at t=1.5, session 3: ...".
// Returns false then; `out` is incomplete.
bool Simulate(const ir::Program& linked, const SimOptions& options, results::Results* out,
              Diagnostics* diags);

}  // namespace serq

#endif  // SERQ_SIM_SIMULATE_H_
