#include "serq/models/presets.h"

#include <algorithm>
#include <filesystem>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "serq/models/presets_data.h"

namespace serq::models {
namespace {

constexpr absl::string_view kModels = "models/";
constexpr absl::string_view kDir = "serq/models/presets/";

const internal::PresetFile* Find(absl::string_view path) {
  for (int i = 0; i < internal::kPresetFileCount; ++i) {
    if (internal::kPresetFiles[i].path == path) return &internal::kPresetFiles[i];
  }
  return nullptr;
}

absl::StatusOr<JsonFile> Parse(const internal::PresetFile& f) {
  return JsonFile::Parse(f.text, absl::StrCat(kDir, f.path));
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

std::string Folded(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) out += absl::ascii_tolower(static_cast<unsigned char>(c));
  }
  return out;
}

std::vector<std::string> ModelPresetNames() {
  std::vector<std::string> names;
  for (int i = 0; i < internal::kPresetFileCount; ++i) {
    absl::string_view path = internal::kPresetFiles[i].path;
    if (absl::ConsumePrefix(&path, kModels) && absl::ConsumeSuffix(&path, ".json")) {
      names.emplace_back(path);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> GpuPresetNames() {
  absl::StatusOr<JsonFile> file = GpuPresetsFile();
  return file.ok() ? GpuNames(*file) : std::vector<std::string>{};
}

absl::StatusOr<JsonFile> ModelPresetFile(const std::string& name) {
  const internal::PresetFile* f = Find(absl::StrCat(kModels, name, ".json"));
  if (f == nullptr) return absl::NotFoundError(absl::StrCat("no model preset '", name, "'"));
  return Parse(*f);
}

absl::StatusOr<JsonFile> GpuPresetsFile() {
  const internal::PresetFile* f = Find("gpus.json");
  if (f == nullptr) return absl::NotFoundError("no GPU presets");
  return Parse(*f);
}

absl::StatusOr<ModelConfig> ResolveModel(const std::string& name, const ReadOptions& options,
                                         std::string* source) {
  absl::StatusOr<JsonFile> json = ModelPresetFile(name);
  if (json.ok()) {
    absl::StatusOr<std::optional<std::string>> from = json->Text("_source");
    *source = absl::StrCat("preset ", name, from.ok() && from->has_value() ? absl::StrCat(", ", **from) : "");
  } else if (IsFile(name)) {
    json = JsonFile::Read(name);
    *source = name;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "': no such model preset or file (presets: ",
        absl::StrJoin(ModelPresetNames(), ", "), ")"));
  }
  if (!json.ok()) return json.status();
  return ReadModelConfig(*json, options);
}

absl::StatusOr<Gpu> ResolveGpu(const std::string& name) {
  absl::StatusOr<JsonFile> presets = GpuPresetsFile();
  if (!presets.ok()) return presets.status();
  const std::vector<std::string> names = GpuNames(*presets);
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    absl::StatusOr<Gpu> gpu = ReadGpu(*presets, name);
    if (gpu.ok()) gpu->preset = true;
    return gpu;
  }
  std::string file = name, entry;
  if (!IsFile(file)) {
    const size_t colon = name.rfind(':');
    if (colon != std::string::npos && IsFile(name.substr(0, colon))) {
      file = name.substr(0, colon);
      entry = name.substr(colon + 1);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "': no such GPU preset or file (presets: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  absl::StatusOr<JsonFile> json = JsonFile::Read(file);
  if (!json.ok()) return json.status();
  return ReadGpu(*json, entry);
}

std::optional<Gpu> GpuPresetForDevice(absl::string_view device) {
  const std::string folded = Folded(device);
  absl::StatusOr<JsonFile> presets = GpuPresetsFile();
  if (folded.empty() || !presets.ok()) return std::nullopt;
  const std::vector<std::string> names = GpuNames(*presets);
  size_t longest = 0;
  for (const std::string& name : names) longest = std::max(longest, Folded(name).size());
  // The device's words, and every run of them one after another, folded,
  // as long as a preset's name can be: a name of many words (a cluster
  // file's text is anyone's) costs its words times a few, never their square.
  std::vector<std::string> words;
  for (absl::string_view w : absl::StrSplit(device, absl::ByAnyChar(" -_/.,()"), absl::SkipEmpty())) {
    if (std::string f = Folded(w); !f.empty()) words.push_back(f);
  }
  absl::flat_hash_set<std::string> runs;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string run;
    for (size_t j = i; j < words.size() && run.size() + words[j].size() <= longest; ++j) runs.insert(run += words[j]);
  }
  std::optional<Gpu> found;
  for (const std::string& name : names) {
    absl::StatusOr<Gpu> gpu = ReadGpu(*presets, name);
    if (!gpu.ok()) continue;
    if (!runs.contains(Folded(name)) && Folded(gpu->what) != folded) continue;
    if (found) return std::nullopt;  // two presets: the name does not say which
    gpu->preset = true;
    found = *gpu;
  }
  return found;
}

}  // namespace serq::models
