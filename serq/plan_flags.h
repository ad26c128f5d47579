// `serq plan`'s own flags (their definitions, which commands read them,
// for --help), and what a plan's command line records and replays: the
// settings --emit writes to plan.flags and --candidate and --merge set
// again, and the command without its --emit. plan_cli.cc is the command.
#ifndef SERQ_SERQ_PLAN_FLAGS_H_
#define SERQ_SERQ_PLAN_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "serq/cli.h"

ABSL_DECLARE_FLAG(int32_t, gpus);
ABSL_DECLARE_FLAG(int32_t, max_gpus);
ABSL_DECLARE_FLAG(std::string, tps);
ABSL_DECLARE_FLAG(std::string, kinds);
ABSL_DECLARE_FLAG(std::string, seqs);
ABSL_DECLARE_FLAG(std::string, batched_tokens);
ABSL_DECLARE_FLAG(std::string, disaggregated_gpus);
ABSL_DECLARE_FLAG(std::string, kv_link);
ABSL_DECLARE_FLAG(double, price);
ABSL_DECLARE_FLAG(int32_t, top);
ABSL_DECLARE_FLAG(double, max_rate_per_gpu);
ABSL_DECLARE_FLAG(int32_t, rate_steps);
ABSL_DECLARE_FLAG(std::string, routers);
ABSL_DECLARE_FLAG(std::string, run);
ABSL_DECLARE_FLAG(bool, no_early_stop);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, candidate);

namespace serq {

std::vector<FlagUse> PlanFlagUses();

// "1,2,4" as whole numbers at least 1, none twice, or an error naming
// --`flag`.
bool CommaNumbers(const std::string& flag, const std::string& text, std::vector<int64_t>* out, std::string* error);

// The flags given that make a plan's settings (every one serq plan reads
// but those naming the run itself; --out with `record_out`), as name and
// value.
std::vector<std::pair<std::string, std::string>> SettingFlags(bool record_out);

// The command line without --emit and --jobs (`--emit=X` or `--emit X`):
// the command the plan's page records, the same however the plan was run.
std::string RecordedCommand(const std::vector<std::string>& argv);

}  // namespace serq

#endif  // SERQ_SERQ_PLAN_FLAGS_H_
