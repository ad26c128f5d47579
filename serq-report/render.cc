#include "serq-report/render.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/io.h"
#include "stats/format.h"
#include "serq-report/headline.h"
#include "serq-report/steady_state.h"
#include "serq-report/throughput.h"
#include "serq-report/table.h"

namespace serq::report {
namespace {

constexpr char kUndefined[] = "-";
constexpr char kSharedNote[] =
    "* shared stage: util is the time-average of the sum of its flows' rates / phi";
constexpr char kStepNote[] =
    "step: util is the time in a step, not headroom; seq fill = jobs/step / seqs, "
    "token fill = tokens/step / tokens";

std::string QuantileLabel(double q) { return absl::StrCat("p", FormatShortest(q)); }

std::string RunLine(const Report& r) {
  std::vector<std::string> seeds;
  for (uint64_t s : r.seed()) seeds.push_back(absl::StrCat(s));
  // A run without a horizon says where it ended instead.
  // The end to 4 decimals, as the tables print times (json and csv keep
  // every digit): `65.3433`, not `65.343347205960882`.
  std::string span = r.drained() ? absl::StrCat("no horizon, ran to its last event at ",
                                                FormatShortest(std::round(r.end() * 1e4) / 1e4))
                                 : absl::StrCat("horizon ", FormatShortest(r.horizon()));
  return absl::StrCat(r.program().empty() ? "(unnamed program)" : r.program(),
                      ": ", span, ", warmup ",
                      FormatShortest(r.warmup()), ", ", r.replications(),
                      r.replications() == 1 ? " replication" : " replications",
                      seeds.size() == 1 ? ", seed " : ", seeds ", absl::StrJoin(seeds, ", "));
}

// Fixed decimals, or `-` when the figure is undefined.
std::string Fixed(bool has, double x, int decimals) {
  return has ? FormatFixed(x, decimals) : kUndefined;
}

// The tables text and markdown share; `markdown` escapes what markdown
// would read.
struct Tables {
  std::vector<Table> tables;  // observe, stage, pool, cache, session
  bool shared = false;        // a stage is marked shared
  bool steps = false;         // a step stage: its columns and note
  std::vector<std::string> sketched;  // observations whose quantiles come from a sketch
  double sketch_error = 0;
};

Tables MakeTables(const Report& r, bool markdown) {
  auto name = [&](absl::string_view text) {
    return markdown ? EscapeMarkdown(text) : std::string(text);
  };
  Tables out;

  // The minimum widths are those of the example in docs/report.md §observe, so its
  // row prints exactly as there.
  // One replication of a run without a horizon has no interval (its
  // figures are the whole finite workload's): no column for one.
  const bool intervals = !(r.drained() && r.replications() == 1);
  std::vector<Column> columns = {{"observe", Align::kLeft, 7},
                                 {"n", Align::kRight, 5},
                                 {"mean", Align::kRight, 6}};
  if (intervals) columns.push_back({"±95%", Align::kRight, 6});
  columns.push_back({"std", Align::kRight, 5});
  for (double q : r.quantile()) columns.push_back({QuantileLabel(q), Align::kRight, 6});
  // Throughput after the quantiles, so the first program's row (docs/language.md
  // §1) stays the start of its line; the sums only in markdown (text keeps to what
  // a terminal holds; csv and json carry them too).
  columns.push_back({"rate/s"});
  if (markdown) columns.insert(columns.end(), {{"sum"}, {"sum/s"}});
  Table observe(columns);
  for (const Observation& o : r.observation()) {
    std::vector<std::string> row = {name(o.name()), absl::StrCat(o.n()),
                                    Fixed(o.has_mean(), o.mean(), 4)};
    if (intervals) {
      row.push_back(o.has_half_width() ? absl::StrCat("±", FormatFixed(o.half_width(), 4))
                                       : std::string(kUndefined));
    }
    row.push_back(Fixed(o.has_std(), o.std(), 3));
    for (int q = 0; q < r.quantile_size(); ++q) {
      row.push_back(Fixed(q < o.quantile_size(), q < o.quantile_size() ? o.quantile(q) : 0, 4));
    }
    row.push_back(Fixed(o.has_rate(), o.rate(), 4));
    if (markdown) {
      row.push_back(Fixed(o.has_sum(), o.sum(), 4));
      row.push_back(Fixed(o.has_sum_rate(), o.sum_rate(), 4));
    }
    observe.AddRow(std::move(row));
  }
  for (const Observation& o : r.observation()) {
    if (o.has_quantile_relative_error()) out.sketched.push_back(o.name());
  }
  if (!out.sketched.empty()) {
    out.sketch_error = r.observation(0).quantile_relative_error();
    for (const Observation& o : r.observation()) {
      if (o.has_quantile_relative_error()) out.sketch_error = o.quantile_relative_error();
    }
  }
  out.tables.push_back(std::move(observe));

  bool steps = false;
  for (const Stage& s : r.stage()) steps |= s.kind() == "step";
  columns = {{"stage", Align::kLeft},   {"kind", Align::kLeft}, {"present"},
             {"util"},                  {"done"},               {"service"},
             {"wait"}};
  out.steps = steps;
  if (steps) {
    columns.insert(columns.end(), {{"steps"}, {"jobs/step"}, {"tokens/step"}});
    columns.insert(columns.end(), {{"seq fill"}, {"token fill"}});
  }
  // Preemption's columns only when a stage preempted (IR 9).
  bool preempts = false;
  for (const Stage& s : r.stage()) preempts |= s.has_preempted();
  if (preempts) columns.insert(columns.end(), {{"preempted"}, {"recomputed"}});
  Table stage(columns);
  for (const Stage& s : r.stage()) {
    out.shared |= s.shared();
    std::vector<std::string> row = {
        name(s.name()),
        name(absl::StrCat(s.kind(), s.shared() ? "*" : "")),
        FormatFixed(s.mean_present(), 4),
        Fixed(s.has_utilisation(), s.utilisation(), 4),
        absl::StrCat(s.done()),
        Fixed(s.has_mean_service(), s.mean_service(), 4),
        Fixed(s.has_mean_wait(), s.mean_wait(), 4)};
    if (steps) {
      row.push_back(s.has_steps() ? absl::StrCat(s.steps()) : kUndefined);
      row.push_back(Fixed(s.has_mean_batch_jobs(), s.mean_batch_jobs(), 4));
      row.push_back(Fixed(s.has_mean_batch_tokens(), s.mean_batch_tokens(), 4));
      row.push_back(Fixed(s.has_seqs_fill(), s.seqs_fill(), 4));
      row.push_back(Fixed(s.has_tokens_fill(), s.tokens_fill(), 4));
    }
    if (preempts) {
      bool step = s.kind() == "step";
      row.push_back(step ? absl::StrCat(s.preempted()) : kUndefined);
      row.push_back(step ? absl::StrCat(s.recomputed()) : kUndefined);
    }
    stage.AddRow(std::move(row));
  }
  out.tables.push_back(std::move(stage));

  // The stalls' column only when a pool had one, as preemption's.
  bool stalls = false;
  for (const Pool& p : r.pool()) stalls |= p.has_stalls();
  columns = {{"pool", Align::kLeft}, {"cap"},  {"used"},    {"max"},    {"loaded"},
             {"admitted"},           {"wait"}, {"evicted"}, {"expired"}};
  if (stalls) columns.push_back({"stalls"});
  Table pool(columns);
  for (const Pool& p : r.pool()) {
    std::vector<std::string> row = {
        name(p.name()),          FormatShortest(p.cap()),
        FormatFixed(p.mean_used(), 4), FormatFixed(p.max_used(), 4),
        FormatFixed(p.mean_loaded(), 4), absl::StrCat(p.admitted()),
        Fixed(p.has_mean_wait(), p.mean_wait(), 4), absl::StrCat(p.evicted()),
        absl::StrCat(p.expired())};
    if (stalls) row.push_back(absl::StrCat(p.stalls()));
    pool.AddRow(std::move(row));
  }
  out.tables.push_back(std::move(pool));

  // Only with a cache pool (an empty table is not printed).
  Table cache({{"cache", Align::kLeft},
               {"block"},
               {"lookups"},
               {"hit rate"},
               {"evictable"},
               {"evicted"}});
  for (const Cache& c : r.cache()) {
    cache.AddRow({name(c.name()), FormatShortest(c.block()), absl::StrCat(c.lookups()),
                  Fixed(c.has_hit_rate(), c.hit_rate(), 4), FormatFixed(c.mean_evictable(), 4),
                  absl::StrCat(c.blocks_evicted())});
  }
  out.tables.push_back(std::move(cache));

  Table session({{"session", Align::kLeft},
                 {"arrived"},
                 {"ended"},
                 {"in progress"},
                 {"arrived in window"},
                 {"ended in window"}});
  for (const Session& s : r.session()) {
    session.AddRow({s.name().empty() ? "(unnamed)" : name(s.name()), absl::StrCat(s.arrived()),
                    absl::StrCat(s.ended()), absl::StrCat(s.in_progress()),
                    s.has_arrived_window() ? absl::StrCat(s.arrived_window()) : kUndefined,
                    s.has_ended_window() ? absl::StrCat(s.ended_window()) : kUndefined});
  }
  out.tables.push_back(std::move(session));
  return out;
}

std::string Render(const Report& r, bool markdown) {
  std::string out = markdown ? EscapeMarkdown(RunLine(r)) : RunLine(r);
  out += "\n";
  // What binds first, under the run line (in markdown, paragraphs).
  for (const std::string& line : HeadlineLines(r)) {
    absl::StrAppend(&out, markdown ? "\n" : "", markdown ? EscapeMarkdown(line) : line, "\n");
  }
  if (std::string line = ThroughputLine(r); !line.empty()) {
    absl::StrAppend(&out, markdown ? "\n" : "", markdown ? EscapeMarkdown(line) : line, "\n");
  }
  Tables tables = MakeTables(r, markdown);
  for (size_t i = 0; i < tables.tables.size(); ++i) {
    const Table& t = tables.tables[i];
    if (t.empty()) continue;
    absl::StrAppend(&out, "\n", markdown ? t.RenderMarkdown() : t.RenderText());
    if (i == 0 && !tables.sketched.empty()) {
      std::string note = absl::StrCat(
          "quantiles of ", absl::StrJoin(tables.sketched, ", "), ": from a sketch, within ",
          FormatShortest(tables.sketch_error * 100), "% of the exact ones");
      absl::StrAppend(&out, markdown ? "\n" : "", markdown ? EscapeMarkdown(note) : note, "\n");
    }
    if (i == 1 && tables.shared) {
      absl::StrAppend(&out, markdown ? "\n" : "", markdown ? EscapeMarkdown(kSharedNote) : kSharedNote,
                      "\n");
    }
    if (i == 1 && tables.steps) {
      absl::StrAppend(&out, markdown ? "\n" : "", markdown ? EscapeMarkdown(kStepNote) : kStepNote,
                      "\n");
    }
  }
  // Under the tables, never silently: a run that did not settle.
  std::vector<std::string> steady = SteadyStateLines(r);
  if (!steady.empty()) {
    out += "\n";
    for (size_t i = 0; i < steady.size(); ++i) {
      // In markdown each line is a paragraph of its own.
      if (markdown && i > 0) out += "\n";
      absl::StrAppend(&out, markdown ? EscapeMarkdown(steady[i]) : steady[i], "\n");
    }
  }
  return out;
}

void CsvRow(std::string* out, const std::vector<std::string>& cells) {
  std::vector<std::string> fields;
  for (const std::string& c : cells) fields.push_back(CsvField(c));
  absl::StrAppend(out, absl::StrJoin(fields, ","), "\n");
}

std::string Full(bool has, double x) { return has ? FormatShortest(x) : ""; }
std::string Count(bool has, uint64_t n) { return has ? absl::StrCat(n) : ""; }

}  // namespace

std::string RenderText(const Report& report) { return Render(report, false); }

std::string RenderMarkdown(const Report& report) { return Render(report, true); }

std::string RenderCsv(const Report& r) {
  std::string out;
  std::vector<std::string> seeds;
  for (uint64_t s : r.seed()) seeds.push_back(absl::StrCat(s));
  CsvRow(&out, {"program", "horizon", "warmup", "replications", "seeds"});
  // A run without a horizon (drained) leaves its cell empty.
  CsvRow(&out, {r.program(), r.has_horizon() ? FormatShortest(r.horizon()) : "",
                FormatShortest(r.warmup()),
                absl::StrCat(r.replications()), absl::StrJoin(seeds, " ")});

  // vLLM's throughputs, and per GPU when the program states its GPUs
  // (docs/report.md §Throughput): one row a figure.
  out += "\n";
  CsvRow(&out, {"throughput", "count", "rate", "gpus", "rate_per_gpu"});
  if (r.has_throughput()) {
    const Throughput& t = r.throughput();
    std::string gpus = t.has_gpus() ? absl::StrCat(t.gpus()) : "";
    if (t.has_request_rate()) {
      CsvRow(&out, {"requests", absl::StrCat(t.requests()), FormatShortest(t.request_rate()), gpus,
                    Full(t.has_request_rate_per_gpu(), t.request_rate_per_gpu())});
    }
    if (t.has_output_token_rate()) {
      CsvRow(&out, {"output_tokens", FormatShortest(t.output_tokens()),
                    FormatShortest(t.output_token_rate()), gpus,
                    Full(t.has_output_token_rate_per_gpu(), t.output_token_rate_per_gpu())});
      CsvRow(&out, {"total_tokens", FormatShortest(t.prompt_tokens() + t.output_tokens()),
                    FormatShortest(t.total_token_rate()), gpus,
                    Full(t.has_total_token_rate_per_gpu(), t.total_token_rate_per_gpu())});
    }
  }

  out += "\n";
  std::vector<std::string> header = {"observe", "n",    "mean", "half_width", "interval",
                                     "std",     "rate", "sum",  "sum_rate"};
  // Each quantile, then its half-width across replications.
  for (double q : r.quantile()) {
    header.push_back(QuantileLabel(q));
    header.push_back(absl::StrCat(QuantileLabel(q), "_half_width"));
  }
  CsvRow(&out, header);
  for (const Observation& o : r.observation()) {
    std::string interval;
    switch (o.interval()) {
      case Observation::REPLICATIONS: interval = "replications"; break;
      case Observation::BATCH_MEANS: interval = "batch_means"; break;
      case Observation::NONE: interval = "none"; break;
      default: break;
    }
    std::vector<std::string> row = {o.name(), absl::StrCat(o.n()), Full(o.has_mean(), o.mean()),
                                    Full(o.has_half_width(), o.half_width()),
                                    o.has_interval() ? interval : "", Full(o.has_std(), o.std()),
                                    Full(o.has_rate(), o.rate()), Full(o.has_sum(), o.sum()),
                                    Full(o.has_sum_rate(), o.sum_rate())};
    for (int q = 0; q < r.quantile_size(); ++q) {
      row.push_back(q < o.quantile_size() ? FormatShortest(o.quantile(q)) : "");
      row.push_back(q < o.quantile_half_width_size() ? FormatShortest(o.quantile_half_width(q))
                                                      : "");
    }
    CsvRow(&out, row);
  }

  out += "\n";
  bool preempts = false;
  for (const Stage& s : r.stage()) preempts |= s.has_preempted();
  std::vector<std::string> stage_header = {
      "stage",        "kind",          "shared",         "mean_present",      "utilisation",
      "done",         "mean_service",  "waited",         "mean_wait",         "steps",
      "mean_batch_jobs", "mean_batch_tokens", "seqs_budget", "tokens_budget", "seqs_fill",
      "tokens_fill"};
  if (preempts) stage_header.insert(stage_header.end(), {"preempted", "recomputed"});
  CsvRow(&out, stage_header);
  for (const Stage& s : r.stage()) {
    std::vector<std::string> row = {
        s.name(), s.kind(), s.shared() ? "true" : "false",
        FormatShortest(s.mean_present()), Full(s.has_utilisation(), s.utilisation()),
        absl::StrCat(s.done()), Full(s.has_mean_service(), s.mean_service()),
        Count(s.has_waited(), s.waited()), Full(s.has_mean_wait(), s.mean_wait()),
        Count(s.has_steps(), s.steps()),
        Full(s.has_mean_batch_jobs(), s.mean_batch_jobs()),
        Full(s.has_mean_batch_tokens(), s.mean_batch_tokens()),
        Full(s.has_seqs_budget(), s.seqs_budget()),
        Full(s.has_tokens_budget(), s.tokens_budget()),
        Full(s.has_seqs_fill(), s.seqs_fill()),
        Full(s.has_tokens_fill(), s.tokens_fill())};
    if (preempts) {
      bool step = s.kind() == "step";
      row.push_back(step ? absl::StrCat(s.preempted()) : "");
      row.push_back(step ? absl::StrCat(s.recomputed()) : "");
    }
    CsvRow(&out, row);
  }

  out += "\n";
  bool stalls = false;
  for (const Pool& p : r.pool()) stalls |= p.has_stalls();
  std::vector<std::string> pool_header = {"pool",     "cap",       "mean_used", "max_used",
                                          "mean_loaded", "admitted", "mean_wait", "evicted",
                                          "expired"};
  if (stalls) pool_header.push_back("stalls");
  CsvRow(&out, pool_header);
  for (const Pool& p : r.pool()) {
    std::vector<std::string> row = {p.name(), FormatShortest(p.cap()),
                                    FormatShortest(p.mean_used()), FormatShortest(p.max_used()),
                                    FormatShortest(p.mean_loaded()), absl::StrCat(p.admitted()),
                                    Full(p.has_mean_wait(), p.mean_wait()),
                                    absl::StrCat(p.evicted()), absl::StrCat(p.expired())};
    if (stalls) row.push_back(absl::StrCat(p.stalls()));
    CsvRow(&out, row);
  }

  if (r.cache_size() > 0) {
    out += "\n";
    CsvRow(&out, {"cache", "block", "lookups", "lookup_tokens", "hit_tokens", "hit_rate",
                  "mean_evictable", "blocks_evicted"});
    for (const Cache& c : r.cache()) {
      CsvRow(&out, {c.name(), FormatShortest(c.block()), absl::StrCat(c.lookups()),
                    FormatShortest(c.lookup_tokens()), FormatShortest(c.hit_tokens()),
                    Full(c.has_hit_rate(), c.hit_rate()), FormatShortest(c.mean_evictable()),
                    absl::StrCat(c.blocks_evicted())});
    }
  }

  out += "\n";
  CsvRow(&out, {"session", "arrived", "ended", "in_progress", "arrived_window", "ended_window"});
  for (const Session& s : r.session()) {
    CsvRow(&out, {s.name(), absl::StrCat(s.arrived()), absl::StrCat(s.ended()),
                  absl::StrCat(s.in_progress()), Count(s.has_arrived_window(), s.arrived_window()),
                  Count(s.has_ended_window(), s.ended_window())});
  }

  out += "\n";
  CsvRow(&out, {"steady_state", "replications_flagged"});
  if (r.has_steady_state() && r.steady_state().has_verdict()) {
    const SteadyState& s = r.steady_state();
    CsvRow(&out, {SteadyState::Verdict_Name(s.verdict()),
                  Count(s.has_replications_flagged(), s.replications_flagged())});
  }
  return out;
}

std::string RenderJson(const Report& report) { return EncodeMessage(report, Format::kJson); }

}  // namespace serq::report
