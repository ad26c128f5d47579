// Finding what a reference names, for IR that serq-link has linked (every
// Ref carries its kind and decl, which are checked here, not trusted) and for
// unlinked IR straight from serq-parse or a tool (found by name: params,
// pools and stages share one namespace, so a name names one thing). The view
// draws both; it does not check the rest of the language's rules, which are
// serq-link's.
#ifndef SERQ_DIAGRAM_DECLS_H_
#define SERQ_DIAGRAM_DECLS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"

namespace serq::view {

class Declarations {
 public:
  explicit Declarations(const ir::Program& program);

  // The index into Program.stage (or .pool) that `ref` names; -1 after an
  // error at `ref`'s location or, without one, at IR path `path`.
  int Stage(const ir::Ref& ref, absl::string_view path, Diagnostics* diags) const;
  int Pool(const ir::Ref& ref, absl::string_view path, Diagnostics* diags) const;

  // The value of a constant expression (numbers, params, math functions);
  // params are found by decl when linked, else by name.
  absl::StatusOr<double> Constant(const ir::Expr& expr) const;

  // The name of the param `expr` is when it is a lone param reference, else
  // empty: `ps(BwP)` says more than the value.
  std::string ParamName(const ir::Expr& expr) const;

  // The size of an array declaration (`size` present), 0 for a scalar; -1
  // after an error at `path` (e.g. "stage[2].size").
  int ArraySize(const ir::Expr* size, const ir::Location& loc, absl::string_view path,
                Diagnostics* diags) const;

 private:
  int Find(const ir::Ref& ref, ir::Ref::Kind want, absl::string_view path,
           Diagnostics* diags) const;
  absl::StatusOr<double> ParamValue(uint32_t decl) const;

  const ir::Program& program_;
  // Name look-up only (never iterated), so ordered maps are not about output
  // order; they keep the first declaration of a duplicated name.
  std::map<std::string, std::pair<ir::Ref::Kind, uint32_t>, std::less<>> by_name_;
  // Each param evaluated once: a param read twice by each of a chain of
  // params would otherwise be evaluated 2^n times. `evaluating_` marks the
  // params on the way down, so that a cycle (which serq-link refuses, but
  // IR from a tool may hold) is an error, not a hang.
  mutable std::vector<std::optional<absl::StatusOr<double>>> param_values_;
  mutable std::vector<bool> evaluating_;
};

// A number as the view prints it: "inf", a whole number below a million
// without decimals, else six significant digits ("0.5", "2.5e+10").
std::string FormatNumber(double value);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_DECLS_H_
