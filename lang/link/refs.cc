// References to pools and stages: the declaration they name must be of the
// kind the statement or function needs, and named as it needs: one element
// (`kvD[j]`, or a scalar without index), or a whole array without index.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/builtins.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {

const Decl* Linker::ResolveDeclRef(ir::Ref* ref, const Place& where, Want want, Shape shape,
                                   absl::string_view needs, const Scope& scope) {
  ref->set_kind(ir::Ref::UNRESOLVED);
  ref->set_decl(0);
  const std::string& name = ref->name();
  if (name.empty()) {
    Error(where, "the reference has no name");
    return nullptr;
  }
  const Decl* d = Find(name);
  if (d == nullptr) {
    if (LookupBuiltinVariable(name) != nullptr) {
      Error(where, absl::StrCat("'", name, "' is a built-in variable; ", needs));
    } else if (scope.session != nullptr && scope.session->assigned.count(name) > 0) {
      Error(where, absl::StrCat("'", name, "' is a variable; ", needs));
    } else {
      Error(where, absl::StrCat("unknown ", WantWord(want), " '", name, "'"));
    }
    return nullptr;
  }
  bool kind_ok = want == Want::kStage   ? d->kind == DeclKind::kStage
                 : want == Want::kPool ? d->kind == DeclKind::kPool
                                        : d->kind == DeclKind::kPool || d->kind == DeclKind::kStage;
  if (!kind_ok) {
    Error(where, absl::StrCat("'", name, "' is a ", DeclWord(d->kind), "; ", needs));
    return nullptr;
  }
  ref->set_kind(d->kind == DeclKind::kPool ? ir::Ref::POOL : ir::Ref::STAGE);
  ref->set_decl(d->index);

  int64_t size = Size(*d);  // 0: a scalar; -1: an array whose size was refused
  bool array = size != 0;
  switch (shape) {
    case Shape::kElement:
      if (array && !ref->has_index()) {
        Error(where, absl::StrCat("'", name, "' is ", DescribeDecl(*d),
                                  "; name one element, e.g. ", name, "[i]"));
      } else if (!array && ref->has_index()) {
        Error(where, absl::StrCat("'", name, "' is a single ", DeclWord(d->kind),
                                  ", not an array; name it without index"));
      } else if (ref->has_index()) {
        Place at = where.Field("index");
        ir::Expr* index = ref->mutable_index();
        if (ResolveExpr(index, at, scope) && size > 0 && IsConstantExpr(*index)) {
          std::optional<double> v = Evaluate(*index, at);
          // A[i] names element floor(i).
          if (v.has_value() && !(std::floor(*v) >= 0 && std::floor(*v) < size)) {
            Error(at.At(index->loc()),
                  absl::StrCat("index ", FormatNumber(*v), " is out of range for '", name,
                               "', ", DescribeDecl(*d), " (0 to ", size - 1, ")"));
          }
        }
      }
      break;
    case Shape::kArray:
      if (ref->has_index()) {
        Error(where, absl::StrCat(needs, ", named without index"));
      } else if (!array) {
        Error(where, absl::StrCat("'", name, "' is a single ", DeclWord(d->kind), "; ", needs));
      }
      break;
    case Shape::kWhole:
      if (ref->has_index()) Error(where, absl::StrCat(needs, ", named without index"));
      break;
  }
  return d;
}

const Decl* Linker::RequiredDeclRef(ir::Ref* ref, const Place& where, Want want, Shape shape,
                                    absl::string_view needs, const Scope& scope,
                                    absl::string_view missing) {
  if (ref == nullptr) {
    Error(where, std::string(missing));
    return nullptr;
  }
  return ResolveDeclRef(ref, where.At(ref->loc()), want, shape, needs, scope);
}

}  // namespace linker
}  // namespace serq
