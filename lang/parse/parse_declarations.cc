// The declarations: param, pool, stage, table, share, workload, session
// and the run block, and the `{ option value; … }` blocks most of them take.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lang/parse/lexer.h"
#include "lang/parse/parser_internal.h"

namespace serq::parser_internal {
namespace {

// "3:14", for messages that point at a second place in the file.
std::string Position(const Token& t) { return absl::StrCat(t.line, ":", t.column); }

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string OneOf(const std::vector<absl::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    absl::StrAppend(&out, "'", words[i], "'");
  }
  return out;
}

}  // namespace

void Parser::Declaration(ir::Program* out) {
  switch (Peek().kind) {
    case K::kParam: return Param(out);
    case K::kPool: return Pool(out);
    case K::kStage: return Stage(out);
    case K::kShare: return Share(out);
    case K::kWorkload: return Workload(out);
    case K::kSession: return Session(out);
    case K::kRun: return RunBlock(out);
    case K::kIdentifier:
      if (AtTable()) return Table(out);
      [[fallthrough]];
    default:
      ErrorHere(absl::StrCat("expected a declaration (",
                             OneOf({"param", "pool", "stage", "table", "share", "workload",
                                    "session", "run"}),
                             "), found ", DescribeToken(Peek())));
      RecoverToDeclaration();
  }
}

void Parser::Param(ir::Program* program) {
  const Token& kw = Take();
  ir::Param p;
  SetLoc(kw, p.mutable_loc());
  std::string name;
  if (!Name("a param name after 'param'", &name) ||
      !Expect(K::kAssign, "after 'param ", name, "'") ||
      Expr(kDeclarationExprLevel, p.mutable_value()) < 0) {
    return Recover(Level::kTop);
  }
  // `in [low, high]`: the range its value must lie in.
  if (Accept(K::kIn)) {
    if (!Expect(K::kLBracket, "after 'in' (a param's range: in [low, high])") ||
        Expr(kDeclarationExprLevel, p.mutable_low()) < 0 ||
        !Expect(K::kComma, "after the range's low end (in [low, high])") ||
        Expr(kDeclarationExprLevel, p.mutable_high()) < 0 ||
        !Expect(K::kRBracket, "after the range's high end (in [low, high])")) {
      return Recover(Level::kTop);
    }
  }
  p.set_name(name);
  EndWith(Level::kTop, "after the param");
  *program->add_param() = std::move(p);
}

// `[size]` after a pool's or a stage's name.
bool Parser::Size(ir::Expr* out, bool* has_size) {
  *has_size = false;
  if (!Accept(K::kLBracket)) return true;
  *has_size = true;
  if (Expr(kDeclarationExprLevel, out) < 0) return false;
  return Expect(K::kRBracket, "after the array size");
}

// `{ option value; … }`. `block` names the block in messages.
void Parser::Options(const Token& open, const std::string& block, std::vector<Option>& options) {
  // The options' words, for a message: only when there is one.
  auto words = [&] {
    std::vector<absl::string_view> out;
    for (const Option& o : options) out.push_back(o.word);
    return OneOf(out);
  };
  while (true) {
    if (Accept(K::kRBrace)) return;
    if (At(K::kEof) || AtDeclaration()) {
      ErrorHere(absl::StrCat("expected '}' to close ", block, " (its '{' is at line ",
                             open.line, "), found ", DescribeToken(Peek())));
      return;
    }
    const Token& t = Peek();
    Option* option = nullptr;
    if (t.kind == K::kIdentifier || IsReservedWord(t.kind)) {
      for (Option& o : options) {
        if (o.word == t.text) option = &o;
      }
    }
    if (option == nullptr) {
      if (t.kind == K::kIdentifier || IsReservedWord(t.kind)) {
        ErrorHere(absl::StrCat("unknown option '", t.text, "' in ", block, ": expected ",
                               words()));
      } else {
        ErrorHere(absl::StrCat("expected an option of ", block, " (", words(),
                               ") or '}', found ", DescribeToken(t)));
      }
      size_t before = pos_;
      Recover(Level::kOptions);
      if (pos_ == before) Take();
      continue;
    }
    Take();
    if (option->first != nullptr && !option->repeatable) {
      ErrorAtPrevious(absl::StrCat("'", option->word, "' given twice in ", block,
                                   " (first at ", Position(*option->first), ")"));
    }
    bool first_time = option->first == nullptr;
    if (first_time) option->first = &t;
    // A repeated option's value is parsed (to stay in step) into the same
    // field; the program is rejected anyway.
    if (!option->value()) {
      Recover(Level::kOptions);
      continue;
    }
    EndWith(Level::kOptions, "after the '", option->word, "' option");
  }
}

void Parser::Pool(ir::Program* program) {
  const Token& kw = Take();
  ir::Pool p;
  SetLoc(kw, p.mutable_loc());
  std::string name;
  bool has_size;
  if (!Name("a pool name after 'pool'", &name) || !Size(p.mutable_size(), &has_size)) {
    return Recover(Level::kTop);
  }
  if (!has_size) p.clear_size();
  p.set_name(name);
  if (!At(K::kLBrace)) {
    Expect(K::kLBrace, "after 'pool ", name, "'");
    return Recover(Level::kTop);
  }
  const Token& open = Take();
  std::vector<Option> options = {
      {"cap", [&] { return Expr(kDeclarationExprLevel, p.mutable_cap()) >= 0; }},
      {"evict",
       [&] {
         p.clear_evict_by();
         return Expect(K::kBy, "after 'evict'") && Key(3, p.mutable_evict_by());
       }},
      {"cache",
       [&] {
         SetLoc(tokens_[pos_ - 1], p.mutable_cache_loc());
         return Expr(kDeclarationExprLevel, p.mutable_cache()) >= 0;
       }},
      {"block",
       [&] {
         SetLoc(tokens_[pos_ - 1], p.mutable_block_loc());
         return Expr(kDeclarationExprLevel, p.mutable_block()) >= 0;
       }},
  };
  Options(open, absl::StrCat("pool '", name, "'"), options);
  *program->add_pool() = std::move(p);
}

void Parser::Stage(ir::Program* program) {
  const Token& kw = Take();
  ir::Stage s;
  SetLoc(kw, s.mutable_loc());
  std::string name;
  bool has_size;
  if (!Name("a stage name after 'stage'", &name) || !Size(s.mutable_size(), &has_size)) {
    return Recover(Level::kTop);
  }
  if (!has_size) s.clear_size();
  s.set_name(name);
  if (!Expect(K::kColon, "after 'stage ", name, "'") || !StageKind(&s)) {
    return Recover(Level::kTop);
  }
  if (At(K::kLBrace)) {
    const Token& open = Take();
    // An option of two words (`reserve prompt`): the option's word was
    // taken; `second` must follow.
    auto second_word = [&](absl::string_view first, absl::string_view second,
                           ir::Location* loc) {
      SetLoc(tokens_[pos_ - 1], loc);
      std::string what;
      if (!Name(absl::StrCat("'", second, "' after '", first, "'"), &what)) return false;
      if (what != second) {
        ErrorAtPrevious(
            absl::StrCat("expected '", second, "' after '", first, "', found '", what, "'"));
        return false;
      }
      return true;
    };
    std::vector<Option> options = {
        {"seqs", [&] { return Expr(kDeclarationExprLevel, s.mutable_seqs()) >= 0; }},
        {"tokens", [&] { return Expr(kDeclarationExprLevel, s.mutable_tokens()) >= 0; }},
        {"serve",
         [&] {
           s.clear_serve_by();
           return Expect(K::kBy, "after 'serve'") && Key(3, s.mutable_serve_by());
         }},
        {"preempt",
         [&] {
           s.clear_preempt_by();
           SetLoc(tokens_[pos_ - 1], s.mutable_preempt_loc());
           return Expect(K::kBy, "after 'preempt'") && Key(3, s.mutable_preempt_by());
         }},
        {"let", [&] { return Let(s.add_let()); }, nullptr, /*repeatable=*/true},
        {"chunk", [&] { return Expr(kDeclarationExprLevel, s.mutable_chunk()) >= 0; }},
        {"reserve",
         [&] {
           if (!second_word("reserve", "prompt", s.mutable_reserve_loc())) return false;
           s.set_reserve_prompt(true);
           return true;
         }},
        {"async",
         [&] {
           SetLoc(tokens_[pos_ - 1], s.mutable_async_loc());
           s.set_async_scheduling(true);
           return true;
         }},
        {"recompute",
         [&] {
           if (!second_word("recompute", "last", s.mutable_recompute_loc())) return false;
           s.set_recompute_last(true);
           return true;
         }},
        {"lockstep",
         [&] {
           SetLoc(tokens_[pos_ - 1], s.mutable_lockstep_loc());
           s.set_lockstep(true);
           return true;
         }},
    };
    Options(open, absl::StrCat("stage '", name, "'"), options);
  } else {
    EndWith(Level::kTop, "or '{' after the stage's kind");
  }
  *program->add_stage() = std::move(s);
}

// `let NAME = EXPR` in a stage's block (`let` taken): a local name of
// the stage's rate.
bool Parser::Let(ir::Let* let) {
  SetLoc(tokens_[pos_ - 1], let->mutable_loc());
  std::string name;
  if (!Name("a name after 'let'", &name)) return false;
  let->set_name(name);
  return Expect(K::kAssign, "after 'let ", name, "'") &&
         Expr(kDeclarationExprLevel + 1, let->mutable_value()) >= 0;
}

// A table's column: a name, or any text in quotes.
bool Parser::Column(absl::string_view what, std::string* out) {
  const Token& t = Peek();
  if (t.kind == K::kString) {
    *out = StringValue(Take());
    return true;
  }
  if (t.kind == K::kIdentifier || IsReservedWord(t.kind)) {
    *out = std::string(Take().text);
    return true;
  }
  ErrorHere(absl::StrCat("expected ", what, " (a name, or text in quotes), found ",
                         DescribeToken(t)));
  return false;
}

// `table NAME = "file" { key a, b; value t; where c = "x"; below clamp;
// above extrapolate; }` (docs/language.md §3.7).
void Parser::Table(ir::Program* program) {
  const Token& kw = Take();
  ir::Table t;
  SetLoc(kw, t.mutable_loc());
  std::string name;
  if (!Name("a table name after 'table'", &name)) return Recover(Level::kTop);
  t.set_name(name);
  // `table NAME = "file" { ... }`, or (IR 11) `table NAME { ... row ...; }`
  // with its rows in the block.
  if (!At(K::kLBrace)) {
    if (!Expect(K::kAssign, "or '{' after 'table ", name, "'")) return Recover(Level::kTop);
    if (!At(K::kString)) {
      ErrorHere(absl::StrCat("expected a file name in quotes after 'table ", name,
                             " =', found ", DescribeToken(Peek())));
      return Recover(Level::kTop);
    }
    t.set_file(StringValue(Take()));
    if (!At(K::kLBrace)) {
      Expect(K::kLBrace, "after the table's file name");
      return Recover(Level::kTop);
    }
  }
  const Token& open = Take();
  // `row k1, ..., kn, v;`: numbers, each with an optional sign.
  struct Row {
    const Token* at;
    std::vector<double> numbers;
  };
  std::vector<Row> rows;
  const Token* first_where = nullptr;
  auto row = [&] {
    Row r{&tokens_[pos_ - 1], {}};
    do {
      bool negative = Accept(K::kMinus);
      if (!At(K::kNumber)) {
        ErrorHere(absl::StrCat("expected a number in the row, found ", DescribeToken(Peek())));
        return false;
      }
      r.numbers.push_back(negative ? -Take().number : Take().number);
    } while (Accept(K::kComma));
    rows.push_back(std::move(r));
    return true;
  };
  auto outside = [&](absl::string_view word, ir::Table::Outside* out) {
    static const std::vector<std::pair<absl::string_view, ir::Table::Outside>> kWays = {
        {"clamp", ir::Table::CLAMP},
        {"extrapolate", ir::Table::EXTRAPOLATE},
        {"error", ir::Table::ERROR}};
    for (const auto& [w, v] : kWays) {
      if (At(K::kIdentifier) && Peek().text == w) {
        Take();
        *out = v;
        return true;
      }
    }
    ErrorHere(absl::StrCat("expected ", OneOf({"clamp", "extrapolate", "error"}), " after '",
                           word, "', found ", DescribeToken(Peek())));
    return false;
  };
  ir::Table::Outside below = ir::Table::OUTSIDE_UNSPECIFIED;
  ir::Table::Outside above = ir::Table::OUTSIDE_UNSPECIFIED;
  std::vector<Option> options = {
      {"key",
       [&] {
         t.clear_key();
         do {
           if (!Column("a key column", t.add_key())) return false;
         } while (Accept(K::kComma));
         return true;
       }},
      {"value", [&] { return Column("the value column", t.mutable_value()); }},
      {"where",
       [&] {
         if (first_where == nullptr) first_where = &tokens_[pos_ - 1];
         ir::Table::Match* m = t.add_where();
         SetLoc(tokens_[pos_ - 1], m->mutable_loc());
         if (!Column("a column after 'where'", m->mutable_column()) ||
             !Expect(K::kAssign, "after 'where ", m->column(), "'")) {
           return false;
         }
         const Token& v = Peek();
         if (v.kind == K::kString) {
           m->set_equals(StringValue(Take()));
           return true;
         }
         bool negative = Accept(K::kMinus);
         if (At(K::kNumber)) {
           m->set_equals(absl::StrCat(negative ? "-" : "", Take().text));
           return true;
         }
         ErrorHere(absl::StrCat("expected text in quotes or a number after 'where ",
                                m->column(), " =', found ", DescribeToken(Peek())));
         return false;
       },
       nullptr, /*repeatable=*/true},
      {"below", [&] { return outside("below", &below); }},
      {"above", [&] { return outside("above", &above); }},
      {"row", row, nullptr, /*repeatable=*/true},
  };
  Options(open, absl::StrCat("table '", name, "'"), options);
  t.set_below(below);
  t.set_above(above);
  // The rows go where a linked table keeps those it read (grid_key,
  // grid_value), so that the linker checks them as it checks any; a row
  // of the wrong length is refused here, where it stands.
  if (!rows.empty() && !t.file().empty()) {
    ErrorAtToken(*rows.front().at,
                 absl::StrCat("table '", name, "' reads its rows from its file: a 'row' "
                              "belongs to a table without one (table ", name, " { ... })"));
  } else if (rows.empty() && t.file().empty()) {
    ErrorAtToken(kw, absl::StrCat("table '", name, "' has no file and no rows: write "
                                  "'table ", name, " = \"file\" { ... }' or give its rows "
                                  "('row k1, ..., v;')"));
  } else {
    if (t.file().empty() && first_where != nullptr) {
      ErrorAtToken(*first_where, absl::StrCat("table '", name, "' lists its rows: a 'where' "
                                              "selects rows of a file"));
    }
    for (const Row& r : rows) {
      if (r.numbers.size() != static_cast<size_t>(t.key_size()) + 1) {
        ErrorAtToken(*r.at, absl::StrCat("a row of table '", name, "' has ", r.numbers.size(),
                                         r.numbers.size() == 1 ? " number" : " numbers",
                                         "; its ", t.key_size(),
                                         t.key_size() == 1 ? " key and value" : " keys and value",
                                         " take ", t.key_size() + 1));
        continue;
      }
      t.mutable_grid_key()->Add(r.numbers.begin(), r.numbers.end() - 1);
      t.add_grid_value(r.numbers.back());
    }
  }
  *program->add_table() = std::move(t);
}

bool Parser::StageKind(ir::Stage* s) {
  const Token& t = Peek();
  switch (t.kind) {
    case K::kDelay:
      Take();
      s->set_kind(ir::Stage::DELAY);
      return true;
    case K::kPs: s->set_kind(ir::Stage::PS); break;
    case K::kFifo: s->set_kind(ir::Stage::FIFO); break;
    case K::kStep: s->set_kind(ir::Stage::STEP); break;
    default:
      ErrorHere(absl::StrCat("expected a stage kind (",
                             OneOf({"delay", "ps", "fifo", "step"}), ") after ':', found ",
                             DescribeToken(t)));
      return false;
  }
  Take();
  return Parenthesized(kDeclarationExprLevel, absl::StrCat("after '", t.text, "'"),
                       s->mutable_rate());
}

void Parser::Share(ir::Program* program) {
  const Token& kw = Take();
  if (share_ != nullptr) {
    ErrorAtPrevious(absl::StrCat("second 'share' declaration (the first is at ",
                                 Position(*share_), ")"));
  } else {
    share_ = &kw;
  }
  ir::Program::Share policy;
  if (Accept(K::kMaxmin)) {
    policy = ir::Program::MAXMIN;
  } else if (Accept(K::kBottleneck)) {
    policy = ir::Program::BOTTLENECK;
  } else {
    ErrorHere(absl::StrCat("expected ", OneOf({"maxmin", "bottleneck"}),
                           " after 'share', found ", DescribeToken(Peek())));
    return Recover(Level::kTop);
  }
  if (share_ == &kw) {
    program->set_share(policy);
    SetLoc(kw, program->mutable_share_loc());
  }
  EndWith(Level::kTop, "after the share declaration");
}

// The optional name of a workload or a session, before its `{`.
// A reserved word there is taken as a (wrong) name only when a `{`
// follows; otherwise the `{` is what is missing.
bool Parser::OptionalName(absl::string_view what, std::string* name) {
  if (At(K::kLBrace)) return true;
  if (IsReservedWord(Peek().kind) && Peek(1).kind != K::kLBrace) {
    ErrorHere(absl::StrCat("expected ", what, ", found ", DescribeToken(Peek())));
    return false;
  }
  return Name(what, name);
}

void Parser::Workload(ir::Program* program) {
  const Token& kw = Take();
  ir::Workload w;
  SetLoc(kw, w.mutable_loc());
  std::string name;
  if (!OptionalName("a workload name or '{' after 'workload'", &name)) {
    return Recover(Level::kTop);
  }
  w.set_name(name);
  if (!Expect(K::kLBrace, name.empty() ? std::string("after 'workload'")
                                        : absl::StrCat("after 'workload ", name, "'"))) {
    return Recover(Level::kTop);
  }
  const Token& open = tokens_[pos_ - 1];
  std::vector<Option> options = {
      {"arrive", [&] { return Arrival(&w); }},
      {"limit", [&] { return Expr(kDeclarationExprLevel, w.mutable_limit()) >= 0; }},
  };
  Options(open,
          name.empty() ? std::string("the unnamed workload")
                       : absl::StrCat("workload '", name, "'"),
          options);
  *program->add_workload() = std::move(w);
}

bool Parser::Arrival(ir::Workload* w) {
  static const std::vector<std::pair<absl::string_view, ir::Workload::Process>> kProcesses = {
      {"batch", ir::Workload::BATCH},       {"poisson", ir::Workload::POISSON},
      {"periodic", ir::Workload::PERIODIC}, {"renewal", ir::Workload::RENEWAL},
      {"trace", ir::Workload::TRACE},       {"stages", ir::Workload::STAGES},
      {"exactly", ir::Workload::EXACTLY},
  };
  auto words = [&] {
    std::vector<absl::string_view> out;
    for (const auto& p : kProcesses) out.push_back(p.first);
    return OneOf(out);
  };
  const Token& t = Peek();
  const ir::Workload::Process* process = nullptr;
  if (t.kind == K::kIdentifier) {
    for (const auto& p : kProcesses) {
      if (p.first == t.text) process = &p.second;
    }
  }
  if (process == nullptr) {
    if (t.kind == K::kIdentifier) {
      ErrorHere(absl::StrCat("unknown arrival process '", t.text, "': expected ",
                             words()));
    } else {
      ErrorHere(absl::StrCat("expected an arrival process (", words(),
                             ") after 'arrive', found ", DescribeToken(t)));
    }
    return false;
  }
  Take();
  w->set_process(*process);
  w->clear_arg();
  w->clear_file();
  w->clear_args();
  if (*process == ir::Workload::STAGES || *process == ir::Workload::EXACTLY) {
    // A list: stages(rate, duration, ...), exactly(n, T).
    const std::string name(t.text);
    if (!Expect(K::kLParen, absl::StrCat("after '", name, "'"))) return false;
    do {
      if (Expr(kDeclarationExprLevel, w->add_args()) < 0) return false;
    } while (Accept(K::kComma));
    return Expect(K::kRParen, absl::StrCat("after the arguments of '", name, "'"));
  }
  if (*process != ir::Workload::TRACE) {
    return Parenthesized(kDeclarationExprLevel, absl::StrCat("after '", t.text, "'"),
                         w->mutable_arg());
  }
  if (!Expect(K::kLParen, "after 'trace'")) return false;
  if (!At(K::kString)) {
    ErrorHere(absl::StrCat("expected a file name in quotes after 'trace(', found ",
                           DescribeToken(Peek())));
    return false;
  }
  w->set_file(StringValue(Take()));
  // trace("file", scale): every arrival at scale x its trace time (IR 11).
  if (Accept(K::kComma) && Expr(kDeclarationExprLevel, w->mutable_arg()) < 0) return false;
  return Expect(K::kRParen, "after the file name");
}

void Parser::Session(ir::Program* program) {
  const Token& kw = Take();
  ir::Session s;
  SetLoc(kw, s.mutable_loc());
  std::string name;
  if (!OptionalName("a session name or '{' after 'session'", &name)) {
    return Recover(Level::kTop);
  }
  s.set_name(name);
  if (!At(K::kLBrace)) {
    Expect(K::kLBrace, name.empty() ? std::string("after 'session'")
                                     : absl::StrCat("after 'session ", name, "'"));
    return Recover(Level::kTop);
  }
  Statements(kSessionStatementLevel, s.mutable_body());
  *program->add_session() = std::move(s);
}

void Parser::RunBlock(ir::Program* program) {
  const Token& kw = Take();
  bool first = run_ == nullptr;
  if (!first) {
    ErrorAtPrevious(
        absl::StrCat("second 'run' block (the first is at ", Position(*run_), ")"));
  } else {
    run_ = &kw;
  }
  ir::RunSettings scratch;
  ir::RunSettings* r = first ? program->mutable_run() : &scratch;
  SetLoc(kw, r->mutable_loc());
  if (!Expect(K::kLBrace, "after 'run'")) return Recover(Level::kTop);
  const Token& open = tokens_[pos_ - 1];
  auto setting = [&](ir::Expr* e) {
    return [this, e] { return Expr(kDeclarationExprLevel, e) >= 0; };
  };
  std::vector<Option> options = {
      {"horizon", setting(r->mutable_horizon())},
      {"warmup", setting(r->mutable_warmup())},
      {"replications", setting(r->mutable_replications())},
      {"seed", setting(r->mutable_seed())},
      {"sample", setting(r->mutable_sample())},
      {"gpus", setting(r->mutable_gpus())},
  };
  Options(open, "the run block", options);
  // Settings not given stay absent (mutable_ above created them empty).
  if (options[0].first == nullptr) r->clear_horizon();
  if (options[1].first == nullptr) r->clear_warmup();
  if (options[2].first == nullptr) r->clear_replications();
  if (options[3].first == nullptr) r->clear_seed();
  if (options[4].first == nullptr) r->clear_sample();
  if (options[5].first == nullptr) r->clear_gpus();
}

}  // namespace serq::parser_internal
