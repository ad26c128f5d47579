// serq-link: name resolution and every static rule of the language
// (docs/language.md §Static rules), on IR from serq-parse or from any other
// tool. The simulator runs only IR that went through here.
#ifndef SERQ_LANG_LINK_LINK_H_
#define SERQ_LANG_LINK_LINK_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"

namespace serq {

struct LinkOptions {
  // `-D name=value`: replace param `name`'s value by the number before
  // linking, so that array sizes follow the override. Naming no param is an
  // error.
  std::vector<std::pair<std::string, double>> defines;
  // `--share=maxmin|bottleneck`: the sharing policy, replacing the
  // program's `share` declaration (or standing for it when there is none).
  // SHARE_UNSPECIFIED: the program's own.
  ir::Program::Share share = ir::Program::SHARE_UNSPECIFIED;
  // `--data-dir`: where relative table file names resolve (default: the
  // program's directory, from Program.file).
  std::string data_dir;
};

// Resolves every reference of `program` in place (Ref.kind and .decl,
// Set.slot, Choose.slot, Session.variable, Session.workload,
// Workload.session) and checks every static rule. Every error goes to
// `diags` (all of them, not only the first), located by source position
// when the IR has one, else by IR path. Sets `program->linked` and returns
// true only when there is none. Linking linked IR again gives the same IR.
bool LinkProgram(ir::Program* program, const LinkOptions& options, Diagnostics* diags);

// The flags of the link that change nothing of `program` (as parsed or
// linked), each a sentence for a warning: `--share` (its text as given,
// "maxmin" or a sweep's "maxmin,bottleneck") where no run names several
// stages, since the policy divides only their flows; `--data-dir` where
// the program reads no file by a relative path (a trace workload's, a
// table's). "" is a flag not given. `subject` names the program ("x.sq").
std::vector<std::string> UnusedLinkFlags(const ir::Program& program, absl::string_view share,
                                         absl::string_view data_dir, absl::string_view subject);

}  // namespace serq

#endif  // SERQ_LANG_LINK_LINK_H_
