// `serq vllm` on the command line: its flags (defined in vllm_cli.cc) over
// serq/vllm/generate.h.
#ifndef SERQ_SERQ_VLLM_CLI_H_
#define SERQ_SERQ_VLLM_CLI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "serq/cli.h"

namespace serq {

int VllmMain(const CommandLine& line);
// --kv-blocks, --gpu-memory-utilization, --gpu-memory, --no-skew,
// --no-prefix-cache, --interconnect (and --out, which sweep defines).
std::vector<FlagUse> VllmFlagUses();
// What is wrong with --kv-blocks (serq vllm's and serq physics's), or ""
// when it is absent or from 2 (vLLM's null block and one more) to 2^40.
std::string KvBlocksMisuse(std::optional<int64_t> blocks);

}  // namespace serq

#endif  // SERQ_SERQ_VLLM_CLI_H_
