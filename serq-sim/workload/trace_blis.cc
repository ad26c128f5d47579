// BLIS's TraceV2 data (`w1.trace.csv`; trace_blis.h), one request a row:
//
//   request_id,client_id,...,session_id,round_index,prefix_group,prefix_length,
//   streaming,input_tokens,output_tokens,...,arrival_time_us,send_time_us,...
//   0,c0,,,,0,,0,false,512,128,0,0,0,0,0,,0,0,50609,50609,80508,1722889,0,ok,,
//
// A row arrives when BLIS replays it (sim/workload/replay.go,
// injectionTime): at send_time_us when it is > 0, else at arrival_time_us;
// times are seconds since the first row's. Columns are found by name (BLIS
// adds optional ones: vllm_priority, slo_target_us, x_request_id, ...).
// Variables: input_tokens, output_tokens, prefix_group, prefix_length,
// session_id, round_index, with the two text columns as numbers (docs/traces.md).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/limits.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/trace_blis.h"
#include "serq-sim/workload/trace_csv.h"
#include "text/csv.h"

namespace serq::sim {
namespace {

// A TraceV2 header has 27 to 32 columns; more than this is not one (and a
// header of 10^7 columns must not take gigabytes).
constexpr size_t kMaxColumns = 1000;
// Two times more than this apart (in microseconds) are on two clocks:
// 10^5 s, the vLLM bench's test (blis observe writes send_time_us on the
// Unix clock and arrival_time_us from the run's start).
constexpr int64_t kSameClockUs = 100000LL * 1000000;

absl::Status Error(absl::string_view message) { return absl::InvalidArgumentError(message); }

// Splits a record as Go's encoding/csv writes it (RFC 4180): fields
// separated by commas, a field in double quotes may hold commas and `""`
// for a quote. At most `most` fields are kept: fields->size() == most + 1
// says there were more. Nothing is trimmed (Go's reader trims nothing).
absl::Status SplitRecord(absl::string_view line, size_t most, std::vector<std::string>* fields) {
  fields->clear();
  size_t i = 0;
  while (true) {
    if (fields->size() == most + 1) return absl::OkStatus();
    fields->emplace_back();
    std::string& field = fields->back();
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) {
          return Error(absl::StrCat("field ", fields->size(),
                                    ": a quoted field runs to the end of the line (a record "
                                    "on several lines is not read)"));
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(line[i++]);
      }
      if (i < line.size() && line[i] != ',') {
        return Error(absl::StrCat("field ", fields->size(),
                                  ": a quoted field must end at a comma"));
      }
    } else {
      size_t comma = line.find(',', i);
      size_t end = comma == absl::string_view::npos ? line.size() : comma;
      absl::string_view text = line.substr(i, end - i);
      if (text.find('"') != absl::string_view::npos) {
        return Error(absl::StrCat("field ", fields->size(), ": a '\"' inside an unquoted field"));
      }
      field.assign(text.data(), text.size());
      i = end;
    }
    if (i >= line.size()) return absl::OkStatus();
    ++i;  // the comma
  }
}

// A whole number as BLIS writes one (strconv: digits, an optional sign).
absl::Status Whole(const std::string& text, absl::string_view column, int64_t* out) {
  bool digits = !text.empty();
  for (size_t i = 0; i < text.size(); ++i) {
    if (!absl::ascii_isdigit(text[i]) && !(i == 0 && (text[i] == '-' || text[i] == '+'))) {
      digits = false;
    }
  }
  if (!digits || !absl::SimpleAtoi(text, out)) {
    return Error(absl::StrCat("'", text, "' in column '", column, "' is not a whole number"));
  }
  if (*out < 0) return Error(absl::StrCat(column, " ", text, " is negative"));
  return absl::OkStatus();
}

// Text ids as numbers: "" is 0, the k-th distinct other text 1, 2, ... in
// file order.
class Ids {
 public:
  double Of(const std::string& text) {
    if (text.empty()) return 0;
    auto [it, added] = ids_.try_emplace(text, static_cast<double>(ids_.size() + 1));
    return it->second;
  }

 private:
  absl::flat_hash_map<std::string, double> ids_;
};

// The columns read, and the variables they set in this order.
enum Column {
  kInput, kOutput, kPrefixGroup, kPrefixLength, kSession, kRound, kArrival, kSend, kColumns
};
constexpr absl::string_view kNames[kColumns] = {
    "input_tokens", "output_tokens",   "prefix_group", "prefix_length",
    "session_id",   "round_index",     "arrival_time_us", "send_time_us",
};
constexpr int kVariables = kArrival;

}  // namespace

absl::Status ReadBlisTraceData(absl::string_view first, TraceLines* lines, Trace* out) {
  std::vector<std::string> fields;
  if (absl::Status s = SplitRecord(first, kMaxColumns, &fields); !s.ok()) return s;
  if (fields.size() > kMaxColumns) {
    return Error(absl::StrCat("a header of more than ", kMaxColumns,
                              " columns (TraceV2 has 27 to 32)"));
  }
  const size_t width = fields.size();
  size_t index[kColumns];
  std::fill(index, index + kColumns, width);
  for (size_t i = 0; i < width; ++i) {
    if (fields[i].empty()) {
      return Error(absl::StrCat("column ", i + 1, " of the header has no name"));
    }
  }
  const std::vector<absl::string_view> names(fields.begin(), fields.end());
  if (absl::Status s = text::CheckCsvHeader(names); !s.ok()) return s;
  for (size_t i = 0; i < width; ++i) {
    for (int c = 0; c < kColumns; ++c) {
      if (fields[i] == kNames[c]) index[c] = i;
    }
  }
  for (int c = 0; c < kColumns; ++c) {
    if (index[c] == width) {
      return Error(absl::StrCat("the header has no column '", kNames[c], "'"));
    }
  }
  for (int c = 0; c < kVariables; ++c) out->columns.emplace_back(kNames[c]);

  Ids sessions, groups;
  int64_t origin = 0, previous = 0;
  bool any = false;
  // Whether some row's send_time_us is on another clock than its
  // arrival_time_us (blis observe), and whether some row falls back to
  // arrival_time_us (send_time_us 0): both would mix two clocks.
  bool send_clock = false, fallback = false;
  absl::string_view line;
  while (lines->NextNonBlank(&line)) {
    if (absl::Status s = SplitRecord(line, width, &fields); !s.ok()) return s;
    if (fields.size() != width) {
      return Error(absl::StrCat("expected ", width, " fields, found ",
                                fields.size() > width ? "more" : absl::StrCat(fields.size())));
    }
    int64_t arrival, send;
    if (absl::Status s = Whole(fields[index[kArrival]], kNames[kArrival], &arrival); !s.ok()) {
      return s;
    }
    if (absl::Status s = Whole(fields[index[kSend]], kNames[kSend], &send); !s.ok()) return s;
    // BLIS's injectionTime: send_time_us when > 0.
    const bool by_send = send > 0;
    const int64_t at = by_send ? send : arrival;
    const Column used = by_send ? kSend : kArrival;
    send_clock = send_clock || (by_send && (send - arrival >= kSameClockUs ||
                                            arrival - send >= kSameClockUs));
    fallback = fallback || !by_send;
    if (send_clock && fallback) {
      return Error(
          "the rows mix two clocks: some have send_time_us on another clock than "
          "arrival_time_us (more than 10^5 s apart), and some have send_time_us 0, which "
          "falls back to arrival_time_us");
    }
    if (!any) {
      origin = at;
      any = true;
    } else if (at < previous) {
      return Error(absl::StrCat(kNames[used], " ", at, " is before the previous row's ", previous,
                                " (rows must be in time order)"));
    }
    previous = at;
    // A whole number of microseconds over 10^6: one rounding, so the
    // double nearest the decimal (50609 us -> 0.050609 s) below 2^53 us.
    out->times.push_back(static_cast<double>(at - origin) / 1e6);
    for (int c = 0; c < kVariables; ++c) {
      const std::string& text = fields[index[c]];
      if (c == kPrefixGroup) {
        out->values.push_back(groups.Of(text));
      } else if (c == kSession) {
        out->values.push_back(sessions.Of(text));
      } else {
        int64_t v;
        if (absl::Status s = Whole(text, kNames[c], &v); !s.ok()) return s;
        if ((c == kInput || c == kOutput || c == kPrefixLength) &&
            !IsTokenCount(static_cast<double>(v))) {
          return Error(absl::StrCat(kNames[c], " ", text, " is not a whole number of tokens from 0 to ",
                                    kMaxTokens));
        }
        out->values.push_back(static_cast<double>(v));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// The header file beside the data, read whole (at most kMaxBlisHeader).
absl::Status ReadHeaderFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  text->assign(kMaxBlisHeader + 1, '\0');
  in.read(text->data(), static_cast<std::streamsize>(text->size()));
  if (in.bad()) {
    return absl::NotFoundError(absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
  }
  text->resize(static_cast<size_t>(in.gcount()));
  return absl::OkStatus();
}

class BlisFormat final : public TraceFormat {
 public:
  absl::string_view name() const override { return "BLIS TraceV2"; }
  absl::string_view looks() const override {
    return "a header with a column 'arrival_time_us'";
  }
  bool Recognizes(absl::string_view first) const override {
    return csv::HasColumn(first, "arrival_time_us");
  }
  absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const override {
    // The YAML header beside the data, read first: it says how to read it.
    const std::string header_path = BlisHeaderPath(out->path);
    std::string text;
    if (absl::Status s = ReadHeaderFile(header_path, &text); !s.ok()) {
      return Error(absl::StrCat("BLIS TraceV2 data needs its header beside it: ", s.message()));
    }
    BlisTraceHeader header;
    int line = 0;
    if (absl::Status s = ParseBlisTraceHeader(text, &header, &line); !s.ok()) {
      return TraceErrorBeside(header_path, line, s.message());
    }
    return ReadBlisTraceData(first, lines, out);
  }
};

}  // namespace

const TraceFormat& BlisTraceFormat() {
  static const BlisFormat* format = new BlisFormat();
  return *format;
}

}  // namespace serq::sim
