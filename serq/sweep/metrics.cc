#include "serq/sweep/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "stats/format.h"
#include "serq-report/model.h"
#include "serq-report/steady_state.h"
#include "stats/stats.h"
#include "ir/walk.h"

namespace serq {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool IsName(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(s[0])) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// The half-width over per-group estimates (Student t), or infinite when
// there are fewer than two or the spread is not a number.
double HalfWidthOf(const std::vector<double>& estimates) {
  if (estimates.size() < 2) return kInf;
  std::optional<double> h = report::HalfWidth95(estimates);
  return h && !std::isnan(*h) ? *h : kInf;
}

double Quantile(std::vector<double> samples, double q) {
  return report::SelectQuantiles(absl::MakeSpan(samples), {q})[0];
}

// A replication's samples of an observation, and their sum: the samples
// kept, or past 2^20 of them the summary's count and sum.
double Count(const results::Observation& o) {
  return o.sample().empty() ? static_cast<double>(o.count()) : o.sample_size();
}
double Sum(const results::Observation& o) {
  if (o.sample().empty()) return o.sum();
  double sum = 0;
  for (double x : o.sample()) sum += x;  // in recording order, as serq-report adds them
  return sum;
}

}  // namespace

int FigureDecimals(double half_width, int otherwise) {
  if (!std::isfinite(half_width) || !(half_width > 0)) return otherwise;
  // Two significant digits of the half-width: 9.88 is 9.9 (1 decimal),
  // 0.0341 is 0.034 (3), 34.4 is 34 (0); the figure goes to the same.
  return std::clamp(1 - static_cast<int>(std::floor(std::log10(half_width))), 0, 4);
}

std::pair<std::string, std::string> FigureCells(const Figure& f) {
  if (!f.defined) return {"-", "-"};
  const int decimals = FigureDecimals(f.half_width, 4);
  return {report::FormatFixed(f.value, decimals), report::FormatFixed(f.half_width, decimals)};
}

absl::StatusOr<Metric> ParseMetric(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (auto t = report::ParseThroughputFigure(text)) {
    Metric m;
    m.kind = Metric::kThroughput;
    m.throughput = *t;
    m.label = std::string(text);
    return m;
  }
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("bad figure '", text, "': ", why));
  };
  size_t open = text.find('(');
  if (open == absl::string_view::npos || !absl::EndsWith(text, ")")) {
    return bad("expected mean(x), pNN(x), rate(x) or goodput(x) of an observation x, or one of " +
               report::ThroughputFigureWords());
  }
  absl::string_view fn = text.substr(0, open);
  absl::string_view name = absl::StripAsciiWhitespace(text.substr(open + 1, text.size() - open - 2));
  if (!IsName(name)) return bad("expected the name of an observation inside the parentheses");
  Metric m;
  m.observation = std::string(name);
  if (fn == "mean") {
    m.kind = Metric::kMean;
  } else if (fn == "rate") {
    m.kind = Metric::kRate;
  } else if (fn == "goodput") {
    m.kind = Metric::kGoodput;
  } else if (fn.size() > 1 && fn[0] == 'p' && absl::ascii_isdigit(fn[1])) {
    double p = 0;
    if (!absl::SimpleAtod(fn.substr(1), &p) || !(p > 0 && p < 100)) {
      return bad("a quantile is p followed by a percentage strictly between 0 and 100, e.g. p99");
    }
    m.kind = Metric::kQuantile;
    m.percent = p;
  } else {
    return bad(absl::StrCat("unknown function '", fn, "' (expected mean, pNN, rate or goodput)"));
  }
  // The label is the figure's one spelling (p50.0 and p050 are p50), so
  // that a figure listed twice is found, and --chart, --slo and --metrics
  // name one column.
  std::string spelled(fn);
  if (m.kind == Metric::kQuantile) {
    char digits[32];
    // Fixed, not scientific: p0.0001 stays p0.0001 (shortest is 1e-04,
    // which --slo's figures could not be written as).
    const auto end = std::to_chars(digits, digits + sizeof digits, m.percent, std::chars_format::fixed).ptr;
    spelled = absl::StrCat("p", absl::string_view(digits, end - digits));
  }
  m.label = absl::StrCat(spelled, "(", name, ")");
  return m;
}

absl::StatusOr<std::vector<Metric>> ParseMetrics(absl::string_view list) {
  std::vector<Metric> metrics;
  std::set<std::string> seen;
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    auto m = ParseMetric(part);
    if (!m.ok()) return m.status();
    if (!seen.insert(m->label).second) {
      return absl::InvalidArgumentError(absl::StrCat("'", m->label, "' is listed twice"));
    }
    metrics.push_back(*std::move(m));
  }
  return metrics;
}

Health ComputeHealth(const report::MergedResults& merged) {
  Health h;
  const report::SteadyState steady = report::JudgeSteadyState(merged);
  h.verdict = steady.verdict();
  h.replications = static_cast<uint32_t>(merged.replications.size());
  h.flagged = steady.replications_flagged();
  for (const results::Replication* rep : merged.replications) {
    for (const results::SessionStats& s : rep->session()) {
      h.in_progress += s.in_progress();
      h.seen += s.in_progress() + s.ended_window();
    }
  }
  h.in_progress_share = h.seen == 0 ? 0 : static_cast<double>(h.in_progress) / static_cast<double>(h.seen);
  return h;
}

std::string VerdictWord(report::SteadyState::Verdict verdict) {
  if (verdict == report::SteadyState::VERDICT_UNSPECIFIED) return "UNASSESSED";
  return report::SteadyState::Verdict_Name(verdict);
}

bool Settled(report::SteadyState::Verdict verdict) {
  return verdict != report::SteadyState::OVERLOADED && verdict != report::SteadyState::BACKLOGGED &&
         verdict != report::SteadyState::UNSETTLED;
}

std::vector<Metric> DefaultMetrics(const report::MergedResults& merged) {
  std::set<std::string> names;
  for (const results::Replication* rep : merged.replications) {
    for (const results::Observation& o : rep->observation()) names.insert(o.name());
  }
  std::vector<Metric> metrics;
  for (const std::string& n : names) {
    metrics.push_back(*ParseMetric(absl::StrCat("mean(", n, ")")));
    metrics.push_back(*ParseMetric(absl::StrCat("p99(", n, ")")));
  }
  // vLLM's throughputs (docs/report.md §Throughput), those the results
  // can give: tokens when a prefill or decode run completed, per GPU when
  // the program states its GPUs.
  report::Report whole = report::BuildReport(merged, {});
  for (absl::string_view word : {"request_throughput", "output_throughput", "total_token_throughput"}) {
    for (bool per_gpu : {false, true}) {
      std::string label = per_gpu ? absl::StrCat(word, "_per_gpu") : std::string(word);
      Metric m = *ParseMetric(label);
      if (report::ThroughputValue(whole, m.throughput)) metrics.push_back(m);
    }
  }
  return metrics;
}

std::vector<std::string> ProgramObservations(const ir::Program& program) {
  std::set<std::string> names;
  ForEachStatement(program, [&](const ir::Statement& s, const std::string&) {
    if (s.has_observe()) names.insert(s.observe().name());
    if (s.has_run() && !s.run().observe().empty()) names.insert(s.run().observe());
  });
  return {names.begin(), names.end()};
}

absl::Status CheckObserved(const std::vector<Metric>& metrics,
                           const std::vector<std::string>& observations) {
  for (const Metric& m : metrics) {
    if (m.kind == Metric::kThroughput) continue;
    if (std::find(observations.begin(), observations.end(), m.observation) != observations.end()) continue;
    std::vector<std::string> quoted;
    for (const std::string& n : observations) quoted.push_back(absl::StrCat("'", n, "'"));
    return absl::InvalidArgumentError(absl::StrCat(
        m.label, ": the program observes no '", m.observation, "' (",
        quoted.empty() ? "it observes nothing" : absl::StrCat("it observes ", absl::StrJoin(quoted, ", ")),
        ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Figure>> ComputeFigures(const report::MergedResults& merged,
                                                   const std::vector<Metric>& metrics) {
  // Each observation's samples, replication by replication.
  std::map<std::string, std::vector<const results::Observation*>> by_name;
  for (const results::Replication* rep : merged.replications) {
    for (const results::Observation& o : rep->observation()) by_name[o.name()].push_back(&o);
  }
  std::vector<double> quantiles;
  for (const Metric& m : metrics) {
    if (m.kind == Metric::kQuantile) quantiles.push_back(m.percent);
    if (m.kind == Metric::kThroughput) continue;
    if (by_name.count(m.observation) == 0) {
      std::vector<std::string> names;
      for (const auto& [n, obs] : by_name) names.push_back(absl::StrCat("'", n, "'"));
      return absl::NotFoundError(absl::StrCat(
          "no observation '", m.observation, "' in the results (",
          names.empty() ? "there is none" : absl::StrCat("there are ", absl::StrJoin(names, ", ")),
          ")"));
    }
  }
  report::Report rep = report::BuildReport(merged, quantiles);
  std::vector<Figure> figures;
  int quantile_column = 0;
  for (const Metric& m : metrics) {
    Figure f;
    const report::Observation* o = nullptr;
    for (const report::Observation& x : rep.observation()) {
      if (x.name() == m.observation) o = &x;
    }
    const auto& obs = by_name[m.observation];
    switch (m.kind) {
      case Metric::kThroughput: {
        // The report's figure; its interval over the replications' own.
        std::optional<double> value = report::ThroughputValue(rep, m.throughput);
        if (!value) break;
        std::vector<double> per_replication;
        for (const std::optional<double>& v : report::ThroughputByReplication(merged, m.throughput)) {
          per_replication.push_back(v.value_or(0));
        }
        f.defined = true;
        f.value = *value;
        f.half_width = HalfWidthOf(per_replication);
        break;
      }
      case Metric::kMean:
        if (o != nullptr && o->has_mean()) {
          f.defined = true;
          f.value = o->mean();
          f.half_width = o->has_half_width() ? o->half_width() : kInf;
        }
        break;
      case Metric::kQuantile: {
        int column = quantile_column++;
        if (o == nullptr || o->quantile_size() <= column) break;
        f.defined = true;
        f.value = o->quantile(column);
        if (o->quantile_half_width_size() > column) {
          // Two replications or more: serq-report's interval.
          f.half_width = o->quantile_half_width(column);
          break;
        }
        std::vector<double> estimates;
        const results::Observation* only = nullptr;
        for (const results::Observation* x : obs) {
          if (x->sample().empty()) continue;
          only = x;
          estimates.push_back(Quantile({x->sample().begin(), x->sample().end()}, m.percent / 100));
        }
        if (estimates.size() == 1 && only->sample_size() >= static_cast<int>(report::kMinBatchSamples)) {
          // One replication: the quantiles of 10 batches of consecutive
          // samples, the earliest n mod 10 left out as BatchMeans does.
          estimates.clear();
          const int n = only->sample_size();
          const int size = n / report::kBatches;
          const int skip = n - size * report::kBatches;
          for (int b = 0; b < report::kBatches; ++b) {
            auto begin = only->sample().begin() + skip + b * size;
            estimates.push_back(Quantile({begin, begin + size}, m.percent / 100));
          }
        }
        f.half_width = HalfWidthOf(estimates);
        break;
      }
      case Metric::kRate:
      case Metric::kGoodput: {
        // The value is serq-report's: the samples (or their sum) over the
        // replications' windows pooled, each [warmup, horizon], or [warmup,
        // its end] in a run without a horizon (MergedResults::Window). The
        // interval is over the replications' own figures, each over its
        // window, those without a sample 0 a second; a replication of no
        // window (a run without a horizon that ended by its warmup)
        // measured nothing and has no figure.
        const bool rate = m.kind == Metric::kRate;
        std::vector<double> per_second;
        double samples = 0, seconds = 0;
        for (const results::Replication* r : merged.replications) {
          const double window = merged.Window(*r);
          double n = 0;
          for (const results::Observation& x : r->observation()) {
            if (x.name() == m.observation) n = rate ? Count(x) : Sum(x);
          }
          if (!(window > 0)) continue;
          samples += n;
          seconds += window;
          per_second.push_back(n / window);
        }
        if (!(seconds > 0)) break;
        f.defined = true;
        if (rate && o != nullptr && o->has_rate()) {
          f.value = o->rate();
        } else if (!rate && o != nullptr && o->has_sum_rate()) {
          f.value = o->sum_rate();
        } else {
          f.value = samples / seconds;
        }
        f.half_width = HalfWidthOf(per_second);
        break;
      }
    }
    figures.push_back(f);
  }
  return figures;
}

}  // namespace serq
