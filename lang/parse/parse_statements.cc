// A session's statements, each at its IR level (a block's statements two
// levels below the statement that holds it); `transfer` lowered to run,
// load and release as it is parsed.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lang/parse/lexer.h"
#include "lang/parse/parser_internal.h"

namespace serq::parser_internal {

// `{ statements }` of a statement at IR level `level`; its statements are
// at `level + 2` (Statement > If > Statement).
bool Parser::Block(int level, Body* body, absl::string_view context) {
  if (!At(K::kLBrace)) {
    ErrorHere(absl::StrCat("expected '{' ", context, ", found ", DescribeToken(Peek())));
    return false;
  }
  if (level + 2 + 2 > kMaxIrDepth) {  // a statement and its smallest expression
    ErrorHere(TooDeep());
    return false;
  }
  Statements(level + 2, body);
  return true;
}

// At `{`: the statements up to the matching `}`.
void Parser::Statements(int level, Body* body) {
  const Token& open = Take();
  while (true) {
    if (Accept(K::kRBrace)) return;
    if (At(K::kEof) || AtDeclaration()) {
      ErrorHere(absl::StrCat("expected '}' to match the '{' at line ", open.line, ", found ",
                             DescribeToken(Peek())));
      return;
    }
    size_t before = pos_;
    Statement(level, body);
    if (pos_ == before) Take();
  }
}

void Parser::Statement(int level, Body* body) {
  const Token& t = Peek();
  switch (t.kind) {
    case K::kSet: return Set(level, body);
    case K::kIf: return If(level, body);
    case K::kRepeat: return Repeat(level, body);
    case K::kEnd: return End(body);
    case K::kRun: return Run(level, body);
    case K::kChoose: return Choose(level, body);
    case K::kHold: return Hold(level, body);
    case K::kRelease: return Release(level, body);
    case K::kLoad: return Load(level, body);
    case K::kTransfer: return Transfer(level, body);
    case K::kObserve: return Observe(level, body);
    case K::kIdentifier:
      if (AtPrefixStatement()) return Prefix(level, body);
      ErrorHere(absl::StrCat("expected a statement, found ", DescribeToken(t)));
      return Recover(Level::kStatements);
    case K::kElse: {
      // The `if` it belonged to is gone or closed; what follows is still
      // checked, as an `if` or as a block of its own.
      ErrorHere("'else' without 'if'");
      Take();
      if (At(K::kIf)) return;
      Body ignored;
      if (!Block(level, &ignored, "or 'if' after 'else'")) Recover(Level::kStatements);
      return;
    }
    case K::kLease:
      ErrorHere("'lease' must follow the block of a 'hold'");
      Take();
      return Recover(Level::kStatements);
    default:
      ErrorHere(absl::StrCat("expected a statement, found ", DescribeToken(t)));
      return Recover(Level::kStatements);
  }
}

// A new statement at `kw`, to be filled and appended.
ir::Statement Parser::NewStatement(const Token& kw) {
  ir::Statement s;
  SetLoc(kw, s.mutable_loc());
  return s;
}

void Parser::Set(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Set* set = s.mutable_set();
  std::string name;
  if (!Name("a variable name after 'set'", &name) ||
      !Expect(K::kAssign, "after 'set ", name, "'") ||
      Expr(level + 2, set->mutable_value()) < 0) {
    return Recover(Level::kStatements);
  }
  set->set_variable(name);
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

void Parser::If(int level, Body* body) {
  ir::Statement s;
  if (IfStatement(level, &s)) *body->Add() = std::move(s);
}

// `if (c) { … } [else if … | else { … }]`, the `if` next.
bool Parser::IfStatement(int level, ir::Statement* s) {
  *s = NewStatement(Take());
  ir::Statement::If* i = s->mutable_if_();
  if (!Parenthesized(level + 2, "after 'if'", i->mutable_condition()) ||
      !Block(level, i->mutable_then(), "after the condition of 'if'")) {
    Recover(Level::kStatements);
    return false;
  }
  if (!Accept(K::kElse)) return true;
  if (At(K::kIf)) {
    if (level + 2 + 2 > kMaxIrDepth) {
      ErrorHere(TooDeep());
      Recover(Level::kStatements);
      return false;
    }
    return IfStatement(level + 2, i->add_else_());
  }
  if (!Block(level, i->mutable_else_(), "or 'if' after 'else'")) {
    Recover(Level::kStatements);
    return false;
  }
  return true;
}

void Parser::Repeat(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Repeat* r = s.mutable_repeat();
  if (!Parenthesized(level + 2, "after 'repeat'", r->mutable_count()) ||
      !Block(level, r->mutable_body(), "after the count of 'repeat'")) {
    return Recover(Level::kStatements);
  }
  *body->Add() = std::move(s);
}

void Parser::End(Body* body) {
  ir::Statement s = NewStatement(Take());
  s.mutable_end();
  EndWith(Level::kStatements, "after 'end'");
  *body->Add() = std::move(s);
}

// `REF, REF, …` of a run: the first in `first`, the others in `also`.
bool Parser::StageList(int level, absl::string_view after, ir::Ref* first,
               google::protobuf::RepeatedPtrField<ir::Ref>* also) {
  if (!Ref(level, absl::StrCat("a stage name after ", after), first)) return false;
  while (Accept(K::kComma)) {
    if (!Ref(level, "a stage name after ','", also->Add())) return false;
  }
  return true;
}

void Parser::Run(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Run* run = s.mutable_run();
  if (!StageList(level + 2, "'run'", run->mutable_stage(), run->mutable_also())) {
    return Recover(Level::kStatements);
  }
  if (Accept(K::kPrefill)) {
    run->set_mode(ir::Statement::Run::PREFILL);
  } else if (Accept(K::kDecode)) {
    run->set_mode(ir::Statement::Run::DECODE);
  }
  if (!Parenthesized(level + 2, "and the work after the run's stage", run->mutable_work())) {
    return Recover(Level::kStatements);
  }
  if (Accept(K::kGrowing) &&
      !Ref(level + 2, "a pool name after 'growing'", run->mutable_growing())) {
    return Recover(Level::kStatements);
  }
  // `observe NAME`: one sample a token (docs/language.md §5.6); `=` would mean the
  // `observe` statement, which the missing `;` then ran into.
  if (At(K::kObserve)) {
    SetLoc(Take(), run->mutable_observe_loc());
    std::string name;
    if (!Name("a metric name after 'observe'", &name)) return Recover(Level::kStatements);
    if (At(K::kAssign)) {
      ErrorHere(absl::StrCat("expected ';' after 'observe ", name,
                             "' on a run (it takes no value: each token is a sample), "
                             "found '='"));
      return Recover(Level::kStatements);
    }
    run->set_observe(name);
  }
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

void Parser::Choose(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Choose* c = s.mutable_choose();
  std::string variable, array;
  if (!Name("a variable name after 'choose'", &variable) ||
      !Expect(K::kIn, "after 'choose ", variable, "'")) {
    return Recover(Level::kStatements);
  }
  const Token& array_token = Peek();
  if (!Name("an array name after 'in'", &array) ||
      !Expect(K::kBy, "after 'choose ", variable, " in ", array, "'") ||
      !Key(level + 2, c->mutable_by())) {
    return Recover(Level::kStatements);
  }
  // IR 11: `every DT`, the key read on a copy of the state refreshed
  // every DT seconds (an option word here only).
  if (At(K::kIdentifier) && Peek().text == "every") {
    SetLoc(Take(), c->mutable_every_loc());
    if (Expr(level + 2, c->mutable_every()) < 0) return Recover(Level::kStatements);
  }
  c->set_variable(variable);
  c->mutable_array()->set_name(array);
  SetLoc(array_token, c->mutable_array()->mutable_loc());
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

// `REF (e), REF (e), …` of a hold or a lease, Amounts at IR level `level`.
bool Parser::Amounts(int level, absl::string_view after,
             google::protobuf::RepeatedPtrField<ir::Statement::Amount>* out) {
  absl::string_view what = after;
  while (true) {
    ir::Statement::Amount* a = out->Add();
    SetLoc(Peek(), a->mutable_loc());
    if (!Ref(level + 1, absl::StrCat("a pool name after ", what), a->mutable_pool()) ||
        !Parenthesized(level + 1, absl::StrCat("after '", a->pool().name(), "'"),
                       a->mutable_amount())) {
      return false;
    }
    if (!Accept(K::kComma)) return true;
    what = "','";
  }
}

void Parser::Hold(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Hold* h = s.mutable_hold();
  if (!Amounts(level + 2, "'hold'", h->mutable_pool()) ||
      !Block(level, h->mutable_body(), "after the amounts of 'hold'")) {
    return Recover(Level::kStatements);
  }
  if (Accept(K::kLease)) {
    if (!Amounts(level + 2, "'lease'", h->mutable_lease())) {
      return Recover(Level::kStatements);
    }
    EndWith(Level::kStatements, "after the lease");
  }
  *body->Add() = std::move(s);
}

void Parser::Release(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  if (!Ref(level + 2, "a pool name after 'release'", s.mutable_release()->mutable_pool())) {
    return Recover(Level::kStatements);
  }
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

void Parser::Load(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Load* l = s.mutable_load();
  if (!Ref(level + 2, "a pool name after 'load'", l->mutable_pool()) ||
      !Parenthesized(level + 2, absl::StrCat("after '", l->pool().name(), "'"),
                     l->mutable_amount())) {
    return Recover(Level::kStatements);
  }
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

// `transfer[j] (w) from P to Q (m);` and `transfer on S, … (w) from P to
// Q (m);` lower to `run …; load Q (m); release P;`, each marked as part
// of the transfer and located at its keyword.
void Parser::Transfer(int level, Body* body) {
  const Token& kw = Take();
  ir::Statement run = NewStatement(kw), load = NewStatement(kw), release = NewStatement(kw);
  run.set_transfer(true);
  load.set_transfer(true);
  release.set_transfer(true);
  ir::Statement::Run* r = run.mutable_run();
  if (Accept(K::kOn)) {
    if (!StageList(level + 2, "'on'", r->mutable_stage(), r->mutable_also())) {
      return Recover(Level::kStatements);
    }
  } else {
    // The program's link stage (language.md §5.5), located at the
    // transfer since the source does not spell it.
    r->mutable_stage()->set_name("link");
    SetLoc(kw, r->mutable_stage()->mutable_loc());
    if (Accept(K::kLBracket)) {
      if (Expr(level + 3, r->mutable_stage()->mutable_index()) < 0 ||
          !Expect(K::kRBracket, "after the index of 'transfer'")) {
        return Recover(Level::kStatements);
      }
    }
  }
  ir::Ref from;
  ir::Statement::Load* l = load.mutable_load();
  if (!Parenthesized(level + 2, "and the work of the transfer", r->mutable_work()) ||
      !Expect(K::kFrom, "after the transfer's work") ||
      !Ref(level + 2, "a pool name after 'from'", &from) ||
      !Expect(K::kTo, "after 'from ", from.name(), "'") ||
      !Ref(level + 2, "a pool name after 'to'", l->mutable_pool()) ||
      !Parenthesized(level + 2, absl::StrCat("after '", l->pool().name(), "'"),
                     l->mutable_amount())) {
    return Recover(Level::kStatements);
  }
  *release.mutable_release()->mutable_pool() = std::move(from);
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(run);
  *body->Add() = std::move(load);
  *body->Add() = std::move(release);
}

// `prefix (k, n);`: n blocks of family k (docs/language.md §5.7). `prefix` is a
// statement word: a name anywhere else.
void Parser::Prefix(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Prefix* p = s.mutable_prefix();
  if (!Expect(K::kLParen, "after 'prefix'") || Expr(level + 2, p->mutable_family()) < 0) {
    return Recover(Level::kStatements);
  }
  if (!At(K::kComma)) {
    ErrorHere(absl::StrCat("expected ',' and the block count after the family of 'prefix', "
                           "found ", DescribeToken(Peek())));
    return Recover(Level::kStatements);
  }
  Take();
  if (Expr(level + 2, p->mutable_count()) < 0) return Recover(Level::kStatements);
  if (At(K::kComma)) {
    ErrorHere("'prefix' takes two arguments, a family and a block count");
    return Recover(Level::kStatements);
  }
  if (!Expect(K::kRParen, "after the block count of 'prefix'")) {
    return Recover(Level::kStatements);
  }
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

void Parser::Observe(int level, Body* body) {
  ir::Statement s = NewStatement(Take());
  ir::Statement::Observe* o = s.mutable_observe();
  std::string name;
  if (!Name("a metric name after 'observe'", &name) ||
      !Expect(K::kAssign, "after 'observe ", name, "'") ||
      Expr(level + 2, o->mutable_value()) < 0) {
    return Recover(Level::kStatements);
  }
  o->set_name(name);
  EndWith(Level::kStatements, "after the statement");
  *body->Add() = std::move(s);
}

}  // namespace serq::parser_internal
