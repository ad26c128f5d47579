#include "ir/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, double>>> ExtractDefines(
    std::vector<char*>* args) {
  std::vector<std::pair<std::string, double>> defines;
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
    double value = 0;
    if (eq == absl::string_view::npos || !IsIdentifier(text.substr(0, eq)) ||
        !absl::SimpleAtod(text.substr(eq + 1), &value) || std::isnan(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed -D '", text, "': expected name=number, e.g. -D Bw=1e9"));
    }
    defines.emplace_back(std::string(text.substr(0, eq)), value);
  }
  std::vector<char*> out;
  if (!args->empty()) out.push_back((*args)[0]);
  out.insert(out.end(), rest.begin(), rest.end());
  for (size_t j = i; j < args->size(); ++j) out.push_back((*args)[j]);
  *args = std::move(out);
  return defines;
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
    if (d.line != 0) {
      located.Error(d.line, d.column, d.message);
    } else if (d.ir_path.empty()) {
      located.ErrorInFile(d.message);  // about the whole program: its source file
    } else {
      unlocated.ErrorAtPath(d.ir_path, d.message);
    }
  }
  return located.Render() + unlocated.Render();
}

void PrintToolError(absl::string_view tool, absl::string_view message) {
  std::cerr << tool << ": error: " << message << "\n";
}

namespace {

// The usage message, then every flag the tool itself defines (Abseil's own
// flags are left out), sorted by name.
void PrintHelp() {
  std::cout << absl::ProgramUsageMessage() << "\n";
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    std::string file = flag->Filename();
    if (absl::StartsWith(file, "absl/") || absl::StrContains(file, "/absl/")) continue;
    flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const absl::CommandLineFlag* a, const absl::CommandLineFlag* b) {
              return a->Name() < b->Name();
            });
  if (flags.empty()) return;
  std::cout << "\nFlags:\n";
  for (const absl::CommandLineFlag* f : flags) {
    std::cout << "  --" << f->Name() << "  " << f->Help() << " (default: \""
              << f->DefaultValue() << "\")\n";
  }
}

[[noreturn]] void Misuse(absl::string_view tool, absl::string_view message) {
  PrintToolError(tool, message);
  std::exit(kExitUsage);
}

}  // namespace

std::vector<char*> ParseFlags(const std::vector<char*>& args, absl::string_view tool) {
  std::vector<char*> rest;
  if (!args.empty()) rest.push_back(args[0]);
  bool flags_done = false;
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (flags_done || arg == "-" || !absl::StartsWith(arg, "-")) {
      rest.push_back(args[i]);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    arg.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
    absl::string_view name = arg;
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = arg.substr(0, eq);
      value = std::string(arg.substr(eq + 1));
      has_value = true;
    }
    if (name == "help" || name == "helpfull" || name == "helpshort" || name == "h") {
      PrintHelp();
      std::exit(kExitOk);
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && !has_value && absl::StartsWith(name, "no")) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      if (flag != nullptr && flag->IsOfType<bool>()) {
        value = "false";
        has_value = true;
      } else {
        flag = nullptr;
      }
    }
    if (flag == nullptr) Misuse(tool, absl::StrCat("unknown flag '--", name, "' (see --help)"));
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        Misuse(tool, absl::StrCat("flag '--", name, "' needs a value"));
      }
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      Misuse(tool, absl::StrCat("invalid value '", value, "' for --", name, ": ", error));
    }
  }
  return rest;
}

}  // namespace serq
