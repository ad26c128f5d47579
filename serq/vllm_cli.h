// `serq vllm` on the command line: its flags (defined in vllm_cli.cc) over
// serq/vllm/generate.h.
#ifndef SERQ_SERQ_VLLM_CLI_H_
#define SERQ_SERQ_VLLM_CLI_H_

#include <optional>
#include <string>
#include <vector>

#include "serq/cli.h"

namespace serq {

int VllmMain(const CommandLine& line);
// --kv-blocks, --gpu-memory-utilization, --gpu-memory, --no-skew,
// --no-prefix-cache, --interconnect, --expert-balancedness (and --out, which sweep defines).
std::vector<FlagUse> VllmFlagUses();
// What is wrong with the KV cache's flags, which serq vllm and serq physics
// share (--kv-blocks from 2, vLLM's null block and one more, to 2^40;
// --gpu-memory-utilization above 0 and at most 1; --gpu-memory finite and
// above 0), or "" when each is absent or right.
std::string KvFlagsMisuse();
// --expert-balancedness, which serq vllm and serq physics share: above 0
// and at most 1, or "" when absent or right; and its value.
std::string ExpertBalancednessMisuse();
std::optional<double> ExpertBalancednessFlag();

}  // namespace serq

#endif  // SERQ_SERQ_VLLM_CLI_H_
