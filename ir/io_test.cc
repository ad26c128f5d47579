#include "ir/io.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/input_shape.h"

namespace serq {
namespace {

ir::Program SmallProgram() {
  ir::Program p;
  p.set_version(kIrVersion);
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

// JSON saved by a Windows editor, a byte order mark first, reads as the
// same program (it was taken for binary: "neither JSON nor a valid
// protobuf binary message").
TEST(Io, AByteOrderMarkBeforeJsonIsSkipped) {
  const std::string json = EncodeMessage(SmallProgram(), Format::kJson);
  Diagnostics d;
  ir::Program read;
  ASSERT_TRUE(ReadProgram("\xEF\xBB\xBF" + json, &read, &d)) << d.Render();
  EXPECT_EQ(EncodeMessage(read, Format::kJson), json);
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
  EXPECT_EQ(p.version(), kIrVersion);
}

TEST(Io, Version8IsUpgradedWhenItHoldsNoIr9Field) {
  Diagnostics d("v8.json");
  ir::Program p;
  ASSERT_TRUE(ReadProgram(
      R"({"version": 8, "share": "MAXMIN", "session": [{"body": [
          {"run": {"stage": {"name": "E"}, "mode": "DECODE", "work": {"number": 1},
                   "growing": {"name": "kv"}}}]}]})",
      &p, &d))
      << d.Render();
  EXPECT_EQ(p.version(), kIrVersion);
}

// Each field IR 9 added, in a file that says 8 (or 7): an old writer could
// not have meant it, and an old reader would have ignored it.
TEST(Io, Version8WithIr9FieldsIsRefusedAtTheirPaths) {
  const char* kBody = R"(
      "pool": [{"name": "kv", "cache": {"number": 16}}],
      "stage": [{"name": "E", "kind": "STEP",
                 "rate": {"ref": {"name": "attention", "kind": "BUILTIN", "decl": 11}},
                 "preemptBy": {"expr": [{"ref": {"name": "since"}}]}}],
      "session": [{"body": [
        {"prefix": {"family": {"number": 1}, "count": {"number": 2}}},
        {"hold": {"pool": [{"pool": {"name": "kv"}, "amount": {"number": 0}}], "body": [
          {"run": {"stage": {"name": "E"}, "mode": "PREFILL", "work": {"number": 4},
                   "growing": {"name": "kv"}}},
          {"run": {"stage": {"name": "E"}, "mode": "DECODE", "work": {"number": 4},
                   "observe": "itl"}},
          {"observe": {"name": "c", "value": {"call": {"function": "cached",
                                                         "arg": [{"ref": {"name": "kv"}}]}}}}
        ]}}]}],
      "run": {"horizon": {"number": 1}, "sample": {"number": 0.5}}})";
  for (int version : {8, 7}) {
    Diagnostics d("old.json");
    ir::Program p;
    EXPECT_FALSE(ReadProgram(absl::StrCat(R"({"version": )", version, ",", kBody), &p, &d));
    std::string v = absl::StrCat("IR version ", version, " cannot hold ");
    EXPECT_EQ(d.Render(),
              absl::StrCat(
                  "old.json:pool[0].cache: error: ", v, "'cache' (added in version 9)\n",
                  "old.json:stage[0].preemptBy: error: ", v, "'preemptBy' (added in version 9)\n",
                  "old.json:session[0].body[0].prefix: error: ", v,
                  "'prefix' (added in version 9)\n",
                  "old.json:session[0].body[1].hold.body[0].run.growing: error: ", v,
                  "'growing' on a prefill run (added in version 9)\n",
                  "old.json:session[0].body[1].hold.body[1].run.observe: error: ", v,
                  "'observe' on a run (added in version 9)\n",
                  "old.json:run.sample: error: ", v, "'sample' (added in version 9)\n",
                  "old.json:stage[0].rate.ref: error: ", v,
                  "the step variable 'attention' (added in version 9)\n",
                  "old.json:session[0].body[1].hold.body[2].observe.value.call.function: error: ",
                  v, "the function 'cached' (added in version 9)\n"));
  }
}

// Results 8 to 10 lack only fields later versions added (preemptions,
// caches), which read as zero: they are read, as the current version.
TEST(Io, Results8To10AreReadAsTheCurrentVersion) {
  Diagnostics d("r.json");
  results::Results r;
  for (int version : {8, 9, 10}) {
    ASSERT_TRUE(ReadResults(absl::StrCat(R"({"version": )", version,
                                         R"(, "horizon": 10, "replications": 1,
                                            "replication": [{}]})"),
                            &r, &d))
        << d.Render();
    EXPECT_EQ(r.version(), kIrVersion);
  }
  EXPECT_FALSE(ReadResults(R"({"version": 7})", &r, &d));
  EXPECT_EQ(d.Render(),
            "r.json:version: error: unsupported results version 7; this serq reads versions 8 "
            "to 11\n");
}

// A message that merely decodes is not results: serq-sim's have the mark
// (and files from before it, a horizon and a replication asked for).
TEST(Io, ResultsNeedTheMarkOrTheirHeader) {
  results::Results r;
  {
    Diagnostics d("v.pb");
    EXPECT_FALSE(ReadResults(std::string("\x08\x09", 2), &r, &d));  // version 9 alone
    EXPECT_EQ(d.Render(),
              "v.pb: error: not serq results: no mark, no horizon (serq-sim's results have a "
              "horizon and at least one replication)\n");
  }
  {
    Diagnostics d("m.json");
    EXPECT_FALSE(ReadResults(R"({"version": 9, "horizon": 1, "replications": 1,
                                 "replication": [{}], "mark": "other"})",
                             &r, &d));
    EXPECT_EQ(d.Render(), "m.json:mark: error: not serq results: marked 'other', not 'serq results'\n");
  }
  {
    Diagnostics d("ok.json");
    EXPECT_TRUE(ReadResults(R"({"version": 9, "horizon": 1, "replications": 1,
                                "replication": [{}], "mark": "serq results"})",
                            &r, &d))
        << d.Render();
  }
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
  Diagnostics d("v12.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 12})", &p, &d));
  EXPECT_FALSE(ReadProgram(R"({"version": 6})", &p, &d));
  EXPECT_FALSE(ReadProgram(R"({})", &p, &d));
  EXPECT_EQ(d.Render(),
            "v12.json:version: error: unsupported IR version 12; this serq reads IR versions 7 "
            "to 11\n"
            "v12.json:version: error: unsupported IR version 6; this serq reads IR versions 7 "
            "to 11\n"
            "v12.json:version: error: IR has no version; this serq reads IR versions 7 to 11\n");
}

// Each part IR 11 added, in a file that says 10: a stage's lockstep, the
// group's step figures and the collectives, running and waiting, a choice
// on a copy of the state (`every`), a param's range. A file
// of 10 without them is read as 11.
TEST(Io, Version10WithIr11FieldsIsRefusedAtTheirPaths) {
  Diagnostics d("v10.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 10,
      "param": [{"name": "B", "value": {"number": 1}, "low": {"number": 0}, "high": {"number": 1}}],
      "stage": [{"name": "E", "kind": "STEP", "lockstep": true,
                 "let": [{"name": "x", "value": {"ref": {"name": "group_tokens",
                                                         "kind": "BUILTIN", "decl": 25}}}],
                 "rate": {"call": {"function": "all_reduce", "arg": [
                     {"number": 2}, {"ref": {"name": "group_tokens_max", "kind": "BUILTIN",
                                             "decl": 26}},
                     {"number": 1e9}, {"number": 0}]}}}],
      "session": [{"body": [{"set": {"variable": "r", "value": {"call": {
          "function": "waiting", "arg": [{"ref": {"name": "E"}}]}}}},
                            {"choose": {"variable": "e", "array": {"name": "E"},
                                        "every": {"number": 0.1}}}]}],
      "run": {"horizon": {"number": 1}, "gpus": {"number": 4}}})",
                           &p, &d));
  std::string v = "error: IR version 10 cannot hold ";
  EXPECT_EQ(d.Render(),
            absl::StrCat("v10.json:run.gpus: ", v, "'gpus' (added in version 11)\n",
                         "v10.json:param[0].low: ", v, "a param's range (added in version 11)\n",
                         "v10.json:stage[0].lockstep: ", v, "'lockstep' (added in version 11)\n",
                         "v10.json:session[0].body[1].choose.every: ", v, "'every' (added in version 11)\n",
                         "v10.json:stage[0].rate.call.function: ", v,
                         "the function 'all_reduce' (added in version 11)\n",
                         "v10.json:stage[0].rate.call.arg[1].ref: ", v,
                         "the step variable 'group_tokens_max' (added in version 11)\n",
                         "v10.json:stage[0].let[0].value.ref: ", v,
                         "the step variable 'group_tokens' (added in version 11)\n",
                         "v10.json:session[0].body[0].set.value.call.function: ", v,
                         "the function 'waiting' (added in version 11)\n"));
  Diagnostics ok("ok.json");
  EXPECT_TRUE(ReadProgram(R"({"version": 10, "stage": [{"name": "E", "kind": "STEP",
                                                        "asyncScheduling": true}]})",
                          &p, &ok))
      << ok.Render();
  EXPECT_EQ(p.version(), kIrVersion);
}

// IR 11's workloads in a file that says 10: load stages, exactly n in T,
// a trace's time scale and a file name with {NAME}, `index`, the named
// lengths. An IR 10 reader would take stages(...) for an unknown process
// and read a trace at its own times: each is refused at its path.
TEST(Io, Version10WithIr11WorkloadsIsRefusedAtTheirPaths) {
  Diagnostics d("v10.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 10,
      "workload": [{"name": "s", "process": "STAGES", "args": [{"number": 1}, {"number": 2}]},
                   {"name": "e", "process": "EXACTLY", "args": [{"number": 1}, {"number": 2}]},
                   {"name": "t", "process": "TRACE", "file": "day{Day}.csv", "arg": {"number": 0.5}}],
      "session": [{"name": "s", "body": [{"observe": {"name": "i", "value": {"ref": {
          "name": "index", "kind": "BUILTIN", "decl": 28}}}},
                                          {"observe": {"name": "n", "value": {"call": {
          "function": "sharegpt_input"}}}}]}]})",
                           &p, &d));
  std::string v = "error: IR version 10 cannot hold ";
  EXPECT_EQ(d.Render(),
            absl::StrCat("v10.json:workload[0].process: ", v, "'stages' (added in version 11)\n",
                         "v10.json:workload[0].args: ", v, "'args' (added in version 11)\n",
                         "v10.json:workload[1].process: ", v, "'exactly' (added in version 11)\n",
                         "v10.json:workload[1].args: ", v, "'args' (added in version 11)\n",
                         "v10.json:workload[2].arg: ", v, "a trace's time scale (added in version 11)\n",
                         "v10.json:workload[2].file: ", v,
                         "a file name with '{NAME}' (added in version 11)\n",
                         "v10.json:session[0].body[0].observe.value.ref: ", v,
                         "the step variable 'index' (added in version 11)\n",
                         "v10.json:session[0].body[1].observe.value.call.function: ", v,
                         "the function 'sharegpt_input' (added in version 11)\n"));
}

// Each part IR 10 added, in a file that says 9: a table, a pool's block, a
// let, a table lookup, a step figure of the jobs apart and a sum over the
// jobs.
TEST(Io, Version9WithIr10FieldsIsRefusedAtTheirPaths) {
  Diagnostics d("v9.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram(R"({"version": 9,
      "table": [{"name": "t", "file": "t.csv", "key": ["k"], "value": "v"}],
      "pool": [{"name": "kv", "cap": {"number": 64}, "block": {"number": 16}}],
      "stage": [{"name": "E", "kind": "STEP", "chunk": {"number": 512}, "reservePrompt": true,
                 "asyncScheduling": true, "recomputeLast": true,
                 "let": [{"name": "x", "value": {"ref": {"name": "decode_kv", "kind": "BUILTIN",
                                                         "decl": 17}}}],
                 "rate": {"call": {"function": "sum_jobs", "arg": [{"call": {
                     "function": "t", "table": 1,
                     "arg": [{"ref": {"name": "x", "kind": "LOCAL"}}]}}]}}}]})",
                           &p, &d));
  std::string v = "error: IR version 9 cannot hold ";
  EXPECT_EQ(d.Render(),
            absl::StrCat("v9.json:table: ", v, "a table (added in version 10)\n",
                         "v9.json:pool[0].block: ", v, "'block' (added in version 10)\n",
                         "v9.json:stage[0].let: ", v, "'let' (added in version 10)\n",
                         "v9.json:stage[0].chunk: ", v, "'chunk' (added in version 10)\n",
                         "v9.json:stage[0].reservePrompt: ", v,
                         "'reserve prompt' (added in version 10)\n",
                         "v9.json:stage[0].asyncScheduling: ", v, "'async' (added in version 10)\n",
                         "v9.json:stage[0].recomputeLast: ", v,
                         "'recompute last' (added in version 10)\n",
                         "v9.json:stage[0].rate.call.function: ", v,
                         "the function 'sum_jobs' (added in version 10)\n",
                         "v9.json:stage[0].rate.call.arg[0].call.table: ", v,
                         "a table lookup (added in version 10)\n",
                         "v9.json:stage[0].rate.call.arg[0].call.arg[0].ref: ", v,
                         "a local name ('let') (added in version 10)\n",
                         "v9.json:stage[0].let[0].value.ref: ", v,
                         "the step variable 'decode_kv' (added in version 10)\n"));
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
    p.set_version(kIrVersion);
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

// The one depth scan every JSON reader asks first: the line and column
// (bytes, from 1) of the bracket that opens level most + 1.
TEST(Io, JsonDeeperThanSaysWhereTheLimitIsCrossed) {
  EXPECT_FALSE(JsonDeeperThan("[[]]", 2).has_value());
  auto at = [](absl::string_view json, int most) {
    std::optional<JsonPlace> p = JsonDeeperThan(json, most);
    return p ? absl::StrCat(p->line, ":", p->column) : std::string("none");
  };
  EXPECT_EQ(at("[[[]]]", 2), "1:3");
  // Brackets in a string (and an escaped quote) are not levels: the
  // object is level 1, the '[' at byte 12 level 2.
  EXPECT_EQ(at(R"({"a\"[[[": [1]})", 1), "1:12");
  // Line 3 is `  [[`: its '[' at column 3 is level 2, at column 4 level 3.
  EXPECT_EQ(at("{\n \"a\":\n  [[]]}", 2), "3:4");
  // Closers beyond the opened do not bank levels: ']]]' then '[[[' is 3 deep.
  EXPECT_EQ(at("]]][[[", 2), "1:6");
  // IR: `{"a":` then 136 '[': the k-th '[' is level k + 1 at column 5 + k,
  // so level 137, one past kMaxJsonDepth, is at column 141.
  Diagnostics d("deep.json");
  ir::Program p;
  EXPECT_FALSE(ReadProgram("{\"a\":" + std::string(136, '[') + std::string(136, ']') + "}", &p, &d));
  EXPECT_EQ(d.Render(), "deep.json: error: JSON nested more than 136 levels deep at line 1, "
                        "column 141; no IR or results are that deep\n");
}

// Binary IR whose field runs past the end of the message holding it:
// protobuf reads it whole, on into the fields after it, and checks a string
// there before it fails; it logged "String field ... contains invalid UTF-8
// data" and the error had no place (0.6% of a mutation corpus of IR). The
// check reads as protobuf does, so the string is refused first, at the path
// protobuf reads it under, with nothing of protobuf's on stderr.
TEST(Io, BinaryStringsAreCheckedWhereProtobufReadsThem) {
  auto read = [](const std::string& bytes) {
    Diagnostics d("t.pb");
    ir::Program p;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(ReadProgram(bytes, &p, &d));
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    return d.Render();
  };
  // version 10 (08 0a); stage[0] (42) of 3 bytes: its name (0a) is 5 bytes
  // long, 'a' and the four ff after the stage.
  EXPECT_EQ(read(std::string("\x08\x0a\x42\x03\x0a\x05" "a\xff\xff\xff\xff", 11)),
            "t.pb:stage[0].name: error: string is not UTF-8 (byte 0xff at offset 1)\n");
  // stage[0] of 2 bytes: its size (12), whose length's varint (85 01: 133)
  // ends past the stage; the size's fields are then its ref (1a, 3 bytes)
  // and the ref's name (0a, 1 byte: ff).
  EXPECT_EQ(read(std::string("\x08\x0a\x42\x02\x12\x85\x01\x1a\x03\x0a\x01\xff", 12)),
            "t.pb:stage[0].size.ref.name: error: string is not UTF-8 (byte 0xff at offset 0)\n");
  // Without a string that is not UTF-8, protobuf's own refusal (no log).
  EXPECT_EQ(read(std::string("\x08\x0a\x42\x03\x0a\x05" "abcde", 11)),
            "t.pb: error: invalid IR: neither JSON nor a valid protobuf binary message\n");
}

TEST(Io, FormatNames) {
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_EQ(*ParseFormat("pb"), Format::kBinary);
  EXPECT_FALSE(ParseFormat("xml").ok());
}

}  // namespace
}  // namespace serq
