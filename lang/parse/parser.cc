// A recursive-descent parser over the lexer's tokens. It reports every
// syntax error of a file: after an error it skips to a point where parsing
// can resume (a `;`, a `}`, the next declaration) so that one mistake gives
// one error, and it never reports twice at one token.
#include "lang/parse/parser.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/utf8.h"
#include "ir/words.h"
#include "lang/parse/lexer.h"

namespace serq {
namespace {

using Body = google::protobuf::RepeatedPtrField<ir::Statement>;
using K = TokenKind;

// The IR level of a declaration's expressions (program 1, declaration 2),
// and of a session's top-level statements (program 1, session 2).
constexpr int kDeclarationExprLevel = 3;
constexpr int kSessionStatementLevel = 3;

constexpr int kLowestPrecedence = 1;  // OperatorPrecedence (ir/words.h) of `||`

// The binary operator a token spells.
bool BinaryOperator(TokenKind kind, ir::Expr::BinaryOp* op) {
  switch (kind) {
    case K::kOrOr: *op = ir::Expr::OR; return true;
    case K::kAndAnd: *op = ir::Expr::AND; return true;
    case K::kLt: *op = ir::Expr::LT; return true;
    case K::kLe: *op = ir::Expr::LE; return true;
    case K::kGt: *op = ir::Expr::GT; return true;
    case K::kGe: *op = ir::Expr::GE; return true;
    case K::kEq: *op = ir::Expr::EQ; return true;
    case K::kNe: *op = ir::Expr::NE; return true;
    case K::kPlus: *op = ir::Expr::ADD; return true;
    case K::kMinus: *op = ir::Expr::SUB; return true;
    case K::kStar: *op = ir::Expr::MUL; return true;
    case K::kSlash: *op = ir::Expr::DIV; return true;
    case K::kPercent: *op = ir::Expr::MOD; return true;
    default: return false;
  }
}

bool IsStatementKeyword(TokenKind kind) {
  switch (kind) {
    case K::kSet: case K::kIf: case K::kRepeat: case K::kEnd: case K::kRun:
    case K::kChoose: case K::kHold: case K::kRelease: case K::kLoad:
    case K::kTransfer: case K::kObserve:
      return true;
    default:
      return false;
  }
}

// Reserved words that join the parts of a statement. Found where a name
// should be, they mean the name is missing, not that it was misspelt.
bool IsJoiningWord(TokenKind kind) {
  switch (kind) {
    case K::kIn: case K::kBy: case K::kFrom: case K::kTo: case K::kOn:
    case K::kGrowing: case K::kLease: case K::kElse: case K::kPrefill: case K::kDecode:
      return true;
    default:
      return false;
  }
}

// "3:14", for messages that point at a second place in the file.
std::string Position(const Token& t) { return absl::StrCat(t.line, ":", t.column); }

void SetLoc(const Token& t, ir::Location* loc) {
  loc->set_line(t.line);
  loc->set_column(t.column);
}

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string OneOf(const std::vector<absl::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    absl::StrAppend(&out, "'", words[i], "'");
  }
  return out;
}

// Where a failed construct is skipped to.
enum class Level {
  kTop,         // between declarations
  kOptions,     // inside a pool, stage, workload or run block
  kStatements,  // inside a session or a statement's block
};

class Parser {
 public:
  Parser(absl::string_view source, Diagnostics* diags)
      : diags_(diags), tokens_(Lex(source, diags)) {}

  void Program(ir::Program* out) {
    while (!At(K::kEof)) {
      size_t before = pos_;
      Declaration(out);
      if (pos_ == before) Take();  // never loop without progress
    }
  }

  bool Expression(ir::Expr* out) {
    if (Expr(kDeclarationExprLevel, out) < 0) return false;
    if (!At(K::kEof)) {
      ErrorHere(absl::StrCat("expected end of the expression, found ", DescribeToken(Peek())));
      return false;
    }
    return true;
  }

 private:
  // ------------------------------------------------------------ tokens

  const Token& Peek(size_t k = 0) const {
    return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
  }
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  const Token& Take() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Accept(TokenKind kind) {
    if (!At(kind)) return false;
    Take();
    return true;
  }

  // The statement word `prefix` starts a statement here (not `prefix = …`,
  // a `set` that lost its keyword).
  bool AtPrefixStatement() const {
    return At(K::kIdentifier) && Peek().text == "prefix" && Peek(1).kind != K::kAssign;
  }

  // A declaration starts here: its keyword (`run` only before `{`, since
  // `run` also starts a statement).
  bool AtDeclaration() const {
    switch (Peek().kind) {
      case K::kParam: case K::kPool: case K::kStage: case K::kShare:
      case K::kWorkload: case K::kSession:
        return true;
      case K::kRun:
        return Peek(1).kind == K::kLBrace;
      case K::kIdentifier:
        return AtTable();
      default:
        return false;
    }
  }

  // The declaration word `table` starts a declaration here (`table NAME`):
  // reserved only there, as `prefix` is where a statement starts.
  bool AtTable() const {
    return At(K::kIdentifier) && Peek().text == "table" &&
           (Peek(1).kind == K::kIdentifier || IsReservedWord(Peek(1).kind));
  }

  // ------------------------------------------------------------ errors

  // Reports `message` at token `index`, unless an error was reported there
  // already or the token is one the lexer rejected (and reported): both
  // would only repeat an error the user has.
  void ErrorAtIndex(size_t index, std::string message) {
    const Token& t = tokens_[index];
    if (t.kind == K::kError) return;
    if (t.kind == K::kEof && index > 0 && tokens_[index - 1].kind == K::kError) return;
    if (reported_.has_value() && *reported_ == index) return;
    reported_ = index;
    diags_->Error(t.line, t.column, std::move(message));
    if (diags_->full()) {
      // Nothing more would be shown: every construct open unwinds as at
      // the end of the file, whose errors are counted, not kept.
      diags_->StopAtLimit();
      pos_ = tokens_.size() - 1;
    }
  }
  void ErrorHere(std::string message) { ErrorAtIndex(pos_, std::move(message)); }
  // At a token already taken (the one before the current).
  void ErrorAtPrevious(std::string message) { ErrorAtIndex(pos_ - 1, std::move(message)); }
  // At a token taken earlier (a reference into tokens_).
  void ErrorAtToken(const Token& t, std::string message) {
    ErrorAtIndex(static_cast<size_t>(&t - tokens_.data()), std::move(message));
  }

  // `context` is the message's middle in parts (`"after 'param ", name,
  // "'"`), joined only when the token is missing: nearly every call finds
  // it, and a string built for nothing is an allocation a token.
  template <typename... Context>
  bool Expect(TokenKind kind, const Context&... context) {
    if (Accept(kind)) return true;
    ErrorHere(absl::StrCat("expected ", DescribeKind(kind), " ", absl::StrCat(context...),
                           ", found ", DescribeToken(Peek())));
    return false;
  }

  // Skips the rest of a construct that failed to parse, to where the next
  // one can start. Inside a block: past a `;`, before a `}` that closes the
  // block, after a `{ … }` (and its `else` or `lease` part), before the next
  // declaration, or before a statement keyword that starts a line. Between
  // declarations: to the next declaration, since whatever is in between
  // (say, the statements of a session that lost its `{`) would otherwise
  // give an error each.
  void Recover(Level level) {
    if (level == Level::kTop) return RecoverToDeclaration();
    int depth = 0;
    while (!At(K::kEof)) {
      const Token& t = Peek();
      if (depth == 0) {
        if (t.kind == K::kSemi) {
          Take();
          return;
        }
        if (t.kind == K::kRBrace) return;
        if (AtDeclaration()) return;
        if (level == Level::kStatements && t.first_on_line &&
            (IsStatementKeyword(t.kind) || AtPrefixStatement())) {
          return;
        }
      }
      if (t.kind == K::kLBrace) {
        ++depth;
      } else if (t.kind == K::kRBrace) {
        --depth;
        if (depth == 0) {
          Take();
          if (!At(K::kElse) && !At(K::kLease)) return;
          continue;
        }
      }
      Take();
    }
  }

  void RecoverToDeclaration() {
    int depth = 0;
    while (!At(K::kEof)) {
      if (depth == 0 && AtDeclaration()) return;
      if (At(K::kLBrace)) ++depth;
      if (At(K::kRBrace) && depth > 0) --depth;
      Take();
    }
  }

  // The `;` that ends a statement, option or declaration. When the token
  // after the construct starts a later line (or closes the block), the `;`
  // was most likely forgotten: that is reported and parsing goes on there.
  // `context` in parts, as Expect's.
  template <typename... Context>
  void EndWith(Level level, const Context&... context) {
    if (Accept(K::kSemi)) return;
    ErrorHere(absl::StrCat("expected ';' ", absl::StrCat(context...), ", found ",
                           DescribeToken(Peek())));
    if (Peek().first_on_line || At(K::kRBrace) || At(K::kEof)) return;
    Recover(level);
  }

  // A name where the grammar has one. A reserved word there is reported
  // and, unless it is a word that joins a statement's parts (which more
  // likely means the name is missing), taken as the name so that the rest
  // of the construct parses.
  bool Name(absl::string_view what, std::string* out) {
    const Token& t = Peek();
    if (t.kind == K::kIdentifier) {
      *out = std::string(t.text);
      Take();
      return true;
    }
    if (IsReservedWord(t.kind) && !IsJoiningWord(t.kind)) {
      ErrorHere(absl::StrCat("expected ", what, ", found reserved word '", t.text, "'"));
      *out = std::string(t.text);
      Take();
      return true;
    }
    ErrorHere(absl::StrCat("expected ", what, ", found ",
                           IsReservedWord(t.kind) ? "reserved word " : "", DescribeToken(t)));
    return false;
  }

  // ------------------------------------------------------------ expressions
  //
  // Each returns the height of the expression it parsed (1 for a number,
  // +2 for every message level below: Expr > Binary > Expr), or -1 after an
  // error. `level` is the IR level of the expression's root; with it the
  // parser refuses any expression the IR could not hold (kMaxIrDepth).

  int Expr(int level, ir::Expr* out) {
    int saved = expr_level_;
    expr_level_ = level;
    int height = Binary(kLowestPrecedence, out);
    expr_level_ = saved;
    return height;
  }

  // Checks a node of `height` under the current expression's root.
  bool FitsDepth(int height, size_t token_index) {
    if (expr_level_ + height - 1 <= kMaxIrDepth) return true;
    ErrorAtIndex(token_index, TooDeep());
    return false;
  }
  static std::string TooDeep() {
    return absl::StrCat("nested too deeply: the IR holds at most ", kMaxIrDepth,
                        " levels of blocks and expressions (split the expression with "
                        "'set' or a 'param')");
  }

  // Guards the parser's own recursion (parentheses, unary operators, blocks)
  // against input nested without end.
  class Nest {
   public:
    explicit Nest(Parser* p) : p_(p) { ++p_->nesting_; }
    ~Nest() { --p_->nesting_; }
    bool ok() const { return p_->nesting_ <= kMaxIrDepth; }

   private:
    Parser* p_;
  };

  int Binary(int min_precedence, ir::Expr* out) {
    int height = Unary(out);
    if (height < 0) return -1;
    return BinaryRest(min_precedence, height, out);
  }

  // Operators after an operand already parsed into `lhs` (of `height`).
  // Left-associative; comparisons do not chain (`a < b < c` is an error,
  // since reading it as (a < b) < c is never what was meant).
  int BinaryRest(int min_precedence, int height, ir::Expr* lhs) {
    bool after_comparison = false;
    while (true) {
      ir::Expr::BinaryOp op;
      if (!BinaryOperator(Peek().kind, &op)) return height;
      int precedence = OperatorPrecedence(op);
      if (precedence < min_precedence) return height;
      size_t op_index = pos_;
      const Token& op_token = Take();
      if (precedence == kComparisonPrecedence) {
        if (after_comparison) {
          ErrorAtIndex(op_index,
                       absl::StrCat("comparisons do not chain: add parentheses, or use '&&', "
                                    "before '", op_token.text, "'"));
          return -1;
        }
        after_comparison = true;
      } else {
        after_comparison = false;
      }
      ir::Expr rhs;
      int rhs_height = Binary(precedence + 1, &rhs);
      if (rhs_height < 0) return -1;
      height = 2 + std::max(height, rhs_height);
      if (!FitsDepth(height, op_index)) return -1;
      ir::Expr node;
      SetLoc(op_token, node.mutable_loc());
      ir::Expr::Binary* b = node.mutable_binary();
      b->set_op(op);
      *b->mutable_lhs() = std::move(*lhs);
      *b->mutable_rhs() = std::move(rhs);
      *lhs = std::move(node);
    }
  }

  int Unary(ir::Expr* out) {
    if (!At(K::kMinus) && !At(K::kNot)) return Primary(out);
    size_t op_index = pos_;
    const Token& op_token = Take();
    Nest nest(this);
    if (!nest.ok()) {
      ErrorAtIndex(op_index, TooDeep());
      return -1;
    }
    SetLoc(op_token, out->mutable_loc());
    ir::Expr::Unary* u = out->mutable_unary();
    u->set_op(op_token.kind == K::kMinus ? ir::Expr::NEG : ir::Expr::NOT);
    int height = Unary(u->mutable_operand());
    if (height < 0) return -1;
    height += 2;
    if (!FitsDepth(height, op_index)) return -1;
    return height;
  }

  int Primary(ir::Expr* out) {
    const Token& t = Peek();
    switch (t.kind) {
      case K::kNumber:
        Take();
        SetLoc(t, out->mutable_loc());
        out->set_number(t.number);
        return 1;
      case K::kInf:
        Take();
        SetLoc(t, out->mutable_loc());
        out->set_number(std::numeric_limits<double>::infinity());
        return 1;
      case K::kIdentifier:
      // The step variables of a tau: reserved words everywhere else.
      case K::kPrefill:
      case K::kDecode: {
        size_t name_index = pos_;
        Take();
        SetLoc(t, out->mutable_loc());
        if (At(K::kLParen)) return Call(name_index, out);
        ir::Ref* ref = out->mutable_ref();
        ref->set_name(std::string(t.text));
        SetLoc(t, ref->mutable_loc());
        if (!At(K::kLBracket)) return 2;
        Take();
        Nest nest(this);
        if (!nest.ok()) {
          ErrorAtIndex(name_index, TooDeep());
          return -1;
        }
        int height = Binary(kLowestPrecedence, ref->mutable_index());
        if (height < 0) return -1;
        if (!Expect(K::kRBracket, "after the index of '", t.text, "'")) return -1;
        height += 2;
        if (!FitsDepth(height, name_index)) return -1;
        return height;
      }
      case K::kLParen: {
        Take();
        Nest nest(this);
        if (!nest.ok()) {
          ErrorAtPrevious(TooDeep());
          return -1;
        }
        int height = Binary(kLowestPrecedence, out);
        if (height < 0) return -1;
        if (!Expect(K::kRParen, "to close the parenthesis")) return -1;
        return height;
      }
      default:
        ErrorHere(absl::StrCat("expected an expression, found ", DescribeToken(t)));
        return -1;
    }
  }

  // `f(args)`: the name is taken, `(` is next.
  int Call(size_t name_index, ir::Expr* out) {
    const Token& name = tokens_[name_index];
    ir::Expr::Call* call = out->mutable_call();
    call->set_function(std::string(name.text));
    Take();  // (
    Nest nest(this);
    if (!nest.ok()) {
      ErrorAtIndex(name_index, TooDeep());
      return -1;
    }
    int height = 1;
    if (!Accept(K::kRParen)) {
      while (true) {
        int arg = Binary(kLowestPrecedence, call->add_arg());
        if (arg < 0) return -1;
        height = std::max(height, arg);
        if (Accept(K::kComma)) continue;
        if (Accept(K::kRParen)) break;
        ErrorHere(absl::StrCat("expected ',' or ')' after an argument of '", name.text,
                               "', found ", DescribeToken(Peek())));
        return -1;
      }
    }
    height += 2;
    if (!FitsDepth(height, name_index)) return -1;
    return height;
  }

  // KEY at IR level `level`: `(e1, e2, …)` compared lexicographically, or one expression. A key
  // that starts with `(` is a tuple when a `,` follows its first element;
  // otherwise the parenthesis belongs to a single expression, which may go
  // on (`by (a + b) * 2`).
  bool Key(int level, ir::Key* key) {
    int saved = expr_level_;
    expr_level_ = level + 1;
    bool ok = KeyElements(key);
    expr_level_ = saved;
    return ok;
  }
  bool KeyElements(ir::Key* key) {
    if (!At(K::kLParen)) return Binary(kLowestPrecedence, key->add_expr()) >= 0;
    Take();
    if (At(K::kRParen)) {
      ErrorHere("empty key: '()' needs at least one expression");
      return false;
    }
    ir::Expr* first = key->add_expr();
    int height = Binary(kLowestPrecedence, first);
    if (height < 0) return false;
    if (At(K::kComma)) {
      while (Accept(K::kComma)) {
        if (Binary(kLowestPrecedence, key->add_expr()) < 0) return false;
      }
      return Expect(K::kRParen, "to close the key");
    }
    if (!Expect(K::kRParen, "to close the key")) return false;
    return BinaryRest(kLowestPrecedence, height, first) >= 0;
  }

  // REF: `name` or `name[e]`, the Ref at IR level `level`.
  bool Ref(int level, absl::string_view what, ir::Ref* out) {
    const Token& t = Peek();
    std::string name;
    if (!Name(what, &name)) return false;
    out->set_name(name);
    SetLoc(t, out->mutable_loc());
    if (!Accept(K::kLBracket)) return true;
    if (Expr(level + 1, out->mutable_index()) < 0) return false;
    return Expect(K::kRBracket, "after the index of '", name, "'");
  }

  // `(e)`: a statement's amount, work or count.
  bool Parenthesized(int level, absl::string_view what, ir::Expr* out) {
    if (!Expect(K::kLParen, what)) return false;
    if (Expr(level, out) < 0) return false;
    return Expect(K::kRParen, "to close the parenthesis");
  }

  // ------------------------------------------------------------ declarations

  void Declaration(ir::Program* out) {
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

  void Param(ir::Program* program) {
    const Token& kw = Take();
    ir::Param p;
    SetLoc(kw, p.mutable_loc());
    std::string name;
    if (!Name("a param name after 'param'", &name) ||
        !Expect(K::kAssign, "after 'param ", name, "'") ||
        Expr(kDeclarationExprLevel, p.mutable_value()) < 0) {
      return Recover(Level::kTop);
    }
    p.set_name(name);
    EndWith(Level::kTop, "after the param");
    *program->add_param() = std::move(p);
  }

  // `[size]` after a pool's or a stage's name.
  bool Size(ir::Expr* out, bool* has_size) {
    *has_size = false;
    if (!Accept(K::kLBracket)) return true;
    *has_size = true;
    if (Expr(kDeclarationExprLevel, out) < 0) return false;
    return Expect(K::kRBracket, "after the array size");
  }

  // One option of a block: its word, and how its value parses.
  struct Option {
    absl::string_view word;
    std::function<bool()> value;
    const Token* first = nullptr;  // where it was given, once it was
    bool repeatable = false;       // `let`: given any number of times
  };

  // `{ option value; … }`. `block` names the block in messages.
  void Options(const Token& open, const std::string& block, std::vector<Option>& options) {
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

  void Pool(ir::Program* program) {
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

  void Stage(ir::Program* program) {
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
  bool Let(ir::Let* let) {
    SetLoc(tokens_[pos_ - 1], let->mutable_loc());
    std::string name;
    if (!Name("a name after 'let'", &name)) return false;
    let->set_name(name);
    return Expect(K::kAssign, "after 'let ", name, "'") &&
           Expr(kDeclarationExprLevel + 1, let->mutable_value()) >= 0;
  }

  // A table's column: a name, or any text in quotes.
  bool Column(absl::string_view what, std::string* out) {
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
  void Table(ir::Program* program) {
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

  bool StageKind(ir::Stage* s) {
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

  void Share(ir::Program* program) {
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
  bool OptionalName(absl::string_view what, std::string* name) {
    if (At(K::kLBrace)) return true;
    if (IsReservedWord(Peek().kind) && Peek(1).kind != K::kLBrace) {
      ErrorHere(absl::StrCat("expected ", what, ", found ", DescribeToken(Peek())));
      return false;
    }
    return Name(what, name);
  }

  void Workload(ir::Program* program) {
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

  bool Arrival(ir::Workload* w) {
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

  void Session(ir::Program* program) {
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

  void RunBlock(ir::Program* program) {
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

  // ------------------------------------------------------------ statements

  // `{ statements }` of a statement at IR level `level`; its statements are
  // at `level + 2` (Statement > If > Statement).
  bool Block(int level, Body* body, absl::string_view context) {
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
  void Statements(int level, Body* body) {
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

  void Statement(int level, Body* body) {
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
  static ir::Statement NewStatement(const Token& kw) {
    ir::Statement s;
    SetLoc(kw, s.mutable_loc());
    return s;
  }

  void Set(int level, Body* body) {
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

  void If(int level, Body* body) {
    ir::Statement s;
    if (IfStatement(level, &s)) *body->Add() = std::move(s);
  }

  // `if (c) { … } [else if … | else { … }]`, the `if` next.
  bool IfStatement(int level, ir::Statement* s) {
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

  void Repeat(int level, Body* body) {
    ir::Statement s = NewStatement(Take());
    ir::Statement::Repeat* r = s.mutable_repeat();
    if (!Parenthesized(level + 2, "after 'repeat'", r->mutable_count()) ||
        !Block(level, r->mutable_body(), "after the count of 'repeat'")) {
      return Recover(Level::kStatements);
    }
    *body->Add() = std::move(s);
  }

  void End(Body* body) {
    ir::Statement s = NewStatement(Take());
    s.mutable_end();
    EndWith(Level::kStatements, "after 'end'");
    *body->Add() = std::move(s);
  }

  // `REF, REF, …` of a run: the first in `first`, the others in `also`.
  bool StageList(int level, absl::string_view after, ir::Ref* first,
                 google::protobuf::RepeatedPtrField<ir::Ref>* also) {
    if (!Ref(level, absl::StrCat("a stage name after ", after), first)) return false;
    while (Accept(K::kComma)) {
      if (!Ref(level, "a stage name after ','", also->Add())) return false;
    }
    return true;
  }

  void Run(int level, Body* body) {
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

  void Choose(int level, Body* body) {
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
  bool Amounts(int level, absl::string_view after,
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

  void Hold(int level, Body* body) {
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

  void Release(int level, Body* body) {
    ir::Statement s = NewStatement(Take());
    if (!Ref(level + 2, "a pool name after 'release'", s.mutable_release()->mutable_pool())) {
      return Recover(Level::kStatements);
    }
    EndWith(Level::kStatements, "after the statement");
    *body->Add() = std::move(s);
  }

  void Load(int level, Body* body) {
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
  void Transfer(int level, Body* body) {
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
  void Prefix(int level, Body* body) {
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

  void Observe(int level, Body* body) {
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

  Diagnostics* diags_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::optional<size_t> reported_;  // the token of the last error
  int expr_level_ = kDeclarationExprLevel;
  int nesting_ = 0;
  const Token* share_ = nullptr;  // the first `share`
  const Token* run_ = nullptr;    // the first run block
};

}  // namespace

bool ParseProgram(absl::string_view file, absl::string_view source, ir::Program* out,
                  Diagnostics* diags) {
  size_t errors = diags->size();
  out->Clear();
  out->set_version(kIrVersion);
  // The file's name is shown in messages (and names the directory a
  // relative data file is found in); an IR string is UTF-8, so a name that
  // is not keeps its other bytes as \xHH.
  out->set_file(IsUtf8(file) ? std::string(file) : Utf8Escaped(file));
  Parser(source, diags).Program(out);
  return diags->size() == errors;
}

bool ParseExpression(absl::string_view source, ir::Expr* out, Diagnostics* diags) {
  size_t errors = diags->size();
  bool ok = Parser(source, diags).Expression(out);
  return ok && diags->size() == errors;
}

}  // namespace serq
