#include "lang/parse/format.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "lang/parse/parse.h"
#include "lang/parse/parser.h"

namespace serq {
namespace {

// Clears every location (any field of type Location) and the file name:
// what a round trip through source cannot keep.
void ClearLocations(google::protobuf::Message* m) {
  const google::protobuf::Reflection* r = m->GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(*m, &fields);
  for (const google::protobuf::FieldDescriptor* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->name() == "file" && m->GetDescriptor() == ir::Program::descriptor()) {
        r->ClearField(m, f);
      }
      continue;
    }
    if (f->message_type() == ir::Location::descriptor()) {
      r->ClearField(m, f);
    } else if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*m, f); ++i) {
        ClearLocations(r->MutableRepeatedMessage(m, f, i));
      }
    } else {
      ClearLocations(r->MutableMessage(m, f));
    }
  }
}

ir::Program Parse(absl::string_view name, absl::string_view source) {
  Diagnostics d{std::string(name), std::string(source)};
  ir::Program p;
  EXPECT_TRUE(ParseProgram(name, source, &p, &d)) << name << "\n" << d.Render() << source;
  return p;
}

// Every .sq under testdata/ and examples/ in the test's runfiles (the
// `programs` filegroups in the test's data).
std::vector<std::filesystem::path> TestPrograms() {
  std::filesystem::path workspace = std::filesystem::path(std::getenv("TEST_SRCDIR")) / "serq";
  std::vector<std::filesystem::path> out;
  for (const char* dir : {"testdata", "examples"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             workspace / dir, std::filesystem::directory_options::follow_directory_symlink)) {
      std::string name = entry.path().filename().string();
      if (absl::EndsWith(name, ".sq")) out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// parse(fmt(p)) == p without locations, and fmt is idempotent, for every
// program of the golden suites: every one not named bad-, and the bad- ones
// that parse (a suite after the parser's has bad- programs that it rejects).
TEST(Format, RoundTripsEveryTestProgram) {
  std::vector<std::filesystem::path> programs = TestPrograms();
  ASSERT_GE(programs.size(), 100u) << "the test programs are missing from the runfiles";
  int round_trips = 0;
  for (const auto& path : programs) {
    SCOPED_TRACE(path.string());
    std::string source = Read(path);
    if (absl::StartsWith(path.filename().string(), "bad-")) {
      Diagnostics ignored;
      ir::Program unused;
      if (!ParseProgram(path.string(), source, &unused, &ignored)) continue;
    }
    ++round_trips;
    ir::Program p = Parse(path.string(), source);
    std::string text = FormatProgram(p);
    ir::Program q = Parse("fmt", text);
    ClearLocations(&p);
    ClearLocations(&q);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differ.Compare(p, q)) << diff << "\n" << text;
    EXPECT_EQ(FormatProgram(q), text);
  }
  // Every suite's good programs and the examples: well over a hundred.
  EXPECT_GE(round_trips, 100);
}

TEST(Format, Numbers) {
  struct Case {
    double value;
    const char* text;
  } cases[] = {
      {0, "0"},
      {12, "12"},
      {8192, "8192"},
      {100000, "100000"},
      {9999999, "9999999"},
      {1e7, "1e7"},
      {25e9, "2.5e10"},
      {0.5, "0.5"},
      {0.1, "0.1"},
      {0.001, "0.001"},
      {1.5e-5, "1.5e-5"},
      {2e-8, "2e-8"},
      {1.0 / 3, "0.3333333333333333"},
      {1.7976931348623157e308, "1.7976931348623157e308"},
      {5e-324, "5e-324"},
      {std::numeric_limits<double>::infinity(), "inf"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatNumber(c.value), c.text);
    // And it reads back as the same double.
    Diagnostics d;
    ir::Expr e;
    ASSERT_TRUE(ParseExpression(c.text, &e, &d)) << c.text;
    EXPECT_EQ(e.number(), c.value) << c.text;
  }
}

ir::Expr N(double v) {
  ir::Expr e;
  e.set_number(v);
  return e;
}
ir::Expr X(const char* name) {
  ir::Expr e;
  e.mutable_ref()->set_name(name);
  return e;
}
ir::Expr B(ir::Expr::BinaryOp op, ir::Expr a, ir::Expr b) {
  ir::Expr e;
  e.mutable_binary()->set_op(op);
  *e.mutable_binary()->mutable_lhs() = std::move(a);
  *e.mutable_binary()->mutable_rhs() = std::move(b);
  return e;
}
ir::Expr U(ir::Expr::UnaryOp op, ir::Expr a) {
  ir::Expr e;
  e.mutable_unary()->set_op(op);
  *e.mutable_unary()->mutable_operand() = std::move(a);
  return e;
}

// Only the parentheses that precedence and associativity need.
TEST(Format, MinimalParentheses) {
  using E = ir::Expr;
  struct Case {
    ir::Expr expr;
    const char* text;
  } cases[] = {
      {B(E::ADD, X("a"), B(E::MUL, X("b"), X("c"))), "a + b * c"},
      {B(E::MUL, B(E::ADD, X("a"), X("b")), X("c")), "(a + b) * c"},
      {B(E::SUB, B(E::SUB, X("a"), X("b")), X("c")), "a - b - c"},
      {B(E::SUB, X("a"), B(E::SUB, X("b"), X("c"))), "a - (b - c)"},
      {B(E::ADD, X("a"), B(E::ADD, X("b"), X("c"))), "a + (b + c)"},  // the IR's tree, kept
      {B(E::DIV, X("a"), B(E::MUL, X("b"), X("c"))), "a / (b * c)"},
      {B(E::OR, B(E::AND, X("a"), X("b")), X("c")), "a && b || c"},
      {B(E::AND, B(E::OR, X("a"), X("b")), X("c")), "(a || b) && c"},
      {B(E::LT, B(E::LT, X("a"), X("b")), X("c")), "(a < b) < c"},   // no chains
      {B(E::EQ, X("a"), B(E::NE, X("b"), X("c"))), "a == (b != c)"},
      {B(E::LT, B(E::ADD, X("a"), N(1)), X("b")), "a + 1 < b"},
      {U(E::NEG, B(E::ADD, X("a"), X("b"))), "-(a + b)"},
      {U(E::NEG, U(E::NEG, X("a"))), "- -a"},
      {U(E::NOT, U(E::NOT, X("a"))), "!!a"},
      {B(E::MUL, U(E::NEG, X("a")), X("b")), "-a * b"},
      {B(E::SUB, X("a"), U(E::NEG, N(1))), "a - -1"},
      {U(E::NOT, B(E::LT, X("a"), X("b"))), "!(a < b)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatExpr(c.expr), c.text);
    // And it parses back to the same tree.
    Diagnostics d;
    ir::Expr back;
    ASSERT_TRUE(ParseExpression(c.text, &back, &d)) << c.text << "\n" << d.Render();
    ClearLocations(&back);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, c.expr)) << c.text;
  }
}

TEST(Format, CanonicalLayout) {
  ir::Program p = Parse("t.sq",
                        "run{horizon 10;}session s{hold kv(1){}lease kv(inf);if(a){}else{end;}}\n"
                        "workload s{limit 3;arrive trace(\"a\\\"b\\\\c.csv\");}share maxmin;\n"
                        "stage E[2]:step(1){serve by j;}pool kv{evict by (since);cap 5;}\n"
                        "param z=1;session{transfer on S(1)from P to Q(2);}param a=-2;\n");
  EXPECT_EQ(FormatProgram(p),
            "param z = 1;\n"
            "param a = -2;\n"
            "\n"
            "pool kv { cap 5; evict by (since); }\n"
            "\n"
            "stage E[2] : step(1) { serve by (j); }\n"
            "\n"
            "share maxmin;\n"
            "\n"
            "workload s { arrive trace(\"a\\\"b\\\\c.csv\"); limit 3; }\n"
            "\n"
            "session s {\n"
            "  hold kv (1) {} lease kv (inf);\n"
            "  if (a) {} else {\n"
            "    end;\n"
            "  }\n"
            "}\n"
            "\n"
            "session {\n"
            "  transfer on S (1) from P to Q (2);\n"
            "}\n"
            "\n"
            "run { horizon 10; }\n");
  EXPECT_EQ(FormatProgram(ir::Program()), "");
}

// Three statements print as a transfer only when they are one: all marked,
// in the order and shape the parser gives.
TEST(Format, TransferOnlyFromItsOwnShape) {
  ir::Program p = Parse("t.sq",
                        "session {\n"
                        "  transfer[j] (1) from P to Q (2);\n"
                        "  run link[j] (1); load Q (2); release P;\n"
                        "}\n");
  EXPECT_EQ(FormatProgram(p),
            "session {\n"
            "  transfer[j] (1) from P to Q (2);\n"
            "  run link[j] (1);\n"
            "  load Q (2);\n"
            "  release P;\n"
            "}\n");
  // One marked statement missing: printed as what is left.
  p.mutable_session(0)->mutable_body()->DeleteSubrange(1, 1);
  EXPECT_EQ(FormatProgram(p),
            "session {\n"
            "  run link[j] (1);\n"
            "  release P;\n"
            "  run link[j] (1);\n"
            "  load Q (2);\n"
            "  release P;\n"
            "}\n");
}

}  // namespace
}  // namespace serq
