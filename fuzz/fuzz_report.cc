// Fuzz target: the results reader and every report format, alone and
// merged with itself (which must be refused: the same replication index
// twice, or accepted when there is no replication).
#include <cstdint>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/io.h"
#include "serq-report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  serq::Diagnostics diags("fuzz.results");
  serq::results::Results results;
  if (!serq::ReadResults(bytes, &results, &diags)) return 0;
  for (const char* format : {"text", "csv", "json", "md"}) {
    serq::report::ReportOptions options;
    options.format = format;
    options.quantiles = {50, 99};
    (void)serq::report::RenderReport({results}, options);
    if (std::string(format) == "text") (void)serq::report::RenderReport({results, results}, options);
  }
  return 0;
}
