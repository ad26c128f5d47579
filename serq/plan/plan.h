// `serq plan`: for each candidate deployment (candidate.h, program.h), the
// largest arrival rate that meets the SLOs, found by serq search's
// overload-aware bisection (serq/sweep/search.h); at that rate the figures
// a fleet engineer compares (tokens a second a GPU over all the
// candidate's GPUs, tokens a second a user, goodput, TTFT/TPOT/ITL
// percentiles, cost a million output tokens), each with its 95% interval
// over replications; then the Pareto front (pareto.h), the top and the
// fewest GPUs for a target rate (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_PLAN_H_
#define SERQ_SERQ_PLAN_PLAN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "serq/pipeline/commands.h"
#include "serq/plan/candidate.h"
#include "serq/sweep/condition.h"
#include "serq/sweep/search.h"

namespace serq::plan {

struct PlanSpec {
  // The candidates and their programs' paths (one each, Rate a param).
  std::vector<Candidate> candidates;
  std::vector<std::string> programs;
  Condition condition;        // --until
  DriverOptions base;         // --seed, -D ...; each search runs its replications on one core
  uint32_t replications = 4;  // a point's first, doubled while undecided
  uint32_t max_replications = 16;
  double max_in_progress = 0.5;
  double flagged_share = 0.5;    // a point not steady when more of its replications are flagged
  double max_rate_per_gpu = 16;  // the search's top: this many requests a second a GPU
  int steps = 64;                // the search's grid: top / steps apart
  int jobs = 1;                  // candidates searched at once
  double price = 0;              // per GPU-hour (0: no cost)
  double target_rate = 0;        // requests a second (0: none)
  bool early_stop = true;
  // Told a line as each candidate's search ends ("candidate 3 of 36
  // (colocated tp1 x2): 22 req/s"), from the thread that searched it, one
  // call at a time; in completion order, so for people (stderr), not for
  // output. Empty: none.
  std::function<void(const std::string&)> progress;
};

struct CandidateResult;
// How far a candidate that meets the target rate is known to go: "up to R"
// (its search's answer), or "at least R" for one stopped early at R.
std::string MetRate(const CandidateResult& r);

// A figure and its 95% half-width.
struct Value {
  bool defined = false;
  double value = 0;
  double half_width = 0;
};

struct CandidateResult {
  enum Status { kOk, kNone, kStopped, kError };
  Status status = kError;
  std::string why;  // kNone, kStopped, kError: why it is not on the chart
  SearchOutcome search;
  double rate = 0;     // kOk: the largest rate that meets the SLOs
  bool at_top = false;  // ... the search's top (the candidate may do more)
  uint32_t replications = 0;
  Value tokens, tokens_per_gpu, tokens_per_user, goodput, cost_per_mtok;
  Value ttft[3], tpot[3], itl[3];  // p50, p90, p99
  bool on_front = false;
};

struct Plan {
  std::vector<CandidateResult> results;  // as PlanSpec.candidates
  std::vector<int> front;                // indexes, by tokens/s/GPU descending
  std::vector<int> ranked;               // kOk ones, by tokens/s/GPU descending
  int min_gpus = -1;                     // with a target rate: the index of the fewest GPUs meeting it
};

// The percentiles the plan reports, as labels ("p50", "p90", "p99").
extern const char* const kPercentiles[3];

// Colocated candidates' results by Candidate::Slug(): a colocated
// candidate's search does not depend on the budget or on the other
// candidates, so a larger budget's plan takes a smaller one's (GrowPlan).
using KnownResults = std::map<std::string, CandidateResult>;

// Runs the plan: colocated candidates first, all of them; then the
// disaggregated ones, each search stopped (PlanSpec.early_stop) once its
// best possible point is covered by the colocated front, so that which
// candidates stop does not depend on the order threads finish in. With a
// target rate, a candidate is stopped only once it is known to fall short
// of it (a rate at or below the target failed), so that one which meets
// the target is always searched to the end and counted for the fewest
// GPUs. A colocated candidate in `known` is not searched again.
// Errors (a program rejected) come back in `error`, and false.
bool RunPlan(const PlanSpec& spec, Plan* plan, CommandResult* error, const KnownResults* known = nullptr);

// What RunPlan checks before any search: the first program links and
// observes what the condition names (`serq plan --emit` checks it before
// writing the tasks).
bool CheckPlan(const PlanSpec& spec, CommandResult* error);

// Candidate i's search alone, without early stopping (it needs the other
// candidates' results): what RunPlan finds for it with early_stop false.
// `serq plan --candidate K` runs it; its status is never kStopped.
CandidateResult SearchCandidate(const PlanSpec& spec, int i);

// With every candidate's result in `plan`: the front (on_front marked),
// the ranking and the fewest GPUs for the target, as RunPlan ends.
void FinishPlan(const PlanSpec& spec, Plan* plan);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_PLAN_H_
