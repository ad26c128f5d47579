#include "ir/cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace serq {

absl::StatusOr<std::string> ReadInput(absl::string_view path) {
  std::ostringstream buffer;
  if (path.empty() || path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  buffer << in.rdbuf();
  return buffer.str();
}

std::string InputName(absl::string_view path) {
  if (path.empty() || path == "-") return "<stdin>";
  return std::string(path);
}

absl::Status WriteOutput(absl::string_view bytes, Format format) {
  if (format == Format::kBinary && isatty(STDOUT_FILENO)) {
    return absl::FailedPreconditionError(
        "refusing to write binary IR to a terminal; redirect it or use --format=json");
  }
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  if (std::fflush(stdout) != 0) {
    return absl::InternalError(absl::StrCat("cannot write output: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SingleInputArgument(const std::vector<char*>& args) {
  if (args.size() <= 1) return std::string("-");
  if (args.size() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected one input file, got ", args.size() - 1));
  }
  return std::string(args[1]);
}

void PrintToolError(absl::string_view tool, absl::string_view message) {
  std::cerr << tool << ": error: " << message << "\n";
}

}  // namespace serq
