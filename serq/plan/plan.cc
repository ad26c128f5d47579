#include "serq/plan/plan.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "serq/plan/pareto.h"
#include "serq/sweep/metrics.h"
#include "stats/format.h"

namespace serq::plan {

const char* const kPercentiles[3] = {"p50", "p90", "p99"};

namespace {

// The figures every point computes besides the condition's, by label.
std::vector<std::string> ExtraLabels() {
  std::vector<std::string> out;
  for (const char* o : {"ttft", "tpot", "itl"}) {
    for (const char* p : kPercentiles) out.push_back(absl::StrCat(p, "(", o, ")"));
  }
  for (const char* x : {"mean(tpot)", "rate(ttft)", "rate(itl)", "rate(e2e)"}) out.push_back(x);
  return out;
}

// The condition with the extra figures appended to its metrics (none
// twice); `index` gets each extra label's position.
Condition WithExtras(const Condition& c, std::vector<int>* index) {
  Condition out = c;
  for (const std::string& label : ExtraLabels()) {
    int at = -1;
    for (int i = 0; i < static_cast<int>(out.metrics.size()); ++i) {
      if (out.metrics[i].label == label) at = i;
    }
    if (at < 0) {
      absl::StatusOr<Metric> m = ParseMetric(label);
      at = static_cast<int>(out.metrics.size());
      out.metrics.push_back(*m);
    }
    index->push_back(at);
  }
  return out;
}

Value Of(const Figure& f) { return {f.defined && std::isfinite(f.half_width), f.value, f.half_width}; }

// Sum and quotient of independent-or-not figures: half-widths added (an
// upper bound whatever their correlation); 1/x by the first order.
Value Sum(const Value& a, const Value& b) {
  return {a.defined && b.defined, a.value + b.value, a.half_width + b.half_width};
}
Value Scale(const Value& a, double k) { return {a.defined, a.value * k, a.half_width * std::abs(k)}; }
Value Inverse(const Value& a) {
  if (!a.defined || !(a.value > 0)) return {};
  return {true, 1 / a.value, a.half_width / (a.value * a.value)};
}

struct Extras {
  Value p[9];  // ttft, tpot, itl x p50, p90, p99
  Value tpot_mean, rate_ttft, rate_itl, rate_e2e;
};

Extras Read(const SearchPoint& point, const std::vector<int>& index) {
  Extras e;
  for (int i = 0; i < 9; ++i) e.p[i] = Of(point.figures[index[i]]);
  e.tpot_mean = Of(point.figures[index[9]]);
  e.rate_ttft = Of(point.figures[index[10]]);
  e.rate_itl = Of(point.figures[index[11]]);
  e.rate_e2e = Of(point.figures[index[12]]);
  return e;
}

// Output tokens a second: the first of each request (a TTFT sample) and
// each one after (an ITL sample).
Value Tokens(const Extras& e) { return Sum(e.rate_ttft, e.rate_itl); }

class Runner {
 public:
  Runner(const PlanSpec& spec, Plan* plan, const KnownResults* known = nullptr)
      : spec_(spec), plan_(plan), known_(known) {
    condition_ = WithExtras(spec.condition, &index_);
  }

  // Searches candidates `which` on spec.jobs threads.
  // Progress lines come in `which`'s order, each as soon as it and every
  // candidate before it finished, so that stderr is the same bytes
  // whatever the thread count.
  void Search(const std::vector<int>& which, const std::vector<Point>* front) {
    std::atomic<size_t> next{0};
    std::vector<char> finished(which.size(), 0);
    size_t tell = 0;  // the first of `which` not told yet; under told_mutex_
    auto work = [&] {
      for (size_t k; (k = next.fetch_add(1)) < which.size();) {
        One(which[k], front);
        std::lock_guard<std::mutex> lock(told_mutex_);
        finished[k] = 1;
        for (; tell < which.size() && finished[tell]; ++tell) Told(which[tell]);
      }
    };
    const int n = std::max(1, std::min<int>(spec_.jobs, static_cast<int>(which.size())));
    std::vector<std::thread> threads;
    for (int t = 1; t < n; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
  }

 private:
  void One(int i, const std::vector<Point>* front) {
    const Candidate& c = spec_.candidates[i];
    CandidateResult& r = plan_->results[i];
    if (known_ != nullptr && !c.disaggregated) {
      if (auto it = known_->find(c.Slug()); it != known_->end()) {
        r = it->second;
        return;
      }
    }
    SearchSpec s;
    s.program = spec_.programs[i];
    s.param = "Rate";
    s.hi = spec_.max_rate_per_gpu * c.Gpus();
    s.step = s.hi / spec_.steps;
    s.lo = s.step;
    s.condition = condition_;
    s.base = spec_.base;
    s.base.sim.jobs = 1;
    s.replications = spec_.replications;
    s.max_replications = spec_.max_replications;
    s.max_in_progress = spec_.max_in_progress;
    s.flagged_share = spec_.flagged_share;
    if (front != nullptr && spec_.early_stop) {
      const double gpus = c.Gpus();
      s.stop = [&, gpus](const SearchPoint& passed, double failed) {
        // A candidate that may still meet the target rate (it has not
        // passed it, and none at or below it failed yet) goes on: the
        // fewest GPUs counts it. One that passed it stops as any other:
        // it meets the target (FinishPlan counts it), which a further
        // search would not change.
        if (spec_.target_rate > 0 && passed.value < spec_.target_rate && failed > spec_.target_rate) {
          return false;
        }
        // The best this candidate could still do: its output tokens grow
        // at most in proportion to the rate (below `failed`), and its
        // TPOT only grows with the rate (so 1/TPOT is at most the passed
        // point's).
        const Extras e = Read(passed, index_);
        const Value tokens = Tokens(e);
        if (!tokens.defined || !e.tpot_mean.defined || !(passed.value > 0)) return false;
        Point bound{(tokens.value + tokens.half_width) * failed / passed.value / gpus,
                    1 / std::max(e.tpot_mean.value - e.tpot_mean.half_width, 1e-12)};
        return Covered(*front, bound);
      };
    }
    CommandResult error;
    if (!RunSearch(s, &r.search, &error)) {
      r.status = CandidateResult::kError;
      r.why = error.err;
      while (!r.why.empty() && r.why.back() == '\n') r.why.pop_back();
      return;
    }
    if (!r.search.found) {
      const SearchPoint& low = r.search.tried[r.search.lowest];
      r.status = CandidateResult::kNone;
      r.why = absl::StrCat("no rate meets the SLOs: at ", report::FormatShortest(low.value), " req/s, ",
                           low.why.empty() ? "undecided" : low.why);
      return;
    }
    if (r.search.stopped) {
      r.status = CandidateResult::kStopped;
      r.why = absl::StrCat("stopped early at ", report::FormatShortest(r.search.answer),
                           " req/s: its best possible point is covered by the colocated front");
      return;
    }
    const SearchPoint* at = nullptr;
    for (const SearchPoint& p : r.search.tried) {
      if (p.value == r.search.answer) at = &p;
    }
    const Extras e = Read(*at, index_);
    r.status = CandidateResult::kOk;
    r.rate = r.search.answer;
    r.at_top = r.search.above < 0;
    r.replications = at->replications;
    r.tokens = Tokens(e);
    r.tokens_per_gpu = Scale(r.tokens, 1.0 / c.Gpus());
    r.tokens_per_user = Inverse(e.tpot_mean);
    r.goodput = e.rate_e2e;
    for (int k = 0; k < 3; ++k) {
      r.ttft[k] = e.p[k];
      r.tpot[k] = e.p[3 + k];
      r.itl[k] = e.p[6 + k];
    }
    if (spec_.price > 0 && r.tokens.defined && r.tokens.value > 0) {
      // Dollars a million output tokens: the GPUs' price an hour over the
      // tokens an hour; its half-width by the first order in the tokens.
      const double dollars_s = spec_.price * c.Gpus() / 3600;
      r.cost_per_mtok = {true, dollars_s / r.tokens.value * 1e6,
                         dollars_s * 1e6 * r.tokens.half_width / (r.tokens.value * r.tokens.value)};
    }
    if (!r.tokens.defined || !r.tokens_per_user.defined) {
      r.status = CandidateResult::kNone;
      r.why = "its figures are undefined at the answer (no samples)";
    }
  }

  // The progress line of candidate i's search; under told_mutex_.
  void Told(int i) {
    if (!spec_.progress) return;
    const CandidateResult& r = plan_->results[i];
    std::string what;
    switch (r.status) {
      case CandidateResult::kOk: what = absl::StrCat(report::FormatShortest(r.rate), " req/s"); break;
      case CandidateResult::kNone: what = "no rate meets the SLOs"; break;
      case CandidateResult::kStopped: what = "stopped early"; break;
      case CandidateResult::kError: what = "failed"; break;
    }
    ++told_;
    spec_.progress(absl::StrCat("candidate ", told_, " of ", spec_.candidates.size(), " searched (",
                                spec_.candidates[i].Label(), "): ", what));
  }

  const PlanSpec& spec_;
  Plan* plan_;
  const KnownResults* known_;
  std::mutex told_mutex_;
  size_t told_ = 0;
  Condition condition_;
  std::vector<int> index_;
};

std::vector<Point> Points(const Plan& plan, const std::vector<int>& which) {
  std::vector<Point> out;
  for (int i : which) out.push_back({plan.results[i].tokens_per_gpu.value, plan.results[i].tokens_per_user.value});
  return out;
}

std::vector<int> OkOnes(const PlanSpec& spec, const Plan& plan, int kind) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(plan.results.size()); ++i) {
    if (plan.results[i].status != CandidateResult::kOk) continue;
    if (kind >= 0 && spec.candidates[i].disaggregated != (kind == 1)) continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace

bool CheckPlan(const PlanSpec& spec, CommandResult* error) {
  if (spec.programs.empty()) return true;
  // The condition's observations against the first program, once.
  DriverOptions options = spec.base;
  options.defines.emplace_back("Rate", 1);
  ir::Program program;
  if (!ParseAndLink(spec.programs[0], options, &program, error)) return false;
  if (absl::Status s = CheckObserved(spec.condition.metrics, ProgramObservations(program)); !s.ok()) {
    error->exit_code = kExitUsage;
    error->err = absl::StrCat("serq plan: error: --until: ", s.message(), "\n");
    return false;
  }
  return true;
}

bool RunPlan(const PlanSpec& spec, Plan* plan, CommandResult* error, const KnownResults* known) {
  *plan = Plan();
  plan->results.resize(spec.candidates.size());
  if (!CheckPlan(spec, error)) return false;
  Runner runner(spec, plan, known);
  std::vector<int> colocated, disaggregated;
  for (int i = 0; i < static_cast<int>(spec.candidates.size()); ++i) {
    (spec.candidates[i].disaggregated ? disaggregated : colocated).push_back(i);
  }
  runner.Search(colocated, nullptr);
  const std::vector<int> first = OkOnes(spec, *plan, 0);
  std::vector<Point> first_front;
  for (int k : Front(Points(*plan, first))) first_front.push_back(Points(*plan, {first[k]})[0]);
  runner.Search(disaggregated, &first_front);
  FinishPlan(spec, plan);
  return true;
}

CandidateResult SearchCandidate(const PlanSpec& spec, int i) {
  Plan plan;
  plan.results.resize(spec.candidates.size());
  Runner runner(spec, &plan);
  runner.Search({i}, nullptr);
  return plan.results[i];
}

std::string MetRate(const CandidateResult& r) {
  return r.status == CandidateResult::kStopped
             ? absl::StrCat("at least ", report::FormatShortest(r.search.answer), " req/s, stopped early")
             : absl::StrCat("up to ", report::FormatShortest(r.rate), " req/s");
}

void FinishPlan(const PlanSpec& spec, Plan* plan) {
  plan->front.clear();
  plan->min_gpus = -1;
  for (CandidateResult& r : plan->results) r.on_front = false;
  const std::vector<int> ok = OkOnes(spec, *plan, -1);
  for (int k : Front(Points(*plan, ok))) {
    plan->front.push_back(ok[k]);
    plan->results[ok[k]].on_front = true;
  }
  plan->ranked = ok;
  std::stable_sort(plan->ranked.begin(), plan->ranked.end(), [&](int a, int b) {
    return plan->results[a].tokens_per_gpu.value > plan->results[b].tokens_per_gpu.value;
  });
  if (spec.target_rate > 0) {
    // The candidates that meet the target: those searched to the end, at
    // their answer, and those stopped early at a rate that passed it (the
    // ranked ones first, so that of equal GPUs a searched one is named).
    std::vector<int> meets = plan->ranked;
    for (int i = 0; i < static_cast<int>(plan->results.size()); ++i) {
      if (plan->results[i].status == CandidateResult::kStopped) meets.push_back(i);
    }
    for (int i : meets) {
      const CandidateResult& r = plan->results[i];
      const double rate = r.status == CandidateResult::kStopped ? r.search.answer : r.rate;
      if (rate < spec.target_rate) continue;
      if (plan->min_gpus < 0 || spec.candidates[i].Gpus() < spec.candidates[plan->min_gpus].Gpus()) {
        plan->min_gpus = i;
      }
    }
  }
}

}  // namespace serq::plan
