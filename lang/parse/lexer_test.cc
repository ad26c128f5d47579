#include "lang/parse/lexer.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace serq {
namespace {

// The tokens of `source` as one line: names and numbers with their text,
// strings with their value, everything else as spelt.
std::string Dump(absl::string_view source, Diagnostics* diags = nullptr) {
  Diagnostics local;
  std::vector<Token> tokens = Lex(source, diags ? diags : &local);
  std::vector<std::string> parts;
  for (const Token& t : tokens) {
    switch (t.kind) {
      case TokenKind::kEof: parts.push_back("EOF"); break;
      case TokenKind::kError: parts.push_back(absl::StrCat("ERR(", t.text, ")")); break;
      case TokenKind::kIdentifier: parts.push_back(absl::StrCat("id(", t.text, ")")); break;
      case TokenKind::kNumber: parts.push_back(absl::StrCat("num(", t.text, ")")); break;
      case TokenKind::kString: parts.push_back(absl::StrCat("str(", StringValue(t), ")")); break;
      default:
        parts.push_back(IsReservedWord(t.kind) ? absl::StrCat("kw(", t.text, ")")
                                               : std::string(t.text));
    }
  }
  return absl::StrJoin(parts, " ");
}

// "line:col: message" per diagnostic, in report order.
std::string Errors(const Diagnostics& d) {
  std::string out;
  for (const Diagnostic& x : d.list()) absl::StrAppend(&out, x.line, ":", x.column, ": ", x.message, "\n");
  return out;
}

TEST(Lexer, TokensOfEachKind) {
  struct Case {
    const char* source;
    const char* tokens;
  } cases[] = {
      {"", "EOF"},
      {"pool kvD[2] { cap 100; }",
       "kw(pool) id(kvD) [ num(2) ] { id(cap) num(100) ; } EOF"},
      {"a<=b>=c==d!=e&&f||!g", "id(a) <= id(b) >= id(c) == id(d) != id(e) && id(f) || ! id(g) EOF"},
      {"a < b > c = d", "id(a) < id(b) > id(c) = id(d) EOF"},
      {"; , ( ) { } [ ] : = + - * / %", "; , ( ) { } [ ] : = + - * / % EOF"},
      // Option words are names to the lexer; `inf`, `prefill` are reserved.
      {"cap seqs tokens limit batch horizon inf prefill decode",
       "id(cap) id(seqs) id(tokens) id(limit) id(batch) id(horizon) kw(inf) kw(prefill) "
       "kw(decode) EOF"},
      {"_x x_1 X9 runner run", "id(_x) id(x_1) id(X9) id(runner) kw(run) EOF"},
      {"a // to the end of the line\nb /* a\nblock */ c", "id(a) id(b) id(c) EOF"},
      {"/* not /* nested */ x", "id(x) EOF"},
      {"a/b", "id(a) / id(b) EOF"},
      {R"("plain" "q\"uote" "back\\slash")", R"(str(plain) str(q"uote) str(back\slash) EOF)"},
      {"-1", "- num(1) EOF"},  // a negative literal is `-` and a number
      {"1-2", "num(1) - num(2) EOF"},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    EXPECT_EQ(Dump(c.source, &d), c.tokens) << c.source;
    EXPECT_TRUE(d.empty()) << c.source << "\n" << d.Render();
  }
}

TEST(Lexer, NumbersParseToTheNearestDouble) {
  struct Case {
    const char* text;
    double value;
  } cases[] = {
      {"12", 12},       {"0.5", 0.5},           {"1e-3", 0.001},
      {"2.5E6", 2.5e6}, {"1E+3", 1000},         {"0.1", 0.1},
      {"007", 7},       {"25e9", 25e9},         {"1.7976931348623157e308", 1.7976931348623157e308},
      // Below the smallest subnormal rounds to 0, as strtod does.
      {"1e-400", 0},    {"4.9406564584124654e-324", 4.9406564584124654e-324},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    std::vector<Token> t = Lex(c.text, &d);
    ASSERT_EQ(t.size(), 2u) << c.text;
    EXPECT_EQ(t[0].kind, TokenKind::kNumber) << c.text;
    EXPECT_EQ(t[0].number, c.value) << c.text;
    EXPECT_TRUE(d.empty()) << c.text;
  }
}

TEST(Lexer, PositionsAreOneBasedByteColumns) {
  Diagnostics d;
  std::vector<Token> t = Lex("pool kv {\n\tcap 1; }\n// end\n", &d);
  // pool kv { cap 1 ; } EOF
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(absl::StrCat(t[0].line, ":", t[0].column), "1:1");
  EXPECT_EQ(absl::StrCat(t[1].line, ":", t[1].column), "1:6");
  EXPECT_EQ(absl::StrCat(t[3].line, ":", t[3].column), "2:2");  // a tab is one byte
  EXPECT_EQ(absl::StrCat(t[6].line, ":", t[6].column), "2:9");
  EXPECT_TRUE(t[0].first_on_line);
  EXPECT_FALSE(t[1].first_on_line);
  EXPECT_TRUE(t[3].first_on_line);
  EXPECT_FALSE(t[4].first_on_line);
  // End of file sits just after the last token, where a missing `;` or
  // `}` would go.
  EXPECT_EQ(t[7].kind, TokenKind::kEof);
  EXPECT_EQ(absl::StrCat(t[7].line, ":", t[7].column), "2:10");
}

TEST(Lexer, CrLfLineEndsAreOneLineEnd) {
  Diagnostics d;
  std::vector<Token> t = Lex("a\r\n  b\r\n", &d);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(absl::StrCat(t[1].line, ":", t[1].column), "2:3");
  EXPECT_TRUE(t[1].first_on_line);
  EXPECT_TRUE(d.empty());
}

TEST(Lexer, Errors) {
  struct Case {
    const char* source;
    const char* tokens;
    const char* errors;
  } cases[] = {
      {"a /* b\nc", "id(a) ERR(/*) EOF", "1:3: unterminated comment\n"},
      {"x \"abc\ny", "id(x) ERR(\"abc) id(y) EOF", "1:3: unterminated string\n"},
      {"\"abc", "ERR(\"abc) EOF", "1:1: unterminated string\n"},
      {R"("a\nb\tc")", "str(anbtc) EOF",
       "1:3: invalid escape '\\n' in string (only \\\" and \\\\ are allowed)\n"
       "1:6: invalid escape '\\t' in string (only \\\" and \\\\ are allowed)\n"},
      {"1e 2. 3x 1.2.3 4e+ 5", "num(1e) num(2.) num(3x) num(1.2.3) num(4e+) num(5) EOF",
       "1:1: invalid number '1e'\n1:4: invalid number '2.'\n1:7: invalid number '3x'\n"
       "1:10: invalid number '1.2.3'\n1:16: invalid number '4e+'\n"},
      {"1e999", "num(1e999) EOF", "1:1: number '1e999' is too large (write 'inf' for infinity)\n"},
      {"a # b", "id(a) ERR(#) id(b) EOF", "1:3: unexpected character '#'\n"},
      {"a @#$ b", "id(a) ERR(@#$) id(b) EOF", "1:3: unexpected character '@'\n"},
      {"a & b | c", "id(a) ERR(&) id(b) ERR(|) id(c) EOF",
       "1:3: unexpected character '&' (did you mean '&&')\n"
       "1:7: unexpected character '|' (did you mean '||')\n"},
      {".5", "ERR(.) num(5) EOF", "1:1: unexpected character '.'\n"},
      {"x\x01y", "id(x) ERR(\x01) id(y) EOF", "1:2: unexpected character byte 0x01\n"},
      // A string's bytes are UTF-8 (an IR string holds nothing else): the
      // first byte that is not is reported, at its column (the quote is
      // column 1 in the first, 3 in the second: 3 + 4 bytes `"caf`).
      {"\"a\xff\"", "str(a\xff) EOF", "1:3: string is not UTF-8 (byte 0xff)\n"},
      {"x \"caf\xc3\" \"\xc3\xa9\"", "id(x) str(caf\xc3) str(\xc3\xa9) EOF",
       "1:7: string is not UTF-8 (byte 0xc3)\n"},
      {"x \xc3\xa9 y", "id(x) ERR(\xc3\xa9) id(y) EOF",
       "1:3: unexpected non-ASCII character (serq source is ASCII outside comments and "
       "strings)\n"},
      // A byte order mark before the first line (a Windows editor's) is
      // skipped, and line 1's columns count from after it; elsewhere it is
      // a character like any other.
      {"\xEF\xBB\xBFx \xc3\xa9", "id(x) ERR(\xc3\xa9) EOF",
       "1:3: unexpected non-ASCII character (serq source is ASCII outside comments and "
       "strings)\n"},
      {"x\n\xEF\xBB\xBF", "id(x) ERR(\xEF\xBB\xBF) EOF",
       "2:1: unexpected non-ASCII character (serq source is ASCII outside comments and "
       "strings)\n"},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    EXPECT_EQ(Dump(c.source, &d), c.tokens) << c.source;
    EXPECT_EQ(Errors(d), c.errors) << c.source;
  }
}

TEST(Lexer, StopsAtTheErrorLimit) {
  // 10,000 `#`s apart: one error each (a run of them would be one). The
  // lexer stops at the 20th (kMaxErrors): 20 error tokens and the end of
  // file, which it puts after the last token it read (column 2 * 19 + 1 + 1).
  std::string source;
  for (int i = 0; i < 10000; ++i) source += "# ";
  Diagnostics d;
  std::vector<Token> tokens = Lex(source, &d);
  ASSERT_EQ(tokens.size(), 21u);
  EXPECT_EQ(tokens.back().kind, TokenKind::kEof);
  EXPECT_EQ(tokens.back().column, 40u);
  EXPECT_EQ(d.list().size(), 20u);
  EXPECT_EQ(d.dropped(), 0u);
  EXPECT_TRUE(d.stopped());
}

TEST(Lexer, CommentsAndStringsMayHoldAnyBytes) {
  Diagnostics d;
  EXPECT_EQ(Dump("// caf\xc3\xa9 #@\n/* \xe2\x86\x92 */ \"\xc3\xa9 # @\"", &d),
            "str(\xc3\xa9 # @) EOF");
  EXPECT_TRUE(d.empty()) << d.Render();
}

TEST(Lexer, EveryReservedWordIsOneKeyword) {
  std::set<absl::string_view> words;
  std::set<TokenKind> kinds;
  for (const ReservedWord& w : ReservedWords()) {
    Diagnostics d;
    std::vector<Token> t = Lex(w.word, &d);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].kind, w.kind) << w.word;
    EXPECT_TRUE(IsReservedWord(t[0].kind)) << w.word;
    EXPECT_EQ(DescribeKind(w.kind), absl::StrCat("'", w.word, "'"));
    words.insert(w.word);
    kinds.insert(w.kind);
  }
  EXPECT_EQ(words.size(), ReservedWords().size());
  EXPECT_EQ(kinds.size(), ReservedWords().size());
}

TEST(Lexer, OptionWordsAreNamesToTheLexer) {
  std::set<absl::string_view> words;
  for (const OptionWord& w : OptionWords()) {
    Diagnostics d;
    std::vector<Token> t = Lex(w.word, &d);
    EXPECT_EQ(t[0].kind, TokenKind::kIdentifier) << w.word;
    words.insert(w.word);
  }
  EXPECT_EQ(words.size(), OptionWords().size());
}

// The language's word counts are quoted from tools/metrics.json; the
// lexer's tables must say the same (language.md §2: 37 reserved words, 38
// option words: IR 9 added `cache`, `preempt`, `sample` and the statement
// word `prefix`; IR 10 `let`, `block`, `chunk`, `reserve`, `async`, `recompute`, the declaration
// word `table` and the eight words of a table's block; IR 11 `lockstep`,
// `row` and the arrival processes `stages` and `exactly`).
TEST(Lexer, TablesMatchMetricsJson) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  std::ifstream in(absl::StrCat(srcdir, "/serq/tools/metrics.json"));
  ASSERT_TRUE(in) << "tools/metrics.json is not in the test's runfiles";
  std::stringstream text;
  text << in.rdbuf();
  google::protobuf::Struct metrics;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(text.str(), &metrics).ok());
  EXPECT_EQ(metrics.fields().at("reserved_words").number_value(), ReservedWords().size());
  EXPECT_EQ(metrics.fields().at("option_words").number_value(), OptionWords().size());
  EXPECT_EQ(ReservedWords().size(), 37u);
  EXPECT_EQ(OptionWords().size(), 38u);
}

}  // namespace
}  // namespace serq
