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

// Whether `program`, as it is given to LinkProgram, has a use for each
// flag of the link: `--share` where a run names several stages (the policy
// divides only their flows); `--data-dir` where a file is read by a
// relative path: a table's that holds no rows yet (the linker reads it;
// linked IR keeps the rows it read), and with `traces` a trace workload's
// (the driver's --data-dir places traces too; serq-link's places tables
// only, serq-sim's traces).
struct LinkFlagUses {
  bool share = false;
  bool data_dir = false;
  bool traces = false;  // whether a trace's file counted for data_dir
};
LinkFlagUses UsesOfLinkFlags(const ir::Program& program, bool traces);

// A sentence for a warning for each flag given ("": not given) that `uses`
// says changes nothing: `--share maxmin changes nothing: no run of x.sq
// names several stages (…)`. `share` as given (a sweep's list:
// "maxmin,bottleneck"); `subject` names the program or programs.
std::vector<std::string> UnusedLinkFlags(const LinkFlagUses& uses, absl::string_view share,
                                         absl::string_view data_dir, absl::string_view subject);

}  // namespace serq

#endif  // SERQ_LANG_LINK_LINK_H_
