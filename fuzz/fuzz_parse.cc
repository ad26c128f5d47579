// Fuzz target: the lexer and parser on any bytes; a program that parses
// must print as canonical source (serq fmt) that parses again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/diagnostics.h"
#include "ir/io.h"
#include "lang/parse/format.h"
#include "lang/parse/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  serq::Diagnostics diags("fuzz.sq", source);
  serq::ir::Program program;
  if (!serq::ParseProgram("fuzz.sq", source, &program, &diags)) {
    (void)diags.Render();
    return 0;
  }
  (void)serq::EncodeMessage(program, serq::Format::kJson);
  std::string formatted = serq::FormatProgram(program);
  serq::Diagnostics again_diags("fmt.sq", formatted);
  serq::ir::Program again;
  if (!serq::ParseProgram("fmt.sq", formatted, &again, &again_diags)) {
    std::fprintf(stderr, "serq fmt's output does not parse:\n%s\n%s", formatted.c_str(),
                 again_diags.Render().c_str());
    std::abort();
  }
  return 0;
}
