// Fuzz target: serq compare's readers of measured runs (vLLM requests.jsonl,
// BLIS results.json, serq results; serq/measured/measured.h) on any bytes, and a run
// that reads compared with itself and rendered in every format and as SVG.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/io.h"
#include "serq/measured/compare.h"
#include "serq/measured/compare_render.h"
#include "serq/measured/measured.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace compare = serq::compare;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<compare::Run> run;
  absl::string_view source = compare::DetectSource(bytes);
  if (source == "vLLM requests.jsonl") {
    run = compare::ParseVllmRequests(bytes, "fuzz");
  } else if (source == "BLIS results.json") {
    run = compare::ParseBlisResults(bytes, "fuzz");
  } else {
    std::vector<serq::results::Results> inputs(1);
    serq::Diagnostics diags("fuzz");
    if (!serq::ReadResults(bytes, &inputs[0], &diags)) return 0;
    run = compare::RunFromResults(inputs, {"fuzz"}, compare::MetricNames());
  }
  if (!run.ok()) return 0;
  absl::StatusOr<compare::Comparison> c = compare::Compare(*run, *run, compare::CompareOptions());
  if (!c.ok()) return 0;
  for (const char* format : {"text", "csv", "json"}) (void)compare::RenderComparison(*c, format);
  (void)compare::CdfSvg(*run, *run);
  return 0;
}
