#include "lang/parse/lexer.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace serq {
namespace {

constexpr ReservedWord kReservedWords[] = {
    {"param", TokenKind::kParam},       {"pool", TokenKind::kPool},
    {"stage", TokenKind::kStage},       {"share", TokenKind::kShare},
    {"workload", TokenKind::kWorkload}, {"session", TokenKind::kSession},
    {"run", TokenKind::kRun},           {"set", TokenKind::kSet},
    {"if", TokenKind::kIf},             {"else", TokenKind::kElse},
    {"repeat", TokenKind::kRepeat},     {"hold", TokenKind::kHold},
    {"lease", TokenKind::kLease},       {"release", TokenKind::kRelease},
    {"load", TokenKind::kLoad},         {"transfer", TokenKind::kTransfer},
    {"observe", TokenKind::kObserve},   {"choose", TokenKind::kChoose},
    {"end", TokenKind::kEnd},           {"on", TokenKind::kOn},
    {"from", TokenKind::kFrom},         {"to", TokenKind::kTo},
    {"in", TokenKind::kIn},             {"by", TokenKind::kBy},
    {"evict", TokenKind::kEvict},       {"serve", TokenKind::kServe},
    {"arrive", TokenKind::kArrive},     {"delay", TokenKind::kDelay},
    {"ps", TokenKind::kPs},             {"fifo", TokenKind::kFifo},
    {"step", TokenKind::kStep},         {"maxmin", TokenKind::kMaxmin},
    {"bottleneck", TokenKind::kBottleneck}, {"prefill", TokenKind::kPrefill},
    {"decode", TokenKind::kDecode},     {"growing", TokenKind::kGrowing},
    {"inf", TokenKind::kInf},
};

constexpr OptionWord kOptionWords[] = {
    {"cap", "pool"},       {"cache", "pool"},       {"block", "pool"},
    {"seqs", "stage"},     {"tokens", "stage"},     {"preempt", "stage"},
    {"let", "stage"},      {"chunk", "stage"},      {"reserve", "stage"},
    {"async", "stage"},    {"recompute", "stage"},
    {"limit", "workload"}, {"batch", "workload"},   {"poisson", "workload"},
    {"periodic", "workload"}, {"renewal", "workload"}, {"trace", "workload"},
    {"horizon", "run"},    {"seed", "run"},         {"replications", "run"},
    {"warmup", "run"},     {"sample", "run"},
    // A statement word: reserved only where a statement starts, as the
    // option words are where an option does (language.md §2).
    {"prefix", "session"},
    // IR 10: a declaration word, reserved only where a declaration starts
    // (`table NAME`), and the words of a table's block.
    {"table", "program"},
    {"key", "table"},      {"value", "table"},      {"where", "table"},
    {"below", "table"},    {"above", "table"},      {"clamp", "table"},
    {"extrapolate", "table"}, {"error", "table"},
};

struct Punctuation {
  absl::string_view text;
  TokenKind kind;
};

// Two-character operators first, so that `<=` is not read as `<` `=`.
constexpr Punctuation kPunctuation[] = {
    {"<=", TokenKind::kLe},     {">=", TokenKind::kGe},    {"==", TokenKind::kEq},
    {"!=", TokenKind::kNe},     {"&&", TokenKind::kAndAnd}, {"||", TokenKind::kOrOr},
    {";", TokenKind::kSemi},    {",", TokenKind::kComma},  {"(", TokenKind::kLParen},
    {")", TokenKind::kRParen},  {"{", TokenKind::kLBrace}, {"}", TokenKind::kRBrace},
    {"[", TokenKind::kLBracket}, {"]", TokenKind::kRBracket}, {":", TokenKind::kColon},
    {"=", TokenKind::kAssign},  {"+", TokenKind::kPlus},   {"-", TokenKind::kMinus},
    {"*", TokenKind::kStar},    {"/", TokenKind::kSlash},  {"%", TokenKind::kPercent},
    {"<", TokenKind::kLt},      {">", TokenKind::kGt},     {"!", TokenKind::kNot},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

// A character for a message: printable ASCII as itself, anything else as
// its byte value.
std::string ShowChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return absl::StrCat("'", absl::string_view(&c, 1), "'");
  return absl::StrFormat("byte 0x%02x", u);
}

class Lexer {
 public:
  Lexer(absl::string_view source, Diagnostics* diags) : src_(source), diags_(diags) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    bool line_has_token = false;
    uint32_t last_line = 0;
    while (true) {
      SkipSpaceAndComments(&tokens);
      if (pos_ >= src_.size()) break;
      Token t = Next();
      t.first_on_line = !line_has_token || t.line != last_line;
      line_has_token = true;
      last_line = t.line;
      tokens.push_back(std::move(t));
    }
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.first_on_line = true;
    // End of file is reported just after the last token, where a missing
    // `;` or `}` belongs, and where the caret has a source line to sit on.
    if (!tokens.empty()) {
      const Token& last = tokens.back();
      eof.line = last.line;
      eof.column = last.column + static_cast<uint32_t>(last.text.size());
      eof.first_on_line = false;
    }
    eof.text = src_.substr(src_.size());
    tokens.push_back(std::move(eof));
    return tokens;
  }

 private:
  char At(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }

  void Advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  void SkipSpaceAndComments(std::vector<Token>* tokens) {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (c == '/' && At(pos_ + 1) == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') Advance();
      } else if (c == '/' && At(pos_ + 1) == '*') {
        uint32_t line = line_, column = column_;
        size_t start = pos_;
        Advance();
        Advance();
        bool closed = false;
        while (pos_ < src_.size()) {
          if (src_[pos_] == '*' && At(pos_ + 1) == '/') {
            Advance();
            Advance();
            closed = true;
            break;
          }
          Advance();
        }
        if (!closed) {
          diags_->Error(line, column, "unterminated comment");
          // An error token, so that the parser does not also complain about
          // the end of file the comment swallowed the rest of the file into.
          Token t;
          t.kind = TokenKind::kError;
          t.text = src_.substr(start, 2);
          t.line = line;
          t.column = column;
          t.first_on_line = tokens->empty() || tokens->back().line != line;
          tokens->push_back(std::move(t));
        }
      } else {
        return;
      }
    }
  }

  Token Next() {
    Token t;
    t.line = line_;
    t.column = column_;
    size_t start = pos_;
    char c = src_[pos_];
    if (IsIdentStart(c)) {
      while (pos_ < src_.size() && IsIdentChar(src_[pos_])) Advance();
      t.text = src_.substr(start, pos_ - start);
      t.kind = TokenKind::kIdentifier;
      for (const ReservedWord& w : kReservedWords) {
        if (w.word == t.text) t.kind = w.kind;
      }
      return t;
    }
    if (IsDigit(c)) return Number(std::move(t));
    if (c == '"') return String(std::move(t));
    for (const Punctuation& p : kPunctuation) {
      if (src_.substr(pos_, p.text.size()) == p.text) {
        for (size_t i = 0; i < p.text.size(); ++i) Advance();
        t.kind = p.kind;
        t.text = src_.substr(start, p.text.size());
        return t;
      }
    }
    // A run of characters that start no token is one error, not one each.
    std::string message;
    if (c == '&' || c == '|') {
      message = absl::StrCat("unexpected character '", absl::string_view(&c, 1),
                             "' (did you mean '", std::string(2, c), "')");
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      message = "unexpected non-ASCII character (serq source is ASCII outside comments and "
                "strings)";
    } else {
      message = absl::StrCat("unexpected character ", ShowChar(c));
    }
    diags_->Error(t.line, t.column, message);
    while (pos_ < src_.size() && StartsNothing(pos_)) Advance();
    t.kind = TokenKind::kError;
    t.text = src_.substr(start, pos_ - start);
    return t;
  }

  // True when no token, space or comment starts at `i`.
  bool StartsNothing(size_t i) const {
    char c = src_[i];
    if (IsIdentChar(c) || c == '"' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
        c == '\f' || c == '\v') {
      return false;
    }
    for (const Punctuation& p : kPunctuation) {
      if (src_.substr(i, p.text.size()) == p.text) return false;
    }
    return true;
  }

  // digits [ "." digits ] [ ("e"|"E") ["+"|"-"] digits ]; anything that runs
  // on into letters, digits or dots makes the whole run one invalid number.
  Token Number(Token t) {
    size_t start = pos_;
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < src_.size() && IsDigit(src_[pos_])) {
        Advance();
        ++n;
      }
      return n;
    };
    bool ok = true;
    digits();
    if (At(pos_) == '.') {
      Advance();
      if (digits() == 0) ok = false;
    }
    if (ok && (At(pos_) == 'e' || At(pos_) == 'E')) {
      Advance();
      if (At(pos_) == '+' || At(pos_) == '-') Advance();
      if (digits() == 0) ok = false;
    }
    if (pos_ < src_.size() && (IsIdentChar(src_[pos_]) || src_[pos_] == '.')) ok = false;
    if (!ok) {
      while (pos_ < src_.size() && (IsIdentChar(src_[pos_]) || src_[pos_] == '.')) Advance();
    }
    t.kind = TokenKind::kNumber;
    t.text = src_.substr(start, pos_ - start);
    if (!ok) {
      diags_->Error(t.line, t.column, absl::StrCat("invalid number '", t.text, "'"));
      return t;
    }
    std::string text(t.text);
    double value = std::strtod(text.c_str(), nullptr);
    if (std::isinf(value)) {
      diags_->Error(t.line, t.column,
                    absl::StrCat("number '", t.text, "' is too large (write 'inf' for infinity)"));
      return t;
    }
    // Underflow rounds to the nearest double (0 or a subnormal), as strtod
    // does; that is the value the program wrote, as closely as it exists.
    t.number = value;
    return t;
  }

  Token String(Token t) {
    size_t start = pos_;
    Advance();  // the opening quote
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n') {
        diags_->Error(t.line, t.column, "unterminated string");
        t.kind = TokenKind::kError;
        t.text = src_.substr(start, pos_ - start);
        return t;
      }
      char c = src_[pos_];
      if (c == '"') {
        Advance();
        break;
      }
      if (c == '\\') {
        char e = At(pos_ + 1);
        if (e == '"' || e == '\\') {
          Advance();
          Advance();
          continue;
        }
        if (e == '\n' || pos_ + 1 >= src_.size()) {
          Advance();
          continue;  // reported as an unterminated string
        }
        diags_->Error(line_, column_,
                      absl::StrCat("invalid escape '\\", absl::string_view(&e, 1),
                                   "' in string (only \\\" and \\\\ are allowed)"));
        Advance();
        continue;
      }
      Advance();
    }
    t.kind = TokenKind::kString;
    t.text = src_.substr(start, pos_ - start);
    return t;
  }

  absl::string_view src_;
  Diagnostics* diags_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

}  // namespace

absl::Span<const ReservedWord> ReservedWords() { return kReservedWords; }
absl::Span<const OptionWord> OptionWords() { return kOptionWords; }

bool IsReservedWord(TokenKind kind) {
  return kind >= TokenKind::kParam && kind <= TokenKind::kInf;
}

std::string DescribeKind(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof: return "end of file";
    case TokenKind::kError: return "an invalid token";
    case TokenKind::kIdentifier: return "a name";
    case TokenKind::kNumber: return "a number";
    case TokenKind::kString: return "a string";
    default: break;
  }
  for (const ReservedWord& w : kReservedWords) {
    if (w.kind == kind) return absl::StrCat("'", w.word, "'");
  }
  for (const Punctuation& p : kPunctuation) {
    if (p.kind == kind) return absl::StrCat("'", p.text, "'");
  }
  return "?";
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof: return "end of file";
    case TokenKind::kString: return absl::StrCat("string ", token.text);
    default: return absl::StrCat("'", token.text, "'");
  }
}

std::string StringValue(const Token& token) {
  absl::string_view text = token.text;
  // The opening quote; the closing one, which a kString token always has.
  text.remove_prefix(1);
  text.remove_suffix(1);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out.push_back(text[i]);
  }
  return out;
}

std::vector<Token> Lex(absl::string_view source, Diagnostics* diags) {
  return Lexer(source, diags).Run();
}

}  // namespace serq
