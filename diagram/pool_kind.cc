#include "diagram/pool_kind.h"

#include <cmath>
#include <functional>

#include "ir/constant.h"
#include "ir/walk.h"

namespace serq::view {
namespace {

bool Names(const ir::Ref& ref, int pool) {
  return ref.kind() == ir::Ref::POOL && static_cast<int>(ref.decl()) == pool;
}

// A lease duration that is `inf` whatever the params (-D applied).
bool ForEver(const ir::Program& program, const ir::Expr& duration) {
  std::function<absl::StatusOr<double>(uint32_t)> param =
      [&](uint32_t decl) -> absl::StatusOr<double> {
    if (decl >= static_cast<uint32_t>(program.param_size())) {
      return absl::InvalidArgumentError("no such param");
    }
    return EvaluateConstant(program.param(decl).value(), param);
  };
  absl::StatusOr<double> d = EvaluateConstant(duration, param);
  return d.ok() && std::isinf(*d) && *d > 0;
}

}  // namespace

bool FlagOrCounterPool(const ir::Program& program, int pool) {
  if (pool < 0 || pool >= program.pool_size()) return false;
  const ir::Pool& p = program.pool(pool);
  if (p.has_evict_by() || p.has_cache()) return false;
  bool taken = false, given_back = false;
  ForEachStatement(program, [&](const ir::Statement& s, const std::string&) {
    if (s.has_release() && Names(s.release().pool(), pool)) given_back = true;
    if (s.has_run() && Names(s.run().growing(), pool)) given_back = true;
    if (!s.has_hold()) return;
    bool holds = false;
    for (const ir::Statement::Amount& a : s.hold().pool()) holds |= Names(a.pool(), pool);
    if (!holds) return;
    taken = true;
    bool leased = false;
    for (const ir::Statement::Amount& a : s.hold().lease()) {
      if (Names(a.pool(), pool) && ForEver(program, a.amount())) leased = true;
    }
    if (!leased) given_back = true;  // the hold's block ends and gives its units back
  });
  return taken && !given_back;
}

}  // namespace serq::view
