// serq compare's work, over the readers (measured.h), the comparison
// (compare.h) and its renderers (compare_render.h): what compare_cli.cc
// calls with the flags read, so the tests and serq fit call it alike.
#ifndef SERQ_SERQ_COMPARE_COMMAND_H_
#define SERQ_SERQ_COMPARE_COMMAND_H_

#include <string>

#include "serq/pipeline/commands.h"
#include "serq/measured/compare.h"
#include "serq/measured/measured.h"

namespace serq {

struct CompareCommandOptions {
  // How the simulated side is run when it is a program (.sq): -D, --seed,
  // --replications, --horizon, --data-dir, as `serq run` takes them.
  DriverOptions driver;
  compare::MetricNames names;        // --names
  compare::CompareOptions compare;   // --allow-count-mismatch
  std::string format = "text";       // text, csv, json or html
  std::string svg_path;              // --svg: also write the CDFs here ("" none)
};

// Whether `path` names a program (ends in .sq) rather than a file of runs.
bool IsProgramPath(const std::string& path);

// Reads the measured run at `measured` and the simulated one at
// `simulated` (a program, run as `serq run` would; or a file of runs, as
// ReadRun reads it) and compares them. Exit codes: 0; 1 a file that is not
// what it should be, a program rejected, counts that differ, a metric
// missing; 2 a file that cannot be read or an output that cannot be
// written (the svg here; stdout is the caller's), or html of a simulated
// run that is not serq's.
CommandResult CompareCommand(const std::string& measured, const std::string& simulated,
                             const CompareCommandOptions& options);

}  // namespace serq

#endif  // SERQ_SERQ_COMPARE_COMMAND_H_
