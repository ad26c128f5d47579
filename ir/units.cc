#include "ir/units.h"

#include <algorithm>
#include <map>

#include "ir/builtins.h"
#include "ir/walk.h"

namespace serq {
namespace {

// What an expression's value is, ordered so that combining two is their
// larger: no value yet (a variable not yet seen set), a plain number (it
// takes the unit of what it meets: `now - first + 0.001`), a time, or
// something else (a count, a ratio).
enum class Dim { kUnset = 0, kNumber = 1, kTime = 2, kOther = 3 };

Dim Join(Dim a, Dim b) { return std::max(a, b); }

using Variables = std::map<std::string, Dim>;

Dim Of(const ir::Expr& e, const Variables& vars);

// min, max, abs, floor, ceil, round: a time where every argument is a time
// or a number; the eight draws, sqrt, ln, pow, interp and tables: a number
// (of numbers); the collectives: a time (of numbers, a latency a time). The functions by the one table of built-ins (builtins.h).
Dim OfCall(const ir::Expr::Call& c, const Variables& vars) {
  if (c.table() > 0) return Dim::kNumber;
  const FunctionInfo* info = LookupFunction(c.function());
  if (info == nullptr) return Dim::kOther;
  switch (info->function) {
    case Function::kMin:
    case Function::kMax:
    case Function::kAbs:
    case Function::kFloor:
    case Function::kCeil:
    case Function::kRound: {
      Dim d = Dim::kNumber;
      for (const ir::Expr& a : c.arg()) d = Join(d, Of(a, vars));
      return d;
    }
    case Function::kSqrt:
    case Function::kLn:
    case Function::kPow:
    case Function::kInterp:
    case Function::kExponential:
    case Function::kUniform:
    case Function::kNormal:
    case Function::kLognormal:
    case Function::kGamma:
    case Function::kErlang:
    case Function::kGeometric:
    case Function::kBernoulli:
      for (const ir::Expr& a : c.arg()) {
        if (Of(a, vars) != Dim::kNumber) return Dim::kOther;  // ln(now): not a time
      }
      return Dim::kNumber;
    case Function::kAllReduce:
    case Function::kAllGather:
    case Function::kReduceScatter:
    case Function::kAllToAll:
      // A collective's seconds (net/collective.h) of GPUs, bytes and bytes
      // a second, numbers, and a latency a step, a number or a time.
      for (int i = 0; i < c.arg_size(); ++i) {
        const Dim d = Join(Of(c.arg(i), vars), Dim::kNumber);
        if (d == Dim::kOther || (d == Dim::kTime && i + 1 < c.arg_size())) return Dim::kOther;
      }
      return Dim::kTime;
    default:
      return Dim::kOther;  // the deployment's state: counts, units, prices
  }
}

Dim OfBinary(const ir::Expr::Binary& b, const Variables& vars) {
  const Dim l = Of(b.lhs(), vars), r = Of(b.rhs(), vars);
  if (l == Dim::kOther || r == Dim::kOther || l == Dim::kUnset || r == Dim::kUnset) {
    return Join(Join(l, r), Dim::kNumber);
  }
  switch (b.op()) {
    case ir::Expr::ADD:
    case ir::Expr::SUB: return Join(l, r);  // time +- time or number: a time
    case ir::Expr::MUL: return l == Dim::kTime && r == Dim::kTime ? Dim::kOther : Join(l, r);
    case ir::Expr::DIV: return r == Dim::kTime ? Dim::kOther : l;  // a ratio of times is none
    default: return Dim::kOther;  // comparisons, and, or, mod
  }
}

Dim Of(const ir::Expr& e, const Variables& vars) {
  switch (e.kind_case()) {
    case ir::Expr::kNumber: return Dim::kNumber;
    case ir::Expr::kRef: {
      const ir::Ref& r = e.ref();
      switch (r.kind()) {
        case ir::Ref::PARAM: return Dim::kNumber;
        case ir::Ref::VARIABLE: {
          auto it = vars.find(r.name());
          return it == vars.end() ? Dim::kOther : it->second;
        }
        case ir::Ref::BUILTIN:
          return r.decl() == ir::Ref::NOW || r.decl() == ir::Ref::ARRIVAL || r.decl() == ir::Ref::QUEUED
                     ? Dim::kTime
                     : Dim::kOther;
        default: return Dim::kOther;
      }
    }
    case ir::Expr::kUnary: {
      Dim d = Of(e.unary().operand(), vars);
      return e.unary().op() == ir::Expr::NEG ? d : Dim::kOther;
    }
    case ir::Expr::kBinary: return OfBinary(e.binary(), vars);
    case ir::Expr::kCall: return OfCall(e.call(), vars);
    default: return Dim::kOther;
  }
}

}  // namespace

std::vector<std::string> TimeObservations(const ir::Program& program) {
  std::map<std::string, bool> observed;  // every value so far a time
  for (const ir::Session& session : program.session()) {
    // A variable is what every `set` of it gives: set first = 0 and then
    // first = now is a time. Joins only grow and each of a session's
    // variables can grow at most three times, so passes until nothing
    // changes end.
    Variables vars;
    for (const std::string& v : session.variable()) vars[v] = Dim::kUnset;
    for (bool changed = true; changed;) {
      changed = false;
      ForEachStatement(session.body(), "", [&](const ir::Statement& s, const std::string&) {
        if (s.has_set()) {
          Dim& d = vars[s.set().variable()];
          const Dim joined = Join(d, Of(s.set().value(), vars));
          changed |= joined != d;
          d = joined;
        } else if (s.has_choose()) {
          Dim& d = vars[s.choose().variable()];
          changed |= d != Dim::kOther;
          d = Dim::kOther;  // an element's index
        }
      });
    }
    // A variable no `set` gives a value (a trace's column, bound at the
    // arrival) is a number: output_toks divides a time and leaves a time.
    for (auto& [name, d] : vars) {
      if (d == Dim::kUnset) d = Dim::kNumber;
    }
    ForEachStatement(session.body(), "", [&](const ir::Statement& s, const std::string&) {
      // Strictly a time: `observe x = 5` is a number (which would take
      // the unit of a time it met, but here meets none).
      if (s.has_observe()) {
        const bool time = Of(s.observe().value(), vars) == Dim::kTime;
        auto [it, added] = observed.emplace(s.observe().name(), time);
        it->second = it->second && time;
      } else if (s.has_run() && !s.run().observe().empty()) {
        observed.emplace(s.run().observe(), true);  // the gaps between a decode's tokens
      }
    });
  }
  std::vector<std::string> out;
  for (const auto& [name, time] : observed) {
    if (time) out.push_back(name);
  }
  return out;
}

}  // namespace serq
