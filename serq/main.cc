// serq: the driver. Each command's flags and work are beside it: run,
// check, fmt and view in run_cli.cc over commands.cc; sweep and search in
// sweep_cli.cc; compare in compare_cli.cc. This file parses the flags and dispatches.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "serq/cli.h"
#include "serq/compare_cli.h"
#include "serq/fit_cli.h"
#include "serq/help.h"
#include "serq/physics_cli.h"
#include "serq/plan_cli.h"
#include "serq/run_cli.h"
#include "serq/sweep_cli.h"
#include "serq/vllm_cli.h"

namespace {

struct Command {
  const char* name;
  int (*main)(const serq::CommandLine&);
};
constexpr Command kCommands[] = {
    {"run", serq::RunMain},     {"check", serq::RunMain},     {"fmt", serq::RunMain},
    {"view", serq::RunMain},    {"sweep", serq::SweepMain},   {"search", serq::SearchMain},
    {"compare", serq::CompareMain}, {"physics", serq::PhysicsMain},
    {"fit", serq::FitMain}, {"fit-steps", serq::FitStepsMain}, {"vllm", serq::VllmMain},
    {"plan", serq::PlanMain},
};

}  // namespace

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq");
  std::vector<char*> raw(argv, argv + argc);
  // `serq COMMAND --help`: that command's usage and flags alone.
  if (raw.size() >= 3 && std::find_if(raw.begin() + 2, raw.end(), [](const char* a) {
        return std::string_view(a) == "--help";
      }) != raw.end()) {
    if (std::string help = serq::CommandHelp(raw[1]); !help.empty()) {
      if (absl::Status s = serq::WriteStdout(help); !s.ok()) {
        serq::PrintToolError("serq", s.message());
        return serq::kExitUsage;
      }
      return serq::kExitOk;
    }
  }
  // A usage error's hint names the command's own help as soon as the
  // command is known (it comes first, or after the flags Abseil parses).
  auto known = [](std::string_view name) {
    return std::any_of(std::begin(kCommands), std::end(kCommands),
                       [&](const Command& c) { return name == c.name; });
  };
  if (raw.size() >= 2 && known(raw[1])) serq::SetUsageCommand(raw[1]);
  auto defines = serq::ExtractDefineTexts(&raw);
  if (std::string lists = serq::TakeFitLists(&raw); !lists.empty()) return serq::Usage(lists);
  if (!defines.ok()) return serq::Usage(defines.status().message());
  std::vector<char*> args = serq::ParseFlagsOrExit(raw, serq::kSerqUsage, serq::UsageHelpCommand());
  if (args.size() >= 2 && known(args[1])) serq::SetUsageCommand(args[1]);
  if (args.size() < 2) return serq::Usage("expected a command: run, check, fmt, view, sweep, search, compare, physics, fit, fit-steps, vllm or plan");
  serq::CommandLine line{args[1], {args.begin() + 2, args.end()}, *defines, serq::SelfPath(argv[0]),
                         {argv, argv + argc}};
  const std::vector<serq::FlagUse> uses = serq::AllFlagUses();
  for (const Command& command : kCommands) {
    if (line.command != command.name) continue;
    if (std::string refused = serq::FlagNotFor(line.command, uses); !refused.empty()) return serq::Usage(refused);
    return command.main(line);
  }
  return serq::Usage(absl::StrCat("unknown command '", line.command,
                                  "' (expected run, check, fmt, view, sweep, search, compare, physics, fit, fit-steps, vllm or plan)"));
}
