// Constants: -D overrides, params (constant and acyclic), the values of
// constant expressions, and the sizes of pool and stage arrays, which are
// fixed here, when the program is linked.
#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "ir/constant.h"
#include "ir/limits.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {
namespace {

// An array larger than kMaxArraySize (ir/limits.h) is a typo or a unit
// mistake, and would only exhaust the simulator's memory.

// The params a resolved expression reads.
void ParamsRead(const ir::Expr& e, std::vector<int>* out) {
  switch (e.kind_case()) {
    case ir::Expr::kRef:
      if (e.ref().kind() == ir::Ref::PARAM) out->push_back(static_cast<int>(e.ref().decl()));
      if (e.ref().has_index()) ParamsRead(e.ref().index(), out);
      break;
    case ir::Expr::kUnary: ParamsRead(e.unary().operand(), out); break;
    case ir::Expr::kBinary:
      ParamsRead(e.binary().lhs(), out);
      ParamsRead(e.binary().rhs(), out);
      break;
    case ir::Expr::kCall:
      for (const ir::Expr& a : e.call().arg()) ParamsRead(a, out);
      break;
    default: break;
  }
}

}  // namespace

void Linker::ApplyDefines() {
  for (const auto& [name, value] : options_.defines) {
    const Decl* d = Find(name);
    if (d == nullptr) {
      Error(Place{}, absl::StrCat("-D ", name, ": there is no param '", name, "'"));
      continue;
    }
    if (d->kind != DeclKind::kParam) {
      Error(Place{}, absl::StrCat("-D ", name, ": '", name, "' is a ", DeclWord(d->kind),
                                  ", not a param"));
      continue;
    }
    // The override keeps the value's location, so that an error it causes
    // (a size of 0) still points at the place in the source.
    ir::Param* p = program_->mutable_param(d->index);
    ir::Location loc = p->value().loc();
    p->clear_value();
    p->mutable_value()->set_number(value);
    if (loc.line() != 0) *p->mutable_value()->mutable_loc() = loc;
  }
}

void Linker::LinkParams() {
  int n = program_->param_size();
  param_value_.assign(n, std::nullopt);
  param_bad_.assign(n, false);
  Scope constant;
  std::vector<std::vector<int>> reads(n);
  for (int i = 0; i < n; ++i) {
    ir::Param* p = program_->mutable_param(i);
    Place here = Place{}.Field("param").Item(i, &p->loc());
    if (!Required(IF_PRESENT(p, value), here.Field("value"), constant,
                  absl::StrCat("param '", p->name(), "' has no value"))) {
      param_bad_[i] = true;
      continue;
    }
    ParamsRead(p->value(), &reads[i]);
    // Its range's ends are constants as its value is, and read before it is
    // checked (so they count in the order, and in a cycle).
    if (p->has_low() != p->has_high()) {
      Error(here.Field(p->has_low() ? "high" : "low"),
            absl::StrCat("param '", p->name(), "' has a range with one end: give both, low and high"));
      param_bad_[i] = true;
    }
    for (auto [field, end] : {std::pair{"low", IF_PRESENT(p, low)}, std::pair{"high", IF_PRESENT(p, high)}}) {
      if (end == nullptr) continue;
      if (!ResolveExpr(end, here.Field(field), constant)) {
        param_bad_[i] = true;
        continue;
      }
      ParamsRead(*end, &reads[i]);
    }
    std::sort(reads[i].begin(), reads[i].end());
    reads[i].erase(std::unique(reads[i].begin(), reads[i].end()), reads[i].end());
  }

  // Depth first: a param reached again while still on the path closes a
  // cycle, reported once, at the param where it starts.
  enum Color { kWhite, kGray, kBlack };
  std::vector<Color> color(n, kWhite);
  std::vector<int> path, order;
  std::function<void(int)> visit = [&](int i) {
    color[i] = kGray;
    path.push_back(i);
    for (int j : reads[i]) {
      if (color[j] == kGray) {
        std::string chain;
        size_t start = 0;
        while (path[start] != j) ++start;
        for (size_t k = start; k < path.size(); ++k) {
          absl::StrAppend(&chain, program_->param(path[k]).name(), " -> ");
          param_bad_[path[k]] = true;
        }
        absl::StrAppend(&chain, program_->param(j).name());
        Error(Place{}.Field("param").Item(j, &program_->param(j).loc()),
              absl::StrCat("param '", program_->param(j).name(), "' depends on itself: ",
                           chain));
      } else if (color[j] == kWhite) {
        visit(j);
      }
    }
    path.pop_back();
    color[i] = kBlack;
    order.push_back(i);  // after every param it reads
  };
  for (int i = 0; i < n; ++i) {
    if (color[i] == kWhite) visit(i);
  }

  for (int i : order) {
    if (param_bad_[i]) continue;
    bool ok = true;
    for (int j : reads[i]) ok = ok && !param_bad_[j];
    if (ok) {
      Place here = Place{}.Field("param").Item(i, &program_->param(i).loc()).Field("value");
      param_value_[i] = Evaluate(program_->param(i).value(), here);
    }
    // Against its range (whose ends' params come before it in the order):
    // a value outside is refused as an unevaluable one is, so that what
    // reads it says nothing more.
    if (param_value_[i].has_value() && !InRange(i)) param_value_[i].reset();
    if (!param_value_[i].has_value()) param_bad_[i] = true;
  }
}

bool Linker::InRange(int i) {
  const ir::Param& p = program_->param(i);
  if (!p.has_low()) return true;
  const Place here = Place{}.Field("param").Item(i, &p.loc());
  // An end without a value says whose range it ends (a -D of a param it
  // reads may be the cause), unless a param it reads was refused already.
  auto end = [&](const std::string& field, const ir::Expr& e) -> std::optional<double> {
    absl::StatusOr<double> v = Value(e);
    if (v.ok()) return *v;
    if (v.status().code() != absl::StatusCode::kAborted) {
      Error(here.Field(field).At(e.loc()), ParamRangeEndFailed(p.name(), field, std::string(v.status().message())));
    }
    return std::nullopt;
  };
  const std::optional<double> low = end("low", p.low());
  const std::optional<double> high = end("high", p.high());
  if (!low || !high) return false;
  if (std::string empty = ParamRangeEmpty(p.name(), *low, *high); !empty.empty()) {
    Error(here.Field("low").At(p.low().loc()), empty);
    return false;
  }
  const bool defined = std::any_of(options_.defines.begin(), options_.defines.end(),
                                   [&](const auto& d) { return d.first == p.name(); });
  const std::string outside = ParamOutsideRange(p.name(), *param_value_[i], *low, *high, defined);
  if (outside.empty()) return true;
  Error(here.Field("value").At(p.value().loc()), outside);
  return false;
}

absl::StatusOr<double> Linker::Value(const ir::Expr& e) const {
  return EvaluateConstant(e, [&](uint32_t decl) -> absl::StatusOr<double> {
    if (decl < param_value_.size() && param_value_[decl].has_value()) return *param_value_[decl];
    return absl::AbortedError("reported");
  });
}

std::optional<double> Linker::Evaluate(const ir::Expr& e, const Place& where) {
  absl::StatusOr<double> v = Value(e);
  if (v.ok()) return *v;
  // A param whose value was refused was reported already: say nothing more.
  if (v.status().code() != absl::StatusCode::kAborted) {
    Error(where.At(e.loc()), std::string(v.status().message()));
  }
  return std::nullopt;
}

int64_t Linker::Size(const Decl& d) const {
  if (d.kind == DeclKind::kPool) return pool_size_[d.index];
  if (d.kind == DeclKind::kStage) return stage_size_[d.index];
  return 0;
}

void Linker::SizeArrays() {
  Scope constant;
  auto size = [&](const std::string& name, ir::Expr* e, const Place& here) -> int64_t {
    if (e == nullptr) return 0;  // a scalar
    Place at = here.Field("size");
    if (!ResolveExpr(e, at, constant)) return -1;
    std::optional<double> v = Evaluate(*e, at);
    if (!v.has_value()) return -1;
    if (!IsWhole(*v) || *v < 1 || *v > kMaxArraySize) {
      Error(at.At(e->loc()), absl::StrCat("the size of '", name, "' must be a whole number from 1 to ",
                                          kMaxArraySize, ", not ", FormatNumber(*v)));
      return -1;
    }
    return static_cast<int64_t>(*v);
  };
  for (int i = 0; i < program_->pool_size(); ++i) {
    ir::Pool* p = program_->mutable_pool(i);
    pool_size_.push_back(size(p->name(), IF_PRESENT(p, size),
                              Place{}.Field("pool").Item(i, &p->loc())));
  }
  for (int i = 0; i < program_->stage_size(); ++i) {
    ir::Stage* s = program_->mutable_stage(i);
    stage_size_.push_back(size(s->name(), IF_PRESENT(s, size),
                               Place{}.Field("stage").Item(i, &s->loc())));
  }
  BoundElements();
}

void Linker::BoundElements() {
  // In the order of the source (IR from a tool, without locations: pools,
  // then stages), so that the error is at the declaration that crosses.
  struct Item {
    uint32_t line, column;
    bool stage;
    int index;
  };
  std::vector<Item> items;
  for (int i = 0; i < program_->pool_size(); ++i) {
    const ir::Location& l = program_->pool(i).loc();
    items.push_back({l.line(), l.column(), false, i});
  }
  for (int i = 0; i < program_->stage_size(); ++i) {
    const ir::Location& l = program_->stage(i).loc();
    items.push_back({l.line(), l.column(), true, i});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  int64_t total = 0;
  for (const Item& item : items) {
    int64_t& size = item.stage ? stage_size_[item.index] : pool_size_[item.index];
    if (size < 0) continue;  // refused already
    const int64_t elements = std::max<int64_t>(size, 1);  // a scalar is one
    if (total + elements <= kMaxElements) {
      total += elements;
      continue;
    }
    const std::string& name =
        item.stage ? program_->stage(item.index).name() : program_->pool(item.index).name();
    const ir::Location& loc =
        item.stage ? program_->stage(item.index).loc() : program_->pool(item.index).loc();
    Error(Place{}.Field(item.stage ? "stage" : "pool").Item(item.index, &loc),
          absl::StrCat("the program's stages and pools have more than ", kMaxElements,
                       " elements in all: ", item.stage ? "stage '" : "pool '", name, "' adds ",
                       elements, " to the ", total, " before it"));
    // An array past the total is refused as one past its own bound is
    // (what refers to it says nothing more); a scalar keeps its shape.
    if (size > 0) size = -1;
  }
}

}  // namespace linker
}  // namespace serq
