// Fuzz target: the IR reader (JSON or binary) and the linker on any bytes;
// IR that links must link again to the same IR (relink, as serq-sim does).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/diagnostics.h"
#include "ir/io.h"
#include "lang/link/link.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  serq::Diagnostics diags("fuzz.ir");
  serq::ir::Program program;
  if (!serq::ReadProgram(bytes, &program, &diags)) return 0;
  if (!serq::LinkProgram(&program, serq::LinkOptions(), &diags)) {
    (void)diags.Render();
    return 0;
  }
  std::string once = serq::EncodeMessage(program, serq::Format::kBinary);
  serq::Diagnostics again("relink");
  if (!serq::LinkProgram(&program, serq::LinkOptions(), &again)) {
    std::fprintf(stderr, "linked IR does not link again:\n%s", again.Render().c_str());
    std::abort();
  }
  if (serq::EncodeMessage(program, serq::Format::kBinary) != once) {
    std::fprintf(stderr, "linking linked IR changed it\n");
    std::abort();
  }
  return 0;
}
