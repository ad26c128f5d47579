// The recursive-descent parser behind ParseProgram and ParseExpression, its
// methods in one file a part of the grammar:
//   parser.cc              the entry points, where a construct starts, errors
//                          and how parsing resumes after one;
//   parse_expressions.cc   expressions, keys, references;
//   parse_declarations.cc  param, pool, stage, table, share, workload,
//                          session, run, and the `{ option …; }` blocks;
//   parse_statements.cc    a session's statements.
// It reports every syntax error of a file: after an error it skips to a
// point where parsing can resume (a `;`, a `}`, the next declaration) so that
// one mistake gives one error, and it never reports twice at one token.
// Private to lang/parse (a header of the library's srcs).
#ifndef SERQ_LANG_PARSE_PARSER_INTERNAL_H_
#define SERQ_LANG_PARSE_PARSER_INTERNAL_H_

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "lang/parse/lexer.h"
#include "proto/ir.pb.h"

namespace serq::parser_internal {

using Body = google::protobuf::RepeatedPtrField<ir::Statement>;
using K = TokenKind;

// The IR level of a declaration's expressions (program 1, declaration 2),
// and of a session's top-level statements (program 1, session 2).
inline constexpr int kDeclarationExprLevel = 3;
inline constexpr int kSessionStatementLevel = 3;

inline constexpr int kLowestPrecedence = 1;  // OperatorPrecedence (ir/words.h) of `||`

inline void SetLoc(const Token& t, ir::Location* loc) {
  loc->set_line(t.line);
  loc->set_column(t.column);
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

  void Program(ir::Program* out);
  bool Expression(ir::Expr* out);

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
  bool AtPrefixStatement() const;
  bool AtDeclaration() const;
  bool AtTable() const;

  // ------------------------------------------------------------ errors

  void ErrorAtIndex(size_t index, std::string message);
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

  void Recover(Level level);
  void RecoverToDeclaration();

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

  bool Name(absl::string_view what, std::string* out);

  // ------------------------------------------------------------ expressions
  //
  // Each returns the height of the expression it parsed (1 for a number,
  // +2 for every message level below: Expr > Binary > Expr), or -1 after an
  // error. `level` is the IR level of the expression's root; with it the
  // parser refuses any expression the IR could not hold (kMaxIrDepth).

  int Expr(int level, ir::Expr* out);
  bool FitsDepth(int height, size_t token_index);
  static std::string TooDeep();

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

  int Binary(int min_precedence, ir::Expr* out);
  int BinaryRest(int min_precedence, int height, ir::Expr* lhs);
  int Unary(ir::Expr* out);
  int Primary(ir::Expr* out);
  int Call(size_t name_index, ir::Expr* out);
  bool Key(int level, ir::Key* key);
  bool KeyElements(ir::Key* key);
  bool Ref(int level, absl::string_view what, ir::Ref* out);
  bool Parenthesized(int level, absl::string_view what, ir::Expr* out);

  // ------------------------------------------------------------ declarations

  // One option of a block: its word, and how its value parses.
  struct Option {
    absl::string_view word;
    std::function<bool()> value;
    const Token* first = nullptr;  // where it was given, once it was
    bool repeatable = false;       // `let`: given any number of times
  };

  void Declaration(ir::Program* out);
  void Param(ir::Program* program);
  bool Size(ir::Expr* out, bool* has_size);
  void Options(const Token& open, const std::string& block, std::vector<Option>& options);
  void Pool(ir::Program* program);
  void Stage(ir::Program* program);
  bool Let(ir::Let* let);
  bool Column(absl::string_view what, std::string* out);
  void Table(ir::Program* program);
  bool StageKind(ir::Stage* s);
  void Share(ir::Program* program);
  bool OptionalName(absl::string_view what, std::string* name);
  void Workload(ir::Program* program);
  bool Arrival(ir::Workload* w);
  void Session(ir::Program* program);
  void RunBlock(ir::Program* program);

  // ------------------------------------------------------------ statements

  bool Block(int level, Body* body, absl::string_view context);
  void Statements(int level, Body* body);
  void Statement(int level, Body* body);
  static ir::Statement NewStatement(const Token& kw);
  void Set(int level, Body* body);
  void If(int level, Body* body);
  bool IfStatement(int level, ir::Statement* s);
  void Repeat(int level, Body* body);
  void End(Body* body);
  bool StageList(int level, absl::string_view after, ir::Ref* first,
                 google::protobuf::RepeatedPtrField<ir::Ref>* also);
  void Run(int level, Body* body);
  void Choose(int level, Body* body);
  bool Amounts(int level, absl::string_view after,
               google::protobuf::RepeatedPtrField<ir::Statement::Amount>* out);
  void Hold(int level, Body* body);
  void Release(int level, Body* body);
  void Load(int level, Body* body);
  void Transfer(int level, Body* body);
  void Prefix(int level, Body* body);
  void Observe(int level, Body* body);

  Diagnostics* diags_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::optional<size_t> reported_;  // the token of the last error
  int expr_level_ = kDeclarationExprLevel;
  int nesting_ = 0;
  const Token* share_ = nullptr;  // the first `share`
  const Token* run_ = nullptr;    // the first run block
};

}  // namespace serq::parser_internal

#endif  // SERQ_LANG_PARSE_PARSER_INTERNAL_H_
