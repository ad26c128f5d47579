// The KV cache of each engine, in vLLM's blocks: the run's own count where
// it records one, else derived as vLLM 0.19 derives it
// (Worker.determine_available_memory, kv_cache_utils.get_num_blocks):
//
//   requested = GPU memory x gpu_memory_utilization
//   available = requested - weights - the activation peak of a profile run
//               - the memory outside PyTorch that grew while it ran
//   blocks    = floor(available / (block_size x KV bytes a token))
//
// and one block of them is vLLM's null block, never handed out. Each figure
// comes with the lines that say where it came from, for the program.
#ifndef SERQ_SERQ_VLLM_KV_CAPACITY_H_
#define SERQ_SERQ_VLLM_KV_CAPACITY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/vllm_engine.h"
#include "serq/vllm/run_folder.h"

namespace serq::vllm {

struct KvOptions {
  std::optional<int64_t> num_gpu_blocks;      // --kv-blocks: vLLM's count, the null block included
  std::optional<double> gpu_memory_utilization;  // --gpu-memory-utilization
  std::optional<double> gpu_memory_gib;       // --gpu-memory: GiB a GPU
};

struct KvCapacity {
  int64_t num_gpu_blocks = 0;  // vLLM's count
  int64_t usable_blocks = 0;   // num_gpu_blocks - 1 (the null block)
  double bytes_per_token = 0;  // on one GPU
  // Where the count came from: "" when derived from the GPU's memory, else
  // the flag or meta.json's field that gave it.
  std::string given_by;
  std::vector<std::string> why;  // comment lines, without "// "
};

// A GPU's memory and where it came from: --gpu-memory, else meta.json's
// hardware.device_total_memory_bytes (torch's total, which vLLM budgets
// from), else llmservingsim-config.json's npu_mem.mem_size, or the GPU
// preset's total (CUDA's) where the run's GPU has one and mem_size is its
// vendor's figure; 0 when none.
struct GpuMemory {
  double gib = 0;
  std::string from;
};
GpuMemory GpuMemoryOf(const RunFolder& r, const KvOptions& options);

// The activation peak of vLLM's profile run (serq/models/vllm_engine.h).
using models::ActivationPeakBytes;

// The engine's limits (the run's, as ReadRunFolder filled them, or a
// plan's over them) as vLLM's scheduler config takes them: a
// max_num_seqs above max_num_batched_tokens is refused, at meta.json's
// fields where both are the run's own.
absl::Status CheckLimits(const RunFolder& r);

absl::StatusOr<KvCapacity> KvBlocks(const RunFolder& r, int64_t max_num_seqs,
                                    int64_t max_num_batched_tokens, const KvOptions& options);

// A warning where the KV count is derived (not the run's, nor given) and
// the run's requests can fill the cache: a replay that preempts moves with
// the count, and vLLM's start-up log gives it. "" otherwise.
std::string DerivedCountCanFill(const RunFolder& r, const KvCapacity& kv, int64_t max_num_seqs);

// A warning where the KV count is derived and the run is of vLLM 0.21 or
// later with CUDA graphs: those versions subtract an estimate of the
// graphs' memory too (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, off by
// default in 0.19, on from 0.21), so the run had fewer blocks than the
// derivation gives. "" otherwise (a version serq cannot read is not said
// here: the generator says the run is not 0.19).
std::string LaterVllmSubtractsGraphs(const RunFolder& r, const KvCapacity& kv);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_KV_CAPACITY_H_
