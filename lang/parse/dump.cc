#include "lang/parse/dump.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/words.h"

namespace serq {
namespace {

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string Ref(const ir::Ref& r) {
  if (!r.has_index()) return r.name();
  return absl::StrCat(r.name(), "[", DumpExpr(r.index()), "]");
}

std::string Loc(const ir::Location& l, bool on) {
  return on ? absl::StrCat(" @", l.line(), ":", l.column()) : "";
}

std::string Amounts(const google::protobuf::RepeatedPtrField<ir::Statement::Amount>& a,
                    bool locs) {
  std::string out;
  for (int i = 0; i < a.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", Ref(a[i].pool()), " ", DumpExpr(a[i].amount()),
                    Loc(a[i].loc(), locs));
  }
  return out;
}

void Body(const google::protobuf::RepeatedPtrField<ir::Statement>& body, int indent,
          bool locs, std::string* out);

void Statement(const ir::Statement& s, int indent, bool locs, std::string* out) {
  std::string pad(indent, ' ');
  std::string head = pad + (s.transfer() ? "[transfer] " : "");
  std::string at = Loc(s.loc(), locs);
  switch (s.kind_case()) {
    case ir::Statement::kSet:
      absl::StrAppend(out, head, "set ", s.set().variable(), " ", DumpExpr(s.set().value()),
                      at, "\n");
      break;
    case ir::Statement::kIf:
      absl::StrAppend(out, head, "if ", DumpExpr(s.if_().condition()), at, "\n");
      Body(s.if_().then(), indent + 2, locs, out);
      if (s.if_().else__size() > 0) {
        absl::StrAppend(out, pad, "else\n");
        Body(s.if_().else_(), indent + 2, locs, out);
      }
      break;
    case ir::Statement::kRepeat:
      absl::StrAppend(out, head, "repeat ", DumpExpr(s.repeat().count()), at, "\n");
      Body(s.repeat().body(), indent + 2, locs, out);
      break;
    case ir::Statement::kEnd:
      absl::StrAppend(out, head, "end", at, "\n");
      break;
    case ir::Statement::kRun: {
      const auto& r = s.run();
      absl::StrAppend(out, head, "run ", Ref(r.stage()));
      for (const auto& a : r.also()) absl::StrAppend(out, " +", Ref(a));
      if (r.mode() == ir::Statement::Run::PREFILL) absl::StrAppend(out, " prefill");
      if (r.mode() == ir::Statement::Run::DECODE) absl::StrAppend(out, " decode");
      absl::StrAppend(out, " ", DumpExpr(r.work()));
      if (r.has_growing()) absl::StrAppend(out, " growing ", Ref(r.growing()));
      if (!r.observe().empty()) absl::StrAppend(out, " observe ", r.observe());
      absl::StrAppend(out, at, "\n");
      break;
    }
    case ir::Statement::kChoose:
      absl::StrAppend(out, head, "choose ", s.choose().variable(), " in ",
                      Ref(s.choose().array()), " by ", DumpKey(s.choose().by()),
                      s.choose().has_every()
                          ? absl::StrCat(" every ", DumpExpr(s.choose().every()))
                          : "",
                      at, "\n");
      break;
    case ir::Statement::kHold:
      absl::StrAppend(out, head, "hold ", Amounts(s.hold().pool(), locs), at, "\n");
      Body(s.hold().body(), indent + 2, locs, out);
      if (s.hold().lease_size() > 0) {
        absl::StrAppend(out, pad, "lease ", Amounts(s.hold().lease(), locs), "\n");
      }
      break;
    case ir::Statement::kRelease:
      absl::StrAppend(out, head, "release ", Ref(s.release().pool()), at, "\n");
      break;
    case ir::Statement::kLoad:
      absl::StrAppend(out, head, "load ", Ref(s.load().pool()), " ",
                      DumpExpr(s.load().amount()), at, "\n");
      break;
    case ir::Statement::kObserve:
      absl::StrAppend(out, head, "observe ", s.observe().name(), " ",
                      DumpExpr(s.observe().value()), at, "\n");
      break;
    case ir::Statement::kPrefix:
      absl::StrAppend(out, head, "prefix ", DumpExpr(s.prefix().family()), " ",
                      DumpExpr(s.prefix().count()), at, "\n");
      break;
    default:
      absl::StrAppend(out, head, "?", at, "\n");
  }
}

void Body(const google::protobuf::RepeatedPtrField<ir::Statement>& body, int indent,
          bool locs, std::string* out) {
  for (const ir::Statement& s : body) Statement(s, indent, locs, out);
}

std::string Opt(const char* name, const ir::Expr& e, bool has) {
  return has ? absl::StrCat(" ", name, " ", DumpExpr(e)) : "";
}

}  // namespace

std::string DumpExpr(const ir::Expr& e) {
  switch (e.kind_case()) {
    case ir::Expr::kNumber: return Number(e.number());
    case ir::Expr::kRef: return Ref(e.ref());
    case ir::Expr::kUnary:
      return absl::StrCat("(", e.unary().op() == ir::Expr::NEG ? "neg" : "!", " ",
                          DumpExpr(e.unary().operand()), ")");
    case ir::Expr::kBinary:
      return absl::StrCat("(", OperatorSpelling(e.binary().op()), " ", DumpExpr(e.binary().lhs()), " ",
                          DumpExpr(e.binary().rhs()), ")");
    case ir::Expr::kCall: {
      std::string out = absl::StrCat(e.call().function(), "(");
      for (int i = 0; i < e.call().arg_size(); ++i) {
        absl::StrAppend(&out, i ? ", " : "", DumpExpr(e.call().arg(i)));
      }
      return out + ")";
    }
    default: return "?";
  }
}

std::string DumpKey(const ir::Key& k) {
  std::string out = "(";
  for (int i = 0; i < k.expr_size(); ++i) absl::StrAppend(&out, i ? ", " : "", DumpExpr(k.expr(i)));
  return out + ")";
}

std::string DumpProgram(const ir::Program& p, bool locs) {
  std::string out;
  for (const auto& x : p.param()) {
    absl::StrAppend(&out, "param ", x.name(), " ", DumpExpr(x.value()),
                    x.has_low() ? absl::StrCat(" in [", DumpExpr(x.low()), ", ", DumpExpr(x.high()), "]") : "",
                    Loc(x.loc(), locs), "\n");
  }
  for (const auto& x : p.pool()) {
    absl::StrAppend(&out, "pool ", x.name(), x.has_size() ? "[" + DumpExpr(x.size()) + "]" : "",
                    Opt("cap", x.cap(), x.has_cap()),
                    x.has_evict_by() ? " evict " + DumpKey(x.evict_by()) : "",
                    Opt("cache", x.cache(), x.has_cache()),
                    Opt("block", x.block(), x.has_block()), Loc(x.loc(), locs),
                    "\n");
  }
  for (const auto& x : p.stage()) {
    absl::StrAppend(&out, "stage ", x.name(), x.has_size() ? "[" + DumpExpr(x.size()) + "]" : "",
                    " ", ir::Stage::Kind_Name(x.kind()),
                    x.has_rate() ? " " + DumpExpr(x.rate()) : "", Opt("seqs", x.seqs(), x.has_seqs()),
                    Opt("tokens", x.tokens(), x.has_tokens()),
                    x.has_serve_by() ? " serve " + DumpKey(x.serve_by()) : "",
                    x.has_preempt_by() ? " preempt " + DumpKey(x.preempt_by()) : "",
                    Opt("chunk", x.chunk(), x.has_chunk()),
                    x.reserve_prompt() ? " reserve prompt" : "",
                    x.async_scheduling() ? " async" : "",
                    x.recompute_last() ? " recompute last" : "", Loc(x.loc(), locs),
                    "\n");
  }
  if (p.share() != ir::Program::SHARE_UNSPECIFIED) {
    absl::StrAppend(&out, "share ", ir::Program::Share_Name(p.share()), Loc(p.share_loc(), locs),
                    "\n");
  }
  for (const auto& x : p.workload()) {
    absl::StrAppend(&out, "workload ", x.name().empty() ? "_" : x.name(), " ",
                    ir::Workload::Process_Name(x.process()),
                    x.has_arg() ? " " + DumpExpr(x.arg()) : "",
                    x.file().empty() ? "" : " \"" + x.file() + "\"",
                    Opt("limit", x.limit(), x.has_limit()), Loc(x.loc(), locs), "\n");
  }
  for (const auto& x : p.session()) {
    absl::StrAppend(&out, "session ", x.name().empty() ? "_" : x.name(), Loc(x.loc(), locs), "\n");
    Body(x.body(), 2, locs, &out);
  }
  if (p.has_run()) {
    const auto& r = p.run();
    absl::StrAppend(&out, "run", Opt("horizon", r.horizon(), r.has_horizon()),
                    Opt("warmup", r.warmup(), r.has_warmup()),
                    Opt("replications", r.replications(), r.has_replications()),
                    Opt("seed", r.seed(), r.has_seed()), Opt("sample", r.sample(), r.has_sample()),
                    Opt("gpus", r.gpus(), r.has_gpus()),
                    Loc(r.loc(), locs), "\n");
  }
  return out;
}

}  // namespace serq
