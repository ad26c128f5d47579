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

ChromeTrace::ChromeTrace(std::ostream* out, double horizon) : out_(out), horizon_(horizon) {
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

ChromeTrace::SessionTrack& ChromeTrace::Session(double t, uint32_t serial,
                                                const std::string& workload) {
  auto [it, inserted] = sessions_.emplace(serial, SessionTrack());
  if (inserted) {
    it->second.tid = serial + 1;
    std::string name = workload.empty() ? absl::StrCat("session ", serial)
                                        : absl::StrCat("session ", serial, " (", workload, ")");
    Event(absl::StrCat(R"({"name":"thread_name","ph":"M","pid":)", pid(kSessions),
                       R"(,"tid":)", serial + 1, R"(,"args":{"name":)", Quote(name), "}}"));
    Event(absl::StrCat(R"({"name":"thread_sort_index","ph":"M","pid":)", pid(kSessions),
                       R"(,"tid":)", serial + 1, R"(,"args":{"sort_index":)", serial + 1, "}}"));
  }
  return it->second;
}

void ChromeTrace::Begin(SessionTrack& s, uint32_t serial, double t, const std::string& name,
                        const std::string& args) {
  s.open.push_back(name);
  Event(absl::StrCat(R"({"name":)", Quote(name), R"(,"ph":"B","ts":)", Ts(t), R"(,"pid":)",
                     pid(kSessions), R"(,"tid":)", serial + 1,
                     args.empty() ? "" : absl::StrCat(R"(,"args":{)", args, "}"), "}"));
}

void ChromeTrace::End(SessionTrack& s, uint32_t serial, double t) {
  if (s.open.empty()) return;
  Event(absl::StrCat(R"({"name":)", Quote(s.open.back()), R"(,"ph":"E","ts":)", Ts(t),
                     R"(,"pid":)", pid(kSessions), R"(,"tid":)", serial + 1, "}"));
  s.open.pop_back();
}

void ChromeTrace::CloseReplication() {
  if (!started_) return;
  // A run without a horizon (inf) closes what is open at its last time.
  const double close = std::isfinite(horizon_) ? horizon_ : last_;
  for (auto& [serial, s] : sessions_) {
    while (!s.open.empty()) End(s, serial, close);
  }
  sessions_.clear();
  stage_tids_.clear();
  stage_present_.clear();
  preempted_.clear();
  run_stage_.clear();
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
  last_ = std::max(last_, t);
  if (event.empty() || !std::isfinite(t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the trace line '", line, "' has no event or no time"));
  }
  started_ = true;
  const uint32_t serial = static_cast<uint32_t>(number("session"));
  if (event == "step") {
    uint32_t tid = StageTid(text("stage"));
    Event(absl::StrCat(R"({"name":"step","ph":"X","ts":)", Ts(t), R"(,"dur":)",
                       Ts(number("tau")), R"(,"pid":)", pid(kStages), R"(,"tid":)", tid,
                       R"(,"args":{)", args({"seqs", "tokens", "prefill", "decode", "context", "attention",
                             "prefill_jobs", "prefill_kv", "prefill_kv_max", "prefill_kv_min",
                             "prefill_context", "prefill_context_max", "prefill_context_min",
                             "decode_kv", "decode_kv_max", "decode_kv_min", "decode_context",
                             "decode_context_max", "decode_context_min", "tau"}),
                       "}}"));
  } else if (event == "pool") {
    Event(absl::StrCat(R"({"name":)", Quote(text("pool")), R"(,"ph":"C","ts":)", Ts(t),
                       R"(,"pid":)", pid(kPools), R"(,"tid":0,"args":{)",
                       args({"used", "loaded", "evictable"}), "}}"));
  } else if (event == "arrive") {
    SessionTrack& s = Session(t, serial, text("workload"));
    std::string name = text("workload").empty() ? "session" : text("workload");
    Begin(s, serial, t, name, "");
  } else if (event == "end") {
    SessionTrack& s = Session(t, serial, "");
    while (!s.open.empty()) End(s, serial, t);
    sessions_.erase(serial);
  } else if (event == "run" || event == "done") {
    SessionTrack& s = Session(t, serial, "");
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
    Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat(stage, " jobs")), R"(,"ph":"C","ts":)",
                       Ts(t), R"(,"pid":)", pid(kStages), R"(,"tid":0,"args":{"present":)",
                       present, "}}"));
  } else if (event == "wait" || event == "stall") {
    SessionTrack& s = Session(t, serial, "");
    bool& flag = event == "wait" ? s.waiting : s.stalled;
    if (!flag) Begin(s, serial, t, absl::StrCat(event, " ", text("pool")), args({"pool", "amount"}));
    flag = true;
  } else if (event == "admit" || event == "grow") {
    SessionTrack& s = Session(t, serial, "");
    bool& flag = event == "admit" ? s.waiting : s.stalled;
    if (flag) End(s, serial, t);
    flag = false;
    if (event == "admit") {
      Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat("admit ", text("pool"))),
                         R"(,"ph":"i","s":"t","ts":)", Ts(t), R"(,"pid":)", pid(kSessions),
                         R"(,"tid":)", serial + 1, R"(,"args":{)", args({"pool", "amount"}), "}}"));
    }
  } else if ((event == "evict" || event == "hit") && f.count("blocks")) {
    // A prefix cache's evicted blocks (no session), a lookup's hit.
    bool evict = event == "evict";
    Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat(event, " ", text("pool"))),
                       R"(,"ph":"i","s":"t","ts":)", Ts(t), R"(,"pid":)",
                       pid(evict ? kPools : kSessions), R"(,"tid":)", evict ? 0 : serial + 1,
                       R"(,"args":{)", args({"pool", "blocks", "tokens"}), "}}"));
  } else if (event == "observe" || event == "lease" || event == "release" ||
             event == "expire" || event == "evict") {
    // On the session's thread, which may have ended (a lease outlives it).
    std::string name = event == "observe" ? text("name") : absl::StrCat(event, " ", text("pool"));
    Event(absl::StrCat(R"({"name":)", Quote(name), R"(,"ph":"i","s":"t","ts":)", Ts(t),
                       R"(,"pid":)", pid(kSessions), R"(,"tid":)", serial + 1, R"(,"args":{)",
                       args({"value", "pool", "units", "duration", "by"}), "}}"));
  } else if (event == "preempt") {
    // The victim's instant, and its stage's running counts: preemptions,
    // and the content (tokens) they throw away, to be computed again.
    std::string stage = text("stage");
    Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat("preempt ", stage)), R"(,"ph":"i","s":"t","ts":)",
                       Ts(t), R"(,"pid":)", pid(kSessions), R"(,"tid":)", serial + 1, R"(,"args":{)",
                       args({"stage", "by", "pool", "content"}), "}}"));
    Preempted& p = preempted_[stage];
    ++p.count;
    if (std::isfinite(number("content"))) p.content += number("content");
    Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat(stage, " preemptions")), R"(,"ph":"C","ts":)",
                       Ts(t), R"(,"pid":)", pid(kStages), R"(,"tid":0,"args":{"preempted":)", p.count,
                       "}}"));
    Event(absl::StrCat(R"({"name":)", Quote(absl::StrCat(stage, " recomputed")), R"(,"ph":"C","ts":)",
                       Ts(t), R"(,"pid":)", pid(kStages), R"(,"tid":0,"args":{"content":)",
                       JsonNumber(p.content), "}}"));
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
