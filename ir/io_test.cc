#include "ir/io.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace serq {
namespace {

ir::Program SmallProgram() {
  ir::Program p;
  p.set_version(8);
  p.set_share(ir::Program::MAXMIN);
  ir::Stage* s = p.add_stage();
  s->set_name("link");
  s->set_kind(ir::Stage::PS);
  s->mutable_rate()->set_number(1);
  ir::Statement* st = p.add_session()->add_body();
  ir::Statement::Run* run = st->mutable_run();
  run->mutable_stage()->set_name("egress");
  run->add_also()->set_name("ingress");
  run->mutable_work()->set_number(std::numeric_limits<double>::infinity());
  return p;
}

TEST(Io, JsonBinaryJsonIsIdentical) {
  ir::Program p = SmallProgram();
  std::string json = EncodeMessage(p, Format::kJson);
  Diagnostics d;
  ir::Program from_json;
  ASSERT_TRUE(ReadProgram(json, &from_json, &d)) << d.Render();
  std::string binary = EncodeMessage(from_json, Format::kBinary);
  ir::Program from_binary;
  ASSERT_TRUE(ReadProgram(binary, &from_binary, &d)) << d.Render();
  EXPECT_EQ(EncodeMessage(from_binary, Format::kJson), json);
  // inf survives both encodings.
  EXPECT_NE(json.find("\"Infinity\""), std::string::npos);
}

TEST(Io, EmptyAlsoIsAbsentFromJson) {
  ir::Program p = SmallProgram();
  EXPECT_NE(EncodeMessage(p, Format::kJson).find("\"also\""), std::string::npos);
  p.mutable_session(0)->mutable_body(0)->mutable_run()->clear_also();
  EXPECT_EQ(EncodeMessage(p, Format::kJson).find("\"also\""), std::string::npos);
}

TEST(Io, Version7IsUpgradedWhenItHoldsNeitherAlsoNorShare) {
  Diagnostics d("v7.json");
  ir::Program p;
  ASSERT_TRUE(ReadProgram(R"({"version": 7, "stage": [{"name": "s", "kind": "DELAY"}]})", &p, &d));
  EXPECT_EQ(p.version(), 8u);
}

TEST(Io, Version7WithAlsoOrShareIsRefusedAtItsPath) {
  Diagnostics d("v7.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(
      R"({"version": 7, "share": "MAXMIN", "session": [{"body": [{"end": {}},
          {"run": {"stage": {"name": "a"}, "also": [{"name": "b"}]}}]}]})",
      &p, &d));
  EXPECT_EQ(d.Render(),
            "v7.json:share: error: IR version 7 cannot hold 'share' (added in version 8)\n"
            "v7.json:session[0].body[1].run.also: error: IR version 7 cannot hold 'also' "
            "(added in version 8)\n");
}

TEST(Io, UnknownVersionsAreRefusedNamingTheSupportedOnes) {
  Diagnostics d("v9.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 9})", &p, &d));
  EXPECT_FALSE(ReadProgram(R"({})", &p, &d));
  EXPECT_EQ(d.Render(),
            "v9.json:version: error: unsupported IR version 9; this serq reads IR versions 7 "
            "and 8\n"
            "v9.json:version: error: IR has no version; this serq reads IR versions 7 and 8\n");
}

TEST(Io, UnknownEnumNameAndUnknownFieldAreErrors) {
  Diagnostics d("x.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 8, "share": "FAIREST"})", &p, &d));
  EXPECT_FALSE(ReadProgram(R"({"version": 8, "shares": "MAXMIN"})", &p, &d));
  EXPECT_FALSE(ReadProgram(R"({"version": 8, "stage": [{"name": "s", "kind": "WARP"}]})", &p, &d));
  EXPECT_EQ(d.Render(),
            "x.json:share: error: invalid value \"FAIREST\" for type Program.Share\n"
            "x.json: error: invalid IR JSON: unknown field 'shares'\n"
            "x.json:stage[0].kind: error: invalid value \"WARP\" for type Stage.Kind\n");
}

TEST(Io, GarbageAndEmptyInputAreErrors) {
  Diagnostics d("x");
  ir::Program p;
  EXPECT_FALSE(ReadProgram("", &p, &d));
  EXPECT_FALSE(ReadProgram("\xff\xff\xff\xff", &p, &d));
  EXPECT_FALSE(ReadProgram("{ not json", &p, &d));
  EXPECT_EQ(d.size(), 3u);
}

// Program(1) > Param(2) > Expr(3), and each unary adds Unary > Expr: with
// n unary levels the IR is 3 + 2n deep. 30 levels (63 deep) are read and
// written back; 31 (65) are refused, as protobuf's JSON writer fails at 67.
TEST(Io, IrDeeperThanTheLimitIsRefused) {
  for (int n : {30, 31, 40}) {
    ir::Program p;
    p.set_version(8);
    ir::Expr* e = p.add_param()->mutable_value();
    for (int i = 0; i < n; ++i) e = e->mutable_unary()->mutable_operand();
    e->set_number(1);
    EXPECT_EQ(MessageDepth(p), 3 + 2 * n);
    Diagnostics d("deep.pb");
    ir::Program back;
    bool ok = ReadProgram(EncodeMessage(p, Format::kBinary), &back, &d);
    EXPECT_EQ(ok, 3 + 2 * n <= kMaxIrDepth) << n;
    if (!ok) {
      EXPECT_EQ(d.Render(), absl::StrCat("deep.pb: error: IR nested ", 3 + 2 * n,
                                         " levels deep; serq reads at most 64 (split deep "
                                         "expressions with 'set' or a param)\n"));
    } else {
      EXPECT_EQ(EncodeMessage(back, Format::kJson), EncodeMessage(p, Format::kJson));
    }
  }
}

TEST(Io, FormatNames) {
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_EQ(*ParseFormat("pb"), Format::kBinary);
  EXPECT_FALSE(ParseFormat("xml").ok());
}

}  // namespace
}  // namespace serq
