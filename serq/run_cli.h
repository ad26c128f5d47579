// `serq run`, `check`, `fmt` and `view` on the command line: their own
// flags (defined in run_cli.cc) over the shared ones (cli.h), then the
// commands of commands.h.
#ifndef SERQ_SERQ_RUN_CLI_H_
#define SERQ_SERQ_RUN_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int RunMain(const CommandLine& line);    // run, check, fmt and view
std::vector<FlagUse> RunFlagUses();      // --quantiles, --trace, --results, ...

}  // namespace serq

#endif  // SERQ_SERQ_RUN_CLI_H_
