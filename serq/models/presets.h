// serq's presets, shipped as data (serq/models/presets/, built into the
// binary): GPUs in one datasheet file (gpus.json, BLIS's
// hardware_config.json form with each figure's public source) and models
// as their Hugging Face config.json (models/NAME.json, with its source),
// read by the same readers as a user's own files.
#ifndef SERQ_SERQ_MODELS_PRESETS_H_
#define SERQ_SERQ_MODELS_PRESETS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/gpu.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"

namespace serq::models {

// The names, sorted: "deepseek-v3", "gpt-oss-120b", ...; "a100-40gb", ...
std::vector<std::string> ModelPresetNames();
std::vector<std::string> GpuPresetNames();

// A preset's file, read as a user's would be: its name in messages is
// "preset NAME" (serq/models/presets/...). NotFound when there is none.
absl::StatusOr<JsonFile> ModelPresetFile(const std::string& name);
absl::StatusOr<JsonFile> GpuPresetsFile();

// A model or a GPU named on the command line: a preset's name, or a file
// (a model's config.json; a datasheet, FILE:ENTRY picking one GPU of
// several). Neither: InvalidArgument listing the presets.
absl::StatusOr<ModelConfig> ResolveModel(const std::string& name_or_file, const ReadOptions& options,
                                         std::string* source);
absl::StatusOr<Gpu> ResolveGpu(const std::string& name_or_file);

// The GPU preset a run's name for its device denotes: CUDA's name ("NVIDIA
// GeForce RTX 4090") or a short one ("RTX4090", LLMServingSim's cluster
// files' `hardware`). Compared in lower case, letters and digits only, by
// whole words: a preset whose name is some words of the device's one after
// another ("rtx" "4090" of "NVIDIA GeForce RTX 4090" are "rtx-4090"; the
// "gb200" of "NVIDIA GB200" is not "b200"), or whose Name is the device's.
// nullopt when no preset, or more than one, is named so.
std::optional<Gpu> GpuPresetForDevice(absl::string_view device);

// Lower case, letters and digits only: "RTX PRO 6000" and "rtx-pro-6000"
// alike, as GPU names are matched.
std::string Folded(absl::string_view s);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_PRESETS_H_
