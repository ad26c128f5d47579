#include "serq-sim/workload/vllm_record.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "ir/input_shape.h"
#include "ir/limits.h"
#include "text/json_row.h"

namespace serq::sim {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

// Two times more than this apart are on two clocks (the bench's
// _same_time_domain: "requests finish in seconds, not days").
constexpr double kSameClock = 100000;

// A token count: a whole number from 0 to kMaxTokens (ir/limits.h).
absl::Status Count(const Struct& row, const char* name, double* out) {
  auto it = row.fields().find(name);
  if (it == row.fields().end()) {
    return absl::InvalidArgumentError(absl::StrCat("missing field '", name, "'"));
  }
  if (it->second.kind_case() != Value::kNumberValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", name, "' is not a number (found ", text::JsonKind(it->second), ")"));
  }
  double v = it->second.number_value();
  if (!IsTokenCount(v)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " ", text::ShortestText(v),
                                                   " is not a whole number of tokens from 0 to ",
                                                   kMaxTokens));
  }
  *out = v;
  return absl::OkStatus();
}

// A time in seconds: absent or null leaves `out` empty.
absl::Status Time(const Struct& row, const char* name, std::optional<double>* out) {
  auto it = row.fields().find(name);
  if (it == row.fields().end() || it->second.kind_case() == Value::kNullValue) return absl::OkStatus();
  if (it->second.kind_case() != Value::kNumberValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", name, "' is not a number (found ", text::JsonKind(it->second), ")"));
  }
  double v = it->second.number_value();
  if (!std::isfinite(v)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is not a finite number"));
  }
  if (v < 0) return absl::InvalidArgumentError(absl::StrCat(name, " ", text::ShortestText(v), " is negative"));
  *out = v;
  return absl::OkStatus();
}

bool SameClock(const std::optional<double>& a, const std::optional<double>& b) {
  return a && b && std::abs(*a - *b) < kSameClock;
}

}  // namespace

bool LooksLikeVllmRecord(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  if (line.empty() || line.front() != '{') return false;
  if (line.size() > kMaxVllmLine || JsonDeeperThan(line, kMaxDataJsonDepth)) {
    return absl::StrContains(line, "\"input_toks\"");
  }
  Struct row;
  // A line the parser refuses (a NaN, a bad escape, a number past a
  // double) is still the bench's when it names its fields: ParseVllmRecord
  // then says what is wrong, at the line, where another format's reader
  // would say the file is not its own.
  if (!text::ParseJsonRow(line, &row).ok()) {
    return absl::StrContains(line, "\"input_toks\"") && absl::StrContains(line, "\"output_toks\"");
  }
  return row.fields().contains("input_toks");
}

absl::Status ParseVllmRecord(absl::string_view line, VllmRecord* out) {
  line = absl::StripAsciiWhitespace(line);
  if (line.size() > kMaxVllmLine) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a line of ", line.size(), " bytes: a vLLM record is one request's few hundred, at most ",
        kMaxVllmLine >> 20, " MB"));
  }
  if (line.empty() || line.front() != '{') {
    return absl::InvalidArgumentError("expected a JSON object '{...}' (one request a line)");
  }
  Struct row;  // (nested deeper than kMaxDataJsonDepth: refused)
  if (absl::Status s = text::ParseJsonRow(line, &row); !s.ok()) return s;
  *out = VllmRecord();
  if (absl::Status s = Count(row, "input_toks", &out->input_toks); !s.ok()) return s;
  if (absl::Status s = Count(row, "output_toks", &out->output_toks); !s.ok()) return s;
  // vLLM refuses an empty prompt and makes at least one token a request
  // (max_tokens >= 1): a row of 0 of either is not vLLM's (and a replay
  // would run a decode of -1 tokens).
  if (out->input_toks < 1) return absl::InvalidArgumentError("input_toks 0: vLLM refuses an empty prompt");
  if (out->output_toks < 1) {
    return absl::InvalidArgumentError("output_toks 0: a vLLM request makes at least one token");
  }
  if (absl::Status s = Time(row, "arrival_time", &out->arrival_time); !s.ok()) return s;
  if (absl::Status s = Time(row, "queued_ts", &out->queued_ts); !s.ok()) return s;
  if (absl::Status s = Time(row, "first_token_ts", &out->first_token_ts); !s.ok()) return s;
  if (absl::Status s = Time(row, "last_token_ts", &out->last_token_ts); !s.ok()) return s;
  return absl::OkStatus();
}

std::optional<VllmClock> ArrivalClock(const VllmRecord& r) {
  if (!r.queued_ts) {
    if (!r.arrival_time) return std::nullopt;
    return VllmClock::kArrivalTime;
  }
  if (!r.arrival_time) return VllmClock::kQueuedTs;
  if (SameClock(r.arrival_time, r.first_token_ts) && SameClock(r.arrival_time, r.last_token_ts)) {
    return VllmClock::kArrivalTime;
  }
  if (SameClock(r.queued_ts, r.first_token_ts) || SameClock(r.queued_ts, r.last_token_ts)) {
    return VllmClock::kQueuedTs;
  }
  return VllmClock::kArrivalTime;
}

bool HasTokenTimes(const VllmRecord& record) {
  return record.first_token_ts.has_value() || record.last_token_ts.has_value();
}

double ArrivalIn(const VllmRecord& record, VllmClock clock) {
  return clock == VllmClock::kArrivalTime ? *record.arrival_time : *record.queued_ts;
}

absl::string_view ClockName(VllmClock clock) {
  return clock == VllmClock::kArrivalTime ? "arrival_time" : "queued_ts";
}

std::string MixedClocks(const VllmRecord& r, VllmClock mine, VllmClock first) {
  std::string out = absl::StrCat("the arrival is ", ClockName(mine), " here but ", ClockName(first),
                                 " in the first row with token times (the field on the clock of first_token_ts "
                                 "and last_token_ts): the rows mix two clocks");
  const std::optional<double>& token = r.first_token_ts ? r.first_token_ts : r.last_token_ts;
  if (!token) return out;
  std::vector<std::string> parts;
  for (VllmClock clock : {VllmClock::kArrivalTime, VllmClock::kQueuedTs}) {
    const std::optional<double>& field = clock == VllmClock::kArrivalTime ? r.arrival_time : r.queued_ts;
    if (field) {
      parts.push_back(absl::StrFormat("%s %.10g is %.3g s", ClockName(clock), *field, std::abs(*field - *token)));
    }
  }
  if (parts.empty()) return out;
  absl::StrAppend(&out, "; here ", absl::StrJoin(parts, " and "), " from ",
                  r.first_token_ts ? "first_token_ts " : "last_token_ts ", absl::StrFormat("%.10g", *token));
  return out;
}

std::string PastTheClock(double seconds) {
  if (seconds < kClockRangeSeconds) return "";
  return absl::StrCat(text::ShortestText(seconds), " s, past the simulated clock's range (2^63 ns, ",
                      text::ShortestText(kClockRangeSeconds), " s): no simulated figure compares with it");
}

std::string TokenTimesOutOfOrder(const VllmRecord& record, VllmClock clock) {
  if (!record.first_token_ts || !record.last_token_ts) return "";
  const double arrival = ArrivalIn(record, clock);
  const double first = *record.first_token_ts, last = *record.last_token_ts;
  if (first < arrival) {
    return absl::StrCat("first_token_ts ", text::ShortestText(first), " is before the arrival, ", ClockName(clock),
                        " ", text::ShortestText(arrival));
  }
  if (last < first) {
    return absl::StrCat("last_token_ts ", text::ShortestText(last), " is before first_token_ts ",
                        text::ShortestText(first));
  }
  if (const std::string past = PastTheClock(last - arrival); !past.empty()) {
    return absl::StrCat("last_token_ts ", text::ShortestText(last), " is, after the arrival, ", past);
  }
  return "";
}

}  // namespace serq::sim
