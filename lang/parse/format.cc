#include "lang/parse/format.h"

#include <charconv>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "ir/diagnostics.h"
#include "ir/words.h"
#include "lang/parse/lexer.h"

namespace serq {
namespace {

using Body = google::protobuf::RepeatedPtrField<ir::Statement>;

// Binary operators bind as OperatorPrecedence says; unary operators (and
// negative numbers, which read back as one) bind tighter than any binary
// operator, and primaries tightest.
constexpr int kUnary = 6;
constexpr int kPrimary = 7;

int Precedence(const ir::Expr& e) {
  switch (e.kind_case()) {
    case ir::Expr::kBinary: return OperatorPrecedence(e.binary().op());
    case ir::Expr::kUnary: return kUnary;
    case ir::Expr::kNumber: return std::signbit(e.number()) ? kUnary : kPrimary;
    default: return kPrimary;
  }
}

std::string Parenthesized(const ir::Expr& e, bool parenthesize) {
  std::string text = FormatExpr(e);
  return parenthesize ? absl::StrCat("(", text, ")") : text;
}

std::string Ref(const ir::Ref& r) {
  if (!r.has_index()) return r.name();
  return absl::StrCat(r.name(), "[", FormatExpr(r.index()), "]");
}

std::string Key(const ir::Key& k) {
  std::vector<std::string> parts;
  for (const ir::Expr& e : k.expr()) parts.push_back(FormatExpr(e));
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

// `"…"` with the two escapes the lexer reads.
std::string Quoted(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

// A table's column: bare when the lexer reads it back as that one name
// (an identifier or a word), else in quotes.
std::string Column(absl::string_view s) {
  Diagnostics diags;
  std::vector<Token> t = Lex(s, &diags);
  bool bare = diags.empty() && t.size() == 2 && t[1].kind == TokenKind::kEof &&
              (t[0].kind == TokenKind::kIdentifier || IsReservedWord(t[0].kind)) && t[0].text == s;
  return bare ? std::string(s) : Quoted(s);
}

// A `where` value: bare when the parser reads it back as this number text
// (an optional '-' and a number token), else in quotes.
std::string WhereValue(absl::string_view s) {
  absl::string_view digits = absl::StartsWith(s, "-") ? s.substr(1) : s;
  Diagnostics diags;
  std::vector<Token> t = Lex(digits, &diags);
  bool bare = diags.empty() && t.size() == 2 && t[0].kind == TokenKind::kNumber &&
              t[1].kind == TokenKind::kEof && t[0].text == digits;
  return bare ? std::string(s) : Quoted(s);
}

std::string Outside(ir::Table::Outside o) {
  switch (o) {
    case ir::Table::CLAMP: return "clamp";
    case ir::Table::EXTRAPOLATE: return "extrapolate";
    case ir::Table::ERROR: return "error";
    default: return "";
  }
}

std::string Amounts(const google::protobuf::RepeatedPtrField<ir::Statement::Amount>& amounts) {
  std::vector<std::string> parts;
  for (const auto& a : amounts) {
    parts.push_back(absl::StrCat(Ref(a.pool()), " (", FormatExpr(a.amount()), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

std::string Stages(const ir::Statement::Run& run) {
  std::vector<std::string> parts = {Ref(run.stage())};
  for (const ir::Ref& r : run.also()) parts.push_back(Ref(r));
  return absl::StrJoin(parts, ", ");
}

class Printer {
 public:
  std::string Program(const ir::Program& p) {
    for (const ir::Param& x : p.param()) {
      Line(absl::StrCat("param ", x.name(), " = ", FormatExpr(x.value()),
                        x.has_low() ? absl::StrCat(" in [", FormatExpr(x.low()), ", ", FormatExpr(x.high()), "]") : "",
                        ";"));
    }
    Group();
    for (const ir::Pool& x : p.pool()) {
      std::string options;
      if (x.has_cap()) absl::StrAppend(&options, " cap ", FormatExpr(x.cap()), ";");
      if (x.has_evict_by()) absl::StrAppend(&options, " evict by ", Key(x.evict_by()), ";");
      if (x.has_cache()) absl::StrAppend(&options, " cache ", FormatExpr(x.cache()), ";");
      if (x.has_block()) absl::StrAppend(&options, " block ", FormatExpr(x.block()), ";");
      Line(absl::StrCat("pool ", x.name(), Size(x.has_size(), x.size()), " ", Block(options)));
    }
    Group();
    for (const ir::Table& x : p.table()) Table(x);
    Group();
    for (const ir::Stage& x : p.stage()) Stage(x);
    Group();
    if (p.share() == ir::Program::MAXMIN) Line("share maxmin;");
    if (p.share() == ir::Program::BOTTLENECK) Line("share bottleneck;");
    Group();
    for (const ir::Workload& x : p.workload()) Line(Workload(x));
    Group();
    for (const ir::Session& x : p.session()) {
      Line(absl::StrCat("session ", x.name(), x.name().empty() ? "" : " ", "{"));
      Statements(x.body(), 1);
      Line("}");
      Group();
    }
    if (p.has_run()) {
      const ir::RunSettings& r = p.run();
      std::string options;
      if (r.has_horizon()) absl::StrAppend(&options, " horizon ", FormatExpr(r.horizon()), ";");
      if (r.has_warmup()) absl::StrAppend(&options, " warmup ", FormatExpr(r.warmup()), ";");
      if (r.has_replications()) {
        absl::StrAppend(&options, " replications ", FormatExpr(r.replications()), ";");
      }
      if (r.has_seed()) absl::StrAppend(&options, " seed ", FormatExpr(r.seed()), ";");
      if (r.has_sample()) absl::StrAppend(&options, " sample ", FormatExpr(r.sample()), ";");
      if (r.has_gpus()) absl::StrAppend(&options, " gpus ", FormatExpr(r.gpus()), ";");
      Line(absl::StrCat("run ", Block(options)));
    }
    return out_;
  }

 private:
  // Ends a group of declarations: the next line starts after a blank one.
  void Group() {
    if (!out_.empty() && !pending_blank_) pending_blank_ = true;
  }

  void Line(absl::string_view text, int indent = 0) {
    if (pending_blank_) out_ += "\n";
    pending_blank_ = false;
    absl::StrAppend(&out_, std::string(2 * indent, ' '), text, "\n");
  }

  static std::string Size(bool has, const ir::Expr& size) {
    return has ? absl::StrCat("[", FormatExpr(size), "]") : "";
  }

  // An option block from its options (each with a leading space).
  static std::string Block(const std::string& options) {
    return options.empty() ? "{}" : absl::StrCat("{", options, " }");
  }

  // A stage on one line; with lets (a rate written in parts), each
  // option on its own line.
  void Stage(const ir::Stage& x) {
    std::string kind(StageKindWord(x.kind()));
    if (kind.empty()) kind = "unspecified";  // no source says this: it will not parse
    if (x.kind() != ir::Stage::DELAY) absl::StrAppend(&kind, "(", FormatExpr(x.rate()), ")");
    std::vector<std::string> options;
    for (const ir::Let& l : x.let()) {
      options.push_back(absl::StrCat("let ", l.name(), " = ", FormatExpr(l.value()), ";"));
    }
    if (x.has_seqs()) options.push_back(absl::StrCat("seqs ", FormatExpr(x.seqs()), ";"));
    if (x.has_tokens()) options.push_back(absl::StrCat("tokens ", FormatExpr(x.tokens()), ";"));
    if (x.has_serve_by()) options.push_back(absl::StrCat("serve by ", Key(x.serve_by()), ";"));
    if (x.has_preempt_by()) options.push_back(absl::StrCat("preempt by ", Key(x.preempt_by()), ";"));
    if (x.has_chunk()) options.push_back(absl::StrCat("chunk ", FormatExpr(x.chunk()), ";"));
    if (x.reserve_prompt()) options.push_back("reserve prompt;");
    if (x.async_scheduling()) options.push_back("async;");
    if (x.recompute_last()) options.push_back("recompute last;");
    if (x.lockstep()) options.push_back("lockstep;");
    std::string head = absl::StrCat("stage ", x.name(), Size(x.has_size(), x.size()), " : ", kind);
    if (options.empty()) return Line(head + ";");
    if (x.let_size() == 0) return Line(absl::StrCat(head, " { ", absl::StrJoin(options, " "), " }"));
    Line(head + " {");
    for (const std::string& o : options) Line(o, 1);
    Line("}");
  }

  // A table on one line when it fits in 100 columns, else an option a line.
  void Table(const ir::Table& x) {
    std::vector<std::string> options;
    for (const ir::Table::Match& m : x.where()) {
      options.push_back(absl::StrCat("where ", Column(m.column()), " = ", WhereValue(m.equals()), ";"));
    }
    if (x.key_size() > 0) {
      std::vector<std::string> keys;
      for (const std::string& k : x.key()) keys.push_back(Column(k));
      options.push_back(absl::StrCat("key ", absl::StrJoin(keys, ", "), ";"));
    }
    if (!x.value().empty()) options.push_back(absl::StrCat("value ", Column(x.value()), ";"));
    if (!Outside(x.below()).empty()) options.push_back(absl::StrCat("below ", Outside(x.below()), ";"));
    if (!Outside(x.above()).empty()) options.push_back(absl::StrCat("above ", Outside(x.above()), ";"));
    // A table without a file lists its rows (IR 11); one with a file reads
    // them from it (the rows the linker read are not printed back).
    const bool inline_rows = x.file().empty();
    if (inline_rows && x.key_size() > 0) {
      const size_t keys = x.key_size();
      for (int r = 0; r < x.grid_value_size(); ++r) {
        std::vector<std::string> numbers;
        for (size_t k = 0; k < keys && r * keys + k < static_cast<size_t>(x.grid_key_size()); ++k) {
          numbers.push_back(FormatNumber(x.grid_key(r * keys + k)));
        }
        numbers.push_back(FormatNumber(x.grid_value(r)));
        options.push_back(absl::StrCat("row ", absl::StrJoin(numbers, ", "), ";"));
      }
    }
    std::string head = inline_rows ? absl::StrCat("table ", x.name())
                                   : absl::StrCat("table ", x.name(), " = ", Quoted(x.file()));
    std::string line = absl::StrCat(head, " { ", absl::StrJoin(options, " "), " }");
    if (options.empty()) return Line(head + " {}");
    if (line.size() <= 100) return Line(line);
    Line(head + " {");
    for (const std::string& o : options) Line(o, 1);
    Line("}");
  }

  static std::string Workload(const ir::Workload& x) {
    std::string options;
    switch (x.process()) {
      case ir::Workload::BATCH:
        absl::StrAppend(&options, " arrive batch(", FormatExpr(x.arg()), ");");
        break;
      case ir::Workload::POISSON:
        absl::StrAppend(&options, " arrive poisson(", FormatExpr(x.arg()), ");");
        break;
      case ir::Workload::PERIODIC:
        absl::StrAppend(&options, " arrive periodic(", FormatExpr(x.arg()), ");");
        break;
      case ir::Workload::RENEWAL:
        absl::StrAppend(&options, " arrive renewal(", FormatExpr(x.arg()), ");");
        break;
      case ir::Workload::TRACE:
        absl::StrAppend(&options, " arrive trace(", Quoted(x.file()),
                        x.has_arg() ? absl::StrCat(", ", FormatExpr(x.arg())) : "", ");");
        break;
      case ir::Workload::STAGES:
      case ir::Workload::EXACTLY: {
        std::vector<std::string> args;
        for (const ir::Expr& a : x.args()) args.push_back(FormatExpr(a));
        absl::StrAppend(&options, " arrive ", x.process() == ir::Workload::STAGES ? "stages(" : "exactly(",
                        absl::StrJoin(args, ", "), ");");
        break;
      }
      default:
        break;
    }
    if (x.has_limit()) absl::StrAppend(&options, " limit ", FormatExpr(x.limit()), ";");
    return absl::StrCat("workload ", x.name(), x.name().empty() ? "" : " ", Block(options));
  }

  // The three statements at `i` are a lowered transfer: marked, and in the
  // shape the parser gives one (a plain run, a load, a release).
  static bool IsTransfer(const Body& body, int i) {
    if (i + 2 >= body.size()) return false;
    const ir::Statement& run = body[i];
    const ir::Statement& load = body[i + 1];
    const ir::Statement& release = body[i + 2];
    return run.transfer() && load.transfer() && release.transfer() && run.has_run() &&
           run.run().mode() == ir::Statement::Run::PLAIN && !run.run().has_growing() &&
           run.run().observe().empty() &&
           load.has_load() && release.has_release();
  }

  static std::string Transfer(const ir::Statement& run, const ir::Statement& load,
                              const ir::Statement& release) {
    const ir::Statement::Run& r = run.run();
    std::string head;
    if (r.also_size() == 0 && r.stage().name() == "link") {
      head = r.stage().has_index() ? absl::StrCat("transfer[", FormatExpr(r.stage().index()), "]")
                                   : "transfer";
    } else {
      head = absl::StrCat("transfer on ", Stages(r));
    }
    return absl::StrCat(head, " (", FormatExpr(r.work()), ") from ", Ref(release.release().pool()),
                        " to ", Ref(load.load().pool()), " (", FormatExpr(load.load().amount()),
                        ");");
  }

  void Statements(const Body& body, int indent) {
    for (int i = 0; i < body.size(); ++i) {
      if (IsTransfer(body, i)) {
        Line(Transfer(body[i], body[i + 1], body[i + 2]), indent);
        i += 2;
        continue;
      }
      Statement(body[i], indent);
    }
  }

  // `{` then the block's lines then `}` + `tail`; `{}` + `tail` when empty.
  void Braced(const std::string& head, const Body& body, int indent, const std::string& tail) {
    if (body.empty()) {
      Line(absl::StrCat(head, " {}", tail), indent);
      return;
    }
    Line(absl::StrCat(head, " {"), indent);
    Statements(body, indent + 1);
    Line(absl::StrCat("}", tail), indent);
  }

  void If(const ir::Statement::If& s, const std::string& prefix, int indent) {
    std::string head = absl::StrCat(prefix, "if (", FormatExpr(s.condition()), ")");
    if (s.else__size() == 0) return Braced(head, s.then(), indent, "");
    // The then-block, closed by the `}` that opens the `else` line.
    if (s.then().empty()) {
      head += " {}";
    } else {
      Line(head + " {", indent);
      Statements(s.then(), indent + 1);
      head = "}";
    }
    if (s.else__size() == 1 && s.else_(0).has_if_() && !s.else_(0).transfer()) {
      return If(s.else_(0).if_(), head + " else ", indent);
    }
    Braced(head + " else", s.else_(), indent, "");
  }

  void Statement(const ir::Statement& s, int indent) {
    switch (s.kind_case()) {
      case ir::Statement::kSet:
        return Line(absl::StrCat("set ", s.set().variable(), " = ", FormatExpr(s.set().value()), ";"),
                    indent);
      case ir::Statement::kIf:
        return If(s.if_(), "", indent);
      case ir::Statement::kRepeat:
        return Braced(absl::StrCat("repeat (", FormatExpr(s.repeat().count()), ")"),
                      s.repeat().body(), indent, "");
      case ir::Statement::kEnd:
        return Line("end;", indent);
      case ir::Statement::kRun: {
        const ir::Statement::Run& r = s.run();
        std::string mode = r.mode() == ir::Statement::Run::PREFILL  ? " prefill"
                           : r.mode() == ir::Statement::Run::DECODE ? " decode"
                                                                    : "";
        std::string growing = r.has_growing() ? absl::StrCat(" growing ", Ref(r.growing())) : "";
        std::string observe = r.observe().empty() ? "" : absl::StrCat(" observe ", r.observe());
        return Line(absl::StrCat("run ", Stages(r), mode, " (", FormatExpr(r.work()), ")", growing,
                                 observe, ";"),
                    indent);
      }
      case ir::Statement::kChoose:
        return Line(absl::StrCat("choose ", s.choose().variable(), " in ", Ref(s.choose().array()),
                                 " by ", Key(s.choose().by()),
                                 s.choose().has_every()
                                     ? absl::StrCat(" every ", FormatExpr(s.choose().every()))
                                     : "",
                                 ";"),
                    indent);
      case ir::Statement::kHold: {
        const ir::Statement::Hold& h = s.hold();
        std::string lease =
            h.lease_size() == 0 ? "" : absl::StrCat(" lease ", Amounts(h.lease()), ";");
        return Braced(absl::StrCat("hold ", Amounts(h.pool())), h.body(), indent, lease);
      }
      case ir::Statement::kRelease:
        return Line(absl::StrCat("release ", Ref(s.release().pool()), ";"), indent);
      case ir::Statement::kLoad:
        return Line(absl::StrCat("load ", Ref(s.load().pool()), " (", FormatExpr(s.load().amount()),
                                 ");"),
                    indent);
      case ir::Statement::kObserve:
        return Line(absl::StrCat("observe ", s.observe().name(), " = ",
                                 FormatExpr(s.observe().value()), ";"),
                    indent);
      case ir::Statement::kPrefix:
        return Line(absl::StrCat("prefix (", FormatExpr(s.prefix().family()), ", ",
                                 FormatExpr(s.prefix().count()), ");"),
                    indent);
      default:
        return Line("/* a statement of no kind */", indent);
    }
  }

  std::string out_;
  bool pending_blank_ = false;
};

}  // namespace

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";  // no source says NaN: it reads back as a name
  if (std::signbit(v)) return absl::StrCat("-", FormatNumber(-v));
  if (std::isinf(v)) return "inf";
  if (v == std::floor(v) && v < 1e7) return absl::StrCat(static_cast<int64_t>(v));
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  std::string text(buf, r.ptr);
  // to_chars writes the exponent as e+10 or e-05; the language reads the
  // shorter e10 and e-5 as well.
  size_t e = text.find('e');
  if (e == std::string::npos) return text;
  std::string mantissa = text.substr(0, e);
  std::string exponent = text.substr(e + 1);
  bool negative = exponent[0] == '-';
  if (exponent[0] == '-' || exponent[0] == '+') exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return absl::StrCat(mantissa, "e", negative ? "-" : "", exponent);
}

std::string FormatExpr(const ir::Expr& e) {
  switch (e.kind_case()) {
    case ir::Expr::kNumber:
      return FormatNumber(e.number());
    case ir::Expr::kRef:
      return Ref(e.ref());
    case ir::Expr::kUnary: {
      std::string operand =
          Parenthesized(e.unary().operand(), Precedence(e.unary().operand()) < kUnary);
      if (e.unary().op() == ir::Expr::NOT) return "!" + operand;
      // `- -x`, not `--x`, which reads as a decrement to most programmers.
      return absl::StrCat(operand[0] == '-' ? "- " : "-", operand);
    }
    case ir::Expr::kBinary: {
      const ir::Expr::Binary& b = e.binary();
      int p = OperatorPrecedence(b.op());
      // Left-associative: a left operand of the same precedence needs no
      // parentheses, a right one does; comparisons do not chain, so any
      // comparison operand of a comparison does.
      int lhs = Precedence(b.lhs());
      bool lhs_parens = lhs < p || (p == kComparisonPrecedence && lhs == kComparisonPrecedence);
      bool rhs_parens = Precedence(b.rhs()) <= p;
      return absl::StrCat(Parenthesized(b.lhs(), lhs_parens), " ", OperatorSpelling(b.op()), " ",
                          Parenthesized(b.rhs(), rhs_parens));
    }
    case ir::Expr::kCall: {
      std::vector<std::string> args;
      for (const ir::Expr& a : e.call().arg()) args.push_back(FormatExpr(a));
      return absl::StrCat(e.call().function(), "(", absl::StrJoin(args, ", "), ")");
    }
    default:
      return "";  // an empty expression: no source says this, it will not parse
  }
}

std::string FormatProgram(const ir::Program& program) { return Printer().Program(program); }

}  // namespace serq
