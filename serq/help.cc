#include "serq/help.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/flags.h"
#include "serq/compare_cli.h"
#include "serq/fit_cli.h"
#include "serq/models/presets.h"
#include "serq/physics_cli.h"
#include "serq/plan_cli.h"
#include "serq/run_cli.h"
#include "serq/sweep_cli.h"
#include "serq/vllm_cli.h"

namespace serq {
namespace {

// The command a usage line is of ("serq sweep x.sq ..." -> "sweep"), or ""
// for a continuation line.
std::string UsageCommand(absl::string_view line) {
  line = absl::StripPrefix(line, "usage:");
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, "serq ")) return "";
  return std::string(line.substr(0, line.find(' ')));
}

// The commands a part of a flag's help begins with ("sweep, search: ..."
// -> {sweep, search}), or none when it does not begin with a list of them:
// commands as the usage lines name them (UsageCommand).
std::vector<std::string> LeadingCommands(absl::string_view part) {
  static const std::set<std::string> kCommands = [] {
    std::set<std::string> commands;
    for (absl::string_view line : absl::StrSplit(kSerqUsage, '\n')) {
      if (std::string c = UsageCommand(line); !c.empty()) commands.insert(c);
    }
    return commands;
  }();
  size_t colon = part.find(": ");
  if (colon == absl::string_view::npos || colon > 40) return {};
  std::vector<std::string> names;
  for (absl::string_view name : absl::StrSplit(part.substr(0, colon), ", ")) {
    if (kCommands.count(std::string(name)) == 0) return {};
    names.emplace_back(name);
  }
  return names;
}

// A flag's help as `command` reads it: a help of several parts, each for
// its commands ("sweep: the directory...; physics, vllm: the program's
// file..."), gives the part of `command`, without the commands it begins
// with; a help of one part, the part without them ("physics: the
// workload: ..." -> "the workload: ..."): here the command is known.
std::string ForCommand(absl::string_view help, absl::string_view command) {
  std::vector<std::string> parts;  // each from one list of commands to the next
  std::vector<std::vector<std::string>> readers;
  for (absl::string_view piece : absl::StrSplit(help, "; ")) {
    std::vector<std::string> names = LeadingCommands(piece);
    if (names.empty() && !parts.empty()) {
      absl::StrAppend(&parts.back(), "; ", piece);
      continue;
    }
    readers.push_back(names);
    parts.emplace_back(names.empty() ? piece : piece.substr(piece.find(": ") + 2));
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (std::find(readers[i].begin(), readers[i].end(), command) != readers[i].end()) return parts[i];
  }
  return readers.empty() || readers[0].empty() ? std::string(help) : parts[0];
}

}  // namespace

std::vector<FlagUse> AllFlagUses() {
  std::vector<FlagUse> uses = SharedFlagUses();
  for (auto more : {RunFlagUses(), SweepFlagUses(), CompareFlagUses(), PhysicsFlagUses(), FitFlagUses(),
                    VllmFlagUses(), PlanFlagUses()}) {
    uses.insert(uses.end(), more.begin(), more.end());
  }
  return uses;
}

std::string CommandHelp(absl::string_view command) {
  std::vector<absl::string_view> lines = absl::StrSplit(kSerqUsage, '\n');
  // The usage block (to the first blank line after it), then the
  // commands' descriptions (a name at column 0, then indented lines).
  std::string usage, description;
  size_t i = 0;
  while (i < lines.size() && !absl::StartsWith(lines[i], "usage:")) ++i;
  std::string current;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    if (std::string c = UsageCommand(lines[i]); !c.empty()) current = c;
    if (current != command) continue;
    std::string line(lines[i]);
    if (absl::StartsWith(line, "       serq ")) line = absl::StrCat("usage: ", line.substr(7));
    absl::StrAppend(&usage, line, "\n");
  }
  if (usage.empty()) return "";
  for (++i; i < lines.size() && !lines[i].empty(); ++i) {
    absl::string_view line = lines[i];
    if (line[0] != ' ') current = std::string(line.substr(0, line.find(' ')));
    if (current == command) absl::StrAppend(&description, line, "\n");
  }
  std::string out = absl::StrCat(usage, "\n", description);
  // The flags it reads: each once, in name order, this command's meaning
  // and default where its table gives them.
  std::map<std::string, const FlagUse*> flags;
  const std::vector<FlagUse> uses = AllFlagUses();
  for (const FlagUse& use : uses) {
    if (std::find(use.commands.begin(), use.commands.end(), command) == use.commands.end()) continue;
    const FlagUse*& kept = flags[use.name];
    const bool own = use.commands.size() == 1 && *use.help != '\0';
    if (kept == nullptr || own) kept = &use;
  }
  if (!flags.empty()) absl::StrAppend(&out, "\nflags:\n");
  for (const auto& [name, use] : flags) {
    const absl::CommandLineFlag* flag = FindFlagNamed(name);
    if (flag == nullptr) continue;
    const bool own = use->commands.size() == 1;
    absl::StrAppend(&out, FlagHelpEntry(name, *flag,
                                        own && *use->shown_default != '\0' ? use->shown_default : flag->DefaultValue(),
                                        own && *use->help != '\0' ? use->help : ForCommand(flag->Help(), command)));
  }
  absl::StrAppend(&out, kHelpFlagEntry);
  if (command == "physics" || command == "plan") {
    absl::StrAppend(&out, "\nmodel presets: ", absl::StrJoin(models::ModelPresetNames(), ", "),
                    "\nGPU presets: ", absl::StrJoin(models::GpuPresetNames(), ", "), "\n");
  }
  absl::StrAppend(&out, "\n`serq --help` lists every command; docs/cli.md says more.\n");
  return out;
}

}  // namespace serq
