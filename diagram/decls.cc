#include "diagram/decls.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/constant.h"

namespace serq::view {
namespace {

absl::string_view KindName(ir::Ref::Kind kind) {
  switch (kind) {
    case ir::Ref::PARAM: return "param";
    case ir::Ref::POOL: return "pool";
    case ir::Ref::STAGE: return "stage";
    case ir::Ref::VARIABLE: return "variable";
    case ir::Ref::BUILTIN: return "built-in variable";
    default: return "name";
  }
}

// Gives every unresolved reference to a param its kind and decl, so that
// the common constant evaluator reads unlinked IR as it reads linked IR.
void ResolveParams(ir::Expr* expr,
                   const std::map<std::string, std::pair<ir::Ref::Kind, uint32_t>,
                                  std::less<>>& by_name) {
  switch (expr->kind_case()) {
    case ir::Expr::kRef: {
      ir::Ref* ref = expr->mutable_ref();
      if (ref->kind() != ir::Ref::UNRESOLVED) return;
      auto it = by_name.find(ref->name());
      if (it != by_name.end() && it->second.first == ir::Ref::PARAM) {
        ref->set_kind(ir::Ref::PARAM);
        ref->set_decl(it->second.second);
      }
      return;
    }
    case ir::Expr::kUnary:
      ResolveParams(expr->mutable_unary()->mutable_operand(), by_name);
      return;
    case ir::Expr::kBinary:
      ResolveParams(expr->mutable_binary()->mutable_lhs(), by_name);
      ResolveParams(expr->mutable_binary()->mutable_rhs(), by_name);
      return;
    case ir::Expr::kCall:
      for (ir::Expr& arg : *expr->mutable_call()->mutable_arg()) ResolveParams(&arg, by_name);
      return;
    default:
      return;
  }
}

}  // namespace

Declarations::Declarations(const ir::Program& program)
    : program_(program),
      param_values_(program.param_size()),
      evaluating_(program.param_size(), false) {
  for (int i = 0; i < program.param_size(); ++i) {
    by_name_.emplace(program.param(i).name(), std::make_pair(ir::Ref::PARAM, uint32_t(i)));
  }
  for (int i = 0; i < program.pool_size(); ++i) {
    by_name_.emplace(program.pool(i).name(), std::make_pair(ir::Ref::POOL, uint32_t(i)));
  }
  for (int i = 0; i < program.stage_size(); ++i) {
    by_name_.emplace(program.stage(i).name(), std::make_pair(ir::Ref::STAGE, uint32_t(i)));
  }
}

int Declarations::Find(const ir::Ref& ref, ir::Ref::Kind want, absl::string_view path,
                       Diagnostics* diags) const {
  ir::Ref::Kind kind = ref.kind();
  uint32_t decl = ref.decl();
  if (kind == ir::Ref::UNRESOLVED) {
    auto it = by_name_.find(ref.name());
    if (it == by_name_.end()) {
      diags->Error(ref.loc(), path, absl::StrCat("unknown ", KindName(want), " '", ref.name(), "'"));
      return -1;
    }
    kind = it->second.first;
    decl = it->second.second;
  }
  if (kind != want) {
    diags->Error(ref.loc(), path,
                 absl::StrCat("'", ref.name(), "' is a ", KindName(kind), ", not a ",
                              KindName(want)));
    return -1;
  }
  int count = want == ir::Ref::STAGE ? program_.stage_size() : program_.pool_size();
  if (decl >= uint32_t(count)) {
    diags->Error(ref.loc(), path,
                 absl::StrCat("'", ref.name(), "' refers to ", KindName(want), " ", decl,
                              ", but the program declares ", count));
    return -1;
  }
  const std::string& declared =
      want == ir::Ref::STAGE ? program_.stage(decl).name() : program_.pool(decl).name();
  if (declared != ref.name()) {
    diags->Error(ref.loc(), path,
                 absl::StrCat("'", ref.name(), "' refers to ", KindName(want), " ", decl,
                              ", which is '", declared, "'"));
    return -1;
  }
  return int(decl);
}

int Declarations::Stage(const ir::Ref& ref, absl::string_view path, Diagnostics* diags) const {
  return Find(ref, ir::Ref::STAGE, path, diags);
}

int Declarations::Pool(const ir::Ref& ref, absl::string_view path, Diagnostics* diags) const {
  return Find(ref, ir::Ref::POOL, path, diags);
}

absl::StatusOr<double> Declarations::ParamValue(uint32_t decl) const {
  if (decl >= uint32_t(program_.param_size())) {
    return absl::InvalidArgumentError(absl::StrCat("param ", decl, " is not declared"));
  }
  if (param_values_[decl].has_value()) return *param_values_[decl];
  if (evaluating_[decl]) {
    return absl::InvalidArgumentError(
        absl::StrCat("param '", program_.param(decl).name(), "' depends on itself"));
  }
  evaluating_[decl] = true;
  absl::StatusOr<double> value = Constant(program_.param(decl).value());
  evaluating_[decl] = false;
  param_values_[decl] = value;
  return value;
}

absl::StatusOr<double> Declarations::Constant(const ir::Expr& expr) const {
  ir::Expr resolved = expr;
  ResolveParams(&resolved, by_name_);
  return EvaluateConstant(resolved, [this](uint32_t decl) { return ParamValue(decl); });
}

std::string Declarations::ParamName(const ir::Expr& expr) const {
  if (!expr.has_ref() || expr.ref().has_index()) return "";
  const ir::Ref& ref = expr.ref();
  if (ref.kind() == ir::Ref::PARAM) return ref.name();
  if (ref.kind() != ir::Ref::UNRESOLVED) return "";
  auto it = by_name_.find(ref.name());
  if (it != by_name_.end() && it->second.first == ir::Ref::PARAM) return ref.name();
  return "";
}

int Declarations::ArraySize(const ir::Expr* size, const ir::Location& loc,
                            absl::string_view path, Diagnostics* diags) const {
  if (size == nullptr) return 0;
  absl::StatusOr<double> n = Constant(*size);
  if (!n.ok()) {
    diags->Error(size->loc().line() ? size->loc() : loc, path,
                 absl::StrCat("array size: ", n.status().message()));
    return -1;
  }
  if (!(*n >= 1) || *n != std::floor(*n) || *n > 2147483647.0) {
    diags->Error(size->loc().line() ? size->loc() : loc, path,
                 absl::StrCat("array size ", FormatNumber(*n), " is not a whole number >= 1"));
    return -1;
  }
  return int(*n);
}

std::string FormatNumber(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == std::floor(value) && std::fabs(value) < 1e6) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  return absl::StrCat(value);
}

}  // namespace serq::view
