// Fuzz target: the strict reader of BLIS TraceV2's YAML header
// (serq-sim/workload/trace_blis_header.cc) on any bytes.
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "serq-sim/workload/trace_blis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  serq::sim::BlisTraceHeader header;
  int line = 0;
  (void)serq::sim::ParseBlisTraceHeader(
      absl::string_view(reinterpret_cast<const char*>(data), size), &header, &line);
  return 0;
}
