// The headline (docs/report.md §The headline): the busiest resource is
// ranked by the fraction of its capacity it used, a step stage by its
// batch fill and not by its time in a step; preemptions and stalls are
// named when there were any. Every figure below is derived by hand from
// the results the test builds.
#include "serq-report/headline.h"

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "serq-report/report.h"

namespace serq::report {
namespace {

results::Results OneReplication() {
  results::Results r;
  r.set_version(kIrVersion);
  r.set_program("x.sq");
  r.set_horizon(10);
  r.set_seed(1);
  r.set_replications(1);
  r.add_replication();
  return r;
}

results::StageStats* AddStage(results::Results* r, const std::string& name,
                              const std::string& kind, double util) {
  results::StageStats* s = r->mutable_replication(0)->add_stage();
  s->set_name(name);
  s->set_kind(kind);
  s->set_utilisation(util);
  return s;
}

results::PoolStats* AddPool(results::Results* r, const std::string& name, double cap,
                            double used, double max, uint64_t admitted) {
  results::PoolStats* p = r->mutable_replication(0)->add_pool();
  p->set_name(name);
  p->set_cap(cap);
  p->set_mean_used(used);
  p->set_max_used(max);
  p->set_admitted(admitted);
  return p;
}

// The lines between the run line and the first table.
std::vector<std::string> Headline(const results::Results& r) {
  absl::StatusOr<std::string> text = RenderReport({r}, {}, {"r.json"});
  EXPECT_TRUE(text.ok()) << text.status();
  std::vector<std::string> lines = absl::StrSplit(*text, '\n');
  std::vector<std::string> out;
  for (size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) out.push_back(lines[i]);
  return out;
}

TEST(Headline, AStepStageIsRankedByItsBatchFillNotItsTimeInAStep) {
  results::Results r = OneReplication();
  // E is in a step all the time (util 1) with small batches: 100 steps of
  // 1380 jobs and 8300 tokens in all, 13.8 jobs and 83 tokens a step: seq
  // fill 13.8 / 256 = 0.0539, token fill 83 / 8192 = 0.0101; its load is
  // the fuller, 0.0539.
  results::StageStats* e = AddStage(&r, "E", "step", 1);
  e->set_steps(100);
  e->set_batch_jobs(1380);
  e->set_batch_tokens(8300);
  e->set_step_seqs(256);
  e->set_step_tokens(8192);
  // S, a fifo at util 0.3, and kv, 12 of 16 units used on average (0.75),
  // 16 at the peak (1): the pool binds.
  AddStage(&r, "S", "fifo", 0.3);
  AddPool(&r, "kv", 16, 12, 16, 40);
  EXPECT_EQ(Headline(r), (std::vector<std::string>{
                             "busiest: pool kv, used 0.7500 of its cap on average, 1.0000 at "
                             "the peak"}));
  // Without the pool, the fifo (0.3) is busier than the step (0.0539),
  // whose util of 1 would have named it.
  r.mutable_replication(0)->clear_pool();
  EXPECT_EQ(Headline(r), (std::vector<std::string>{"busiest: stage S (fifo), util 0.3000"}));
  // Without the fifo, the step, by its seq fill, its time in a step beside.
  r.mutable_replication(0)->mutable_stage()->RemoveLast();
  EXPECT_EQ(Headline(r), (std::vector<std::string>{
                             "busiest: stage E (step), seq fill 0.0539 (in a step 1.0000 of the "
                             "time)"}));
}

TEST(Headline, LinksDelaysAndPoolsNothingEntered) {
  results::Results r = OneReplication();
  // A delay stage has no capacity; hs, full (1 of 1) but entered by no
  // hold in the window and waited for by no growth, is a flag leased for
  // ever, not a bottleneck; the link carries 0.25 of its capacity.
  AddStage(&r, "P", "delay", 0);
  results::StageStats* link = AddStage(&r, "egress", "ps", 0.25);
  link->set_shared(true);
  link->set_array(true);
  AddPool(&r, "hs", 1, 1, 1, 0);
  EXPECT_EQ(Headline(r), (std::vector<std::string>{
                             "busiest: link egress[0] (shared ps stage), util 0.2500"}));
  // A pool of infinite cap has no occupancy; nor a delay: no line at all.
  r.mutable_replication(0)->clear_stage();
  r.mutable_replication(0)->clear_pool();
  AddStage(&r, "P", "delay", 0);
  AddPool(&r, "inf", std::numeric_limits<double>::infinity(), 5, 5, 3);
  EXPECT_EQ(Headline(r), (std::vector<std::string>{}));
}

TEST(Headline, TiesGoToTheFirstInTheReportsOrder) {
  results::Results r = OneReplication();
  AddStage(&r, "A", "ps", 0.5);
  AddStage(&r, "B", "ps", 0.5);
  AddPool(&r, "kv", 10, 5, 5, 1);  // 0.5 too
  EXPECT_EQ(Headline(r), (std::vector<std::string>{"busiest: stage A (ps), util 0.5000"}));
}

TEST(Headline, PreemptionsAndStallsAreNamed) {
  results::Results r = OneReplication();
  results::StageStats* e0 = AddStage(&r, "E", "step", 1);
  e0->set_array(true);
  e0->set_preempted(3);
  e0->set_recomputed(600);
  results::StageStats* e1 = AddStage(&r, "E", "step", 1);
  e1->set_array(true);
  e1->set_index(1);
  AddPool(&r, "kv", 100, 90, 100, 7)->set_stalls(4);
  AddPool(&r, "kv2", 100, 10, 20, 7);
  // Three preemptions, all at E[0] (E[1] had none and is not listed); 4
  // stalls on kv. No step started, so no fill: kv (0.9) is the busiest.
  EXPECT_EQ(Headline(r),
            (std::vector<std::string>{
                "busiest: pool kv, used 0.9000 of its cap on average, 1.0000 at the peak",
                "preemptions: 3 (E[0] 3), 600 tokens recomputed",
                "stalls: 4 (kv 4), growths that waited for a pool's units"}));
  // The pool table has the stalls' column, since a pool had some.
  absl::StatusOr<std::string> text = RenderReport({r}, {}, {"r.json"});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("evicted  expired  stalls"), std::string::npos) << *text;
}

}  // namespace
}  // namespace serq::report
