// `serq sweep` and `serq search` on the command line: their own flags
// (defined in sweep_cli.cc) over the shared ones (cli.h).
#ifndef SERQ_SERQ_SWEEP_CLI_H_
#define SERQ_SERQ_SWEEP_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int SweepMain(const CommandLine& line);
int SearchMain(const CommandLine& line);
std::vector<FlagUse> SweepFlagUses();  // --out, --param, --metrics, ...

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_CLI_H_
