#include "ir/cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <new>
#include <sstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "ir/limits.h"
#include "ir/output.h"
#include "ir/utf8.h"

namespace serq {

namespace {

const char* failing_tool = "serq";
std::terminate_handler default_terminate = nullptr;
std::atomic<bool> failing{false};

// Writes the parts to standard error with write(2): nothing here may
// allocate (the allocator may just have failed).
void Say(std::initializer_list<const char*> parts) {
  for (const char* p : parts) {
    ssize_t ignored = write(STDERR_FILENO, p, std::strlen(p));
    (void)ignored;
  }
}

// std::terminate's hook. An exception no code catches ends here, in the
// thread that threw it. Two are the process's limits, not bugs: an
// allocation that failed (std::bad_alloc, from operator new or a buffer's
// realloc) and a system call that failed (std::system_error: a thread that
// cannot start). Each is said as an error, the temporary files being
// written are removed (as a fatal signal's handler removes them, so an old
// output file stays whole), and the process ends by _exit(2): no
// destructor or atexit handler runs (they may allocate), and output still
// buffered is lost, as it is in any failure. Another exception is a bug:
// the default handler says its type and aborts. A hook, not a
// std::new_handler: a new_handler also runs for the nothrow operator new
// that std::stable_sort's scratch buffer uses, which falls back to sorting
// in place when it gets null.
[[noreturn]] void OnTerminate() {
  if (std::exception_ptr e = std::current_exception()) {
    if (failing.exchange(true)) {
      for (;;) pause();  // another thread is saying its failure and exiting
    }
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      RemoveTemporaryOutputs();
      Say({failing_tool, ": error: out of memory: an allocation failed (the memory this process may use is spent; "
                         "docs/cli.md §Limits says what grows with a run)\n"});
      _exit(kExitUsage);
    } catch (const std::system_error& x) {
      RemoveTemporaryOutputs();
      Say({failing_tool, ": error: a system call failed: ", x.what(),
           " (the limits of this process: threads, memory; fewer --jobs)\n"});
      _exit(kExitUsage);
    } catch (...) {
    }
  }
  default_terminate();
  std::abort();  // a default handler that returned
}

}  // namespace

void ExitOnOutOfMemory(const char* tool) {
  failing_tool = tool;
  std::terminate_handler previous = std::set_terminate(OnTerminate);
  if (previous != OnTerminate) default_terminate = previous != nullptr ? previous : std::abort;
}

absl::StatusOr<std::string> ReadInput(absl::string_view path) {
  const bool stdin_input = path.empty() || path == "-";
  int fd = STDIN_FILENO;
  if (!stdin_input) {
    fd = ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::NotFoundError(
          absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
    }
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!stdin_input) ::close(fd);
    // Not InvalidArgument (what callers take for input that is read and
    // wrong, exit 1): a file that cannot be read is misuse, exit 2.
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read '", InputName(path), "': it is a directory"));
  }
  // Read in chunks up to the bound: /dev/zero or a runaway pipe is refused
  // after kMaxInputBytes, not after all memory.
  std::string out;
  char chunk[1 << 16];
  absl::Status status;
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = absl::DataLossError(
          absl::StrCat("cannot read '", InputName(path), "': ", std::strerror(errno)));
      break;
    }
    if (n == 0) break;
    if (out.size() + n > static_cast<size_t>(kMaxInputBytes)) {
      status = absl::ResourceExhaustedError(
          absl::StrCat("cannot read '", InputName(path), "': larger than ",
                       kMaxInputBytes >> 20, " MB, the most serq reads"));
      break;
    }
    out.append(chunk, n);
  }
  if (!stdin_input) ::close(fd);
  if (!status.ok()) return status;
  return out;
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
  return WriteStdout(bytes);
}

absl::Status WriteStdout(absl::string_view bytes) {
  // Whatever stdio still buffers goes first; then the bytes by write(2),
  // every one checked (fwrite's result and a late fflush lose the error).
  if (std::fflush(stdout) != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot write output: ", std::strerror(errno)));
  }
  if (absl::Status s = WriteAll(STDOUT_FILENO, bytes); !s.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot write output: ", s.message()));
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

namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ExtractDefineTexts(
    std::vector<char*>* args) {
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<char*> rest;
  size_t i = 1;
  for (; i < args->size(); ++i) {
    absl::string_view arg = (*args)[i];
    if (arg == "--") break;
    absl::string_view text;
    if (arg == "-D" || arg == "--D") {
      if (i + 1 >= args->size()) return absl::InvalidArgumentError("-D needs name=value");
      text = (*args)[++i];
    } else if (absl::StartsWith(arg, "--D=")) {
      text = arg.substr(4);
    } else if (absl::StartsWith(arg, "-D=")) {
      text = arg.substr(3);
    } else if (absl::StartsWith(arg, "-D")) {
      text = arg.substr(2);
    } else {
      rest.push_back((*args)[i]);
      continue;
    }
    size_t eq = text.find('=');
    if (eq == absl::string_view::npos || !IsIdentifier(text.substr(0, eq))) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed -D '", text, "': expected name=number, e.g. -D Bw=1e9"));
    }
    const std::string name(text.substr(0, eq));
    for (const auto& given : defines) {
      // The second would replace the first unseen (a sweep's grid of one
      // param is one -D: 1,2 or 1:2:1).
      if (given.first == name) return absl::InvalidArgumentError(absl::StrCat("-D ", name, " is given twice"));
    }
    defines.emplace_back(name, std::string(text.substr(eq + 1)));
  }
  std::vector<char*> out;
  if (!args->empty()) out.push_back((*args)[0]);
  out.insert(out.end(), rest.begin(), rest.end());
  for (size_t j = i; j < args->size(); ++j) out.push_back((*args)[j]);
  *args = std::move(out);
  return defines;
}

std::string DefineValueProblem(absl::string_view text, double* value) {
  if (!absl::SimpleAtod(text, value) || std::isnan(*value)) return "expected name=number, e.g. -D Bw=1e9";
  if (std::isinf(*value)) {
    absl::string_view word = absl::StripAsciiWhitespace(text);
    absl::ConsumePrefix(&word, "+") || absl::ConsumePrefix(&word, "-");
    if (!absl::EqualsIgnoreCase(word, "inf") && !absl::EqualsIgnoreCase(word, "infinity")) {
      return "past the largest number (write inf for an unlimited value)";
    }
  }
  return "";
}

absl::StatusOr<std::vector<std::pair<std::string, double>>> ParseDefines(
    const std::vector<std::pair<std::string, std::string>>& texts) {
  std::vector<std::pair<std::string, double>> defines;
  for (const auto& [name, text] : texts) {
    double value = 0;
    if (const std::string why = DefineValueProblem(text, &value); !why.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("malformed -D '", name, "=", text, "': ", why));
    }
    defines.emplace_back(name, value);
  }
  return defines;
}

absl::StatusOr<std::vector<std::pair<std::string, double>>> ExtractDefines(
    std::vector<char*>* args) {
  auto texts = ExtractDefineTexts(args);
  if (!texts.ok()) return texts.status();
  return ParseDefines(*texts);
}

std::string RenderProgramDiagnostics(const Diagnostics& diags, const ir::Program& program,
                                     absl::string_view input_name) {
  std::string source_name(input_name);
  std::string source;
  if (!program.file().empty()) {
    source_name = program.file();
    std::ifstream in(program.file(), std::ios::binary);
    if (in) {
      std::ostringstream buffer;
      buffer << in.rdbuf();
      source = buffer.str();
    }
  }
  Diagnostics located(source_name, source);
  Diagnostics unlocated{std::string(input_name)};
  for (const Diagnostic& d : diags.list()) {
    if (!d.other_file.empty()) {
      located.ErrorInOtherFile(d.other_file, d.line, d.message);  // a trace's own line
    } else if (d.line != 0) {
      located.Error(d.line, d.column, d.message);
    } else if (d.ir_path.empty()) {
      located.ErrorInFile(d.message);  // about the whole program: its source file
    } else {
      unlocated.ErrorAtPath(d.ir_path, d.message);
    }
  }
  unlocated.AddDropped(diags.dropped());
  if (diags.stopped()) unlocated.StopAtLimit();
  return located.Render() + unlocated.Render();
}

int ReadProgramArgument(absl::string_view tool, const std::vector<char*>& positional,
                        ir::Program* program, std::string* name) {
  auto input = SingleInputArgument(positional);
  if (!input.ok()) {
    PrintToolError(tool, input.status().message());
    return kExitUsage;
  }
  auto bytes = ReadInput(*input);
  if (!bytes.ok()) {
    PrintToolError(tool, bytes.status().message());
    return kExitUsage;  // an input that cannot be opened is misuse, as in every tool
  }
  *name = InputName(*input);
  Diagnostics diags(*name);
  if (!ReadProgram(*bytes, program, &diags)) {
    std::cerr << diags.Render();
    return kExitInputRejected;
  }
  return kExitOk;
}

int WriteMessageOutput(absl::string_view tool, const google::protobuf::Message& message,
                       Format format) {
  absl::Status written = WriteOutput(EncodeMessage(message, format), format);
  if (!written.ok()) {
    PrintToolError(tool, written.message());
    return kExitUsage;
  }
  return kExitOk;
}


std::string ToolError(absl::string_view tool, absl::string_view message) {
  return absl::StrCat(tool, ": error: ", ControlEscaped(message, /*keep_lines=*/true), "\n");
}

std::string ToolWarning(absl::string_view tool, absl::string_view message) {
  return absl::StrCat(tool, ": warning: ", ControlEscaped(message, /*keep_lines=*/true), "\n");
}

void PrintToolError(absl::string_view tool, absl::string_view message) {
  std::cerr << ToolError(tool, message);
}

}  // namespace serq
