// `serq compare` on the command line: its own flags (defined in
// compare_cli.cc) over the shared ones (cli.h), then compare_command.h.
#ifndef SERQ_SERQ_COMPARE_CLI_H_
#define SERQ_SERQ_COMPARE_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int CompareMain(const CommandLine& line);
std::vector<FlagUse> CompareFlagUses();  // --names, --svg, --allow-count-mismatch

}  // namespace serq

#endif  // SERQ_SERQ_COMPARE_CLI_H_
