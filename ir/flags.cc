#include "ir/flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/cli.h"

namespace serq {

absl::CommandLineFlag* FindFlagNamed(absl::string_view name) {
  return absl::FindCommandLineFlag(absl::StrReplaceAll(name, {{"-", "_"}}));
}

namespace {
// The flags given, by Abseil's name: a process parses one command line.
std::set<std::string>& Given() {
  static auto* given = new std::set<std::string>;
  return *given;
}
}  // namespace

bool FlagGiven(absl::string_view name) {
  const absl::CommandLineFlag* flag = FindFlagNamed(name);
  return flag != nullptr && Given().count(std::string(flag->Name())) > 0;
}

bool SetFlagAsGiven(absl::string_view name, absl::string_view value, std::string* error) {
  absl::CommandLineFlag* flag = FindFlagNamed(name);
  if (flag == nullptr) {
    *error = "no such flag";
    return false;
  }
  if (!flag->ParseFrom(value, error)) return false;
  Given().insert(std::string(flag->Name()));
  return true;
}

std::string FlagHelpEntry(absl::string_view name, const absl::CommandLineFlag& flag,
                          absl::string_view default_value, absl::string_view help) {
  std::string out = absl::StrCat("  --", name);
  if (!flag.IsOfType<bool>()) absl::StrAppend(&out, "=", default_value.empty() ? "\"\"" : default_value);
  absl::StrAppend(&out, "\n      ", help, "\n");
  return out;
}

absl::StatusOr<std::vector<char*>> ParseFlags(const std::vector<char*>& args) {
  std::vector<char*> positional;
  if (!args.empty()) positional.push_back(args[0]);
  // Each flag once: a second value would replace the first unseen
  // (`--metrics a --metrics b` reported b alone, `--results a --results b`
  // never wrote a).
  std::set<std::string> seen;
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {  // "-" is stdin: positional
      positional.push_back(args[i]);
      continue;
    }
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    absl::string_view written = arg.substr(0, arg.find('='));
    bool has_value = written.size() < arg.size();
    absl::string_view value = has_value ? arg.substr(written.size() + 1) : "";
    // Flags are documented with dashes (--data-dir); Abseil's names cannot
    // hold one, so both spellings name the flag.
    std::string dashed = absl::StrReplaceAll(written, {{"-", "_"}});
    absl::string_view name = dashed;
    // Errors name it as documented, with dashes (--kv-blocks).
    const std::string shown = absl::StrReplaceAll(written, {{"_", "-"}});
    if (name == "help" || name == "h" || name == "helpfull") {
      return absl::CancelledError("help");
    }
    absl::CommandLineFlag* flag = FindFlagNamed(name);
    if (flag == nullptr && absl::StartsWith(name, "no") && !has_value) {
      absl::CommandLineFlag* negated = FindFlagNamed(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        value = "false";
        has_value = true;
      }
    }
    if (flag == nullptr || flag->IsRetired()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", args[i], "'"));
    }
    // A switch: a bool, or an optional<bool> whose absence means "decide
    // for me" (serq sweep --log-y); either takes on and off too.
    const bool toggle = flag->IsOfType<bool>() || flag->IsOfType<std::optional<bool>>();
    if (toggle && value == "on") value = "true";
    if (toggle && value == "off") value = "false";
    if (!has_value) {
      if (toggle) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("flag '--", shown, "' needs a value"));
      }
    }
    // An empty value names no number, switch or choice: `--seed ''` was
    // taken as no seed. A text flag whose default is empty would take it
    // as not given, and `--replay="$TRACE"` with TRACE unset ran the rate's
    // workload, `--out=` wrote to stdout: an unset variable, not a choice.
    // A text flag whose default is not empty may be given empty, where
    // empty means something of its own (`--quantiles=`: no quantile).
    if (value.empty() && !(flag->IsOfType<std::string>() && !flag->DefaultValue().empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag '--", shown, "' needs a value, not an empty one",
                       flag->IsOfType<std::string>() ? " (the flag left out has its default)" : ""));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      // Abseil's own text ("Illegal value 'x' specified for flag 'n'") says
      // no more than this.
      return absl::InvalidArgumentError(
          absl::StrCat("invalid value '", value, "' for flag '--", shown, "'"));
    }
    if (!seen.insert(std::string(flag->Name())).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "flag '--", absl::StrReplaceAll(flag->Name(), {{"_", "-"}}), "' is given twice"));
    }
    Given().insert(std::string(flag->Name()));
  }
  return positional;
}

std::string FlagsHelp(absl::string_view usage) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!flag->IsRetired() && !absl::StrContains(flag->Filename(), "absl/")) {
      flags.push_back(flag);
    }
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  std::string out = absl::StrCat(usage, "\n");
  if (!flags.empty()) absl::StrAppend(&out, "\nflags:\n");
  for (const absl::CommandLineFlag* flag : flags) {
    absl::StrAppend(&out, FlagHelpEntry(absl::StrReplaceAll(flag->Name(), {{"_", "-"}}), *flag,
                                        flag->DefaultValue(), flag->Help()));
  }
  absl::StrAppend(&out, kHelpFlagEntry);
  return out;
}

std::vector<char*> ParseFlagsOrExit(const std::vector<char*>& args, absl::string_view usage,
                                    absl::string_view help_command) {
  auto positional = ParseFlags(args);
  if (positional.ok()) return *positional;
  if (absl::IsCancelled(positional.status())) {
    std::string tool = args.empty() ? "serq" : args[0];
    tool = tool.substr(tool.rfind('/') + 1);
    if (absl::Status s = WriteStdout(FlagsHelp(usage)); !s.ok()) {
      PrintToolError(tool, s.message());
      std::exit(kExitUsage);
    }
    std::exit(kExitOk);
  }
  std::string tool = args.empty() ? "serq" : args[0];
  tool = tool.substr(tool.rfind('/') + 1);
  PrintToolError(tool, positional.status().message());
  std::cerr << "run '" << (help_command.empty() ? tool + " --help" : std::string(help_command))
            << "' for usage\n";
  std::exit(kExitUsage);
}

}  // namespace serq
