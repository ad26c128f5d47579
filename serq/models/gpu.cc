#include "serq/models/gpu.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/interconnect.h"

namespace serq::models {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

const Value* Field(const Struct& s, const char* name) {
  auto it = s.fields().find(name);
  if (it == s.fields().end() || it->second.kind_case() == Value::kNullValue) return nullptr;
  return &it->second;
}

}  // namespace

absl::Status GpuError(const Gpu& gpu, absl::string_view field, absl::string_view message) {
  return FileError(gpu.file, absl::StrCat(gpu.at, field), message);
}

// Whether an object holds any of a datasheet's figures: a file of GPUs
// is an object of such objects (another file's objects, as meta.json's
// engine_kwargs, are not GPUs).
bool HasSheetFigures(const Struct& s) {
  for (const char* f : {"TFlopsPeak", "BwPeakTBs", "MemoryGiB", "TFlopsFP8", "TFlopsFP32"}) {
    if (Field(s, f) != nullptr) return true;
  }
  return false;
}

std::vector<std::string> GpuNames(const JsonFile& json) {
  std::vector<std::string> names;
  if (HasSheetFigures(json.root())) return names;
  for (const auto& [name, value] : json.root().fields()) {
    if (value.kind_case() == Value::kStructValue && name != "_sources" && HasSheetFigures(value.struct_value())) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<Gpu> ReadGpu(const JsonFile& json, const std::string& entry) {
  Gpu out;
  out.file = json.file();
  const Struct* sheet = &json.root();
  std::string at;  // the path of the GPU's object in the file
  if (!HasSheetFigures(json.root())) {
    const std::vector<std::string> names = GpuNames(json);
    std::string pick = entry;
    if (names.empty()) {
      return json.Error("", "not a GPU datasheet: no TFlopsPeak, BwPeakTBs or MemoryGiB, at the top or in an "
                            "object of GPUs (docs/cli.md §serq physics)");
    }
    if (pick.empty()) {
      if (names.size() != 1) {
        return json.Error("", absl::StrCat("the file has ", names.size(), " GPUs: name one (",
                                           absl::StrJoin(names, ", "), ")"));
      }
      pick = names[0];
    }
    const Value* e = Field(json.root(), pick.c_str());
    if (e == nullptr || e->kind_case() != Value::kStructValue) {
      return json.Error("", absl::StrCat("no GPU '", pick, "' (the file has ",
                                         absl::StrJoin(names, ", "), ")"));
    }
    sheet = &e->struct_value();
    out.name = pick;
    at = pick + ".";
    out.at = at;
  } else {
    out.name = entry.empty() ? "the GPU" : entry;
  }
  auto number = [&](const char* field, bool required, bool zero_ok, double* x) -> absl::Status {
    const Value* v = Field(*sheet, field);
    if (v == nullptr) {
      if (required) {
        return json.Error(at + field, "missing: the datasheet's figure (docs/cli.md §serq physics)");
      }
      return absl::OkStatus();
    }
    const double n = v->kind_case() == Value::kNumberValue ? v->number_value() : std::nan("");
    if (!std::isfinite(n) || n < 0 || (n == 0 && !zero_ok) || n > 1e9) {
      return json.Error(at + field, absl::StrCat("expected a number ", zero_ok ? "from 0 to 1e9" : "above 0 and at most 1e9",
                                                 ", not ", Describe(*v)));
    }
    *x = n;
    return absl::OkStatus();
  };
  if (absl::Status s = number("TFlopsPeak", true, false, &out.tflops); !s.ok()) return s;
  if (absl::Status s = number("BwPeakTBs", true, false, &out.bw_tbs); !s.ok()) return s;
  if (absl::Status s = number("TFlopsFP8", false, true, &out.tflops_fp8); !s.ok()) return s;
  if (absl::Status s = number("TFlopsFP32", false, true, &out.tflops_fp32); !s.ok()) return s;
  if (absl::Status s = number("MemoryGiB", false, false, &out.memory_gib); !s.ok()) return s;
  for (auto [field, text] : {std::pair{"Name", &out.what}, std::pair{"Interconnect", &out.interconnect},
                             std::pair{"MemorySource", &out.memory_source}}) {
    const Value* v = Field(*sheet, field);
    if (v == nullptr) continue;
    if (v->kind_case() != Value::kStringValue) {
      return json.Error(at + field, absl::StrCat("expected text in quotes, not ", Describe(*v)));
    }
    *text = v->string_value();
  }
  if (!out.memory_source.empty() && out.memory_source != "cuda" && out.memory_source != "nvidia-smi" &&
      out.memory_source != "vendor") {
    return json.Error(at + "MemorySource", absl::StrCat("'", out.memory_source,
                                                        "': expected cuda, nvidia-smi or vendor"));
  }
  if (!out.interconnect.empty() && net::FindInterconnect(out.interconnect) == nullptr) {
    return json.Error(at + "Interconnect", absl::StrCat("'", out.interconnect, "': no such interconnect (known: ",
                                                        net::InterconnectNames(), ")"));
  }
  if (const Value* sources = Field(*sheet, "_sources");
      sources != nullptr && sources->kind_case() == Value::kStructValue) {
    for (const auto& [key, value] : sources->struct_value().fields()) {
      if (value.kind_case() == Value::kStringValue) out.sources[key] = value.string_value();
    }
  }
  return out;
}

}  // namespace serq::models
