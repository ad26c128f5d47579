// Fuzz target: the readers of serq vllm (serq/vllm/) on any bytes: a
// profile's meta.yaml (yaml-cpp, whose exceptions must not escape) and the
// skew blend it gives, and a JSON file of a run folder read as a model's
// config.json, as meta.json (its engine arguments, kv_cache,
// resolved_config and hardware) and as llmservingsim-config.json.
#include <cstdint>
#include <string>
#include <vector>

#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/vllm/profile.h"
#include "serq/vllm/run_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace vllm = serq::vllm;
  namespace models = serq::models;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  // In a folder that is not there, so that the tables it names (inside its
  // folder, or an error) are missing: a warning each; its inline buckets
  // are read against its axes.
  absl::StatusOr<vllm::ProfileMeta> meta = vllm::ParseProfileMeta(bytes, "/nonexistent-serq-fuzz/meta.yaml");
  if (meta.ok()) (void)vllm::ResolveSkewBlend(*meta, 1, "/nonexistent-serq-fuzz/tp1");
  absl::StatusOr<models::JsonFile> json = models::JsonFile::Parse(bytes, "fuzz.json", /*python_floats=*/true);
  if (json.ok()) {
    absl::StatusOr<models::ModelConfig> model = models::ReadModelConfig(*json);
    if (model.ok()) {
      (void)models::KvBytesPerToken(*model, 1, 2);
      (void)models::WeightBytesPerGpu(*model, 2, 2);
      (void)models::RotaryTableBytes(*model);
    }
    (void)json->Text("vllm_version");
    vllm::RunFolder run;
    (void)vllm::ReadMetaJson(*json, &run);
    vllm::Cluster cluster;
    std::vector<std::string> warnings;
    (void)vllm::ReadCluster(*json, 1, 1, "engine_kwargs.tensor_parallel_size", "engine_kwargs.data_parallel_size",
                            &cluster, &warnings);
  }
  return 0;
}
