// `serq sweep` and `serq search` on the command line: their own flags
// (defined in sweep_cli.cc), the driver's shared ones passed in by main.
#ifndef SERQ_SERQ_SWEEP_CLI_H_
#define SERQ_SERQ_SWEEP_CLI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace serq {

struct SweepArgs {
  std::vector<std::string> positional;  // after the command: the program, if any
  std::vector<std::pair<std::string, std::string>> defines;  // -D as written
  std::string share;   // --share, as written ("" when not given)
  std::string format;  // --format ("" when not given)
  std::optional<uint64_t> seed;
  std::optional<uint32_t> replications;
  std::optional<double> horizon;
  std::string data_dir;
  std::optional<uint32_t> jobs;
  std::string self;  // this executable, for the tasks' command lines
};

int SweepMain(const SweepArgs& args);
int SearchMain(const SweepArgs& args);

// A flag of sweep's or search's that was given ("--out", ...), for the
// driver to refuse with the other commands; "" when none was. `command` is
// the command run: a flag of the other one counts too.
std::string ForeignSweepFlag(const std::string& command);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_CLI_H_
