// Fuzz target: the trace readers (the format is picked by the first line:
// serq CSV, Azure CSV, Mooncake JSON lines) on any bytes.
#include <cstdint>
#include <sstream>
#include <string>

#include "serq-sim/workload/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  serq::sim::Trace trace;
  serq::sim::TraceError error;
  serq::sim::ReadTrace(&in, "fuzz.trace", &trace, &error);
  return 0;
}
