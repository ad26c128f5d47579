// Which observations the results call times (results.proto
// time_observation, ir/units.h): the report shows those in ms or s with
// their unit whatever their names.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "serq-sim/sim_testing.h"

namespace serq {
namespace {

std::vector<std::string> Times(const std::string& source) {
  testing::SimRun run = testing::RunSource(source);
  EXPECT_TRUE(run.ok) << run.errors;
  return {run.results.time_observation().begin(), run.results.time_observation().end()};
}

// Each observation's value by hand: t = now - arrival is a time less a
// time; w = (now - first + 0.001) / n a time plus a number, divided by a
// count (n a variable set from a draw: a number); late = now - arrival > 1
// a comparison; size a draw; ratio a time over a time; qlen a state
// function (a count); twice set to a time in one branch and to a count in
// the other, so not always a time. `first` is set to 0 and then to now:
// a time. The decode's `observe gap` records the gaps between its tokens.
// xfer is an all-reduce's seconds (of a GPU count, bytes, bytes a second
// and a latency in seconds): a time; bad passes it a time as its bytes
// (now): not one.
TEST(TimeObservations, ATimeByItsExpressionsWhateverItsName) {
  const std::string source = R"(
stage S : fifo(1);
stage E : step(0.01) { seqs 8; tokens 64; }
workload { arrive batch(1); }
session {
  set first = 0;
  set n = 1 + floor(uniform(1, 3));
  run S (1);
  set first = now;
  observe t = now - arrival;
  observe size = uniform(1, 2);
  observe late = now - arrival > 1;
  observe ratio = (now - first) / (now - arrival);
  observe qlen = queue(S);
  if (n > 2) { observe twice = now; } else { observe twice = n; }
  run E prefill (4);
  run E decode (3) observe gap;
  observe w = (now - first + 0.001) / n;
  observe e2e = min(now, 5) - arrival;
  observe xfer = all_reduce(2, 1e6, 1e9, 1e-5);
  observe bad = all_reduce(2, now, 1e9, 1e-5);
}
run { horizon 10; }
)";
  EXPECT_EQ(Times(source), (std::vector<std::string>{"e2e", "gap", "t", "w", "xfer"}));
}

// A program without observations has none; results of older files none.
TEST(TimeObservations, NoneWithoutObservations) {
  EXPECT_TRUE(Times("stage D : delay;\nworkload { arrive batch(1); }\nsession { run D (1); }\nrun { horizon 2; }\n")
                  .empty());
}

}  // namespace
}  // namespace serq
