#include "lang/link/link.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/io.h"

namespace serq {
namespace {

// A program as a tool would write it (JSON, no locations), around one
// session body; `decls` are extra top-level fields.
std::string Program(const std::string& body, const std::string& decls = "") {
  return R"({"version": 8, )" + decls + R"(
    "workload": [{"process": "BATCH", "arg": {"number": 1}}],
    "session": [{"body": [)" + body + R"(]}],
    "run": {"horizon": {"number": 10}}})";
}

struct Linked {
  bool ok;
  ir::Program program;
  std::string errors;  // rendered against "t.json"
};

Linked Link(const std::string& json, const LinkOptions& options = {}) {
  Linked out;
  Diagnostics diags("t.json");
  if (!ReadProgram(json, &out.program, &diags)) {
    ADD_FAILURE() << diags.Render();
    return out;
  }
  out.ok = LinkProgram(&out.program, options, &diags);
  out.errors = diags.Render();
  EXPECT_EQ(out.ok, out.program.linked());
  EXPECT_EQ(out.ok, out.errors.empty()) << out.errors;
  return out;
}

// The seed's Before, as serq-parse lowers it (transfer -> run, load, release).
const char kBefore[] = R"({"version": 8,
  "pool": [{"name": "kvP", "cap": {"number": 100}},
           {"name": "kvD", "size": {"number": 2}, "cap": {"number": 100}}],
  "stage": [{"name": "P", "kind": "DELAY"},
            {"name": "link", "size": {"number": 2}, "kind": "PS", "rate": {"number": 1}},
            {"name": "D", "size": {"number": 2}, "kind": "DELAY"}],
  "workload": [{"process": "BATCH", "arg": {"number": 2}}],
  "session": [{"body": [
    {"set": {"variable": "j", "value": {"ref": {"name": "serial"}}}},
    {"hold": {"pool": [{"pool": {"name": "kvP"}, "amount": {"number": 10}}],
              "body": [{"run": {"stage": {"name": "P"}, "work": {"number": 1}}}],
              "lease": [{"pool": {"name": "kvP"}, "amount": {"number": "Infinity"}}]}},
    {"hold": {"pool": [{"pool": {"name": "kvD", "index": {"ref": {"name": "j"}}},
                        "amount": {"number": 10}}],
              "body": [
      {"transfer": true, "run": {"stage": {"name": "link", "index": {"ref": {"name": "j"}}},
                                 "work": {"number": 1}}},
      {"transfer": true, "load": {"pool": {"name": "kvD", "index": {"ref": {"name": "j"}}},
                                  "amount": {"number": 10}}},
      {"transfer": true, "release": {"pool": {"name": "kvP"}}},
      {"observe": {"name": "transferred", "value": {"ref": {"name": "now"}}}},
      {"run": {"stage": {"name": "D", "index": {"ref": {"name": "j"}}}, "work": {"number": 1}}}]}},
    {"end": {}}]}],
  "run": {"horizon": {"number": 10}}})";

TEST(Link, BeforeResolvesEveryReference) {
  Linked l = Link(kBefore);
  ASSERT_TRUE(l.ok) << l.errors;
  const ir::Program& p = l.program;
  EXPECT_EQ(p.workload(0).session(), 0u);
  EXPECT_EQ(p.session(0).workload(), 0u);
  ASSERT_EQ(p.session(0).variable_size(), 1);
  EXPECT_EQ(p.session(0).variable(0), "j");
  const ir::Ref& serial = p.session(0).body(0).set().value().ref();
  EXPECT_EQ(serial.kind(), ir::Ref::BUILTIN);
  EXPECT_EQ(serial.decl(), static_cast<uint32_t>(ir::Ref::SERIAL));
  const ir::Statement::Hold& hold = p.session(0).body(2).hold();
  EXPECT_EQ(hold.pool(0).pool().kind(), ir::Ref::POOL);
  EXPECT_EQ(hold.pool(0).pool().decl(), 1u);  // kvD
  EXPECT_EQ(hold.pool(0).pool().index().ref().kind(), ir::Ref::VARIABLE);
  EXPECT_EQ(hold.pool(0).pool().index().ref().decl(), 0u);  // j's slot
  const ir::Ref& link = hold.body(0).run().stage();
  EXPECT_EQ(link.kind(), ir::Ref::STAGE);
  EXPECT_EQ(link.decl(), 1u);  // link
  EXPECT_EQ(hold.body(4).run().stage().decl(), 2u);  // D
  EXPECT_EQ(hold.body(3).observe().value().ref().decl(), static_cast<uint32_t>(ir::Ref::NOW));
}

TEST(Link, LinkingLinkedIrAgainGivesTheSameIr) {
  // A program that exercises every field the linker writes: slots of set
  // and choose, variables read by evict by and serve by, params, both
  // workload/session links.
  std::string json = R"({"version": 8,
    "param": [{"name": "N", "value": {"number": 2}}],
    "pool": [{"name": "kv", "size": {"ref": {"name": "N"}}, "cap": {"number": 10},
              "evictBy": {"expr": [{"ref": {"name": "since"}}, {"ref": {"name": "prio"}}]}}],
    "stage": [{"name": "E", "size": {"ref": {"name": "N"}}, "kind": "FIFO",
               "rate": {"number": 1}, "serveBy": {"expr": [{"ref": {"name": "prio"}}]}}],
    "workload": [{"name": "b", "process": "BATCH", "arg": {"number": 1}},
                 {"name": "t", "process": "TRACE", "file": "t.csv"}],
    "session": [
      {"name": "t", "body": [
        {"choose": {"variable": "i", "array": {"name": "E"},
                    "by": {"expr": [{"call": {"function": "queue",
                        "arg": [{"ref": {"name": "E", "index": {"ref": {"name": "i"}}}}]}}]}}},
        {"run": {"stage": {"name": "E", "index": {"ref": {"name": "i"}}},
                 "work": {"ref": {"name": "size"}}}}]},
      {"name": "b", "body": [
        {"set": {"variable": "prio", "value": {"number": 1}}},
        {"hold": {"pool": [{"pool": {"name": "kv", "index": {"number": 1}},
                            "amount": {"number": 1}}],
                  "lease": [{"pool": {"name": "kv", "index": {"number": 1}},
                             "amount": {"number": 5}}]}}]}],
    "run": {"horizon": {"number": 10}}})";
  Linked once = Link(json);
  ASSERT_TRUE(once.ok) << once.errors;
  std::string first = EncodeMessage(once.program, Format::kJson);
  Linked twice = Link(first);
  ASSERT_TRUE(twice.ok) << twice.errors;
  EXPECT_EQ(EncodeMessage(twice.program, Format::kJson), first);
  // The trace session reads `size` (a column) and, through serve by, `prio`.
  const ir::Session& t = once.program.session(0);
  ASSERT_EQ(t.variable_size(), 3);
  EXPECT_EQ(t.variable(0), "i");
  EXPECT_EQ(t.variable(1), "size");
  EXPECT_EQ(t.variable(2), "prio");
  EXPECT_EQ(once.program.workload(0).session(), 1u);
  EXPECT_EQ(once.program.workload(1).session(), 0u);
  EXPECT_EQ(once.program.session(0).workload(), 1u);
}

TEST(Link, SlotsFollowFirstAppearanceReadsIncluded) {
  // `c` is read (in the if) before `a` is assigned, and assigned after it.
  Linked l = Link(Program(R"(
    {"if": {"condition": {"ref": {"name": "c"}},
            "then": [{"set": {"variable": "a", "value": {"number": 1}}}]}},
    {"set": {"variable": "c", "value": {"ref": {"name": "a"}}}})"));
  ASSERT_TRUE(l.ok) << l.errors;
  const ir::Session& s = l.program.session(0);
  ASSERT_EQ(s.variable_size(), 2);
  EXPECT_EQ(s.variable(0), "c");
  EXPECT_EQ(s.variable(1), "a");
  EXPECT_EQ(s.body(0).if_().then(0).set().slot(), 1u);
  EXPECT_EQ(s.body(1).set().slot(), 0u);
}

TEST(Link, BuiltinThenParamThenVariable) {
  Linked l = Link(Program(R"(
    {"set": {"variable": "x", "value": {"ref": {"name": "arrival"}}}},
    {"observe": {"name": "o", "value": {"ref": {"name": "B"}}}},
    {"observe": {"name": "p", "value": {"ref": {"name": "x"}}}})",
                          R"("param": [{"name": "A", "value": {"number": 1}},
                                       {"name": "B", "value": {"number": 2}}],)"));
  ASSERT_TRUE(l.ok) << l.errors;
  const auto& body = l.program.session(0).body();
  EXPECT_EQ(body[0].set().value().ref().kind(), ir::Ref::BUILTIN);
  EXPECT_EQ(body[1].observe().value().ref().kind(), ir::Ref::PARAM);
  EXPECT_EQ(body[1].observe().value().ref().decl(), 1u);
  EXPECT_EQ(body[2].observe().value().ref().kind(), ir::Ref::VARIABLE);
}

TEST(Link, TokensIsAVariableWhereTheSessionSetsIt) {
  Linked set = Link(Program(R"(
    {"set": {"variable": "tokens", "value": {"number": 3}}},
    {"observe": {"name": "t", "value": {"ref": {"name": "tokens"}}}})"));
  ASSERT_TRUE(set.ok) << set.errors;
  EXPECT_EQ(set.program.session(0).body(1).observe().value().ref().kind(), ir::Ref::VARIABLE);

  Linked unset = Link(Program(R"({"observe": {"name": "t", "value": {"ref": {"name": "tokens"}}}})"));
  EXPECT_EQ(unset.errors,
            "t.json:session[0].body[0].observe.value.ref: error: 'tokens' is only defined in "
            "the tau of a step stage\n");
  Linked present = Link(Program(R"({"set": {"variable": "present", "value": {"number": 1}}})"));
  EXPECT_EQ(present.errors,
            "t.json:session[0].body[0].set: error: 'present' is a built-in variable; it cannot "
            "be set\n");
}

TEST(Link, TraceSessionsReadUnknownNamesAsColumns) {
  std::string json = R"({"version": 8,
    "workload": [{"process": "TRACE", "file": "a.csv"}],
    "session": [{"body": [{"observe": {"name": "p", "value": {"ref": {"name": "prompt"}}}},
                          {"observe": {"name": "c", "value": {"ref": {"name": "context"}}}}]}],
    "run": {"horizon": {"number": 10}}})";
  Linked l = Link(json);
  // `context` stays the step variable; `prompt` is a column.
  EXPECT_EQ(l.errors,
            "t.json:session[0].body[1].observe.value.ref: error: 'context' is only defined in "
            "the tau of a step stage\n");
  EXPECT_EQ(l.program.session(0).body(0).observe().value().ref().kind(), ir::Ref::VARIABLE);
  ASSERT_EQ(l.program.session(0).variable_size(), 1);
  EXPECT_EQ(l.program.session(0).variable(0), "prompt");
}

TEST(Link, ParamCycleIsReportedOnceWithItsPath) {
  Linked l = Link(Program(R"({"end": {}})", R"("param": [
      {"name": "a", "value": {"binary": {"op": "ADD", "lhs": {"ref": {"name": "b"}},
                                         "rhs": {"ref": {"name": "b"}}}}},
      {"name": "b", "value": {"ref": {"name": "a"}}},
      {"name": "c", "value": {"ref": {"name": "c"}}},
      {"name": "d", "value": {"ref": {"name": "a"}}}],)"));
  // d reads a broken param: nothing more is said about it.
  EXPECT_EQ(l.errors,
            "t.json:param[0]: error: param 'a' depends on itself: a -> b -> a\n"
            "t.json:param[2]: error: param 'c' depends on itself: c -> c\n");
}

TEST(Link, DefinesReplaceParamsBeforeArraysAreSized) {
  std::string json = Program(
      R"({"run": {"stage": {"name": "S", "index": {"number": 3}}, "work": {"number": 1}}})",
      R"("param": [{"name": "N", "value": {"number": 2}}],
         "stage": [{"name": "S", "size": {"ref": {"name": "N"}}, "kind": "DELAY"}],)");
  // S has 2 elements: index 3 is out of range (0 to 1) ...
  EXPECT_EQ(Link(json).errors,
            "t.json:session[0].body[0].run.stage.index: error: index 3 is out of range for 'S', "
            "an array of 2 stages (0 to 1)\n");
  // ... and 4 with -D N=4, whose value replaces N's expression.
  LinkOptions four;
  four.defines = {{"N", 4}};
  Linked l = Link(json, four);
  ASSERT_TRUE(l.ok) << l.errors;
  EXPECT_EQ(l.program.param(0).value().number(), 4);

  LinkOptions unknown;
  unknown.defines = {{"M", 1}, {"S", 1}};
  EXPECT_EQ(Link(json, unknown).errors,
            "t.json: error: -D M: there is no param 'M'\n"
            "t.json: error: -D S: 'S' is a stage, not a param\n"
            "t.json:session[0].body[0].run.stage.index: error: index 3 is out of range for 'S', "
            "an array of 2 stages (0 to 1)\n");
}

// `param B = v in [low, high];`: the value, the program's or -D's, within
// the range, both ends included; the ends are constants that may read
// params (each read before the value is checked, whatever the order).
TEST(Link, AParamsRange) {
  // IR 11's (Program writes IR 8, which cannot hold a range).
  auto Program = [](const std::string& body, const std::string& decls) {
    std::string json = ::serq::Program(body, decls);
    return json.replace(json.find(R"("version": 8)"), 12, R"("version": 11)");
  };
  auto decls = [](const std::string& value, const std::string& low, const std::string& high) {
    return absl::StrCat(R"("param": [{"name": "B", "value": )", value, R"(, "low": )", low, R"(, "high": )", high,
                        R"(}, {"name": "Ep", "value": {"number": 2}}],)");
  };
  const std::string one = R"({"number": 1})", half = R"({"binary": {"op": "DIV", "lhs": {"number": 1},
      "rhs": {"ref": {"name": "Ep"}}}})";
  const std::string run = R"({"observe": {"name": "b", "value": {"ref": {"name": "B"}}}})";
  EXPECT_TRUE(Link(Program(run, decls(one, half, one))).ok);
  EXPECT_TRUE(Link(Program(run, decls(R"({"number": 0.5})", half, one))).ok);
  EXPECT_EQ(Link(Program(run, decls(R"({"number": 0.25})", half, one))).errors,
            "t.json:param[0].value: error: param 'B' is 0.25, outside its range [0.5, 1]\n");
  LinkOptions low;
  low.defines = {{"B", 0.3}};
  EXPECT_EQ(Link(Program(run, decls(one, half, one)), low).errors,
            "t.json:param[0].value: error: -D B=0.3 is outside the param's range [0.5, 1]\n");
  // Ep 4 at -D widens it to [0.25, 1].
  low.defines = {{"B", 0.3}, {"Ep", 4}};
  EXPECT_TRUE(Link(Program(run, decls(one, half, one)), low).ok);
  EXPECT_EQ(Link(Program(run, decls(one, one, R"({"number": 0})"))).errors,
            "t.json:param[0].low: error: the range of param 'B' holds nothing: its low end 1 is not at most "
            "its high end 0\n");
  // IR from a tool with one end.
  EXPECT_EQ(Link(Program(run, R"("param": [{"name": "B", "value": {"number": 1}, "low": {"number": 0}}],)")).errors,
            "t.json:param[0].high: error: param 'B' has a range with one end: give both, low and high\n");
  // An end without a value says whose range it ends; a param refused for
  // its range is refused as one without a value is: what reads it, another
  // range's end or an array's size, says nothing more.
  LinkOptions zero;
  zero.defines = {{"Ep", 0}};
  EXPECT_EQ(Link(Program(run, decls(one, half, one)), zero).errors,
            "t.json:param[0].low: error: the low end of param 'B''s range: division by zero\n");
  EXPECT_EQ(Link(Program(run, R"("param": [{"name": "B", "value": {"number": 5}, "low": {"number": 0},
                                               "high": {"number": 1}},
                                              {"name": "A", "value": {"number": 1}, "low": {"ref": {"name": "B"}},
                                               "high": {"number": 2}}],
                                 "stage": [{"name": "S", "size": {"ref": {"name": "B"}}, "kind": "DELAY"}],)")).errors,
            "t.json:param[0].value: error: param 'B' is 5, outside its range [0, 1]\n");
  // An end reading the param itself is a cycle.
  EXPECT_EQ(Link(Program(run, decls(one, R"({"ref": {"name": "B"}})", one))).errors,
            "t.json:param[0]: error: param 'B' depends on itself: B -> B\n");
}

TEST(Link, IndexIsFlooredBeforeTheRangeCheck) {
  std::string decls = R"("stage": [{"name": "S", "size": {"number": 2}, "kind": "DELAY"}],)";
  // floor(1.9) = 1 is the last element; floor(-0.5) = -1 is out.
  EXPECT_TRUE(Link(Program(R"({"run": {"stage": {"name": "S", "index": {"number": 1.9}},
                                        "work": {"number": 1}}})", decls)).ok);
  EXPECT_EQ(Link(Program(R"({"run": {"stage": {"name": "S", "index": {"number": -0.5}},
                                      "work": {"number": 1}}})", decls)).errors,
            "t.json:session[0].body[0].run.stage.index: error: index -0.5 is out of range for "
            "'S', an array of 2 stages (0 to 1)\n");
}

TEST(Link, EvictByReadsVariablesOfEverySessionThatLeases) {
  auto program = [](const std::string& second_body) {
    return R"({"version": 8,
      "pool": [{"name": "kv", "cap": {"number": 10},
                "evictBy": {"expr": [{"ref": {"name": "prio"}}]}}],
      "workload": [{"name": "a", "process": "BATCH", "arg": {"number": 1}},
                   {"name": "b", "process": "BATCH", "arg": {"number": 1}}],
      "session": [
        {"name": "a", "body": [{"set": {"variable": "prio", "value": {"number": 1}}},
          {"hold": {"pool": [{"pool": {"name": "kv"}, "amount": {"number": 1}}],
                    "lease": [{"pool": {"name": "kv"}, "amount": {"number": 5}}]}}]},
        {"name": "b", "body": [)" + second_body + R"(]}],
      "run": {"horizon": {"number": 10}}})";
  };
  // b does not lease: it need not set prio.
  EXPECT_TRUE(Link(program(R"({"end": {}})")).ok);
  // b leases without setting prio.
  EXPECT_EQ(Link(program(R"({"hold": {"pool": [{"pool": {"name": "kv"}, "amount": {"number": 1}}],
                                      "lease": [{"pool": {"name": "kv"},
                                                 "amount": {"number": 5}}]}})"))
                .errors,
            "t.json:pool[0].evictBy.expr[0].ref: error: variable 'prio' is never set in session "
            "'b', which leases from 'kv'\n");
}

TEST(Link, ToolIrWithMissingPartsIsRefusedAtItsPaths) {
  Linked l = Link(Program(R"(
    {"run": {"work": {"number": 1}}},
    {"run": {"stage": {"name": "S"}}},
    {},
    {"set": {"variable": "x", "value": {}}},
    {"observe": {"name": "o", "value": {"ref": {}}}})",
                          R"("stage": [{"name": "S", "kind": 7}],)"));
  EXPECT_EQ(l.errors,
            "t.json:stage[0]: error: stage 'S' has an unknown kind (7)\n"
            "t.json:session[0].body[0].run.stage: error: the run has no stage\n"
            "t.json:session[0].body[1].run.work: error: the run has no work\n"
            "t.json:session[0].body[2]: error: the statement is empty (it has no kind)\n"
            "t.json:session[0].body[3].set.value: error: the expression is empty (no number, "
            "reference, operator or call)\n"
            "t.json:session[0].body[4].observe.value.ref: error: the reference has no name\n");
}

// The program's totals (ir/limits.h): each array may have 10^6 elements,
// and the program's stages and pools 10^6 in all. The issue's program in
// tool IR (no locations, so pools come first, then stages): p takes the
// 10^6, and each declaration after it would add 10^6 more: four errors,
// each at its declaration.
TEST(Link, ElementsAreBoundedInTotalAtTheDeclarationThatCrosses) {
  const std::string big = R"({"number": 1000000})";
  Linked l = Link(Program(R"({"run": {"stage": {"name": "a", "index": {"number": 0}}, "work": {"number": 1}}})",
                          R"("pool": [{"name": "p", "size": )" + big + R"(, "cap": {"number": 1}},
                                     {"name": "q", "size": )" + big + R"(, "cap": {"number": 1}}],
                             "stage": [{"name": "a", "kind": "DELAY", "size": )" + big + R"(},
                                       {"name": "b", "kind": "DELAY", "size": )" + big + R"(},
                                       {"name": "c", "kind": "DELAY", "size": )" + big + R"(}],)"));
  const std::string past = "error: the program's stages and pools have more than 1000000 elements in all: ";
  EXPECT_EQ(l.errors, "t.json:pool[1]: " + past + "pool 'q' adds 1000000 to the 1000000 before it\n" +
                          "t.json:stage[0]: " + past + "stage 'a' adds 1000000 to the 1000000 before it\n" +
                          "t.json:stage[1]: " + past + "stage 'b' adds 1000000 to the 1000000 before it\n" +
                          "t.json:stage[2]: " + past + "stage 'c' adds 1000000 to the 1000000 before it\n");
  // 400,000 + 599,999 + a scalar (one element) are 10^6 exactly: linked; a
  // second scalar is one too many.
  const std::string decls = R"("pool": [{"name": "p", "size": {"number": 400000}, "cap": {"number": 1}}],
                               "stage": [{"name": "a", "kind": "DELAY", "size": {"number": 599999}},
                                         {"name": "s", "kind": "DELAY"})";
  const std::string run = R"({"run": {"stage": {"name": "s"}, "work": {"number": 1}}})";
  EXPECT_TRUE(Link(Program(run, decls + "],")).ok);
  EXPECT_EQ(Link(Program(run, decls + R"(, {"name": "t", "kind": "DELAY"}],)")).errors,
            "t.json:stage[2]: " + past + "stage 't' adds 1 to the 1000000 before it\n");
}

// The sessions' statements in all, 10^6 at most: 600,000 in one session
// and 400,001 in another are refused once, at the 1,000,001st.
TEST(Link, StatementsAreBoundedInTotal) {
  ir::Program p;
  p.set_version(kIrVersion);
  p.mutable_run()->mutable_horizon()->set_number(10);
  for (int n : {600000, 400001}) {
    ir::Workload* w = p.add_workload();
    w->set_name(absl::StrCat("w", n));
    w->set_process(ir::Workload::BATCH);
    w->mutable_arg()->set_number(1);
    ir::Session* s = p.add_session();
    s->set_name(w->name());
    for (int i = 0; i < n; ++i) {
      ir::Statement::Set* set = s->add_body()->mutable_set();
      set->set_variable("x");
      set->mutable_value()->set_number(1);
    }
  }
  Diagnostics diags("t.pb");
  EXPECT_FALSE(LinkProgram(&p, LinkOptions(), &diags));
  EXPECT_EQ(diags.Render(),
            "t.pb:session[1].body[400000]: error: the program's sessions have more than 1000000 "
            "statements in all; serq simulates at most that many (a repeat runs its body many "
            "times)\n");
  // One fewer is linked.
  p.mutable_session(1)->mutable_body()->RemoveLast();
  Diagnostics again("t.pb");
  EXPECT_TRUE(LinkProgram(&p, LinkOptions(), &again)) << again.Render();
}

// The rows all tables keep, 10^6 at most: five tables of 200,000 rows (the
// most one may keep) are 10^6; a sixth is refused at its rows, however few.
TEST(Link, TableRowsAreBoundedInTotal) {
  ir::Program p;
  p.set_version(kIrVersion);
  p.mutable_run()->mutable_horizon()->set_number(10);
  for (int t = 0; t < 6; ++t) {
    ir::Table* table = p.add_table();
    table->set_name(absl::StrCat("t", t));
    table->add_key("tokens");
    table->set_value("time_us");
    const int rows = t < 5 ? 200000 : 2;
    for (int i = 0; i < rows; ++i) {
      table->add_grid_key(i);
      table->add_grid_value(1);
    }
  }
  Diagnostics diags("t.pb");
  EXPECT_FALSE(LinkProgram(&p, LinkOptions(), &diags));
  EXPECT_EQ(diags.Render(),
            "t.pb:table[5].gridValue: error: table 't5' holds 2 rows; the program's tables keep at "
            "most 1000000 rows in all, and the tables before it keep 1000000\n");
  p.mutable_table()->RemoveLast();
  Diagnostics again("t.pb");
  EXPECT_TRUE(LinkProgram(&p, LinkOptions(), &again)) << again.Render();
}

}  // namespace
}  // namespace serq
