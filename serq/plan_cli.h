// `serq plan` on the command line: its own flags (defined in plan_cli.cc)
// and those it shares with serq physics (the model, the GPU, the workload)
// and serq search (--until, --max-replications, --max-in-progress).
#ifndef SERQ_SERQ_PLAN_CLI_H_
#define SERQ_SERQ_PLAN_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int PlanMain(const CommandLine& line);
std::vector<FlagUse> PlanFlagUses();

}  // namespace serq

#endif  // SERQ_SERQ_PLAN_CLI_H_
