#include "lang/link/link.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "ir/json.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {

Place Place::Field(absl::string_view name, const ir::Location* own) const {
  Place p = own != nullptr ? At(*own) : *this;
  p.path = path.empty() ? std::string(name) : absl::StrCat(path, ".", name);
  return p;
}

Place Place::Item(int i, const ir::Location* own) const {
  Place p = own != nullptr ? At(*own) : *this;
  p.path = absl::StrCat(path, "[", i, "]");
  return p;
}

Place Place::At(const ir::Location& own) const {
  Place p = *this;
  if (own.line() != 0) p.loc = own;
  return p;
}

absl::string_view DeclWord(DeclKind kind) {
  switch (kind) {
    case DeclKind::kParam: return "param";
    case DeclKind::kPool: return "pool";
    case DeclKind::kStage: return "stage";
    case DeclKind::kTable: return "table";
  }
  return "";
}

absl::string_view WantWord(Want want) {
  switch (want) {
    case Want::kStage: return "stage";
    case Want::kPool: return "pool";
    case Want::kPoolOrStage: return "pool or stage";
  }
  return "";
}

bool SessionScope::Has(const std::string& name) const {
  if (assigned.count(name) > 0) return true;
  return trace && !IsReservedBuiltin(name);
}

uint32_t SessionScope::Slot(const std::string& name) {
  auto [it, added] = slot.emplace(name, static_cast<uint32_t>(slot.size()));
  if (added) session->add_variable(name);
  return it->second;
}

std::string SessionScope::Describe() const { return DescribeSession(session->name()); }

std::string DescribeWorkload(absl::string_view name) {
  if (name.empty()) return "the unnamed workload";
  return absl::StrCat("workload '", name, "'");
}

std::string DescribeSession(absl::string_view name) {
  if (name.empty()) return "the unnamed session";
  return absl::StrCat("session '", name, "'");
}

// Every digit the value needs to read back (absl::StrCat's six would
// print 1000001 as 1e+06, hiding the value an error is about).
std::string FormatNumber(double v) { return ShortestDouble(v); }

bool IsReservedBuiltin(absl::string_view name) {
  const BuiltinVariableInfo* b = LookupBuiltinVariable(name);
  return b != nullptr && b->builtin != ir::Ref::TOKENS && b->builtin != ir::Ref::SEQS &&
         !IsJobFigure(b->builtin) && !IsGroupFigure(b->builtin) && b->builtin != ir::Ref::QUEUED &&
         b->builtin != ir::Ref::INDEX;
}

bool IsWhole(double v) { return std::isfinite(v) && v == std::floor(v); }

std::string WhereIs(const Place& p) {
  if (p.loc.line() != 0) return absl::StrCat("line ", p.loc.line());
  return p.path;
}

Linker::Linker(ir::Program* program, const LinkOptions& options, Diagnostics* diags)
    : program_(program),
      options_(options),
      diags_(diags),
      errors_before_(static_cast<int>(diags->size())) {}

void Linker::Error(const Place& where, std::string message) {
  diags_->Error(where.loc, where.path, std::move(message));
}

bool Linker::Link() {
  // Everything the linker writes is recomputed, so linking linked IR again
  // gives the same IR.
  program_->set_linked(false);
  for (ir::Session& s : *program_->mutable_session()) s.clear_variable();

  DeclareNames();
  ApplyDefines();
  PairWorkloadsAndSessions();
  LinkParams();
  SizeArrays();
  CheckTables();
  CheckPools();
  CheckStages();
  CheckWorkloads();
  LinkSessions();
  LinkKeys();
  CheckRuns();
  CheckRunSettings();

  if (errors() > 0) return false;
  program_->set_linked(true);
  return true;
}

}  // namespace linker

bool LinkProgram(ir::Program* program, const LinkOptions& options, Diagnostics* diags) {
  // The override is written into the IR, not kept aside, so the linked IR
  // says which policy it was linked with and linking it again (serq-sim
  // does) keeps it.
  if (options.share != ir::Program::SHARE_UNSPECIFIED) program->set_share(options.share);
  linker::Linker linker(program, options, diags);
  return linker.Link();
}

}  // namespace serq
