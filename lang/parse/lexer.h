// The lexer of .sq source: turns text into tokens, reporting lexical errors
// (unterminated comments and strings, bad escapes, bad numbers, stray
// characters) to the diagnostics as it goes, so the parser sees every error
// of the file in one pass.
#ifndef SERQ_LANG_PARSE_LEXER_H_
#define SERQ_LANG_PARSE_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/diagnostics.h"

namespace serq {

enum class TokenKind : uint8_t {
  kEof,    // end of file
  kError,  // text the lexer rejected (already reported)
  kIdentifier,
  kNumber,
  kString,

  // Reserved words, in the order of language.md §2.
  kParam, kPool, kStage, kShare, kWorkload, kSession, kRun, kSet, kIf, kElse,
  kRepeat, kHold, kLease, kRelease, kLoad, kTransfer, kObserve, kChoose, kEnd,
  kOn, kFrom, kTo, kIn, kBy, kEvict, kServe, kArrive, kDelay, kPs, kFifo, kStep,
  kMaxmin, kBottleneck, kPrefill, kDecode, kGrowing, kInf,

  // Punctuation.
  kSemi, kComma, kLParen, kRParen, kLBrace, kRBrace, kLBracket, kRBracket,
  kColon, kAssign, kPlus, kMinus, kStar, kSlash, kPercent, kLt, kLe, kGt, kGe,
  kEq, kNe, kAndAnd, kOrOr, kNot,
};

// 40 bytes and trivially copied: a file's tokens are one array, and what
// it costs to grow is most of what lexing allocates (a string's value is
// resolved from its text when the parser takes it: StringValue).
struct Token {
  TokenKind kind = TokenKind::kEof;
  bool first_on_line = false;
  uint32_t line = 1;       // 1-based
  uint32_t column = 1;     // 1-based byte column
  absl::string_view text;  // the token's spelling in the source
  double number = 0;       // kNumber: the value (0 after an invalid number)
};

// A kString token's value: the text between its quotes with `\"` and `\\`
// resolved, and a backslash before any other character dropped (the lexer
// reported that escape).
std::string StringValue(const Token& token);

struct ReservedWord {
  absl::string_view word;
  TokenKind kind;
};

// Every reserved word (language.md §2), in declaration order.
absl::Span<const ReservedWord> ReservedWords();

// A contextual option word: reserved only where a block's options start.
struct OptionWord {
  absl::string_view word;
  // "pool", "stage", "table", "workload" or "run"; "session" for a word
  // that starts a statement (`prefix`); "program" for one that starts a
  // declaration (`table`).
  absl::string_view block;
};

// Every contextual option word (language.md §2).
absl::Span<const OptionWord> OptionWords();

bool IsReservedWord(TokenKind kind);

// How a token kind is spelt in messages: "';'", "'run'", "a name", ...
std::string DescribeKind(TokenKind kind);

// How a token is spelt in "found ..." messages: "'run'", "'12'",
// "string \"a\"", "end of file".
std::string DescribeToken(const Token& token);

// The tokens of `source`, ending with one kEof token. Lexical errors go to
// `diags`; the token that caused one is kError (or, for an invalid number or
// a bad escape, a number or string token the parser can go on with).
std::vector<Token> Lex(absl::string_view source, Diagnostics* diags);

}  // namespace serq

#endif  // SERQ_LANG_PARSE_LEXER_H_
