#include "serq/plan/replay.h"


#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/output.h"
#include "serq/models/program_text.h"

namespace serq::plan {

bool MeasureTrace(const std::string& trace, const std::string& probe_path, TraceArrivals* out,
                  CommandResult* error) {
  const std::string dir = models::ProgramDirOf(probe_path);
  const std::string text = absl::StrCat(
      "// Written by serq plan: the arrivals of ", trace, ", to measure its mean rate.\n",
      "workload requests { arrive trace(", models::Quoted(models::PathFor(trace, dir)), "); }\n",
      "session requests { observe arrival = now; }\n", "run { seed 1; }\n");
  if (absl::Status s = WriteFile(probe_path, text); !s.ok()) {
    *error = FailureLine(kExitUsage, absl::StrCat("serq plan: error: ", s.message()));
    return false;
  }
  DriverOptions options;
  options.sim.replications = 1;
  ir::Program program;
  results::Results results;
  if (!SimulateProgram(probe_path, options, &program, &results, error)) return false;
  for (const auto& o : results.replication(0).observation()) {
    if (o.name() != "arrival") continue;
    out->rows = static_cast<int64_t>(o.count() > 0 ? o.count() : o.sample_size());
    out->first = o.sketch().min();
    out->last = o.sketch().max();
    if (o.sample_size() > 0) {
      out->first = o.sample(0);
      out->last = o.sample(o.sample_size() - 1);
    }
  }
  if (out->rows < 2 || !(out->last > out->first)) {
    *error = FailureLine(kExitInputRejected,
                         absl::StrCat("serq plan: error: --replay ", trace, ": ", out->rows,
                                      " arrival(s) over ", out->last - out->first,
                                      " s: a rate needs two arrivals or more at different times"));
    return false;
  }
  return true;
}

}  // namespace serq::plan
