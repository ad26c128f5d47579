// The preset files as serq/models/embed.sh writes them into the binary
// (presets_data.cc, generated): internal to presets.cc.
#ifndef SERQ_SERQ_MODELS_PRESETS_DATA_H_
#define SERQ_SERQ_MODELS_PRESETS_DATA_H_

namespace serq::models::internal {

struct PresetFile {
  const char* path;  // under serq/models/presets/: "gpus.json", "models/llama-3.1-8b.json"
  const char* text;
};

extern const PresetFile kPresetFiles[];
extern const int kPresetFileCount;

}  // namespace serq::models::internal

#endif  // SERQ_SERQ_MODELS_PRESETS_DATA_H_
