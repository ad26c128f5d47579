// Linked into every fuzz target that reads with protobuf: a line protobuf
// logs is a finding, and the target aborts on it. serq checks an input's
// shape and strings before protobuf decodes it (ir/input_shape.h), so that
// every error has a place; protobuf logging ("String field ... contains
// invalid UTF-8 data") means an input got past those checks to protobuf's
// own, whose error has no place. Such inputs did not crash, so libFuzzer
// passed them by until this handler made them crash.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/stubs/logging.h"

namespace {

void AbortOnLog(google::protobuf::LogLevel level, const char* file, int line,
                const std::string& message) {
  std::fprintf(stderr, "protobuf logged (%s:%d, level %d): %s\n", file, line,
               static_cast<int>(level), message.c_str());
  std::abort();
}

const bool kInstalled = [] {
  google::protobuf::SetLogHandler(&AbortOnLog);
  return true;
}();

}  // namespace
