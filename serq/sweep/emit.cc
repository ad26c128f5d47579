#include "serq/sweep/emit.h"

#include <algorithm>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/utf8.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/sweep.h"

namespace serq {

std::string ShellQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

std::string EmitParallel(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  std::string out;
  const uint64_t count = TaskCount(plan);
  for (uint64_t i = 0; i < count; ++i) {
    absl::StrAppend(&out, ShellQuote(self), " sweep --out ", ShellQuote(dir), " --task ", i, "\n");
  }
  return out;
}

std::string SlurmPathsProblem(const std::string& self, const std::string& dir) {
  auto control = [](absl::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  };
  if (control(dir) || std::any_of(dir.begin(), dir.end(), [](char c) { return c == ' '; })) {
    return absl::StrCat("--emit=slurm: the folder '", Utf8Escaped(absl::CEscape(dir)),
                        "' holds a space or a control character, which an #SBATCH --output= line cannot (sbatch "
                        "reads it word by word): give --out a folder without them");
  }
  if (control(self)) {
    return absl::StrCat("--emit=slurm: the executable's path '", Utf8Escaped(absl::CEscape(self)),
                        "' holds a control character, which would break the script's lines: set $SERQ");
  }
  return "";
}

std::string SlurmArrayScript(absl::string_view what, absl::string_view job, const std::string& self,
                             absl::string_view verb, const std::string& dir, absl::string_view index_flag,
                             uint64_t count) {
  return absl::StrCat(
      "#!/bin/sh\n",
      // A program's name may hold a line break: escaped, it stays a comment.
      "# ", absl::CEscape(what), ", one array element each.\n",
      "# Submit with `sbatch THIS_FILE` (add --wait to block), then merge with\n",
      "#   ", ShellQuote(self), " ", verb, " --merge ", ShellQuote(dir), "\n",
      "#SBATCH --job-name=", job, "\n",
      "#SBATCH --array=0-", count - 1, "\n",
      "#SBATCH --ntasks=1\n",
      "#SBATCH --cpus-per-task=1\n",
      "#SBATCH --output=", dir, "/slurm-%A_%a.out\n",
      "exec ", ShellQuote(self), " ", verb, " --out ", ShellQuote(dir), " ", index_flag, " \"$SLURM_ARRAY_TASK_ID\"\n");
}

std::string EmitSlurm(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  const uint64_t count = TaskCount(plan);
  const uint64_t points = PlanPointCount(plan);
  const std::string what = absl::StrCat(
      "serq sweep of ", PlanPrograms(plan), ": ", count, count == 1 ? " task (" : " tasks (", points,
      points == 1 ? " point x " : " points x ", plan.replications(),
      plan.replications() == 1 ? " replication" : " replications", ")");
  return SlurmArrayScript(what, "serq-sweep", self, "sweep", dir, "--task", count);
}

}  // namespace serq
