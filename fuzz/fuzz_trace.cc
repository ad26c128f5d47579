// Fuzz target: the trace readers (the format is picked by the first line:
// serq CSV, Azure CSV, Mooncake JSON lines, vLLM request records, BLIS
// TraceV2) on any bytes. BLIS's data needs its YAML header beside it: a
// valid one is written once, beside the name the input is read under, so
// that its rows are reached (fuzz_blis_header fuzzes the header).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_blis.h"

namespace {

const std::string& TracePath() {
  static const std::string* path = [] {
    const char* dir = std::getenv("TMPDIR");
    auto* p = new std::string(std::string(dir != nullptr ? dir : "/tmp") + "/serq-fuzz-trace-" +
                              std::to_string(::getpid()) + ".trace.csv");
    std::ofstream(serq::sim::BlisHeaderPath(*p)) << "trace_version: 3\ntime_unit: microseconds\n";
    return p;
  }();
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  serq::sim::Trace trace;
  serq::sim::TraceError error;
  serq::sim::ReadTrace(&in, TracePath(), &trace, &error);
  return 0;
}
