#include "diagram/row.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "diagram/test_programs.h"

namespace serq::view {
namespace {

std::vector<std::string> Names(const Row& row) {
  std::vector<std::string> names;
  for (const Station& s : row.stations) names.push_back(s.name);
  return names;
}

// Edges as "from>to:label" with S for the start and E for the end.
std::vector<std::string> Edges(const Row& row) {
  std::vector<std::string> edges;
  auto name = [&](int c) {
    if (c == kStart) return std::string("S");
    if (c == row.end()) return std::string("E");
    return std::to_string(c);
  };
  for (const Edge& e : row.edges) {
    edges.push_back(name(e.from) + ">" + name(e.to) + (e.label.empty() ? "" : ":" + e.label));
  }
  return edges;
}

const std::string kHeader = "stage A : delay; stage B : ps(1); stage C : ps(2);\n"
                            "stage D : delay; stage E[3] : ps(1);\n"
                            "pool P { cap 10; } pool Q[2] { cap 5; }\n"
                            "workload { arrive batch(1); }\n";
const std::string kFooter = "run { horizon 1; }\n";

Row SessionRow(const std::string& body) {
  Drawing d = Draw(kHeader + "session {\n" + body + "}\n" + kFooter);
  EXPECT_EQ(d.rows.size(), 1u);
  return d.rows.empty() ? Row() : d.rows[0];
}

TEST(Row, StationsInOrderOfFirstVisit) {
  Row row = SessionRow("run C (1); run A (1); run B (1); run A (1); run C (1);");
  EXPECT_EQ(Names(row), (std::vector<std::string>{"C", "A", "B"}));
  // C, A, B (0 -> 1 -> 2), back to A (2 -> 1), to C (1 -> 0), to the end;
  // listed by (from, to), the end being column 3.
  EXPECT_EQ(Edges(row),
            (std::vector<std::string>{"S>0", "0>1", "0>E", "1>0", "1>2", "2>1"}));
}

TEST(Row, AnArrayIsOneStationWithItsSizeAndKind) {
  Row row = SessionRow("run E[0] (1); run E[2] (1); run E[serial] (1);");
  ASSERT_EQ(row.stations.size(), 1u);
  EXPECT_EQ(row.stations[0].name, "E[3]");
  EXPECT_EQ(row.stations[0].kind, "ps(1)");
  EXPECT_TRUE(row.stations[0].array);
  // Three visits of one station: one self-loop arrow, not three.
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0", "0>0", "0>E"}));
}

TEST(Row, KindsNameTheirRate) {
  Drawing d = Draw(R"(param Bw = 25e9;
stage a : delay;
stage b : ps(Bw);
stage c : fifo(1e4) { serve by (serial); }
stage d : step(0.004 + 1.5e-5 * tokens) { seqs 256; }
stage e : ps(min(present, 8) * 1e9);
stage f : ps(Bw / 2);
workload { arrive batch(1); }
session { run a (1); run b (1); run c (1); run d prefill (1); run e (1); run f (1); }
run { horizon 1; }
)");
  std::vector<std::string> kinds;
  for (const Station& s : d.rows[0].stations) kinds.push_back(s.kind);
  // A lone param by its name; a constant by its value; a rate that reads
  // `present` is not one number.
  EXPECT_EQ(kinds, (std::vector<std::string>{"delay", "ps(Bw)", "fifo(10000)", "step",
                                             "ps(\u2026)", "ps(1.25e+10)"}));
}

TEST(Row, EgressFlowIsBracketedWithNoArrowInside) {
  Drawing d = Draw(TestPrograms()[1].source);
  ASSERT_EQ(d.rows.size(), 1u);
  const Row& row = d.rows[0];
  EXPECT_EQ(d.share, "maxmin");
  EXPECT_EQ(Names(row), (std::vector<std::string>{"P", "egress[1]", "ingress[2]", "D[2]"}));
  ASSERT_EQ(row.flows.size(), 1u);
  EXPECT_EQ(row.flows[0].columns, (std::vector<int>{1, 2}));
  EXPECT_TRUE(row.flows[0].Contiguous());
  // In at egress (1), out of ingress (2): no 1 -> 2.
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0", "0>1", "2>3", "3>E"}));
}

TEST(Row, FlowStandsWhereItsFirstStationWould) {
  // First visits: ingress, D, egress. The flow (egress, ingress) moves
  // ingress next to egress, in the run's order, where egress stands: D,
  // egress, ingress. The way from ingress to D is now leftwards: a return.
  Drawing d = Draw(TestPrograms()[3].source);
  const Row& row = d.rows[0];
  EXPECT_EQ(Names(row), (std::vector<std::string>{"D", "egress", "ingress[2]"}));
  ASSERT_EQ(row.flows.size(), 1u);
  EXPECT_EQ(row.flows[0].columns, (std::vector<int>{1, 2}));
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>2", "0>1", "2>0", "2>E"}));
}

TEST(Row, FlowOrderIsTheRunsOrderNotTheVisitOrder) {
  // C is visited first; the flow lists B before C, so the bracket is B, C
  // standing where B would (after A): A, B, C. In at B, out of C.
  Row row = SessionRow("run C (1); run A (1); run B, C (1); run D (1);");
  EXPECT_EQ(Names(row), (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(row.flows[0].columns, (std::vector<int>{1, 2}));
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>2", "0>1", "2>0", "2>3", "3>E"}));
}

TEST(Row, AFlowSharingAStationWithAnEarlierFlowStaysApart) {
  // (B, C) is placed first; (A, C) cannot be made adjacent without pulling
  // it apart, so A stays where it stands and that flow is split.
  Row row = SessionRow("run B, C (1); run A, C (1);");
  EXPECT_EQ(Names(row), (std::vector<std::string>{"B", "C", "A"}));
  ASSERT_EQ(row.flows.size(), 2u);
  EXPECT_EQ(row.flows[1].columns, (std::vector<int>{2, 1}));
  EXPECT_TRUE(row.flows[1].Contiguous());
  Row split = SessionRow("run B, C (1); run D (1); run A, B (1);");
  EXPECT_EQ(Names(split), (std::vector<std::string>{"B", "C", "D", "A"}));
  EXPECT_EQ(split.flows[1].columns, (std::vector<int>{3, 0}));
  EXPECT_FALSE(split.flows[1].Contiguous());
}

TEST(Row, BranchesLabelTheirArrows) {
  // The seed's three flows: if -> the flow (A, B); else if -> A; else -> B.
  Drawing d = Draw(TestPrograms()[2].source);
  const Row& row = d.rows[0];
  EXPECT_EQ(Names(row), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(row.flows[0].columns, (std::vector<int>{0, 1}));
  // The flow and the single run on A both enter at A; both B's leave to
  // the end; A alone leaves to the end over B.
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0:if/else if", "S>1:else", "0>E", "1>E"}));
}

TEST(Row, IfWithoutElseSkips) {
  Row row = SessionRow("run A (1); if (serial == 0) { run B (1); } run C (1);");
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0", "0>1:if", "0>2:else", "1>2", "2>E"}));
}

TEST(Row, AnIfAfterAnElseIsNotAChain) {
  // The else of the first if visits nothing; the next if is a decision of
  // its own, so the arrow A -> B is its "if", not "else if".
  Row row = SessionRow(
      "run A (1); if (serial == 0) { end; } if (serial == 1) { run B (1); } run C (1);");
  EXPECT_EQ(Edges(row),
            (std::vector<std::string>{"S>0", "0>1:if", "0>2:else", "0>E:if", "1>2", "2>E"}));
}

TEST(Row, EndInABranchGoesToTheEnd) {
  Row row = SessionRow("if (serial == 0) { run A (1); end; } run B (1);");
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0:if", "S>1:else", "0>E", "1>E"}));
}

TEST(Row, RepeatLoopsBackToTheStartOfItsBody) {
  Drawing d = Draw(TestPrograms()[4].source);
  const Row& row = d.rows[0];
  EXPECT_EQ(Names(row), (std::vector<std::string>{"A", "B", "C", "E"}));
  EXPECT_EQ(row.stations[2].kind, "ps(\u2026)");
  // A, then B, C three times (C -> B), then E twice (a loop on E).
  EXPECT_EQ(Edges(row), (std::vector<std::string>{"S>0", "0>1", "1>2", "2>1:repeat", "2>3",
                                                  "3>3:repeat", "3>E"}));
}

TEST(Row, RepeatWhoseBodyMaySkipEveryRun) {
  // The body starts at B or, when the if is not taken, visits nothing: the
  // loop comes back to B from B, and the way on to C is from A or B.
  Row row = SessionRow("run A (1); repeat (2) { if (serial == 0) { run B (1); } } run C (1);");
  EXPECT_EQ(Edges(row),
            (std::vector<std::string>{"S>0", "0>1:if", "0>2:else", "1>1:repeat", "1>2", "2>E"}));
}

TEST(Row, PoolSpansOfTheBefore) {
  // kvP: held at P; its lease lives on through the transfer's run on link
  // and ends at the transfer's `release kvP`. kvD[j] is held at link and D.
  Drawing d = Draw(TestPrograms()[0].source);
  const Row& row = d.rows[0];
  EXPECT_EQ(Names(row), (std::vector<std::string>{"P", "link[2]", "D[2]"}));
  ASSERT_EQ(row.pools.size(), 2u);
  EXPECT_EQ(row.pools[0].label, "kvP cap 100, lease inf");
  EXPECT_EQ(row.pools[0].held, (std::vector<int>{0}));
  EXPECT_EQ(row.pools[0].leased, (std::vector<int>{1}));
  EXPECT_FALSE(row.pools[0].lease_to_end);
  EXPECT_EQ(row.pools[1].label, "kvD[2] cap 100");
  EXPECT_EQ(row.pools[1].held, (std::vector<int>{1, 2}));
  EXPECT_TRUE(row.pools[1].leased.empty());
}

TEST(Row, SeveralPoolsLeasesAndEmptyHolds) {
  Drawing d = Draw(TestPrograms()[5].source);
  const Row& row = d.rows[0];
  EXPECT_EQ(Names(row), (std::vector<std::string>{"E", "F", "G"}));
  ASSERT_EQ(row.pools.size(), 4u);
  // hold kv[0], net { E } lease kv[0] (30): kv held at E, leased at F, then
  // released; net held at E only.
  EXPECT_EQ(row.pools[0].label, "kv[4] cap 64, lease 30");
  EXPECT_EQ(row.pools[0].held, (std::vector<int>{0}));
  EXPECT_EQ(row.pools[0].leased, (std::vector<int>{1}));
  EXPECT_FALSE(row.pools[0].lease_to_end);
  EXPECT_EQ(row.pools[1].label, "net cap 1");
  EXPECT_EQ(row.pools[1].held, (std::vector<int>{0}));
  // hold tmp { observe }: no station; drawn after E, where it stands.
  EXPECT_EQ(row.pools[2].label, "tmp cap inf");
  EXPECT_TRUE(row.pools[2].held.empty());
  EXPECT_EQ(row.pools[2].anchor, 0);
  // The last lease is never released: it outlives the session.
  EXPECT_EQ(row.pools[3].label, "tmp cap inf, lease inf");
  EXPECT_EQ(row.pools[3].held, (std::vector<int>{2}));
  EXPECT_TRUE(row.pools[3].leased.empty());
  EXPECT_TRUE(row.pools[3].lease_to_end);
}

TEST(Row, ReleaseInsideTheHoldGivesItBackEarly) {
  Row row = SessionRow("hold P (1) { run A (1); release P; run B (1); }");
  EXPECT_EQ(row.pools[0].held, (std::vector<int>{0}));
}

TEST(Row, ReleaseInOneBranchLeavesTheLeaseOpenInTheOther) {
  // After the if the lease may still be open (else branch): C is leased.
  Row row = SessionRow(
      "hold P (1) { run A (1); } lease P (inf);"
      "if (serial == 0) { release P; run B (1); } else { run D (1); } run C (1);");
  EXPECT_EQ(Names(row), (std::vector<std::string>{"A", "B", "D", "C"}));
  EXPECT_EQ(row.pools[0].leased, (std::vector<int>{2, 3}));
  EXPECT_TRUE(row.pools[0].lease_to_end);
}

TEST(Row, SeveralSessionsOneRowEach) {
  Drawing d = Draw(R"(stage A : delay; stage B : delay;
workload chat { arrive batch(1); }
workload { arrive batch(1); }
session chat { run A (1); }
session { run B (1); run A (1); }
run { horizon 1; }
)");
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].session, "session chat");
  EXPECT_EQ(Names(d.rows[0]), (std::vector<std::string>{"A"}));
  EXPECT_EQ(d.rows[1].session, "session");
  EXPECT_EQ(Names(d.rows[1]), (std::vector<std::string>{"B", "A"}));
}

TEST(Row, LinkedIrIsReadByDecl) {
  ir::Program program = Parse(TestPrograms()[1].source);
  Drawing unlinked;
  Diagnostics diags;
  ASSERT_TRUE(BuildDrawing(program, &unlinked, &diags));
  // Link the run's references by hand, as serq-link does: kind and decl.
  ir::Statement::Run* run =
      program.mutable_session(0)->mutable_body(2)->mutable_hold()->mutable_body(0)->mutable_run();
  ASSERT_EQ(run->stage().name(), "egress");
  run->mutable_stage()->set_kind(ir::Ref::STAGE);
  run->mutable_stage()->set_decl(1);
  run->mutable_also(0)->set_kind(ir::Ref::STAGE);
  run->mutable_also(0)->set_decl(2);
  Drawing linked;
  ASSERT_TRUE(BuildDrawing(program, &linked, &diags)) << diags.Render();
  EXPECT_EQ(Names(linked.rows[0]), Names(unlinked.rows[0]));
  EXPECT_EQ(Edges(linked.rows[0]), Edges(unlinked.rows[0]));

  // A decl that names another stage is refused, not drawn.
  run->mutable_also(0)->set_decl(3);
  Drawing wrong;
  Diagnostics wrong_diags("x.sq");
  EXPECT_FALSE(BuildDrawing(program, &wrong, &wrong_diags));
  EXPECT_EQ(wrong_diags.Render(),
            "x.sq:13:28: error: 'ingress' refers to stage 3, which is 'D'\n");
}

TEST(Row, LinkedAndUnlinkedIrDrawAlike) {
  // serq-link only fills kinds and decls; the drawing reads the same
  // declarations either way. Over the test programs and every random
  // program the linker accepts.
  std::vector<std::string> sources;
  for (const NamedProgram& p : TestPrograms()) sources.push_back(p.source);
  for (uint64_t seed = 1; seed <= 300; ++seed) sources.push_back(RandomProgram(seed));
  int linked_count = 0;
  for (const std::string& source : sources) {
    ir::Program linked;
    if (!ParseAndLink(source, &linked)) continue;
    ++linked_count;
    Drawing a = Draw(source), b;
    Diagnostics diags;
    ASSERT_TRUE(BuildDrawing(linked, &b, &diags)) << diags.Render() << source;
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (size_t r = 0; r < a.rows.size(); ++r) {
      EXPECT_EQ(Names(a.rows[r]), Names(b.rows[r])) << source;
      EXPECT_EQ(Edges(a.rows[r]), Edges(b.rows[r])) << source;
    }
  }
  // Every test program links, and so do enough random ones to mean something.
  EXPECT_GE(linked_count, int(TestPrograms().size()) + 50);
}

TEST(Row, ErrorsNameTheirPlace) {
  std::string source = kHeader + "session { run A (1); run Z (1); hold A (1) { } }\n" + kFooter;
  ir::Program program = Parse(source);
  Diagnostics diags("x.sq");
  Drawing d;
  EXPECT_FALSE(BuildDrawing(program, &d, &diags));
  EXPECT_EQ(diags.Render(),
            "x.sq:5:26: error: unknown stage 'Z'\n"
            "x.sq:5:38: error: 'A' is a stage, not a pool\n");
  // Without source locations (IR from a tool), the IR path.
  ir::Program bare;
  bare.set_version(8);
  bare.add_session()->add_body()->mutable_run()->mutable_stage()->set_name("nowhere");
  Diagnostics bare_diags("gen.ir.json");
  EXPECT_FALSE(BuildDrawing(bare, &d, &bare_diags));
  EXPECT_EQ(bare_diags.Render(),
            "gen.ir.json:session[0].body[0].run.stage: error: unknown stage 'nowhere'\n");
}

TEST(Row, EachParamIsEvaluatedOnce) {
  // p_i = p_{i-1} + p_{i-1} = 2^i: evaluated afresh at every read, p60
  // would take 2^60 evaluations and the test would time out.
  std::string source = "param p0 = 1;\n";
  for (int i = 1; i <= 60; ++i) {
    absl::StrAppend(&source, "param p", i, " = p", i - 1, " + p", i - 1, ";\n");
  }
  absl::StrAppend(&source, "stage S : ps(p60 / 2);\n",
                  "workload { arrive batch(1); }\nsession { run S (1); }\n", kFooter);
  Drawing d = Draw(source);
  ASSERT_EQ(d.rows.size(), 1u);
  ASSERT_EQ(d.rows[0].stations.size(), 1u);
  // 2^60 / 2 = 2^59 = 576460752303423488, printed with six digits.
  EXPECT_EQ(d.rows[0].stations[0].kind, "ps(5.76461e+17)");
}

TEST(Row, AParamCycleIsAnErrorNotAHang) {
  // serq-link refuses the cycle; the view draws unlinked IR, so it meets it.
  std::string source = "param a = b + 1;\nparam b = a * 2;\npool P { cap a; }\n"
                       "stage S : delay;\nworkload { arrive batch(1); }\n"
                       "session { hold P (1) { run S (1); } }\n" + kFooter;
  ir::Program program = Parse(source);
  Diagnostics diags("x.sq");
  Drawing d;
  EXPECT_FALSE(BuildDrawing(program, &d, &diags));
  // The cap `a` (line 3, column 14) reads b, which reads a again.
  EXPECT_EQ(diags.Render(), "x.sq:3:14: error: cap: param 'a' depends on itself\n");
}

TEST(Row, FlowsStandTogetherAndAreEnteredFirstAndLeftLast) {
  // The property, over random programs in which each stage is in at most
  // one flow: a flow's stations stand side by side in the run's order; the
  // session comes in only at the first and leaves only from the last, so
  // no arrow runs between them; the other stations keep their order of
  // first visit.
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    std::string source = RandomProgram(seed, /*disjoint_flows=*/true);
    Drawing d = Draw(source);
    for (const Row& row : d.rows) {
      std::vector<bool> in_flow(row.stations.size(), false);
      for (const Flow& f : row.flows) {
        ASSERT_GE(f.columns.size(), 2u);
        for (size_t k = 0; k < f.columns.size(); ++k) {
          in_flow[f.columns[k]] = true;
          if (k > 0) {
            EXPECT_EQ(f.columns[k], f.columns[k - 1] + 1) << source;
          }
        }
        for (const Edge& e : row.edges) {
          for (size_t k = 0; k < f.columns.size(); ++k) {
            if (k + 1 < f.columns.size()) {
              EXPECT_NE(e.from, f.columns[k]) << source;
            }
            if (k > 0) {
              EXPECT_NE(e.to, f.columns[k]) << source;
            }
          }
        }
      }
      // Stations run alone appear in order of first visit: their names
      // S<i> first appear in the session's source in that order.
      size_t begin = source.find(row.session + " {");
      ASSERT_NE(begin, std::string::npos);
      size_t end = std::min(source.find("\nworkload ", begin), source.find("\nrun {", begin));
      std::string body = source.substr(begin, end - begin);
      size_t last = 0;
      for (size_t c = 0; c < row.stations.size(); ++c) {
        if (in_flow[c]) continue;
        std::string base = row.stations[c].name.substr(0, row.stations[c].name.find('['));
        size_t at = body.find("run " + base + " ");
        if (at == std::string::npos) at = body.find("run " + base + "[");
        ASSERT_NE(at, std::string::npos) << source;
        EXPECT_GE(at, last) << source;
        last = at;
      }
    }
  }
}

}  // namespace
}  // namespace serq::view
