#include "lang/parse/lexer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/utf8.h"

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
    {"async", "stage"},    {"recompute", "stage"},  {"lockstep", "stage"},
    {"limit", "workload"}, {"batch", "workload"},   {"poisson", "workload"},
    {"periodic", "workload"}, {"renewal", "workload"}, {"trace", "workload"},
    {"stages", "workload"}, {"exactly", "workload"},  // IR 11
    {"horizon", "run"},    {"seed", "run"},         {"replications", "run"},
    {"warmup", "run"},     {"sample", "run"},
    {"gpus", "run"},
    // A statement word: reserved only where a statement starts, as the
    // option words are where an option does (language.md §2).
    {"prefix", "session"},
    // IR 11: after a choose's key (`choose i in E by KEY every DT;`).
    {"every", "choose"},
    // IR 10: a declaration word, reserved only where a declaration starts
    // (`table NAME`), and the words of a table's block.
    {"table", "program"},
    {"key", "table"},      {"value", "table"},      {"where", "table"},
    {"below", "table"},    {"above", "table"},      {"clamp", "table"},
    {"extrapolate", "table"}, {"error", "table"},    {"row", "table"},
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

// What each byte can be, one table lookup a byte: the lexer's loops ask
// this of every byte, and a chain of comparisons a byte was most of what a
// parse cost under the fuzzers' comparison tracing (bench/README.md §fuzz).
enum : uint8_t {
  kDigitByte = 1,
  kIdentStartByte = 2,  // a letter or `_`
  kSpaceByte = 4,
};

constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> c{};
  for (int b = '0'; b <= '9'; ++b) c[b] = kDigitByte;
  for (int b = 'a'; b <= 'z'; ++b) c[b] = kIdentStartByte;
  for (int b = 'A'; b <= 'Z'; ++b) c[b] = kIdentStartByte;
  c['_'] = kIdentStartByte;
  for (char b : {' ', '\t', '\n', '\r', '\f', '\v'}) c[static_cast<unsigned char>(b)] = kSpaceByte;
  return c;
}();

uint8_t ByteClass(char c) { return kByteClass[static_cast<unsigned char>(c)]; }
bool IsDigit(char c) { return ByteClass(c) & kDigitByte; }
bool IsIdentStart(char c) { return ByteClass(c) & kIdentStartByte; }
bool IsIdentChar(char c) { return ByteClass(c) & (kIdentStartByte | kDigitByte); }
bool IsSpace(char c) { return ByteClass(c) & kSpaceByte; }

// For each byte, the kPunctuation entries spelt from it (at most two: `<=`
// and `<`), in the table's order, which puts the longer first.
constexpr bool AtMostTwoOperatorsPerByte() {
  for (const Punctuation& p : kPunctuation) {
    int n = 0;
    for (const Punctuation& q : kPunctuation) n += q.text[0] == p.text[0];
    if (n > 2) return false;
  }
  return true;
}
static_assert(AtMostTwoOperatorsPerByte());

constexpr std::array<std::array<int8_t, 2>, 256> kPunctuationByByte = [] {
  std::array<std::array<int8_t, 2>, 256> by{};
  for (auto& entries : by) entries = {-1, -1};
  for (size_t i = 0; i < std::size(kPunctuation); ++i) {
    auto& entries = by[static_cast<unsigned char>(kPunctuation[i].text[0])];
    (entries[0] < 0 ? entries[0] : entries[1]) = static_cast<int8_t>(i);
  }
  return by;
}();

// For each byte, the reserved words that start with it, as a bit set of
// kReservedWords' indices: an identifier is compared with those only.
constexpr std::array<uint64_t, 256> kReservedByByte = [] {
  static_assert(std::size(kReservedWords) <= 64);
  std::array<uint64_t, 256> by{};
  for (size_t i = 0; i < std::size(kReservedWords); ++i) {
    by[static_cast<unsigned char>(kReservedWords[i].word[0])] |= uint64_t{1} << i;
  }
  return by;
}();

// A character for a message: printable ASCII as itself, anything else as
// its byte value.
std::string ShowChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return absl::StrCat("'", absl::string_view(&c, 1), "'");
  return absl::StrFormat("byte 0x%02x", u);
}

class Lexer {
 public:
  Lexer(absl::string_view source, Diagnostics* diags)
      : src_(source), data_(source.data()), size_(source.size()), diags_(diags) {
    // A byte order mark (a Windows editor's) before the first line is no
    // character of the program; its columns count from after it.
    if (absl::string_view rest = source; SkipByteOrderMark(&rest)) pos_ = source.size() - rest.size();
  }

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    // The examples have a token in 5 to 17 bytes, comments included: room
    // for one in four is one allocation for most files instead of a dozen
    // doublings. Capped at 2^16 tokens (2.5 MB): a file of garbage the
    // lexer stops reading at the error limit must not reserve a token for
    // every four of its bytes first.
    tokens.reserve(std::min<size_t>(size_ / 4 + 16, size_t{1} << 16));
    bool line_has_token = false;
    uint32_t last_line = 0;
    while (true) {
      SkipSpaceAndComments(&tokens);
      if (pos_ >= size_) break;
      if (diags_->full()) {  // nothing more would be shown: the end of file here
        diags_->StopAtLimit();
        break;
      }
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
    eof.text = src_.substr(size_);
    tokens.push_back(std::move(eof));
    return tokens;
  }

 private:
  char At(size_t i) const { return i < size_ ? data_[i] : '\0'; }

  void Advance() {
    if (data_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  // Moves on `n` bytes that hold no newline.
  void AdvanceInLine(size_t n) {
    pos_ += n;
    column_ += static_cast<uint32_t>(n);
  }

  // Moves to `end`, counting the lines of the bytes passed.
  void AdvanceTo(size_t end) {
    const char* p = data_ + pos_;
    const char* stop = data_ + end;
    while (const char* nl = static_cast<const char*>(std::memchr(p, '\n', stop - p))) {
      ++line_;
      column_ = 1;
      p = nl + 1;
    }
    column_ += static_cast<uint32_t>(stop - p);
    pos_ = end;
  }

  // The end of the run of bytes from `i` that `keep` accepts.
  template <typename Keep>
  size_t RunEnd(size_t i, Keep keep) const {
    while (i < size_ && keep(data_[i])) ++i;
    return i;
  }

  void SkipSpaceAndComments(std::vector<Token>* tokens) {
    while (pos_ < size_) {
      char c = data_[pos_];
      if (IsSpace(c)) {
        Advance();
      } else if (c == '/' && At(pos_ + 1) == '/') {
        const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
        AdvanceInLine(nl ? static_cast<const char*>(nl) - (data_ + pos_) : size_ - pos_);
      } else if (c == '/' && At(pos_ + 1) == '*') {
        uint32_t line = line_, column = column_;
        size_t start = pos_;
        size_t close = src_.find("*/", pos_ + 2);
        if (close != absl::string_view::npos) {
          AdvanceTo(close + 2);
          continue;
        }
        AdvanceTo(size_);
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
      } else {
        return;
      }
    }
  }

  // The kPunctuation entry spelt at `i`, or -1.
  int PunctuationAt(size_t i) const {
    for (int8_t e : kPunctuationByByte[static_cast<unsigned char>(data_[i])]) {
      if (e < 0) break;
      absl::string_view text = kPunctuation[e].text;
      if (text.size() == 1 || At(i + 1) == text[1]) return e;
    }
    return -1;
  }

  Token Next() {
    Token t;
    t.line = line_;
    t.column = column_;
    size_t start = pos_;
    char c = data_[pos_];
    if (IsIdentStart(c)) {
      AdvanceInLine(RunEnd(pos_, IsIdentChar) - pos_);
      t.text = src_.substr(start, pos_ - start);
      t.kind = TokenKind::kIdentifier;
      for (uint64_t words = kReservedByByte[static_cast<unsigned char>(c)]; words != 0;
           words &= words - 1) {
        const ReservedWord& w = kReservedWords[std::countr_zero(words)];
        if (w.word == t.text) t.kind = w.kind;
      }
      return t;
    }
    if (IsDigit(c)) return Number(std::move(t));
    if (c == '"') return String(std::move(t));
    if (int e = PunctuationAt(pos_); e >= 0) {
      const Punctuation& p = kPunctuation[e];
      AdvanceInLine(p.text.size());
      t.kind = p.kind;
      t.text = src_.substr(start, p.text.size());
      return t;
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
    while (pos_ < size_ && StartsNothing(pos_)) Advance();
    t.kind = TokenKind::kError;
    t.text = src_.substr(start, pos_ - start);
    return t;
  }

  // True when no token, space or comment starts at `i`.
  bool StartsNothing(size_t i) const {
    char c = data_[i];
    if (IsIdentChar(c) || c == '"' || IsSpace(c)) return false;
    return PunctuationAt(i) < 0;
  }

  // digits [ "." digits ] [ ("e"|"E") ["+"|"-"] digits ]; anything that runs
  // on into letters, digits or dots makes the whole run one invalid number.
  Token Number(Token t) {
    size_t start = pos_;
    auto digits = [&] {
      size_t end = RunEnd(pos_, IsDigit);
      size_t n = end - pos_;
      AdvanceInLine(n);
      return n;
    };
    auto runs_on = [](char c) { return IsIdentChar(c) || c == '.'; };
    bool ok = true;
    digits();
    if (At(pos_) == '.') {
      AdvanceInLine(1);
      if (digits() == 0) ok = false;
    }
    if (ok && (At(pos_) == 'e' || At(pos_) == 'E')) {
      AdvanceInLine(1);
      if (At(pos_) == '+' || At(pos_) == '-') AdvanceInLine(1);
      if (digits() == 0) ok = false;
    }
    if (pos_ < size_ && runs_on(data_[pos_])) ok = false;
    if (!ok) AdvanceInLine(RunEnd(pos_, runs_on) - pos_);
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
    AdvanceInLine(1);  // the opening quote
    bool ascii = true;
    while (true) {
      if (pos_ >= size_ || data_[pos_] == '\n') {
        diags_->Error(t.line, t.column, "unterminated string");
        t.kind = TokenKind::kError;
        t.text = src_.substr(start, pos_ - start);
        return t;
      }
      char c = data_[pos_];
      if (c == '"') {
        AdvanceInLine(1);
        break;
      }
      if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
      if (c == '\\') {
        char e = At(pos_ + 1);
        if (e == '"' || e == '\\') {
          AdvanceInLine(2);
          continue;
        }
        if (e == '\n' || pos_ + 1 >= size_) {
          AdvanceInLine(1);
          continue;  // reported as an unterminated string
        }
        diags_->Error(line_, column_,
                      absl::StrCat("invalid escape '\\", absl::string_view(&e, 1),
                                   "' in string (only \\\" and \\\\ are allowed)"));
        AdvanceInLine(1);
        continue;
      }
      AdvanceInLine(1);
    }
    t.kind = TokenKind::kString;
    t.text = src_.substr(start, pos_ - start);
    // A string's value becomes a string of the IR, which holds UTF-8 only
    // (protobuf's rule for a string field): other bytes are refused here,
    // where they can be shown, not when the IR is written.
    if (!ascii) {
      size_t valid = Utf8Prefix(t.text);
      if (valid < t.text.size()) {
        diags_->Error(t.line, t.column + static_cast<uint32_t>(valid),
                      absl::StrFormat("string is not UTF-8 (byte 0x%02x)",
                                      static_cast<unsigned char>(t.text[valid])));
      }
    }
    return t;
  }

  absl::string_view src_;
  const char* data_;  // src_'s bytes, read without string_view's checks
  size_t size_;
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
