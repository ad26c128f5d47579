// `serq fit` on the command line: its flags (defined in fit_cli.cc) over
// fit.h. --param, --to and --test repeat, so main.cc takes them out of the
// arguments before the flags are parsed (TakeFitLists).
#ifndef SERQ_SERQ_FIT_CLI_H_
#define SERQ_SERQ_FIT_CLI_H_

#include <vector>

#include "serq/cli.h"

namespace serq {

// When args[1] is "fit": removes every --param, --to and --test (as
// `--flag value` or `--flag=value`) from `args` and keeps their values for
// FitMain. Returns an error message for a flag without its value ("" ok).
std::string TakeFitLists(std::vector<char*>* args);

int FitMain(const CommandLine& line);
int FitStepsMain(const CommandLine& line);
std::vector<FlagUse> FitFlagUses();  // --objective, --max-evals, --algorithm; --terms, --step-stage, --residuals

}  // namespace serq

#endif  // SERQ_SERQ_FIT_CLI_H_
