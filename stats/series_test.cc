// CollectSeries' checks of the interval lists (results.proto Series:
// preemptions, tokens, observations' percentiles) and their csv columns.
#include "stats/series.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace serq::report {
namespace {

using ::testing::HasSubstr;

// One replication sampled at 0 and 1: a step stage E that preempted once
// in (0, 1], a session that completed a prefill of 8 tokens, an observation
// ttft with 2 samples in (0, 1].
results::Results Sampled() {
  results::Results r;
  r.set_mark("serq results");
  r.set_version(11);
  r.set_horizon(1);
  r.set_sample(1);
  results::Replication* rep = r.add_replication();
  results::StageStats* stage = rep->add_stage();
  stage->set_name("E");
  stage->set_kind("step");
  rep->add_session();
  rep->add_observation()->set_name("ttft");
  results::Series* s = rep->mutable_series();
  s->add_time(0);
  s->add_time(1);
  results::StageSeries* e = s->add_stage();
  e->set_name("E");
  e->set_kind("step");
  for (double v : {0, 2}) e->add_present(v);
  for (double v : {0, 1}) e->add_batch(v);
  for (double v : {0, 1}) e->add_preempted(v);
  results::SessionSeries* ss = s->add_session();
  for (double v : {0, 1}) ss->add_in_progress(v);
  for (double v : {0, 1}) ss->add_prefills(v);
  for (double v : {0, 8}) ss->add_prefill_tokens(v);
  for (double v : {0, 0}) ss->add_decode_tokens(v);
  results::ObservationSeries* o = s->add_observation();
  o->set_name("ttft");
  for (double v : {0, 2}) o->add_count(v);
  for (double v : {0.0, 0.5}) o->add_p50(v);
  for (double v : {0.0, 0.9}) o->add_p90(v);
  for (double v : {0.0, 0.99}) o->add_p99(v);
  return r;
}

TEST(Series, IntervalColumns) {
  // The series point into the results: they must outlive it.
  std::vector<results::Results> inputs = {Sampled()};
  absl::StatusOr<std::vector<ReplicationSeries>> s = CollectSeries(inputs);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(RenderSeriesCsv(*s),
            "replication,time,E.present,E.batch,E.preempted,in_progress,prefills,prefill_tokens,"
            "decode_tokens,ttft.count,ttft.p50,ttft.p90,ttft.p99\n"
            "0,0,0,0,0,0,0,0,0,0,0,0,0\n"
            "0,1,2,1,1,1,1,8,0,2,0.5,0.9,0.99\n");
}

// A name with a comma or a quote is quoted as the report's csv quotes it
// (RFC 4180): `a,b"c` as "a,b""c" and its figures' names with it; unquoted,
// every column after it shifted.
TEST(Series, NamesAreCsvFields) {
  results::Results r = Sampled();
  r.mutable_replication(0)->mutable_observation(0)->set_name("a,b\"c");
  r.mutable_replication(0)->mutable_series()->mutable_observation(0)->set_name("a,b\"c");
  std::vector<results::Results> inputs = {r};
  absl::StatusOr<std::vector<ReplicationSeries>> c = CollectSeries(inputs);
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string csv = RenderSeriesCsv(*c);
  EXPECT_NE(csv.find(",\"a,b\"\"c.count\",\"a,b\"\"c.p50\","), std::string::npos) << csv;
}

// Results written before the interval lists (none of them) read as before.
TEST(Series, OldResultsHaveNoIntervalColumns) {
  results::Results r = Sampled();
  results::Series* s = r.mutable_replication(0)->mutable_series();
  s->mutable_stage(0)->clear_preempted();
  s->mutable_session(0)->clear_prefills();
  s->mutable_session(0)->clear_prefill_tokens();
  s->mutable_session(0)->clear_decode_tokens();
  s->clear_observation();
  std::vector<results::Results> inputs = {r};
  absl::StatusOr<std::vector<ReplicationSeries>> c = CollectSeries(inputs);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(RenderSeriesCsv(*c), "replication,time,E.present,E.batch,in_progress\n0,0,0,0,0\n0,1,2,1,1\n");
}

TEST(Series, BadIntervalListsAreLocated) {
  results::Results r = Sampled();
  r.mutable_replication(0)->mutable_series()->mutable_observation(0)->add_p99(1);
  absl::StatusOr<std::vector<ReplicationSeries>> c = CollectSeries({r}, {"r.json"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("replication[0].series.observation[0].p99"));
  EXPECT_THAT(c.status().message(), HasSubstr("3 values for 2 sample times"));

  r = Sampled();
  r.mutable_replication(0)->mutable_series()->mutable_session(0)->clear_decode_tokens();
  c = CollectSeries({r}, {"r.json"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("series.session[0].decodeTokens"));

  r = Sampled();
  r.mutable_replication(0)->mutable_series()->mutable_observation(0)->set_count(1, 1.5);
  c = CollectSeries({r}, {"r.json"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("count 1.5 is not a whole number of samples"));

  r = Sampled();
  r.mutable_replication(0)->mutable_series()->mutable_observation(0)->set_name("tpot");
  c = CollectSeries({r}, {"r.json"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("series of observation 'tpot' where the replication has 'ttft'"));
}

}  // namespace
}  // namespace serq::report
