// `serq plan` on the command line: its own flags (plan_flags.h)
// and those it shares with serq physics (the model, the GPU, the workload)
// and serq search (--until, --max-replications, --max-in-progress).
#ifndef SERQ_SERQ_PLAN_CLI_H_
#define SERQ_SERQ_PLAN_CLI_H_

#include <vector>

#include "serq/cli.h"
#include "serq/plan_flags.h"

namespace serq {

int PlanMain(const CommandLine& line);

}  // namespace serq

#endif  // SERQ_SERQ_PLAN_CLI_H_
