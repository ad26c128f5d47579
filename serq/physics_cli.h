// `serq physics` on the command line: its flags (defined in physics_cli.cc)
// over physics.h.
#ifndef SERQ_SERQ_PHYSICS_CLI_H_
#define SERQ_SERQ_PHYSICS_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int PhysicsMain(const CommandLine& line);
std::vector<FlagUse> PhysicsFlagUses();  // --gpu, --tp, --coefficients, --replay, --kv-tokens

}  // namespace serq

#endif  // SERQ_SERQ_PHYSICS_CLI_H_
