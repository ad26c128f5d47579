// `serq vllm` on the command line: its flags (defined in vllm_cli.cc) over
// serq/vllm/generate.h.
#ifndef SERQ_SERQ_VLLM_CLI_H_
#define SERQ_SERQ_VLLM_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

int VllmMain(const CommandLine& line);
// --kv-blocks, --gpu-memory-utilization, --gpu-memory, --no-skew,
// --no-prefix-cache, --interconnect (and --out, which sweep defines).
std::vector<FlagUse> VllmFlagUses();

}  // namespace serq

#endif  // SERQ_SERQ_VLLM_CLI_H_
