// A GPU's datasheet, as serq physics reads it: BLIS's hardware_config.json
// form (GPUs by name, each {TFlopsPeak, TFlopsFP8, BwPeakTBs, MemoryGiB}),
// or one GPU's object, with serq's additions (Interconnect, Name,
// TFlopsFP32, MemorySource, _sources). serq's presets (presets/gpus.json) are such a file.
#ifndef SERQ_SERQ_MODELS_GPU_H_
#define SERQ_SERQ_MODELS_GPU_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/json_file.h"

namespace serq::models {

struct Gpu {
  std::string name;          // the entry's name ("h100-sxm", "H100"), or "the GPU"
  std::string what;          // Name: e.g. "NVIDIA H100 SXM5 80GB" ("" : not given)
  std::string file;          // the file it was read from (a preset's: serq/models/presets/gpus.json)
  std::string at;            // the path of its object in the file: "h100-sxm." ("": the whole file)
  bool preset = false;       // one of serq's presets
  double tflops = 0;         // TFlopsPeak: dense BF16/FP16 tensor peak, 10^12 FLOP/s
  double tflops_fp8 = 0;     // TFlopsFP8 (0: none)
  double tflops_fp32 = 0;    // TFlopsFP32 (0: not given)
  double bw_tbs = 0;         // BwPeakTBs: memory bandwidth, 10^12 bytes/s
  double memory_gib = 0;     // MemoryGiB: the device's total as CUDA reports it (0: not given)
  // MemorySource: where memory_gib comes from, "cuda" (CUDA's total, what
  // vLLM sizes its KV cache from), "nvidia-smi" (its total, above CUDA's by
  // what the driver keeps) or "vendor" (the datasheet's GB); "": not said.
  std::string memory_source;
  std::string interconnect;  // Interconnect: a name of net/interconnect.h ("": none given)
  std::map<std::string, std::string> sources;  // _sources: a figure's public source
};

// Reads `json`: one GPU's object (it has TFlopsPeak), or GPUs by name, of
// which `entry` picks one (empty: the only one). Errors name the file and
// the field: an entry that is not there (listing those that are), a
// figure missing, not a number, or not above 0 (TFlopsFP8, TFlopsFP32: at
// least 0), an interconnect serq does not know.
absl::StatusOr<Gpu> ReadGpu(const JsonFile& json, const std::string& entry);

// An error about `gpu`'s datasheet at `field`: "FILE: error: ENTRY.FIELD: MESSAGE".
absl::Status GpuError(const Gpu& gpu, absl::string_view field, absl::string_view message);

// The GPUs of a file in BLIS's form, sorted (empty for one GPU's object).
std::vector<std::string> GpuNames(const JsonFile& json);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_GPU_H_
