#include "serq-sim/output/trace_chrome.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/json.h"

namespace serq::sim {
namespace {

enum Process : uint32_t { kStages = 1, kSessions = 2, kPools = 3 };

std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}


}  // namespace

ChromeTrace::ChromeTrace(std::ostream* out, double horizon, const TraceSelect& select)
    : out_(out), horizon_(horizon), select_(select) {
  *out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
}

ChromeTrace::~ChromeTrace() = default;

// Microseconds to the nanosecond, without trailing zeros: 1.5 s is 1500000.
std::string ChromeTrace::Ts(double t) const {
  std::string s = absl::StrFormat("%.3f", t * 1e6);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

void ChromeTrace::Event(const std::string& json) {
  *out_ << (first_ ? "\n" : ",\n") << json;
  first_ = false;
}

// The log's lines are flat objects whose values are numbers, strings or
// null, as the engine writes them: "Infinity", "-Infinity" and "NaN" are
// numbers (ir/json.h); null is an older log's infinity.
absl::Status ChromeTrace::Parse(absl::string_view line, Fields* fields) {
  fields->clear();
  size_t i = 0;
  auto skip = [&] {
    while (i < line.size() && absl::ascii_isspace(line[i])) ++i;
  };
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " at column ", i + 1, " of the trace line '", line, "'"));
  };
  auto string = [&](std::string* out) -> bool {
    if (i >= line.size() || line[i] != '"') return false;
    ++i;
    while (i < line.size() && line[i] != '"') {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      *out += line[i++];
    }
    if (i >= line.size()) return false;
    ++i;
    return true;
  };
  skip();
  if (i >= line.size() || line[i] != '{') return bad("expected '{'");
  ++i;
  skip();
  if (i < line.size() && line[i] == '}') return absl::OkStatus();
  while (true) {
    skip();
    std::string key;
    if (!string(&key)) return bad("expected a field name");
    skip();
    if (i >= line.size() || line[i] != ':') return bad("expected ':'");
    ++i;
    skip();
    Value v;
    if (i < line.size() && line[i] == '"') {
      v.is_string = true;
      if (!string(&v.text)) return bad("unterminated string");
      // The numbers JSON has none for, as JsonNumber writes them.
      if (v.text == "Infinity" || v.text == "-Infinity" || v.text == "NaN") {
        v.is_string = false;
        v.number = v.text == "NaN"        ? std::numeric_limits<double>::quiet_NaN()
                   : v.text == "Infinity" ? std::numeric_limits<double>::infinity()
                                          : -std::numeric_limits<double>::infinity();
      }
    } else if (line.substr(i, 4) == "null") {
      v.is_null = true;
      i += 4;
    } else {
      size_t end = i;
      while (end < line.size() && line[end] != ',' && line[end] != '}') ++end;
      absl::string_view num = absl::StripAsciiWhitespace(line.substr(i, end - i));
      if (!absl::SimpleAtod(num, &v.number)) return bad("expected a number");
      i = end;
    }
    (*fields)[key] = std::move(v);
    skip();
    if (i < line.size() && line[i] == ',') {
      ++i;
      continue;
    }
    if (i < line.size() && line[i] == '}') break;
    return bad("expected ',' or '}'");
  }
  return absl::OkStatus();
}

uint32_t ChromeTrace::StageTid(const std::string& stage) {
  auto [it, inserted] = stage_tids_.emplace(stage, stage_tids_.size() + 1);
  if (inserted) {
    Event(absl::StrCat(R"({"name":"thread_name","ph":"M","pid":)", pid(kStages), R"(,"tid":)",
                       it->second, R"(,"args":{"name":)", Quote(stage), "}}"));
    Event(absl::StrCat(R"({"name":"thread_sort_index","ph":"M","pid":)", pid(kStages),
                       R"(,"tid":)", it->second, R"(,"args":{"sort_index":)", it->second, "}}"));
  }
  return it->second;
}

void ChromeTrace::Begin(SessionTrack& s, uint32_t serial, double t, const std::string& name,
                        const std::string& args) {
  s.open.push_back(Open{name, args, t, false});
  if (select_.sessions && select_.InWindow(t)) Reveal(s, serial, t);
}

void ChromeTrace::Reveal(SessionTrack& s, uint32_t serial, double t) {
  for (Open& o : s.open) {
    if (o.written) continue;
    o.written = true;
    Event(absl::StrCat(R"({"name":)", Quote(o.name), R"(,"cat":"session","ph":"b","ts":)",
                       Ts(std::max(o.start, select_.from)), R"(,"pid":)", pid(kSessions),
                       R"(,"tid":0,"id":)", serial,
                       o.args.empty() ? "" : absl::StrCat(R"(,"args":{)", o.args, "}"), "}"));
  }
}

void ChromeTrace::End(SessionTrack& s, uint32_t serial, double t) {
  if (s.open.empty()) return;
  const Open& o = s.open.back();
  if (o.written) {
    Event(absl::StrCat(R"({"name":)", Quote(o.name), R"(,"cat":"session","ph":"e","ts":)",
                       Ts(std::min(t, select_.to)), R"(,"pid":)", pid(kSessions),
                       R"(,"tid":0,"id":)", serial, "}"));
  }
  s.open.pop_back();
}

void ChromeTrace::Instant(uint32_t serial, double t, const std::string& name,
                          const std::string& args) {
  if (!select_.sessions || !select_.InWindow(t)) return;
  auto it = sessions_.find(serial);
  if (it != sessions_.end()) Reveal(it->second, serial, t);
  Event(absl::StrCat(R"({"name":)", Quote(name), R"(,"cat":"session","ph":"n","ts":)", Ts(t),
                     R"(,"pid":)", pid(kSessions), R"(,"tid":0,"id":)", serial,
                     args.empty() ? "" : absl::StrCat(R"(,"args":{)", args, "}"), "}"));
}

void ChromeTrace::Counter(double t, uint32_t pid, const std::string& name,
                          const std::string& args) {
  if (t != pending_) Flush();
  pending_ = t;
  CounterState& c = counters_[name];
  if (!c.changed) c.before = c.args;
  c.pid = pid;
  c.args = args;
  c.changed = true;
}

void ChromeTrace::Flush() {
  if (pending_ < 0) return;
  // Counters in the window: each one changed at the pending instant, and,
  // at the first instant in it, every one known with its value then (from
  // the window's start).
  if (select_.InWindow(pending_)) {
    auto write = [&](const std::string& name, double ts, uint32_t pid, const std::string& args) {
      Event(absl::StrCat(R"({"name":)", Quote(name), R"(,"ph":"C","ts":)", Ts(ts), R"(,"pid":)",
                         pid, R"(,"tid":0,"args":{)", args, "}}"));
    };
    for (auto& [name, c] : counters_) {
      if (!c.changed && c.written) continue;
      // A value carried into the window is written at its start: the
      // latest, or, when it changes at this first instant in the window,
      // the one before the change.
      if (!c.written && std::isfinite(select_.from) && select_.from < pending_) {
        const std::string& carried = c.changed ? c.before : c.args;
        if (!carried.empty()) write(name, select_.from, c.pid, carried);
      }
      if (c.changed || !std::isfinite(select_.from) || !(select_.from < pending_)) {
        write(name, pending_, c.pid, c.args);
      }
      c.written = true;
    }
  }
  for (auto& [name, c] : counters_) c.changed = false;
  pending_ = -1;
}

void ChromeTrace::CloseReplication() {
  if (!started_) return;
  Flush();
  // A run without a horizon (inf) closes what is open at its last time.
  const double close = std::isfinite(horizon_) ? horizon_ : last_;
  for (auto& [serial, s] : sessions_) {
    while (!s.open.empty()) End(s, serial, close);
  }
  sessions_.clear();
  stage_tids_.clear();
  stage_present_.clear();
  preempted_.clear();
  counters_.clear();
}

absl::Status ChromeTrace::Line(absl::string_view line) {
  Fields f;
  if (absl::Status s = Parse(line, &f); !s.ok()) return s;
  auto number = [&](const char* key) {
    auto it = f.find(key);
    return it == f.end() || it->second.is_string || it->second.is_null
               ? std::numeric_limits<double>::infinity()
               : it->second.number;
  };
  auto text = [&](const char* key) {
    auto it = f.find(key);
    return it == f.end() ? std::string() : it->second.text;
  };
  auto arg = [&](const char* key) {
    auto it = f.find(key);
    if (it == f.end()) return std::string();
    const Value& v = it->second;
    return absl::StrCat(Quote(key), ":", v.is_string ? Quote(v.text) : v.is_null ? "null" : JsonNumber(v.number));
  };
  auto args = [&](std::initializer_list<const char*> keys) {
    std::string out;
    for (const char* k : keys) {
      std::string a = arg(k);
      if (a.empty()) continue;
      absl::StrAppend(&out, out.empty() ? "" : ",", a);
    }
    return out;
  };
  if (f.count("replication")) {
    CloseReplication();
    started_ = true;
    replication_ = static_cast<uint32_t>(number("replication"));
    const std::pair<Process, const char*> processes[] = {
        {kStages, "stages"}, {kSessions, "sessions"}, {kPools, "pools"}};
    for (const auto& [k, name] : processes) {
      Event(absl::StrCat(R"({"name":"process_name","ph":"M","pid":)", pid(k),
                         R"(,"tid":0,"args":{"name":)",
                         Quote(absl::StrCat(name, " (replication ", replication_, ")")), "}}"));
      Event(absl::StrCat(R"({"name":"process_sort_index","ph":"M","pid":)", pid(k),
                         R"(,"tid":0,"args":{"sort_index":)", pid(k), "}}"));
    }
    return absl::OkStatus();
  }
  const std::string event = text("event");
  const double t = number("t");
  if (event.empty() || !std::isfinite(t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the trace line '", line, "' has no event or no time"));
  }
  // The counters of an instant are written once the log moves past it.
  if (t != pending_) Flush();
  last_ = std::max(last_, t);
  started_ = true;
  const uint32_t serial = static_cast<uint32_t>(number("session"));
  const bool in = select_.InWindow(t);
  if (event == "step") {
    // The part of the step in the window.
    const double end = t + number("tau");
    if (!select_.steps || end < select_.from || t > select_.to) return absl::OkStatus();
    const double from = std::max(t, select_.from), to = std::min(end, select_.to);
    uint32_t tid = StageTid(text("stage"));
    Event(absl::StrCat(R"({"name":"step","ph":"X","ts":)", Ts(from), R"(,"dur":)",
                       Ts(to - from), R"(,"pid":)", pid(kStages), R"(,"tid":)", tid,
                       R"(,"args":{)", args({"seqs", "tokens", "prefill", "decode", "context", "tau"}),
                       "}}"));
  } else if (event == "pool") {
    if (select_.pools) {
      Counter(t, pid(kPools), text("pool"), args({"used", "loaded", "evictable"}));
    }
  } else if (event == "arrive") {
    SessionTrack& s = Session(serial);
    std::string name = text("workload").empty() ? "session" : text("workload");
    Begin(s, serial, t, name, absl::StrCat(R"("serial":)", serial));
  } else if (event == "end") {
    SessionTrack& s = Session(serial);
    while (!s.open.empty()) End(s, serial, t);
    sessions_.erase(serial);
  } else if (event == "run" || event == "done") {
    SessionTrack& s = Session(serial);
    std::string stage = text("stage");
    if (event == "run") {
      // A run of work 0 completes at once, without a done: no slice.
      if (!(number("work") > 0)) return absl::OkStatus();
      Begin(s, serial, t, stage, args({"work"}));
    } else {
      End(s, serial, t);
    }
    int64_t& present = stage_present_[stage];
    present += event == "run" ? 1 : -1;
    if (select_.counters) {
      Counter(t, pid(kStages), absl::StrCat(stage, " jobs"), absl::StrCat(R"("present":)", present));
    }
  } else if (event == "wait" || event == "stall") {
    SessionTrack& s = Session(serial);
    bool& flag = event == "wait" ? s.waiting : s.stalled;
    if (!flag) Begin(s, serial, t, absl::StrCat(event, " ", text("pool")), args({"pool", "amount"}));
    flag = true;
  } else if (event == "admit" || event == "grow") {
    SessionTrack& s = Session(serial);
    bool& flag = event == "admit" ? s.waiting : s.stalled;
    if (flag) End(s, serial, t);
    flag = false;
    if (event == "admit") Instant(serial, t, absl::StrCat("admit ", text("pool")), args({"pool", "amount"}));
  } else if (event == "evict" && f.count("blocks")) {
    // A prefix cache's evicted blocks (no session): an instant of the pools.
    if (select_.pools && in) {
      Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat("evict ", text("pool"))),
                         R"(,"ph":"i","s":"p","ts":)", Ts(t), R"(,"pid":)", pid(kPools),
                         R"(,"tid":0,"args":{)", args({"pool", "blocks", "tokens"}), "}}"));
    }
  } else if (event == "hit" && f.count("blocks")) {
    Instant(serial, t, absl::StrCat("hit ", text("pool")), args({"pool", "blocks", "tokens"}));
  } else if (event == "observe" || event == "lease" || event == "release" ||
             event == "expire" || event == "evict") {
    // The session's, which may have ended (a lease outlives it).
    std::string name = event == "observe" ? text("name") : absl::StrCat(event, " ", text("pool"));
    Instant(serial, t, name, args({"value", "pool", "units", "duration", "by"}));
  } else if (event == "preempt") {
    // The victim's instant, and its stage's running counts: preemptions,
    // and the content (tokens) they throw away, to be computed again.
    std::string stage = text("stage");
    Instant(serial, t, absl::StrCat("preempt ", stage), args({"stage", "by", "pool", "content"}));
    Preempted& p = preempted_[stage];
    ++p.count;
    if (std::isfinite(number("content"))) p.content += number("content");
    if (select_.counters) {
      Counter(t, pid(kStages), absl::StrCat(stage, " preemptions"),
              absl::StrCat(R"("preempted":)", p.count));
      Counter(t, pid(kStages), absl::StrCat(stage, " recomputed"),
              absl::StrCat(R"("content":)", JsonNumber(p.content)));
    }
  }
  // Other events (a later version's) are left out.
  return absl::OkStatus();
}

void ChromeTrace::Finish() {
  CloseReplication();
  *out_ << "\n]}\n";
}

void ChromeTrace::LineBuffer::Put(char c) {
  if (c != '\n') {
    line_ += c;
    return;
  }
  if (status_.ok()) status_ = trace_->Line(line_);
  line_.clear();
}

ChromeTrace::LineBuffer::int_type ChromeTrace::LineBuffer::overflow(int_type c) {
  if (c != traits_type::eof()) Put(traits_type::to_char_type(c));
  return traits_type::not_eof(c);
}

std::streamsize ChromeTrace::LineBuffer::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize k = 0; k < n; ++k) Put(s[k]);
  return n;
}

}  // namespace serq::sim
