// Test helpers: a program's source through the real parser, linker and
// simulator, in-process, and look-ups into the results.
#ifndef SERQ_SIM_SIM_TESTING_H_
#define SERQ_SIM_SIM_TESTING_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/results.pb.h"
#include "serq-sim/engine/simulate.h"

namespace serq::testing {

struct SimRun {
  bool ok = false;
  std::string errors;  // every diagnostic, rendered (parse, link or simulation)
  results::Results results;
};

// Parses `source` (as file "test.sq"), links it and simulates it.
SimRun RunSource(absl::string_view source, const SimOptions& options = {});
// Options that check the pools' invariants after every event.
SimOptions CheckingPools();
// RunSource of `program` with its text OPTIONS replaced by `options` (a
// stage's block options, to run one program with and without them),
// checking the pools.
SimRun RunWithOptions(absl::string_view program, absl::string_view options);

// The samples of observation `name` in replication `replication` (empty
// when there is none).
std::vector<double> Samples(const results::Results& r, absl::string_view name,
                            int replication = 0);
// Stage element `name`[`index`] and pool element of replication
// `replication`; a default message when there is none.
results::StageStats Stage(const results::Results& r, absl::string_view name, int index = 0,
                          int replication = 0);
results::PoolStats Pool(const results::Results& r, absl::string_view name, int index = 0,
                        int replication = 0);

// A file `name` in the test's temporary directory ($TEST_TMPDIR, or /tmp).
std::string TempPath(const std::string& name);
// The whole of the file at `path` ("" when it cannot be read).
std::string ReadAll(const std::string& path);

}  // namespace serq::testing

#endif  // SERQ_SIM_SIM_TESTING_H_
