// The Azure LLM inference traces (AzurePublicDataset, 2023 and 2024:
// AzureLLMInferenceTrace_code.csv, _conv.csv): a CSV with the header
// TIMESTAMP,ContextTokens,GeneratedTokens and date-times such as
// 2023-11-16 18:15:46.6805900. A row arrives at the seconds since the first
// row's TIMESTAMP; every other column sets the session variable of its
// name, as in serq's CSV.
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_csv.h"

namespace serq::sim {
namespace {

constexpr int64_t kNanosPerSecond = 1000000000;
// Time differences are counted in nanoseconds in an int64: at most ~292
// years; refuse more, well before that.
constexpr int64_t kMaxSpanSeconds = 9000000000;  // ~285 years

// A date-time as the seconds and nanoseconds since 1970-01-01 UTC.
struct Instant {
  int64_t seconds = 0;
  int64_t nanos = 0;  // 0 .. 999999999
};

// `n` digits of `text` at `pos` as a number; false if they are not digits.
bool Digits(absl::string_view text, size_t pos, size_t n, int* value) {
  if (pos + n > text.size()) return false;
  *value = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!absl::ascii_isdigit(text[i])) return false;
    *value = *value * 10 + (text[i] - '0');
  }
  return true;
}

// YYYY-MM-DD HH:MM:SS, a 'T' allowed for the space, then up to 9 decimals
// of a second, then an optional UTC offset (Z, +HH:MM, -HH:MM; none: UTC).
// The fraction is kept exactly, as nanoseconds. Returns why not, or "".
std::string ParseDateTime(absl::string_view text, Instant* out) {
  static constexpr char kShape[] =
      "expected YYYY-MM-DD HH:MM:SS with up to 9 decimals and an optional Z or +HH:MM, "
      "e.g. 2023-11-16 18:15:46.6805900";
  int y, mo, d, h, mi, s;
  if (!(Digits(text, 0, 4, &y) && text.size() > 4 && text[4] == '-' &&
        Digits(text, 5, 2, &mo) && text.size() > 7 && text[7] == '-' &&
        Digits(text, 8, 2, &d) && text.size() > 10 && (text[10] == ' ' || text[10] == 'T') &&
        Digits(text, 11, 2, &h) && text.size() > 13 && text[13] == ':' &&
        Digits(text, 14, 2, &mi) && text.size() > 16 && text[16] == ':' &&
        Digits(text, 17, 2, &s))) {
    return kShape;
  }
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits = 0;
    int64_t scale = kNanosPerSecond;
    while (pos < text.size() && absl::ascii_isdigit(text[pos])) {
      if (++digits > 9) return "more than 9 decimals of a second";
      scale /= 10;
      nanos += (text[pos] - '0') * scale;
      ++pos;
    }
    if (digits == 0) return kShape;
  }
  int64_t offset = 0;  // seconds east of UTC
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int oh, om;
    if (!(Digits(text, pos + 1, 2, &oh) && pos + 3 < text.size() && text[pos + 3] == ':' &&
          Digits(text, pos + 4, 2, &om)) ||
        oh > 23 || om > 59) {
      return kShape;
    }
    offset = (text[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  }
  if (pos != text.size()) return kShape;
  // No leap seconds: the traces' clocks do not show them.
  if (h > 23 || mi > 59 || s > 59) {
    return absl::StrCat(text.substr(11, 8), " is not a time of day");
  }
  // absl normalises an out-of-range day (Feb 30 -> Mar 2): one that moved
  // was not a date.
  absl::CivilSecond civil(y, mo, d, h, mi, s);
  if (civil.month() != mo || civil.day() != d) {
    return absl::StrCat(text.substr(0, 10), " is not a date");
  }
  out->seconds = (civil - absl::CivilSecond(1970, 1, 1, 0, 0, 0)) - offset;
  out->nanos = nanos;
  return "";
}

// n / 10^9 with one rounding: dividing out the common powers of ten first
// keeps the numerator an exact double (below 2^53) for any 7-decimal time
// within ~28 years of the first row, and for 9 decimals within ~104 days,
// so the quotient of two exact doubles is the double nearest the decimal.
double NanosToSeconds(int64_t n) {
  int64_t scale = kNanosPerSecond;
  while (scale > 1 && n % 10 == 0) {
    n /= 10;
    scale /= 10;
  }
  return static_cast<double>(n) / static_cast<double>(scale);
}

class TimestampColumn final : public csv::TimeColumn {
 public:
  absl::Status Seconds(absl::string_view text, double* seconds) override {
    Instant t;
    std::string why = ParseDateTime(text, &t);
    if (!why.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("TIMESTAMP '", text, "' is not a date-time: ", why));
    }
    if (!first_) {
      first_ = true;
      start_ = t;
    }
    int64_t span = t.seconds - start_.seconds;
    if (span > kMaxSpanSeconds || span < -kMaxSpanSeconds) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TIMESTAMP '", text, "' is more than 285 years from the first row's"));
    }
    *seconds = NanosToSeconds(span * kNanosPerSecond + (t.nanos - start_.nanos));
    return absl::OkStatus();
  }

 private:
  bool first_ = false;
  Instant start_;
};

class AzureFormat final : public TraceFormat {
 public:
  absl::string_view name() const override { return "Azure LLM inference CSV"; }
  absl::string_view looks() const override { return "a header with a column 'TIMESTAMP'"; }
  bool Recognizes(absl::string_view first) const override {
    return csv::HasColumn(first, "TIMESTAMP");
  }
  absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const override {
    TimestampColumn time;
    return csv::ReadTable(first, "TIMESTAMP", &time, lines, out);
  }
};

}  // namespace

const TraceFormat& AzureTraceFormat() {
  static const AzureFormat* format = new AzureFormat();
  return *format;
}

}  // namespace serq::sim
