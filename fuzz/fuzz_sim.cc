// Fuzz target: source through the parser, the linker and the simulator,
// with the run bounded (horizon 10, one replication, 20,000 events, 20,000
// statements or events at one instant, 1,000 live sessions) so that every
// input ends in milliseconds: a mutant of testdata/hostile/hang-ps.sq that
// ran its `repeat (1e18)` over `run P (0)` took 17 s to the default
// same-instant guard of 10^8 statements, and a late corpus that held it
// spent 92% of a pass over it there. Programs that read traces are
// skipped, and so are tables named by a path (a fuzzed file name could be
// any file: /dev/zero is a 256 MB line to refuse, a second under ASan, on
// every mutant of the seed that names it); a bare table name resolves in
// testdata/link, whose tables the seeds use (the working directory is the
// repository's root, as tools/fuzz.sh runs it).
#include <cstdint>
#include <string>

#include "ir/diagnostics.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq-sim/engine/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  serq::Diagnostics diags("fuzz.sq", source);
  serq::ir::Program program;
  if (!serq::ParseProgram("fuzz.sq", source, &program, &diags)) return 0;
  for (const auto& t : program.table()) {
    if (t.file().find('/') != std::string::npos) return 0;
  }
  serq::LinkOptions link;
  link.data_dir = "testdata/link";
  if (!serq::LinkProgram(&program, link, &diags)) return 0;
  for (const auto& w : program.workload()) {
    if (w.process() == serq::ir::Workload::TRACE) return 0;
  }
  serq::SimOptions options;
  options.horizon = 10;
  options.replications = 1;
  options.data_dir = "/nonexistent";
  options.limits.max_events = 20000;
  options.limits.max_sessions = 1000;
  options.limits.statements_per_instant = 20000;
  options.limits.events_per_instant = 20000;
  serq::results::Results results;
  if (!serq::Simulate(program, options, &results, &diags)) (void)diags.Render();
  return 0;
}
