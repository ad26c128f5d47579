#include "serq-report/report.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "ir/io.h"
#include "stats/format.h"

namespace serq::report {
namespace {

results::Results Results(const std::string& program = "before.sq") {
  results::Results r;
  r.set_version(kIrVersion);  // what serq-sim writes (ir/io.h kIrVersion)
  r.set_program(program);
  r.set_horizon(10);
  r.set_seed(1);
  return r;
}

results::Replication* AddReplication(results::Results* r, uint32_t index,
                                     std::vector<double> samples, const std::string& name = "transferred") {
  results::Replication* rep = r->add_replication();
  rep->set_index(index);
  // A stream seed of its own, as serq-sim derives one from the run's seed
  // and the index (one stream seed twice is one replication twice).
  rep->set_seed(r->seed() * 1000003 + index + 1);
  results::Observation* o = rep->add_observation();
  o->set_name(name);
  for (double x : samples) o->add_sample(x);
  r->set_replications(r->replication_size());
  return rep;
}

std::string Text(const std::vector<results::Results>& inputs, ReportOptions options = {}) {
  absl::StatusOr<std::string> text = RenderReport(inputs, options, {"a.json", "b.json", "c.json"});
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::string Error(const std::vector<results::Results>& inputs) {
  absl::StatusOr<std::string> text = RenderReport(inputs, {}, {"a.json", "b.json"});
  EXPECT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(text.status().message());
}

TEST(Report, SeedBeforeRow) {
  // The seed's Before: two reads each end at 2.0.
  results::Results r = Results();
  AddReplication(&r, 0, {2.0, 2.0});
  EXPECT_EQ(Text({r}),
            "before.sq: horizon 10, warmup 0, 1 replication, seed 1\n"
            "\n"
            "observe          n    mean    ±95%    std     p99  rate/s\n"
            "transferred      2  2.0000    ±inf  0.000  2.0000  0.2000\n");
}

TEST(Report, TwoFilesMergeTheirReplications) {
  // Replication means 1 and 3: half-width t(0.975, 1) sqrt(2) / sqrt(2) =
  // 12.7062. Samples 1, 1, 3, 3: mean 2, M2 = 4 * 1 = 4, std sqrt(4 / 3) =
  // 1.1547; p99 at h = 3 * 0.99 = 2.97 between 3 and 3 is 3.
  results::Results a = Results(), b = Results();
  a.set_seed(7);
  AddReplication(&a, 0, {1, 1});
  AddReplication(&b, 1, {3, 3});
  std::string want =
      "before.sq: horizon 10, warmup 0, 2 replications, seeds 1, 7\n"
      "\n"
      "observe          n    mean      ±95%    std     p99  rate/s\n"
      "transferred      4  2.0000  ±12.7062  1.155  3.0000  0.2000\n";
  EXPECT_EQ(Text({a, b}), want);
  EXPECT_EQ(Text({b, a}), want);  // the order of the files does not matter
}

TEST(Report, TwoEqualReplicationsHaveNoSpread) {
  results::Results r = Results();
  AddReplication(&r, 0, {2, 2});
  AddReplication(&r, 1, {2, 2});
  EXPECT_NE(Text({r}).find("transferred      4  2.0000  ±0.0000  0.000  2.0000  0.2000\n"),
            std::string::npos);
}

TEST(Report, BatchMeansFromAHundredSamplesOfOneReplication) {
  // 1..99: too few for batch means, ±inf. 1..100: 10 batches, half-width
  // 21.6585 (stats_test derives it); mean 50.5; std of 1..100 is
  // sqrt(100 * 101 / 12) = 29.011; p99 at h = 99 * 0.99 = 98.01 is
  // 99 + 0.01 = 99.01.
  std::vector<double> x;
  for (int i = 1; i <= 99; ++i) x.push_back(i);
  results::Results r = Results();
  AddReplication(&r, 0, x);
  EXPECT_NE(Text({r}).find("transferred     99  50.0000    ±inf  28.723  98.0200  9.9000\n"),
            std::string::npos)
      << Text({r});
  x.push_back(100);
  r = Results();
  AddReplication(&r, 0, x);
  EXPECT_NE(Text({r}).find("transferred    100  50.5000  ±21.6585  29.011  99.0100  10.0000\n"),
            std::string::npos)
      << Text({r});
}

TEST(Report, AnObservationWithoutSamplesPrintsDashes) {
  results::Results r = Results();
  AddReplication(&r, 0, {});
  EXPECT_NE(Text({r}).find("transferred      0       -       -      -       -  0.0000\n"),
            std::string::npos)
      << Text({r});
}

TEST(Report, ThroughputIsPerSecondOfTheMeasuredWindows) {
  // Window [2, 10], two replications: 16 seconds measured. Samples 3, 5
  // and 4: rate 3 / 16 = 0.1875 a second, sum 12, sum per second
  // 12 / 16 = 0.75 (with `observe out = output;`, tokens/s). A name
  // without samples still has its rate: 0.
  results::Results r = Results();
  r.set_warmup(2);
  AddReplication(&r, 0, {3, 5});
  AddReplication(&r, 1, {4});
  // Every replication writes every observation, this one with no sample.
  for (int k = 0; k < 2; ++k) r.mutable_replication(k)->add_observation()->set_name("zero");
  ReportOptions csv;
  csv.format = "csv";
  std::string text = Text({r}, csv);
  EXPECT_NE(text.find("observe,n,mean,half_width,interval,std,rate,sum,sum_rate,p99,p99_half_width\n"
                      "transferred,3,4,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(",0.1875,12,0.75,"), std::string::npos) << text;
  EXPECT_NE(text.find("zero,0,,,,,0,,,,\n"), std::string::npos) << text;
  ReportOptions md;
  md.format = "md";
  text = Text({r}, md);
  EXPECT_NE(text.find("| rate/s |     sum |  sum/s |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 0.1875 | 12.0000 | 0.7500 |"), std::string::npos) << text;
  EXPECT_NE(Text({r}).find("transferred      3  4.0000"), std::string::npos);
  ReportOptions json;
  json.format = "json";
  text = Text({r}, json);
  EXPECT_NE(text.find("\"rate\": 0.1875,\n   \"sum\": 12,\n   \"sumRate\": 0.75"),
            std::string::npos)
      << text;
}

TEST(Report, QuantilesHaveIntervalsAcrossReplications) {
  // p50 of 1, 2, 3, 4 is 2.5 and of 3, 4, 5, 6 is 4.5: their standard
  // deviation is sqrt(2), so the half-width is t(0.975, 1) sqrt(2) /
  // sqrt(2) = 12.7062. The pooled p50 (1 2 3 3 4 4 5 6, h = 3.5) is 3.5.
  // One replication: no interval, the column stays empty.
  results::Results r = Results();
  AddReplication(&r, 0, {4, 1, 3, 2});
  ReportOptions csv;
  csv.format = "csv";
  csv.quantiles = {50};
  std::string text = Text({r}, csv);
  EXPECT_NE(text.find("observe,n,mean,half_width,interval,std,rate,sum,sum_rate,p50,p50_half_width\n"
                      "transferred,4,2.5,inf,none,1.2909944487358056,0.4,10,1,2.5,\n"),
            std::string::npos)
      << text;
  AddReplication(&r, 1, {3, 4, 6, 5});
  text = Text({r}, csv);
  EXPECT_NE(text.find(",3.5,12.706204736174694\n"), std::string::npos) << text;
}

TEST(Report, NoReplicationsPrintTheRunLineOnly) {
  results::Results r = Results();
  EXPECT_EQ(Text({r}), "before.sq: horizon 10, warmup 0, 0 replications, seed 1\n");
}

TEST(Report, QuantileColumnsFollowTheOption) {
  // 1, 2, 3, 4: p50 at h = 1.5 is 2.5, p90 at h = 2.7 is 3.7, p99 3.97.
  results::Results r = Results();
  AddReplication(&r, 0, {4, 1, 3, 2});
  ReportOptions options;
  options.quantiles = {50, 90, 99};
  EXPECT_NE(Text({r}, options).find("observe          n    mean    ±95%    std     p50     p90     p99  rate/s\n"
                                    "transferred      4  2.5000    ±inf  1.291  2.5000  3.7000  3.9700  0.4000\n"),
            std::string::npos)
      << Text({r}, options);
}

TEST(Report, StagesAverageTimeFiguresAndSumCounts) {
  // Two replications of a fifo stage: present (1 + 2) / 2 = 1.5, util
  // (0.5 + 0.7) / 2 = 0.6, done 3 + 5 = 8, service (3 + 7) / 8 = 1.25,
  // wait (2 + 2) / (4 + 4) = 0.5. A step stage: steps 10 + 10, jobs
  // (30 + 50) / 20 = 4, tokens (100 + 300) / 20 = 20; with seqs 16 and
  // tokens 64 its fill is 4 / 16 = 0.25 and 20 / 64 = 0.3125.
  results::Results r = Results();
  for (uint32_t k = 0; k < 2; ++k) {
    results::Replication* rep = AddReplication(&r, k, {1});
    results::StageStats* s = rep->add_stage();
    s->set_name("tok");
    s->set_kind("fifo");
    s->set_mean_present(k == 0 ? 1 : 2);
    s->set_utilisation(k == 0 ? 0.5 : 0.7);
    s->set_done(k == 0 ? 3 : 5);
    s->set_service_sum(k == 0 ? 3 : 7);
    s->set_waited(4);
    s->set_wait_sum(2);
    results::StageStats* e = rep->add_stage();
    e->set_name("E");
    e->set_array(true);
    e->set_index(1);
    e->set_kind("step");
    e->set_steps(10);
    e->set_batch_jobs(k == 0 ? 30 : 50);
    e->set_batch_tokens(k == 0 ? 100 : 300);
    e->set_step_seqs(16);
    e->set_step_tokens(64);
    results::StageStats* l = rep->add_stage();
    l->set_name("egress");
    l->set_kind("ps");
    l->set_shared(true);
  }
  std::string text = Text({r});
  EXPECT_NE(text.find("stage   kind  present    util  done  service    wait  steps  jobs/step  tokens/step  seq fill  token fill\n"
                      "tok     fifo   1.5000  0.6000     8   1.2500  0.5000      -          -            -         -           -\n"
                      "E[1]    step   0.0000  0.0000     0        -       -     20     4.0000      20.0000    0.2500      0.3125\n"
                      "egress  ps*    0.0000  0.0000     0        -       -      -          -            -         -           -\n"
                      "* shared stage: util is the time-average of the sum of its flows' rates / phi\n"
                      "step: util is the time in a step, not headroom; seq fill = jobs/step / seqs, token fill = tokens/step / tokens\n"),
            std::string::npos)
      << text;
}

// Preemption (IR 9): summed over replications, 2 + 3 = 5 preemptions and
// 40 + 60 = 100 recomputed tokens, in every format; a stage that is not a
// step stage has none ("-", or empty in csv). Without any preemption the
// columns are absent (the test above).
TEST(Report, PreemptionColumnsWhenAStagePreempted) {
  results::Results r = Results();
  for (uint32_t k = 0; k < 2; ++k) {
    results::Replication* rep = AddReplication(&r, k, {1});
    results::StageStats* e = rep->add_stage();
    e->set_name("E");
    e->set_kind("step");
    e->set_steps(10);
    e->set_batch_jobs(20);
    e->set_batch_tokens(40);
    e->set_preempted(k == 0 ? 2 : 3);
    e->set_recomputed(k == 0 ? 40 : 60);
    results::StageStats* d = rep->add_stage();
    d->set_name("hop");
    d->set_kind("delay");
  }
  std::string text = Text({r});
  EXPECT_NE(text.find("preempted  recomputed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("          5         100\n"), std::string::npos) << text;
  EXPECT_NE(text.find("          -           -\n"), std::string::npos) << text;
  ReportOptions md;
  md.format = "md";
  std::string markdown = Text({r}, md);
  EXPECT_NE(markdown.find("| preempted | recomputed |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("|         5 |        100 |\n"), std::string::npos) << markdown;
  ReportOptions csv;
  csv.format = "csv";
  std::string c = Text({r}, csv);
  EXPECT_NE(c.find("seqs_fill,tokens_fill,preempted,recomputed\n"
                   "E,step,false,0,0,0,,0,,20,2,4,,,,,5,100\n"
                   "hop,delay,false,0,,0,,,,,,,,,,,,\n"),
            std::string::npos)
      << c;
  ReportOptions json;
  json.format = "json";
  std::string j = Text({r}, json);
  EXPECT_NE(j.find("\"preempted\": \"5\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"recomputed\": \"100\""), std::string::npos) << j;
}

TEST(Report, MismatchedProgramsAreRefused) {
  results::Results a = Results("a.sq"), b = Results("b.sq");
  b.set_horizon(20);
  EXPECT_EQ(Error({a, b}),
            "b.json:program: error: program 'b.sq' differs from 'a.sq' in a.json; merged "
            "results must come from the same program, horizon and warmup\n"
            "b.json:horizon: error: horizon 20 differs from 10 in a.json; merged results must "
            "come from the same program, horizon and warmup\n");
}

TEST(Report, AReplicationTwiceIsRefused) {
  results::Results a = Results(), b = Results();
  AddReplication(&a, 0, {1});
  AddReplication(&b, 1, {1});
  AddReplication(&b, 0, {1});
  EXPECT_EQ(Error({a, b}),
            "b.json:replication[1].index: error: replication 0 (stream seed 1000004) appears twice "
            "(also replication[0] in a.json); merged results must hold each replication once\n");
}

// Two runs of the same program with seeds 1 and 2 (on two machines, say)
// both number their replications from 0; their streams differ, so they
// are four replications: n = 4 samples, and the interval is across the
// four replication means 1, 2, 3, 4 (mean 2.5).
// A replication's stream seed is derived from the run's seed and its
// index: the same stream seed under another index is the same replication
// copied and relabelled (it merged as a second one, with a spread of 0).
// Within a file, each index once.
TEST(Report, AStreamRelabelledOrAnIndexTwiceIsRefused) {
  results::Results a = Results(), b = Results();
  AddReplication(&a, 0, {1});
  AddReplication(&b, 1, {1})->set_seed(a.replication(0).seed());
  EXPECT_EQ(Error({a, b}),
            "b.json:replication[0].index: error: replication 1 (stream seed 1000004) appears twice "
            "(also replication[0] in a.json); merged results must hold each replication once\n");
  results::Results c = Results();
  AddReplication(&c, 0, {1});
  AddReplication(&c, 0, {2})->set_seed(99);
  EXPECT_EQ(Error({c}),
            "a.json:replication[1].index: error: replication 0 appears twice in the file (also replication[0]); "
            "a run writes each of its replications once\n");
  // An observation some replications lack is not of one program.
  results::Results d = Results();
  AddReplication(&d, 0, {1});
  AddReplication(&d, 1, {2}, "other");
  EXPECT_NE(Error({d}).find("no observation 'transferred', which replication 0 in a.json has; merged results "
                            "come from one program"),
            std::string::npos)
      << Error({d});
}

TEST(Report, RunsWithOtherSeedsMergeWhereIndicesCoincide) {
  results::Results a = Results(), b = Results();
  a.set_seed(1);
  b.set_seed(2);
  AddReplication(&a, 0, {1})->set_seed(101);
  AddReplication(&a, 1, {2})->set_seed(102);
  AddReplication(&b, 0, {3})->set_seed(201);
  AddReplication(&b, 1, {4})->set_seed(202);
  std::string text = Text({a, b});
  EXPECT_NE(text.find("4 replications, seeds 1, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("transferred      4  2.5000"), std::string::npos) << text;
}

TEST(Report, DifferentStagesAreRefused) {
  results::Results a = Results(), b = Results();
  AddReplication(&a, 0, {1})->add_stage()->set_kind("ps");
  a.mutable_replication(0)->mutable_stage(0)->set_name("link");
  AddReplication(&b, 1, {1})->add_stage()->set_kind("fifo");
  b.mutable_replication(0)->mutable_stage(0)->set_name("link");
  EXPECT_EQ(Error({a, b}),
            "b.json:replication[0].stage[0]: error: stage 'link' (fifo) does not match stage "
            "'link' (ps) of replication 0 in a.json; merged results must come from the same "
            "program\n");
}

TEST(Report, StepStagesWithOtherBudgetsAreRefused) {
  // -D can change a budget between two runs of one program; the fill of
  // the merge would be over neither.
  results::Results a = Results(), b = Results();
  results::StageStats* e = AddReplication(&a, 0, {1})->add_stage();
  e->set_name("E");
  e->set_kind("step");
  e->set_step_seqs(16);
  results::StageStats* f = AddReplication(&b, 1, {1})->add_stage();
  *f = *e;
  f->set_step_seqs(32);
  f->set_step_tokens(64);
  EXPECT_EQ(Error({a, b}),
            "b.json:replication[0].stage[0]: error: stage 'E' (step, seqs 32, tokens 64) does not "
            "match stage 'E' (step, seqs 16) of replication 0 in a.json; merged results must "
            "come from the same program\n");
}

TEST(Report, NaNIsRefusedAtItsPath) {
  results::Results a = Results();
  AddReplication(&a, 0, {1, std::nan(""), 2});
  EXPECT_EQ(Error({a}),
            "a.json:replication[0].observation[0].sample[1]: error: NaN is not a valid value\n");
}

TEST(Report, InfiniteSamplesNeverPrintNaN) {
  // inf - inf makes the spread NaN: the std is undefined, and so is the
  // half-width over replication means 1 and inf.
  double inf = std::numeric_limits<double>::infinity();
  results::Results a = Results();
  AddReplication(&a, 0, {1, inf});
  std::string text = Text({a});
  EXPECT_NE(text.find("transferred      2     inf    ±inf      -     inf  0.2000\n"), std::string::npos)
      << text;
  AddReplication(&a, 1, {1, 1});
  text = Text({a});
  EXPECT_NE(text.find("transferred      4     inf       -      -     inf  0.2000\n"), std::string::npos)
      << text;
  ReportOptions json;
  json.format = "json";
  EXPECT_EQ(Text({a}, json).find("NaN"), std::string::npos);
}

TEST(Report, CsvQuotesWhatNeedsIt) {
  results::Results r = Results("a,b \"c\".sq");
  ReportOptions csv;
  csv.format = "csv";
  EXPECT_EQ(Text({r}, csv),
            "program,horizon,warmup,replications,seeds\n"
            "\"a,b \"\"c\"\".sq\",10,0,0,1\n"
            "\n"
            "throughput,count,rate,gpus,rate_per_gpu\n"
            "\n"
            "observe,n,mean,half_width,interval,std,rate,sum,sum_rate,p99,p99_half_width\n"
            "\n"
            "stage,kind,shared,mean_present,utilisation,done,mean_service,waited,mean_wait,steps,"
            "mean_batch_jobs,mean_batch_tokens,seqs_budget,tokens_budget,seqs_fill,tokens_fill\n"
            "\n"
            "pool,cap,mean_used,max_used,mean_loaded,admitted,mean_wait,evicted,expired\n"
            "\n"
            "session,arrived,ended,in_progress,arrived_window,ended_window\n"
            "\n"
            "steady_state,replications_flagged\n");
}

TEST(Options, ParseQuantiles) {
  EXPECT_EQ(*ParseQuantiles("50,90,99"), (std::vector<double>{50, 90, 99}));
  EXPECT_EQ(*ParseQuantiles(" 99.9 "), (std::vector<double>{99.9}));
  EXPECT_TRUE(ParseQuantiles("")->empty());
  EXPECT_EQ(ParseQuantiles("0").status().message(),
            "quantile 0 is not between 0 and 100 (exclusive)");
  EXPECT_EQ(ParseQuantiles("50,100").status().message(),
            "quantile 100 is not between 0 and 100 (exclusive)");
  EXPECT_EQ(ParseQuantiles("nan").status().message(),
            "quantile nan is not between 0 and 100 (exclusive)");
  EXPECT_EQ(ParseQuantiles("50,x").status().message(),
            "quantile 'x' is not a number (expected e.g. 50,90,99)");
  EXPECT_EQ(ParseQuantiles("99,99").status().message(), "quantile 99 is given twice");
}

TEST(Options, UnknownFormat) {
  ReportOptions options;
  options.format = "xml";
  EXPECT_EQ(ValidateReportOptions(options).message(),
            "unknown format 'xml' (expected text, csv, json, md or html)");
  EXPECT_FALSE(RenderReport({Results()}, options).ok());
  // html is serq-report/html.h's (it draws with serq-view, which depends
  // on this library): RenderReport refuses it rather than print text.
  options.format = "html";
  EXPECT_TRUE(ValidateReportOptions(options).ok());
  EXPECT_FALSE(RenderReport({Results()}, options).ok());
}

TEST(Format, Numbers) {
  EXPECT_EQ(FormatFixed(2, 4), "2.0000");
  EXPECT_EQ(FormatFixed(-0.00001, 4), "0.0000");  // never "-0.0000"
  EXPECT_EQ(FormatFixed(-0.5, 3), "-0.500");
  EXPECT_EQ(FormatFixed(std::numeric_limits<double>::infinity(), 4), "inf");
  EXPECT_EQ(FormatShortest(0.1), "0.1");
  EXPECT_EQ(FormatShortest(2.0 / 3), "0.66666666666666663");
  EXPECT_EQ(FormatShortest(1e20), "1e+20");
  EXPECT_EQ(FormatShortest(-0.0), "0");
  EXPECT_EQ(ElementName("link", true, 1), "link[1]");
  EXPECT_EQ(ElementName("P", false, 0), "P");
}

// The cache table: one row per pool element with a cache (kv; plain has
// none). Replication 0: 3 lookups of 48 tokens, 24 hit, 10 evictable on
// average, 1 block evicted; replication 1: 1 lookup of 16 tokens, none
// hit, 2 evictable. Merged: 4 lookups, hit rate 24 / 64 = 0.375 (tokens
// over tokens, not the mean of the replications' 0.5 and 0), evictable
// (10 + 2) / 2 = 6, 1 evicted.
TEST(Report, CacheTable) {
  results::Results r = Results();
  for (uint32_t i = 0; i < 2; ++i) {
    results::Replication* rep = AddReplication(&r, i, {1});
    results::PoolStats* plain = rep->add_pool();
    plain->set_name("plain");
    plain->set_cap(1);
    results::PoolStats* kv = rep->add_pool();
    kv->set_name("kv");
    kv->set_cap(100);
    kv->set_cache_block(4);
    kv->set_lookups(i == 0 ? 3 : 1);
    kv->set_lookup_tokens(i == 0 ? 48 : 16);
    kv->set_hit_tokens(i == 0 ? 24 : 0);
    kv->set_mean_evictable(i == 0 ? 10 : 2);
    kv->set_blocks_evicted(i == 0 ? 1 : 0);
  }
  std::string text = Text({r});
  EXPECT_NE(text.find("cache  block  lookups  hit rate  evictable  evicted\n"
                      "kv         4        4    0.3750     6.0000        1\n"),
            std::string::npos)
      << text;
  ReportOptions csv;
  csv.format = "csv";
  EXPECT_NE(Text({r}, csv).find("cache,block,lookups,lookup_tokens,hit_tokens,hit_rate,"
                                "mean_evictable,blocks_evicted\n"
                                "kv,4,4,64,24,0.375,6,1\n"),
            std::string::npos);
  ReportOptions json;
  json.format = "json";
  EXPECT_NE(Text({r}, json).find("\"hitRate\": 0.375"), std::string::npos) << Text({r}, json);
  ReportOptions md;
  md.format = "md";
  EXPECT_NE(Text({r}, md).find("| kv "), std::string::npos);
  // No cache pool: no table, no csv section.
  results::Results plain = Results();
  AddReplication(&plain, 0, {1})->add_pool()->set_name("plain");
  EXPECT_EQ(Text({plain}).find("hit rate"), std::string::npos);
  EXPECT_EQ(Text({plain}, csv).find("cache,"), std::string::npos);
}

}  // namespace
}  // namespace serq::report

namespace serq::report {
namespace {

// vLLM's throughputs (docs/report.md §Throughput), by hand. Two
// replications of the window [10, 30] (20 s each, 40 s in all):
// replication 0: 30 sessions ended in the window, 30 prefill runs of 1000
// tokens in all and decode runs of 3000; replication 1: 50 sessions, 50
// prefills of 2000 tokens, decodes of 4950. Requests 80 / 40 = 2 a
// second; output tokens (3000 + 30) + (4950 + 50) = 8030 (each prefill
// makes the first token), 8030 / 40 = 200.75 a second; total tokens 8030
// + 3000 = 11030, 275.75 a second. Over 4 GPUs: 0.5, 50.1875, 68.9375.
TEST(Report, ThroughputAsVllmDefinesItAndPerGpu) {
  results::Results r = Results();
  r.set_horizon(30);
  r.set_warmup(10);
  r.set_gpus(4);
  const uint64_t ended[] = {30, 50};
  const double prompt[] = {1000, 2000}, decode[] = {3000, 4950};
  for (uint32_t i = 0; i < 2; ++i) {
    results::Replication* rep = AddReplication(&r, i, {1.0});
    rep->set_seed(i + 1);
    results::SessionStats* s = rep->add_session();
    s->set_arrived(ended[i]);
    s->set_ended(ended[i]);
    s->set_arrived_window(ended[i]);
    s->set_ended_window(ended[i]);
    for (int k = 0; k < 3; ++k) s->add_in_progress_third(0);
    s->set_prefills_window(ended[i]);
    s->set_prefill_tokens_window(prompt[i]);
    s->set_decode_tokens_window(decode[i]);
  }
  std::string text = Text({r});
  EXPECT_NE(text.find("throughput: 2.0000 requests/s, 200.7500 output tokens/s, 275.7500 total "
                      "tokens/s; per GPU (4 GPUs): 0.5000 requests/s, 50.1875 output tokens/s, "
                      "68.9375 total tokens/s\n"),
            std::string::npos)
      << text;
  ReportOptions csv;
  csv.format = "csv";
  std::string table = Text({r}, csv);
  EXPECT_NE(table.find("throughput,count,rate,gpus,rate_per_gpu\n"
                       "requests,80,2,4,0.5\n"
                       "output_tokens,8030,200.75,4,50.1875\n"
                       "total_tokens,11030,275.75,4,68.9375\n"),
            std::string::npos)
      << table;
  // Without `gpus`: no per-GPU figures, and no gpus cell.
  r.set_gpus(0);
  text = Text({r});
  EXPECT_NE(text.find("throughput: 2.0000 requests/s, 200.7500 output tokens/s, 275.7500 total "
                      "tokens/s\n"),
            std::string::npos)
      << text;
}

// A program of plain runs (no prefill or decode) has requests, not tokens;
// results without the window's counts (no thirds) have neither: no line.
TEST(Report, ThroughputWithoutTokensOrCounts) {
  results::Results r = Results();
  results::Replication* rep = AddReplication(&r, 0, {1.0});
  results::SessionStats* s = rep->add_session();
  s->set_ended_window(5);
  for (int k = 0; k < 3; ++k) s->add_in_progress_third(0);
  EXPECT_NE(Text({r}).find("throughput: 0.5000 requests/s\n"), std::string::npos) << Text({r});
  s->clear_in_progress_third();
  EXPECT_EQ(Text({r}).find("throughput"), std::string::npos) << Text({r});
}

// Files of deployments of other sizes do not merge.
TEST(Report, OtherGpusAreRefused) {
  results::Results a = Results(), b = Results();
  AddReplication(&a, 0, {1.0});
  AddReplication(&b, 1, {1.0});
  a.set_gpus(2);
  b.set_gpus(3);
  EXPECT_NE(Error({a, b}).find("gpus 3 differs from 2 in a.json"), std::string::npos) << Error({a, b});
}

}  // namespace
}  // namespace serq::report
