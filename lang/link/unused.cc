// Flags of the link a program gives no use: said, since the run takes them
// and its figures are those without them (docs/cli.md, the driver's flags).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/walk.h"
#include "lang/link/link.h"

namespace serq {

LinkFlagUses UsesOfLinkFlags(const ir::Program& program, bool traces) {
  LinkFlagUses uses;
  uses.traces = traces;
  ForEachStatement(program, [&](const ir::Statement& s, const std::string&) {
    uses.share = uses.share || (s.has_run() && s.run().also_size() > 0);
  });
  // A file named by a relative path resolves against --data-dir (DataPath).
  auto relative = [](const std::string& file) { return !file.empty() && file[0] != '/'; };
  for (const ir::Table& t : program.table()) {
    uses.data_dir = uses.data_dir || (relative(t.file()) && t.grid_value_size() == 0);
  }
  if (traces) {
    for (const ir::Workload& w : program.workload()) {
      uses.data_dir = uses.data_dir || (w.process() == ir::Workload::TRACE && relative(w.file()));
    }
  }
  return uses;
}

std::vector<std::string> UnusedLinkFlags(const LinkFlagUses& uses, absl::string_view share,
                                         absl::string_view data_dir, absl::string_view subject) {
  std::vector<std::string> unused;
  if (!share.empty() && !uses.share) {
    unused.push_back(absl::StrCat("--share ", share, " changes nothing: no run of ", subject,
                                  " names several stages (the policy divides only their flows)"));
  }
  if (!data_dir.empty() && !uses.data_dir) {
    unused.push_back(absl::StrCat("--data-dir ", data_dir, " changes nothing: ", subject,
                                  " reads no file by a relative path (",
                                  uses.traces ? "a trace workload's or a table's"
                                              : "a table's that holds no rows yet; a trace's is serq-sim's --data-dir",
                                  ")"));
  }
  return unused;
}

}  // namespace serq
