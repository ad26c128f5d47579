// Flags of the link a program gives no use: said, since the run takes them
// and its figures are those without them (docs/cli.md, the driver's flags).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/walk.h"
#include "lang/link/link.h"

namespace serq {

std::vector<std::string> UnusedLinkFlags(const ir::Program& program, absl::string_view share,
                                         absl::string_view data_dir, absl::string_view subject) {
  std::vector<std::string> unused;
  if (!share.empty()) {
    bool flows = false;
    ForEachStatement(program, [&](const ir::Statement& s, const std::string&) {
      flows = flows || (s.has_run() && s.run().also_size() > 0);
    });
    if (!flows) {
      unused.push_back(absl::StrCat("--share ", share, " changes nothing: no run of ", subject,
                                    " names several stages (the policy divides only their flows)"));
    }
  }
  if (!data_dir.empty()) {
    // A file named by a relative path resolves there (DataPath).
    auto relative = [](const std::string& file) { return !file.empty() && file[0] != '/'; };
    bool files = false;
    for (const ir::Workload& w : program.workload()) {
      files = files || (w.process() == ir::Workload::TRACE && relative(w.file()));
    }
    for (const ir::Table& t : program.table()) files = files || relative(t.file());
    if (!files) {
      unused.push_back(absl::StrCat("--data-dir ", data_dir, " changes nothing: ", subject,
                                    " reads no file by a relative path (a trace workload's or a table's)"));
    }
  }
  return unused;
}

}  // namespace serq
