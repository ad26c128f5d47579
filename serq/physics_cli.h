// `serq physics` on the command line: its flags (defined in physics_cli.cc)
// over physics.h.
#ifndef SERQ_SERQ_PHYSICS_CLI_H_
#define SERQ_SERQ_PHYSICS_CLI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "serq/cli.h"

namespace serq {

int PhysicsMain(const CommandLine& line);
std::vector<FlagUse> PhysicsFlagUses();  // --gpu, --tp, --coefficients, --replay, --kv-tokens
// --max-model-len, which serq plan takes too: its misuse ("" when none),
// and its value.
std::string MaxModelLenMisuse();
std::optional<int64_t> MaxModelLenFlag();

}  // namespace serq

#endif  // SERQ_SERQ_PHYSICS_CLI_H_
