#include "serq/help.h"

#include <algorithm>
#include <map>

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

// A flag's help without the commands it begins with ("physics: the
// workload: ..." -> "the workload: ..."): here the command is known.
std::string WithoutCommands(absl::string_view help) {
  size_t colon = help.find(": ");
  if (colon == absl::string_view::npos || colon > 40) return std::string(help);
  for (char c : help.substr(0, colon)) {
    if (!absl::ascii_islower(c) && c != ',' && c != ' ' && c != '-') return std::string(help);
  }
  return std::string(help.substr(colon + 2));
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
                                        own && *use->help != '\0' ? use->help : WithoutCommands(flag->Help())));
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
