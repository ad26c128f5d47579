#include "lang/parse/parser.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/limits.h"
#include "lang/parse/dump.h"
#include "lang/parse/parse.h"

namespace serq {
namespace {

std::string Errors(const Diagnostics& d) {
  std::string out;
  for (const Diagnostic& x : d.list()) absl::StrAppend(&out, x.line, ":", x.column, ": ", x.message, "\n");
  return out;
}

// The dump of `source` parsed as a program, or its errors.
std::string Program(absl::string_view source, bool locations = false) {
  Diagnostics d("t.sq", std::string(source));
  ir::Program p;
  if (!ParseProgram("t.sq", source, &p, &d)) return "ERRORS\n" + Errors(d);
  return DumpProgram(p, locations);
}

std::string Expression(absl::string_view source) {
  Diagnostics d;
  ir::Expr e;
  if (!ParseExpression(source, &e, &d)) return "ERRORS " + Errors(d);
  return DumpExpr(e);
}

TEST(Parser, ExpressionsByPrecedenceAndAssociativity) {
  struct Case {
    const char* source;
    const char* tree;
  } cases[] = {
      {"1", "1"},
      {"inf", "inf"},
      {"-inf", "(neg inf)"},
      {"-3", "(neg 3)"},  // a negative literal is NEG of a number
      {"x", "x"},
      {"kvD[j + 1]", "kvD[(+ j 1)]"},
      {"1 + 2 * 3", "(+ 1 (* 2 3))"},
      {"(1 + 2) * 3", "(* (+ 1 2) 3)"},
      {"1 - 2 - 3", "(- (- 1 2) 3)"},
      {"1 - (2 - 3)", "(- 1 (- 2 3))"},
      {"8 / 4 / 2 % 3", "(% (/ (/ 8 4) 2) 3)"},
      {"-2 * 3", "(* (neg 2) 3)"},
      {"- -x", "(neg (neg x))"},
      {"!a && b", "(&& (! a) b)"},
      {"a || b && c", "(|| a (&& b c))"},
      {"a && b || c && d", "(|| (&& a b) (&& c d))"},
      {"a || b || c", "(|| (|| a b) c)"},
      {"a + 1 < b * 2", "(< (+ a 1) (* b 2))"},
      {"a < b && c >= d", "(&& (< a b) (>= c d))"},
      {"a == b || c != d", "(|| (== a b) (!= c d))"},
      {"(a < b) == 1", "(== (< a b) 1)"},
      {"a <= (b > c)", "(<= a (> b c))"},
      {"min(a, b, 3)", "min(a, b, 3)"},
      {"f()", "f()"},
      {"queue(D[j]) + cap(kv)", "(+ queue(D[j]) cap(kv))"},
      {"pow(2, -x) % 3", "(% pow(2, (neg x)) 3)"},
      // The step variables of a tau are names in expressions.
      {"0.001 * prefill + decode", "(+ (* 0.001 prefill) decode)"},
      // Option words are names outside their blocks.
      {"cap + seqs + horizon", "(+ (+ cap seqs) horizon)"},
      {"((((x))))", "x"},
  };
  for (const Case& c : cases) EXPECT_EQ(Expression(c.source), c.tree) << c.source;
}

TEST(Parser, ExpressionErrors) {
  struct Case {
    const char* source;
    const char* errors;
  } cases[] = {
      {"", "ERRORS 1:1: expected an expression, found end of file\n"},
      {"1 +", "ERRORS 1:4: expected an expression, found end of file\n"},
      {"a < b < c", "ERRORS 1:7: comparisons do not chain: add parentheses, or use '&&', before '<'\n"},
      {"a == b != c", "ERRORS 1:8: comparisons do not chain: add parentheses, or use '&&', before '!='\n"},
      {"(1 + 2", "ERRORS 1:7: expected ')' to close the parenthesis, found end of file\n"},
      {"min(1, 2", "ERRORS 1:9: expected ',' or ')' after an argument of 'min', found end of file\n"},
      {"a[1", "ERRORS 1:4: expected ']' after the index of 'a', found end of file\n"},
      {"1 2", "ERRORS 1:3: expected end of the expression, found '2'\n"},
      {"pool", "ERRORS 1:1: expected an expression, found 'pool'\n"},
  };
  for (const Case& c : cases) EXPECT_EQ(Expression(c.source), c.errors) << c.source;
}

TEST(Parser, Declarations) {
  EXPECT_EQ(Program("param R = 1 in [1 / N, 1];\n"), "param R 1 in [(/ 1 N), 1]\n");
  EXPECT_EQ(Program("param N = 2;\n"
                    "pool kv[N] { cap 10; evict by (since, 1); }\n"
                    "pool q { evict by since * 2; cap inf; }\n"
                    "stage S : delay;\n"
                    "stage L[2] : ps(1) {}\n"
                    "stage F : fifo(2) { serve by prompt; }\n"
                    "stage E : step(tokens) { tokens 8; seqs 4; serve by (a, b); }\n"
                    "share bottleneck;\n"
                    "workload w { arrive poisson(2); limit 5; }\n"
                    "workload { arrive trace(\"a \\\"b\\\".csv\"); }\n"
                    "session w { end; }\n"
                    "session {}\n"
                    "run { seed 3; horizon 10; }\n"),
            "param N 2\n"
            "pool kv[N] cap 10 evict (since, 1)\n"
            "pool q cap inf evict ((* since 2))\n"
            "stage S DELAY\n"
            "stage L[2] PS 1\n"
            "stage F FIFO 2 serve (prompt)\n"
            "stage E STEP tokens seqs 4 tokens 8 serve (a, b)\n"
            "share BOTTLENECK\n"
            "workload w POISSON 2 limit 5\n"
            "workload _ TRACE \"a \"b\".csv\"\n"
            "session w\n"
            "  end\n"
            "session _\n"
            "run horizon 10 seed 3\n");
}

TEST(Parser, EmptyProgram) { EXPECT_EQ(Program("// nothing\n"), ""); }

TEST(Parser, Statements) {
  EXPECT_EQ(Program("session {\n"
                    "  set x = 1;\n"
                    "  if (x) { end; } else if (y) { set a = 1; } else { set a = 2; }\n"
                    "  repeat (3) { run S (1); }\n"
                    "  run A, B[i], C (w);\n"
                    "  run E prefill (p);\n"
                    "  run E decode (o) growing kv[j];\n"
                    "  choose j in D by (queue(D[j]), j);\n"
                    "  hold a (1), b[i] (2) { release a; } lease a (inf), b[i] (5);\n"
                    "  hold a (1) {}\n"
                    "  load kv (3);\n"
                    "  observe t = now;\n"
                    "}\n"),
            "session _\n"
            "  set x 1\n"
            "  if x\n"
            "    end\n"
            "  else\n"
            "    if y\n"
            "      set a 1\n"
            "    else\n"
            "      set a 2\n"
            "  repeat 3\n"
            "    run S 1\n"
            "  run A +B[i] +C w\n"
            "  run E prefill p\n"
            "  run E decode o growing kv[j]\n"
            "  choose j in D by (queue(D[j]), j)\n"
            "  hold a 1, b[i] 2\n"
            "    release a\n"
            "  lease a inf, b[i] 5\n"
            "  hold a 1\n"
            "  load kv 3\n"
            "  observe t now\n");
}

// A KEY is a tuple only when a `,` follows its first element; a leading
// parenthesis otherwise belongs to a single expression that may go on.
TEST(Parser, Keys) {
  struct Case {
    const char* key;
    const char* dump;
  } cases[] = {
      {"a", "(a)"},
      {"(a)", "(a)"},
      {"(a, b)", "(a, b)"},
      {"(a, (b), -c)", "(a, b, (neg c))"},
      {"(a + b) * 2", "((* (+ a b) 2))"},
      {"(a) < 1 || (b) > 2", "((|| (< a 1) (> b 2)))"},
      {"((a, b))", "ERRORS"},  // a tuple is not an expression
  };
  for (const Case& c : cases) {
    std::string got = Program(absl::StrCat("session { choose j in D by ", c.key, "; }"));
    if (std::string(c.dump) == "ERRORS") {
      EXPECT_EQ(got.substr(0, 6), "ERRORS") << c.key;
    } else {
      EXPECT_EQ(got, absl::StrCat("session _\n  choose j in D by ", c.dump, "\n")) << c.key;
    }
  }
}

// IR 11: `every DT` after a choose's key; `every` stays a name elsewhere.
TEST(Parser, ChooseEvery) {
  EXPECT_EQ(Program("session { choose j in D by (queue(D[j]), j) every 0.1 * every; }"),
            "session _\n  choose j in D by (queue(D[j]), j) every (* 0.1 every)\n");
  EXPECT_EQ(Program("session { choose j in D by j every; }").substr(0, 6), "ERRORS");
}

TEST(Parser, TransferLowersToRunLoadRelease) {
  EXPECT_EQ(Program("session {\n"
                    "  transfer (w) from P to Q (m);\n"
                    "  transfer[j + 1] (w) from P[i] to Q[j] (m);\n"
                    "  transfer on S1[i], S2[j] (w) from P to Q (m);\n"
                    "}\n",
                    /*locations=*/true),
            "session _ @1:1\n"
            "  [transfer] run link w @2:3\n"
            "  [transfer] load Q m @2:3\n"
            "  [transfer] release P @2:3\n"
            "  [transfer] run link[(+ j 1)] w @3:3\n"
            "  [transfer] load Q[j] m @3:3\n"
            "  [transfer] release P[i] @3:3\n"
            "  [transfer] run S1[i] +S2[j] w @4:3\n"
            "  [transfer] load Q m @4:3\n"
            "  [transfer] release P @4:3\n");
}

TEST(Parser, FillsVersionFileAndLocationsButNoLinkFields) {
  const char* source =
      "param B = 2;\n"
      "session s {\n"
      "  set x = B + min(1, 2);\n"
      "  transfer[x] (1) from kvP to kvD (2);\n"
      "  hold kvD (1) {} lease kvD (3);\n"
      "}\n"
      "share maxmin;\n"
      "run { horizon 1; }\n";
  Diagnostics d;
  ir::Program p;
  ASSERT_TRUE(ParseProgram("dir/x.sq", source, &p, &d)) << d.Render();
  EXPECT_EQ(p.version(), kIrVersion);
  EXPECT_EQ(p.file(), "dir/x.sq");
  EXPECT_FALSE(p.linked());
  EXPECT_EQ(p.share_loc().line(), 7u);
  EXPECT_EQ(p.share_loc().column(), 1u);
  EXPECT_EQ(p.run().loc().line(), 8u);
  EXPECT_EQ(p.param(0).loc().column(), 1u);

  const ir::Session& s = p.session(0);
  EXPECT_EQ(s.variable_size(), 0);
  EXPECT_EQ(s.workload(), 0u);
  const ir::Statement& set = s.body(0);
  EXPECT_EQ(set.set().slot(), 0u);
  // A binary expression is located at its operator, a call at its name,
  // a name at itself.
  const ir::Expr& sum = set.set().value();
  EXPECT_EQ(sum.loc().column(), 13u);                        // `+`
  EXPECT_EQ(sum.binary().lhs().loc().column(), 11u);         // `B`
  EXPECT_EQ(sum.binary().lhs().ref().loc().column(), 11u);
  EXPECT_EQ(sum.binary().lhs().ref().kind(), ir::Ref::UNRESOLVED);
  EXPECT_EQ(sum.binary().lhs().ref().decl(), 0u);
  EXPECT_EQ(sum.binary().rhs().loc().column(), 15u);         // `min`
  EXPECT_EQ(sum.binary().rhs().call().arg(1).loc().column(), 22u);

  // The transfer's three statements and the `link` it names are located at
  // the `transfer`; the names the source spells, where they are spelt.
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(s.body(i).loc().line(), 4u);
    EXPECT_EQ(s.body(i).loc().column(), 3u);
    EXPECT_TRUE(s.body(i).transfer());
  }
  EXPECT_EQ(s.body(1).run().stage().name(), "link");
  EXPECT_EQ(s.body(1).run().stage().loc().column(), 3u);
  EXPECT_EQ(s.body(1).run().stage().index().loc().column(), 12u);
  EXPECT_EQ(s.body(2).load().pool().loc().column(), 31u);  // kvD
  EXPECT_EQ(s.body(3).release().pool().loc().column(), 24u);  // kvP
  EXPECT_FALSE(s.body(4).transfer());
  // An amount is located at its pool's name.
  EXPECT_EQ(s.body(4).hold().pool(0).loc().column(), 8u);
  EXPECT_EQ(s.body(4).hold().lease(0).loc().column(), 25u);
  EXPECT_EQ(s.body(4).hold().lease(0).amount().loc().column(), 30u);
}

// A file name is bytes; the IR's `file` is a string, so UTF-8: a name in
// Latin-1 (0xe9 is e acute there) keeps that byte as the four characters
// \xe9, and a UTF-8 name is kept as it is.
TEST(Parser, FileNameThatIsNotUtf8IsKeptEscaped) {
  Diagnostics d;
  ir::Program p;
  ASSERT_TRUE(ParseProgram("caf\xe9/x.sq", "run { horizon 1; }", &p, &d)) << d.Render();
  EXPECT_EQ(p.file(), "caf\\xe9/x.sq");
  ASSERT_TRUE(ParseProgram("caf\xc3\xa9/x.sq", "run { horizon 1; }", &p, &d)) << d.Render();
  EXPECT_EQ(p.file(), "caf\xc3\xa9/x.sq");
}

TEST(Parser, AbsentOptionsStayAbsent) {
  Diagnostics d;
  ir::Program p;
  ASSERT_TRUE(ParseProgram("t", "pool a {} stage s : delay; workload {} run {}", &p, &d));
  EXPECT_FALSE(p.pool(0).has_cap());
  EXPECT_FALSE(p.pool(0).has_size());
  EXPECT_FALSE(p.pool(0).has_evict_by());
  EXPECT_FALSE(p.stage(0).has_rate());
  EXPECT_FALSE(p.stage(0).has_seqs());
  EXPECT_FALSE(p.stage(0).has_serve_by());
  EXPECT_EQ(p.workload(0).process(), ir::Workload::PROCESS_UNSPECIFIED);
  EXPECT_FALSE(p.workload(0).has_limit());
  EXPECT_EQ(p.share(), ir::Program::SHARE_UNSPECIFIED);
  ASSERT_TRUE(p.has_run());
  EXPECT_FALSE(p.run().has_horizon());
  EXPECT_FALSE(p.run().has_warmup());
  EXPECT_FALSE(p.run().has_replications());
  EXPECT_FALSE(p.run().has_seed());
  EXPECT_FALSE(p.run().has_sample());
  EXPECT_FALSE(p.pool(0).has_cache());
  EXPECT_FALSE(p.stage(0).has_preempt_by());
}

// IR 9's forms, with the locations diagnostics use: `cache`, `preempt` and
// `observe` at their words, a prefix statement at `prefix`.
TEST(Parser, Ir9FormsAndTheirLocations) {
  Diagnostics d;
  ir::Program p;
  ASSERT_TRUE(ParseProgram("t",
                           "pool kv { cache 16; }\n"
                           "stage E : step(attention) { preempt by -since; }\n"
                           "session {\n"
                           "  prefix (7, 3);\n"
                           "  run E decode (4) growing kv observe itl;\n"
                           "  run E prefill (4) growing kv;\n"
                           "}\n"
                           "run { sample 0.5; }\n",
                           &p, &d))
      << Errors(d);
  EXPECT_EQ(p.pool(0).cache().number(), 16);
  EXPECT_EQ(p.pool(0).cache_loc().column(), 11u);
  EXPECT_EQ(p.stage(0).rate().ref().name(), "attention");
  ASSERT_EQ(p.stage(0).preempt_by().expr_size(), 1);  // one expression, as `serve by`
  EXPECT_EQ(p.stage(0).preempt_loc().line(), 2u);
  EXPECT_EQ(p.stage(0).preempt_loc().column(), 29u);
  const ir::Statement& prefix = p.session(0).body(0);
  EXPECT_EQ(prefix.prefix().family().number(), 7);
  EXPECT_EQ(prefix.prefix().count().number(), 3);
  EXPECT_EQ(prefix.loc().column(), 3u);
  const ir::Statement::Run& decode = p.session(0).body(1).run();
  EXPECT_EQ(decode.observe(), "itl");
  EXPECT_EQ(decode.growing().name(), "kv");
  EXPECT_EQ(decode.observe_loc().column(), 31u);
  const ir::Statement::Run& prefill = p.session(0).body(2).run();
  EXPECT_EQ(prefill.mode(), ir::Statement::Run::PREFILL);
  EXPECT_EQ(prefill.growing().name(), "kv");
  EXPECT_TRUE(prefill.observe().empty());
  EXPECT_EQ(p.run().sample().number(), 0.5);
}

TEST(Parser, InfIsPositiveInfinity) {
  Diagnostics d;
  ir::Expr e;
  ASSERT_TRUE(ParseExpression("inf", &e, &d));
  EXPECT_TRUE(std::isinf(e.number()));
  EXPECT_GT(e.number(), 0);
}

// Each mistake gives one error, located where it is, and the parser goes
// on to find the others.
TEST(Parser, ErrorsAndRecovery) {
  struct Case {
    const char* source;
    const char* errors;
  } cases[] = {
      // A missing `;` is reported at the token found instead, which the
      // message names, and parsing goes on from there.
      {"session {\n  set x = 1\n  run S (x);\n}\n",
       "3:3: expected ';' after the statement, found 'run'\n"},
      {"session { run S (1) ); end; }", "1:21: expected ';' after the statement, found ')'\n"},
      {"session { set x = 1 2; set y = ; }",
       "1:21: expected ';' after the statement, found '2'\n"
       "1:32: expected an expression, found ';'\n"},
      {"pool kv { cap 1; size 2; cap 3; }",
       "1:18: unknown option 'size' in pool 'kv': expected 'cap', 'evict', 'cache' or 'block'\n"
       "1:26: 'cap' given twice in pool 'kv' (first at 1:11)\n"},
      {"pool kv { 5; cap 1; }",
       "1:11: expected an option of pool 'kv' ('cap', 'evict', 'cache' or 'block') or '}', found '5'\n"},
      {"stage E : step(1) { reserve tokens; }",
       "1:29: expected 'prompt' after 'reserve', found 'tokens'\n"},
      {"stage E : step(1) { recompute first; }",
       "1:31: expected 'last' after 'recompute', found 'first'\n"},
      {"stage E : step(1) { batch 2; }",
       "1:21: unknown option 'batch' in stage 'E': expected 'seqs', 'tokens', 'serve', 'preempt', 'let', 'chunk', 'reserve', 'async', 'recompute' or 'lockstep'\n"},
      {"workload { limit 1; limit 2; arrive batch(1); arrive batch(2); }",
       "1:21: 'limit' given twice in the unnamed workload (first at 1:12)\n"
       "1:47: 'arrive' given twice in the unnamed workload (first at 1:30)\n"},
      {"run { horizon 1; } run { seed 2; }", "1:20: second 'run' block (the first is at 1:1)\n"},
      {"share maxmin; share maxmin;", "1:15: second 'share' declaration (the first is at 1:1)\n"},
      {"share fair;", "1:7: expected 'maxmin' or 'bottleneck' after 'share', found 'fair'\n"},
      {"session { transfer (1) kvP to kvD (1); }",
       "1:24: expected 'from' after the transfer's work, found 'kvP'\n"},
      {"session { choose j in D by (); }",
       "1:29: empty key: '()' needs at least one expression\n"},
      {"session { } }", "1:13: expected a declaration ('param', 'pool', 'stage', 'table', "
                        "'share', 'workload', 'session' or 'run'), found '}'\n"},
      {"param in = 1; param x = 2;", "1:7: expected a param name after 'param', found reserved word 'in'\n"},
      {"param b = 1 in 0, 1];", "1:16: expected '[' after 'in' (a param's range: in [low, high]), found '0'\n"},
      {"param b = 1 in [0 1];", "1:19: expected ',' after the range's low end (in [low, high]), found '1'\n"},
      {"param b = 1 in [0, 1;", "1:21: expected ']' after the range's high end (in [low, high]), found ';'\n"},
      {"session { set end = 1; observe t = end; }",
       "1:15: expected a variable name after 'set', found reserved word 'end'\n"
       "1:36: expected an expression, found 'end'\n"},
      {"session {\n  if (x) {\n    end;\n", "3:9: expected '}' to match the '{' at line 2, found end of file\n"},
      {"session {\n  run S (1);\npool kv { cap 1; }",
       "3:1: expected '}' to match the '{' at line 1, found 'pool'\n"},
      {"session {\n  run S (1);\nrun { horizon 1; }",
       "3:1: expected '}' to match the '{' at line 1, found 'run'\n"},
      {"pool kv { cap 1;\nstage S : delay;",
       "2:1: expected '}' to close pool 'kv' (its '{' is at line 1), found 'stage'\n"},
      {"session\n  set x = 1;\n  end;\n}\nstage S : delay;",
       "2:3: expected a session name or '{' after 'session', found 'set'\n"},
      {"session { else { end; } observe = 1; }",
       "1:11: 'else' without 'if'\n1:33: expected a metric name after 'observe', found '='\n"},
      {"session { lease kv (1); end; }", "1:11: 'lease' must follow the block of a 'hold'\n"},
      {"session { wait (1); end; }", "1:11: expected a statement, found 'wait'\n"},
      {"session { if x { end; } }", "1:14: expected '(' after 'if', found 'x'\n"},
      {"session { run (1); }", "1:15: expected a stage name after 'run', found '('\n"},
      {"session { run S prefill decode (1); }",
       "1:25: expected '(' and the work after the run's stage, found 'decode'\n"},
      {"workload { arrive trace(x); }",
       "1:25: expected a file name in quotes after 'trace(', found 'x'\n"},
      {"stage S : ps 1;", "1:14: expected '(' after 'ps', found '1'\n"},
      // A lexical error is reported once, by the lexer; the parser does not
      // add "found ..." errors about the token it rejected.
      {"param a = 1 # 2;\nparam b = \"x;\nparam c = 1;",
       "1:13: unexpected character '#'\n2:11: unterminated string\n"},
      {"session { run S (1); /* unfinished", "1:22: unterminated comment\n"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Program(c.source), absl::StrCat("ERRORS\n", c.errors)) << c.source;
  }
}

TEST(Parser, StopsAtTheErrorLimit) {
  // 1,000 declarations, each with one error (`param pN = ;`: no expression
  // after '='). The parser keeps the first kMaxErrors (20) and stops: the
  // 21st and later are never reached, so none is counted as dropped (the
  // parser of the last round went on to the end: 980 dropped). The error
  // that filled the list is the 20th, on line 20.
  std::string source;
  for (int i = 0; i < 1000; ++i) absl::StrAppend(&source, "param p", i, " = ;\n");
  Diagnostics d("t.sq", source);
  ir::Program p;
  EXPECT_FALSE(ParseProgram("t.sq", source, &p, &d));
  ASSERT_EQ(d.list().size(), static_cast<size_t>(kMaxErrors));
  EXPECT_EQ(d.list().back().line, 20u);
  EXPECT_TRUE(d.stopped());
  EXPECT_LE(d.dropped(), 1u);  // at most one at the end of file it unwinds to
  std::string shown = d.Render();
  EXPECT_EQ(shown.substr(shown.rfind("t.sq: error:")),
            "t.sq: error: too many errors: stopped after the first 20\n");
  // 19 errors: all shown, no stop.
  Diagnostics few("t.sq", "");
  std::string nineteen;
  for (int i = 0; i < 19; ++i) absl::StrAppend(&nineteen, "param p", i, " = ;\n");
  EXPECT_FALSE(ParseProgram("t.sq", nineteen, &p, &few));
  EXPECT_EQ(few.list().size(), 19u);
  EXPECT_FALSE(few.stopped());
  EXPECT_EQ(few.TooMany(), "");
}

TEST(Parser, NestingBeyondWhatTheIrHoldsIsAnError) {
  // 31 terms: the deepest Expr is at level 3 + 2 * 30 = 63, within 64; the
  // 32nd term's `+` (column 11 + 4 * 31 - 2) makes it 65.
  std::string sum = "1";
  for (int i = 0; i < 30; ++i) sum += " + 1";
  EXPECT_EQ(Program(absl::StrCat("param x = ", sum, ";")).substr(0, 8), "param x ");
  EXPECT_EQ(Program(absl::StrCat("param x = ", sum, " + 1;")),
            "ERRORS\n1:133: nested too deeply: the IR holds at most 64 levels of blocks and "
            "expressions (split the expression with 'set' or a 'param')\n");
  // Without end: no stack overflow, one error.
  std::string parens(100000, '(');
  std::string errors = Program(absl::StrCat("param x = ", parens, "1;"));
  EXPECT_EQ(errors.substr(0, 12), "ERRORS\n1:75:") << errors.substr(0, 200);
  std::string blocks;
  for (int i = 0; i < 1000; ++i) blocks += "if (1) {";
  errors = Program(absl::StrCat("session {", blocks));
  EXPECT_EQ(errors.find("nested too deeply"), errors.rfind("nested too deeply"));
  EXPECT_NE(errors.find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace serq
