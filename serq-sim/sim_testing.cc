#include "serq-sim/sim_testing.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

#include "lang/link/link.h"
#include "lang/parse/parse.h"

namespace serq::testing {

SimRun RunWithOptions(absl::string_view program, absl::string_view options) {
  return RunSource(absl::StrReplaceAll(program, {{"OPTIONS", options}}), CheckingPools());
}

SimOptions CheckingPools() {
  SimOptions o;
  o.check_pools = true;
  return o;
}

SimRun RunSource(absl::string_view source, const SimOptions& options) {
  SimRun run;
  ir::Program program;
  Diagnostics diags("test.sq", std::string(source));
  LinkOptions link;
  link.data_dir = options.data_dir;
  if (!ParseProgram("test.sq", source, &program, &diags) ||
      !LinkProgram(&program, link, &diags)) {
    run.errors = diags.Render();
    return run;
  }
  run.ok = Simulate(program, options, &run.results, &diags);
  run.errors = diags.Render();
  return run;
}

std::vector<double> Samples(const results::Results& r, absl::string_view name, int replication) {
  if (replication >= r.replication_size()) return {};
  for (const results::Observation& o : r.replication(replication).observation()) {
    if (o.name() == name) return {o.sample().begin(), o.sample().end()};
  }
  return {};
}

results::StageStats Stage(const results::Results& r, absl::string_view name, int index,
                          int replication) {
  if (replication >= r.replication_size()) return {};
  for (const results::StageStats& s : r.replication(replication).stage()) {
    if (s.name() == name && static_cast<int>(s.index()) == index) return s;
  }
  return {};
}

results::PoolStats Pool(const results::Results& r, absl::string_view name, int index,
                        int replication) {
  if (replication >= r.replication_size()) return {};
  for (const results::PoolStats& p : r.replication(replication).pool()) {
    if (p.name() == name && static_cast<int>(p.index()) == index) return p;
  }
  return {};
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", name);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace serq::testing
