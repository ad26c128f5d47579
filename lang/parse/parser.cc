// The parser's entry points, and what every part of the grammar shares:
// where a construct starts, how an error is reported, and where parsing
// resumes after one (parser_internal.h says which file holds which part).
#include "lang/parse/parser.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/utf8.h"
#include "lang/parse/lexer.h"
#include "lang/parse/parser_internal.h"

namespace serq {
namespace parser_internal {
namespace {

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

}  // namespace

void Parser::Program(ir::Program* out) {
  while (!At(K::kEof)) {
    size_t before = pos_;
    Declaration(out);
    if (pos_ == before) Take();  // never loop without progress
  }
}

bool Parser::Expression(ir::Expr* out) {
  if (Expr(kDeclarationExprLevel, out) < 0) return false;
  if (!At(K::kEof)) {
    ErrorHere(absl::StrCat("expected end of the expression, found ", DescribeToken(Peek())));
    return false;
  }
  return true;
}

// The statement word `prefix` starts a statement here (not `prefix = …`,
// a `set` that lost its keyword).
bool Parser::AtPrefixStatement() const {
  return At(K::kIdentifier) && Peek().text == "prefix" && Peek(1).kind != K::kAssign;
}

// A declaration starts here: its keyword (`run` only before `{`, since
// `run` also starts a statement).
bool Parser::AtDeclaration() const {
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
bool Parser::AtTable() const {
  return At(K::kIdentifier) && Peek().text == "table" &&
         (Peek(1).kind == K::kIdentifier || IsReservedWord(Peek(1).kind));
}

// Reports `message` at token `index`, unless an error was reported there
// already or the token is one the lexer rejected (and reported): both
// would only repeat an error the user has.
void Parser::ErrorAtIndex(size_t index, std::string message) {
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

// Skips the rest of a construct that failed to parse, to where the next
// one can start. Inside a block: past a `;`, before a `}` that closes the
// block, after a `{ … }` (and its `else` or `lease` part), before the next
// declaration, or before a statement keyword that starts a line. Between
// declarations: to the next declaration, since whatever is in between
// (say, the statements of a session that lost its `{`) would otherwise
// give an error each.
void Parser::Recover(Level level) {
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

void Parser::RecoverToDeclaration() {
  int depth = 0;
  while (!At(K::kEof)) {
    if (depth == 0 && AtDeclaration()) return;
    if (At(K::kLBrace)) ++depth;
    if (At(K::kRBrace) && depth > 0) --depth;
    Take();
  }
}

// A name where the grammar has one. A reserved word there is reported
// and, unless it is a word that joins a statement's parts (which more
// likely means the name is missing), taken as the name so that the rest
// of the construct parses.
bool Parser::Name(absl::string_view what, std::string* out) {
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

}  // namespace parser_internal

using parser_internal::Parser;

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
