// `serq COMMAND --help`: one command's usage, what it does and the flags it
// reads, where `serq --help` prints every command's and every flag.
#ifndef SERQ_SERQ_HELP_H_
#define SERQ_SERQ_HELP_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "serq/cli.h"

namespace serq {

// Every command's flag table (cli.h's shared flags and each *_cli.cc's).
std::vector<FlagUse> AllFlagUses();

// COMMAND's usage lines and description (from kSerqUsage), the flags it
// reads with their default and meaning for it, and for physics and plan
// the model and GPU presets. "" for a name that is no command.
std::string CommandHelp(absl::string_view command);

}  // namespace serq

#endif  // SERQ_SERQ_HELP_H_
