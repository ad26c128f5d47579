#include "serq-report/html_tables.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "chart/xml.h"
#include "stats/format.h"

namespace serq::report {
namespace {

using view::XmlEscape;

struct Cell {
  std::string text;
  std::string title;  // the full value, when the text rounds it
  bool number = false;
};

struct Table {
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};

// One csv section: its header and rows, read by column name.
struct Section {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int Column(absl::string_view name) const {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : int(it - header.begin());
  }
  std::string Get(size_t row, absl::string_view name) const {
    int c = Column(name);
    return c < 0 || size_t(c) >= rows[row].size() ? std::string() : rows[row][c];
  }
};

bool ParseNumber(const std::string& text, double* v) {
  return !text.empty() && absl::SimpleAtod(text, v) && !std::isnan(*v);
}

// Thousands separators in the whole part of a fixed-notation number.
std::string Group(const std::string& fixed) {
  size_t start = fixed[0] == '-' ? 1 : 0;
  size_t point = fixed.find('.');
  if (point == std::string::npos) point = fixed.size();
  std::string out = fixed.substr(0, start);
  for (size_t i = start; i < point; ++i) {
    out += fixed[i];
    size_t left = point - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + fixed.substr(point);
}

// A figure's cell: `scale` converts it (1000: seconds to milliseconds);
// the tooltip keeps the csv's full value when the text rounds it.
Cell Number(const std::string& csv, double scale = 1, absl::string_view unit = "") {
  double v;
  if (!ParseNumber(csv, &v)) return {csv, "", false};
  std::string text = ReadableNumber(v * scale);
  std::string full = absl::StrCat(csv, unit.empty() ? "" : " ", unit);
  return {text, text == csv ? "" : full, true};
}

Cell Text(const std::string& text) { return {text, "", false}; }

// The name a person reads for a csv column; a column this table does not
// know keeps its csv name, its underscores as spaces, `_ms` as `(ms)`.
std::string Human(const std::string& column) {
  static const auto* names = new std::map<std::string, std::string>{
      {"program", "program"},
      {"horizon", "horizon (s)"},
      {"warmup", "warm-up (s)"},
      {"observe", "observation"},
      {"n", "samples"},
      {"half_width", "±95%"},
      {"interval", "interval from"},
      {"std", "std dev"},
      {"rate", "rate (/s)"},
      {"sum_rate", "sum (/s)"},
      {"mean_present", "jobs present (mean)"},
      {"utilisation", "util"},
      {"mean_service", "service"},
      {"waited", "started service"},
      {"mean_batch_jobs", "jobs / step"},
      {"mean_batch_tokens", "tokens / step"},
      {"seqs_budget", "seqs budget"},
      {"tokens_budget", "tokens budget"},
      {"seqs_fill", "seq fill"},
      {"tokens_fill", "token fill"},
      {"recomputed", "tokens recomputed"},
      {"mean_used", "used (mean)"},
      {"max_used", "used (peak)"},
      {"mean_loaded", "loaded (mean)"},
      {"admitted", "holds admitted"},
      {"evicted", "leases evicted"},
      {"expired", "leases expired"},
      {"block", "block (units)"},
      {"lookup_tokens", "looked-up tokens"},
      {"hit_tokens", "hit tokens"},
      {"hit_rate", "hit rate"},
      {"mean_evictable", "evictable (mean)"},
      {"blocks_evicted", "blocks evicted"},
      {"in_progress", "in progress at the end"},
      {"arrived_window", "arrived in window"},
      {"ended_window", "ended in window"},
      {"steady_state", "verdict"},
      {"replications_flagged", "replications flagged"},
  };
  auto it = names->find(column);
  if (it != names->end()) return it->second;
  absl::string_view base = column;
  bool ms = absl::ConsumeSuffix(&base, "_ms");
  std::string words(base);
  for (char& c : words) c = c == '_' ? ' ' : c;
  return ms ? absl::StrCat(words, " (ms)") : words;
}

// The unit for seconds `values` (csv cells): ms when every one is under a
// second, else s.
bool Milliseconds(const std::vector<std::string>& values) {
  for (const std::string& s : values) {
    double v;
    if (ParseNumber(s, &v) && !(std::fabs(v) < 1)) return false;
  }
  return true;
}

std::string WithUnit(const std::string& name, bool ms) {
  return absl::StrCat(name, ms ? " (ms)" : " (s)");
}

// The observe section: a table for the latencies under a second (in ms),
// one for the other latencies (in s), one for every other observation
// (in its own units, with its sums). A quantile's interval shares its cell.
std::vector<Table> ObserveTables(const Section& s, const IsTimeFn& is_time) {
  std::vector<std::string> quantiles;
  for (const std::string& h : s.header) {
    if (h.size() > 1 && h[0] == 'p' && !absl::EndsWith(h, "_half_width")) quantiles.push_back(h);
  }
  std::vector<size_t> fast, slow, other;
  for (size_t r = 0; r < s.rows.size(); ++r) {
    if (!is_time(s.Get(r, "observe"))) {
      other.push_back(r);
      continue;
    }
    std::vector<std::string> figures = {s.Get(r, "mean"), s.Get(r, "std")};
    for (const std::string& q : quantiles) figures.push_back(s.Get(r, q));
    (Milliseconds(figures) ? fast : slow).push_back(r);
  }
  std::vector<Table> tables;
  auto build = [&](const std::vector<size_t>& rows, const std::string& caption, double scale,
                   const std::string& unit) {
    if (rows.empty()) return;
    auto u = [&](const std::string& name) {
      return unit.empty() ? name : absl::StrCat(name, " (", unit, ")");
    };
    Table t;
    t.caption = caption;
    t.header = {"observation", "samples", u("mean"), u("±95%"), u("std dev")};
    for (const std::string& q : quantiles) t.header.push_back(u(q));
    t.header.push_back("rate (/s)");
    bool sums = unit.empty();
    if (sums) t.header.insert(t.header.end(), {"sum", "sum (/s)"});
    const std::string seconds = unit.empty() ? "" : "s";
    for (size_t r : rows) {
      std::vector<Cell> row = {Text(s.Get(r, "observe")), Number(s.Get(r, "n")),
                               Number(s.Get(r, "mean"), scale, seconds)};
      Cell hw = Number(s.Get(r, "half_width"), scale, seconds);
      if (hw.number) hw.text = absl::StrCat("±", hw.text);
      // Which rule gave the interval, in its tooltip.
      std::string interval = s.Get(r, "interval");
      if (!interval.empty()) {
        for (char& c : interval) c = c == '_' ? ' ' : c;
        hw.title = absl::StrCat(hw.title.empty() ? "" : hw.title + "; ", "from ", interval);
      }
      row.push_back(hw);
      row.push_back(Number(s.Get(r, "std"), scale, seconds));
      for (const std::string& q : quantiles) {
        Cell c = Number(s.Get(r, q), scale, seconds);
        Cell h = Number(s.Get(r, q + "_half_width"), scale, seconds);
        if (h.number) {
          c.text = absl::StrCat(c.text, " ± ", h.text);
          c.title = absl::StrCat(s.Get(r, q), " ± ", s.Get(r, q + "_half_width"),
                                 seconds.empty() ? "" : " s", " (95%)");
        }
        row.push_back(c);
      }
      row.push_back(Number(s.Get(r, "rate")));
      if (sums) {
        row.push_back(Number(s.Get(r, "sum")));
        row.push_back(Number(s.Get(r, "sum_rate")));
      }
      t.rows.push_back(std::move(row));
    }
    tables.push_back(std::move(t));
  };
  build(fast, "latencies under a second, in milliseconds", 1000, "ms");
  build(slow, "latencies, in seconds", 1, "s");
  build(other, (fast.empty() && slow.empty()) ? "" : "other observations, in their own units", 1,
        "");
  return tables;
}

// The stage section: every stage, then the step stages' batches.
std::vector<Table> StageTables(const Section& s) {
  std::vector<std::string> service, wait;
  for (size_t r = 0; r < s.rows.size(); ++r) {
    service.push_back(s.Get(r, "mean_service"));
    wait.push_back(s.Get(r, "mean_wait"));
  }
  bool service_ms = Milliseconds(service), wait_ms = Milliseconds(wait);
  Table all;
  all.header = {"stage", "kind", "jobs present (mean)", "util", "done", WithUnit("service", service_ms),
                "started service", WithUnit("wait", wait_ms)};
  Table steps;
  steps.caption = "step stages: util is the time in a step, not headroom; the fills are the "
                  "batches' share of the budgets";
  steps.header = {"stage", "steps", "jobs / step", "tokens / step", "seqs budget",
                  "tokens budget", "seq fill", "token fill", "busy (time in a step)"};
  bool preempts = s.Column("preempted") >= 0;
  if (preempts) steps.header.insert(steps.header.end(), {"preempted", "tokens recomputed"});
  for (size_t r = 0; r < s.rows.size(); ++r) {
    std::string kind = s.Get(r, "kind");
    all.rows.push_back({Text(s.Get(r, "stage")),
                        Text(s.Get(r, "shared") == "true" ? kind + " (shared)" : kind),
                        Number(s.Get(r, "mean_present")), Number(s.Get(r, "utilisation")),
                        Number(s.Get(r, "done")),
                        Number(s.Get(r, "mean_service"), service_ms ? 1000 : 1, "s"),
                        Number(s.Get(r, "waited")),
                        Number(s.Get(r, "mean_wait"), wait_ms ? 1000 : 1, "s")});
    if (kind != "step") continue;
    std::vector<Cell> row = {Text(s.Get(r, "stage"))};
    for (const char* c : {"steps", "mean_batch_jobs", "mean_batch_tokens", "seqs_budget",
                          "tokens_budget", "seqs_fill", "tokens_fill", "utilisation"}) {
      row.push_back(Number(s.Get(r, c)));
    }
    if (preempts) {
      row.push_back(Number(s.Get(r, "preempted")));
      row.push_back(Number(s.Get(r, "recomputed")));
    }
    steps.rows.push_back(std::move(row));
  }
  std::vector<Table> tables = {std::move(all)};
  if (!steps.rows.empty()) tables.push_back(std::move(steps));
  return tables;
}

// The pool section, with each pool's occupancy beside its units.
std::vector<Table> PoolTables(const Section& s) {
  std::vector<std::string> waits;
  for (size_t r = 0; r < s.rows.size(); ++r) waits.push_back(s.Get(r, "mean_wait"));
  bool ms = Milliseconds(waits);
  Table t;
  t.header = {"pool",       "cap",         "used (mean)",   "used / cap",
              "used (peak)", "peak / cap", "loaded (mean)", "holds admitted",
              WithUnit("admission wait", ms), "leases evicted", "leases expired"};
  bool stalls = s.Column("stalls") >= 0;
  if (stalls) t.header.push_back("stalls");
  for (size_t r = 0; r < s.rows.size(); ++r) {
    double cap = 0;
    bool finite = ParseNumber(s.Get(r, "cap"), &cap) && std::isfinite(cap) && cap > 0;
    auto share = [&](const std::string& units) {
      double v;
      if (!finite || !ParseNumber(units, &v)) return Text("-");
      return Number(FormatShortest(v / cap));
    };
    std::vector<Cell> row = {Text(s.Get(r, "pool")), Number(s.Get(r, "cap")),
                             Number(s.Get(r, "mean_used")), share(s.Get(r, "mean_used")),
                             Number(s.Get(r, "max_used")), share(s.Get(r, "max_used")),
                             Number(s.Get(r, "mean_loaded")), Number(s.Get(r, "admitted")),
                             Number(s.Get(r, "mean_wait"), ms ? 1000 : 1, "s"),
                             Number(s.Get(r, "evicted")), Number(s.Get(r, "expired"))};
    if (stalls) row.push_back(Number(s.Get(r, "stalls")));
    t.rows.push_back(std::move(row));
  }
  return {std::move(t)};
}

// Any other section: its columns by their human names.
std::vector<Table> GenericTables(const Section& s) {
  Table t;
  for (const std::string& h : s.header) t.header.push_back(Human(h));
  for (const std::vector<std::string>& csv_row : s.rows) {
    std::vector<Cell> row;
    for (size_t c = 0; c < csv_row.size(); ++c) {
      // The first column names the row, whatever it holds.
      row.push_back(c == 0 ? Text(csv_row[c]) : Number(csv_row[c]));
    }
    t.rows.push_back(std::move(row));
  }
  return {std::move(t)};
}

// A table of more than kMaxHtmlColumns columns as several, each with the
// first column (the row's name) and the next columns in order, the parts
// as even as they can be (no part of one lone column).
std::vector<Table> Split(Table t) {
  if (int(t.header.size()) <= kMaxHtmlColumns) return {std::move(t)};
  std::vector<Table> parts;
  size_t rest = t.header.size() - 1, most = kMaxHtmlColumns - 1;
  size_t count = (rest + most - 1) / most;
  size_t width = (rest + count - 1) / count;
  for (size_t from = 1; from < t.header.size(); from += width) {
    size_t to = std::min(t.header.size(), from + width);
    Table p;
    p.caption = parts.empty() ? t.caption : "(continued)";
    p.header = {t.header[0]};
    p.header.insert(p.header.end(), t.header.begin() + from, t.header.begin() + to);
    for (const std::vector<Cell>& row : t.rows) {
      std::vector<Cell> part = {row[0]};
      for (size_t c = from; c < to && c < row.size(); ++c) part.push_back(row[c]);
      p.rows.push_back(std::move(part));
    }
    parts.push_back(std::move(p));
  }
  return parts;
}

std::string Heading(const std::string& section) {
  if (section == "program") return "Run";
  if (section == "observe") return "Observations";
  if (section == "stage") return "Stages";
  if (section == "pool") return "Pools";
  if (section == "cache") return "Caches";
  if (section == "session") return "Sessions";
  // A section the report gained (steady_state), or another command's: its
  // words, capitalised.
  std::string words = section;
  for (char& c : words) c = c == '_' ? ' ' : c;
  if (!words.empty()) words[0] = absl::ascii_toupper(words[0]);
  return words;
}

std::string Render(const Table& t) {
  std::string out = "<div class=\"table\"><table>\n";
  if (!t.caption.empty()) absl::StrAppend(&out, "<caption>", XmlEscape(t.caption), "</caption>\n");
  absl::StrAppend(&out, "<tr>");
  for (const std::string& h : t.header) absl::StrAppend(&out, "<th>", XmlEscape(h), "</th>");
  absl::StrAppend(&out, "</tr>\n");
  for (const std::vector<Cell>& row : t.rows) {
    absl::StrAppend(&out, "<tr>");
    for (const Cell& c : row) {
      absl::StrAppend(&out, "<td", c.number ? " class=\"n\"" : "");
      if (!c.title.empty()) absl::StrAppend(&out, " title=\"", XmlEscape(c.title), "\"");
      absl::StrAppend(&out, ">", XmlEscape(c.text), "</td>");
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</table></div>\n");
  return out;
}

}  // namespace

// An observation is a latency when its name is one of serving's latency
// words, or ends in one after `_`: ttft, tpot, itl, e2e, e2el, latency,
// wait, delay, sojourn (case aside). Its figures are then seconds.
bool IsLatency(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (absl::string_view word :
       {"ttft", "tpot", "itl", "e2e", "e2el", "latency", "wait", "delay", "sojourn"}) {
    if (lower == word || absl::EndsWith(lower, absl::StrCat("_", word)) ||
        absl::StartsWith(lower, absl::StrCat(word, "_"))) {
      return true;
    }
  }
  return false;
}


std::string ReadableNumber(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::isnan(x)) return "-";
  double a = std::fabs(x);
  if (a < 1e-9) return "0";
  if (x == std::floor(x) && a < 1e15) return Group(absl::StrFormat("%.0f", x));
  // Four significant digits, at least one decimal beyond 1000.
  int magnitude = static_cast<int>(std::floor(std::log10(a)));
  int decimals = std::clamp(3 - magnitude, 1, 12);
  std::string s = absl::StrFormat("%.*f", decimals, x);
  // No trailing zeros (a rounded 2.5000 is 2.5), nor a bare point.
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return Group(s);
}

std::vector<std::string> SplitCsvLine(absl::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

IsTimeFn TimesOf(const results::Results& results) {
  std::set<std::string> times(results.time_observation().begin(), results.time_observation().end());
  return [times = std::move(times)](absl::string_view name) {
    return IsLatency(name) || times.count(std::string(name)) > 0;
  };
}

std::string TablesHtml(const std::string& csv, const IsTimeFn& is_time) {
  std::string out;
  for (absl::string_view text : absl::StrSplit(csv, "\n\n", absl::SkipWhitespace())) {
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
    if (lines.size() < 2) continue;  // a header without rows
    Section s;
    s.header = SplitCsvLine(lines[0]);
    for (size_t i = 1; i < lines.size(); ++i) s.rows.push_back(SplitCsvLine(lines[i]));
    const std::string& name = s.header[0];
    std::vector<Table> tables = name == "observe" ? ObserveTables(s, is_time)
                                : name == "stage" ? StageTables(s)
                                : name == "pool"  ? PoolTables(s)
                                                  : GenericTables(s);
    absl::StrAppend(&out, "<h2>", XmlEscape(Heading(name)), "</h2>\n");
    for (Table& t : tables) {
      for (const Table& part : Split(std::move(t))) absl::StrAppend(&out, Render(part));
    }
  }
  return out;
}

}  // namespace serq::report
