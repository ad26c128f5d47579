// vLLM's request records as LLMServingSim's bench writes them
// (requests.jsonl, vllm_record.h): one request a line, replayed at its
// arrival with its token counts as session variables:
//
//   {"request_id": "bench-0", "input_toks": 2358, "output_toks": 531,
//    "arrival_time": 1777142838.338653, "queued_ts": 479748.340626232, ...}
//
// The arrival is one field for the whole file: the one ArrivalClock picks
// (the bench's rule: queued_ts when arrival_time is on another clock than
// the token times) for the first row that has token times; rows without
// token times take it too. Times are seconds since the earliest arrival.
// Variables: input_toks and output_toks (docs/traces.md).
//
// Rows are replayed in arrival order, ties in file order: the bench writes
// them in request order, and in a data-parallel run each engine stamps
// queued_ts when it takes the request, so a row may arrive microseconds
// before the one above it.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/vllm_record.h"
#include "text/json_row.h"

namespace serq::sim {
namespace {

class Reader {
 public:
  explicit Reader(Trace* out) : out_(out) { out_->columns = {"input_toks", "output_toks"}; }

  // One row at `line`. Rows before the first with token times wait: their
  // clock is not known yet.
  absl::Status Row(int line, const VllmRecord& record) {
    if (!clock_) {
      if (!HasTokenTimes(record)) {
        pending_.push_back({line, record});
        return absl::OkStatus();
      }
      clock_ = ArrivalClock(record);
      if (!clock_) return NoArrival();
      if (absl::Status s = Flush(); !s.ok()) return s;
    } else if (HasTokenTimes(record)) {
      std::optional<VllmClock> mine = ArrivalClock(record);
      if (mine && *mine != *clock_) {
        return absl::InvalidArgumentError(MixedClocks(record, *mine, *clock_));
      }
    }
    return Add(record);
  }

  // At the end: rows that never met one with token times take arrival_time
  // when the first of them has it (the bench's default), else queued_ts.
  // Then the rows in arrival order.
  absl::Status Finish() {
    if (!clock_ && !pending_.empty()) {
      clock_ = pending_[0].record.arrival_time ? VllmClock::kArrivalTime : VllmClock::kQueuedTs;
      if (absl::Status s = Flush(); !s.ok()) return s;
    }
    std::vector<size_t> order(arrivals_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return arrivals_[a] < arrivals_[b]; });
    const double origin = arrivals_.empty() ? 0 : arrivals_[order[0]];
    for (size_t i : order) {
      // The difference of two doubles within a factor of two of each other
      // is exact (Sterbenz), so a time is the difference of the two parsed
      // values: within one rounding of each (~6e-11 s at 5e5 s).
      out_->times.push_back(arrivals_[i] - origin);
      out_->values.push_back(tokens_[2 * i]);
      out_->values.push_back(tokens_[2 * i + 1]);
    }
    return absl::OkStatus();
  }

 private:
  struct Pending {
    int line;
    VllmRecord record;
  };

  static absl::Status NoArrival() {
    return absl::InvalidArgumentError(
        "no arrival: the row has neither 'queued_ts' nor 'arrival_time'");
  }

  // The waiting rows, each error at its own line.
  absl::Status Flush() {
    for (const Pending& p : pending_) {
      if (absl::Status s = Add(p.record); !s.ok()) {
        return TraceErrorBeside(out_->path, p.line, s.message());
      }
    }
    pending_.clear();
    return absl::OkStatus();
  }

  absl::Status Add(const VllmRecord& record) {
    const std::optional<double>& field =
        *clock_ == VllmClock::kArrivalTime ? record.arrival_time : record.queued_ts;
    if (!field) {
      if (!record.arrival_time && !record.queued_ts) return NoArrival();
      return absl::InvalidArgumentError(absl::StrCat(
          "no ", ClockName(*clock_), ", the arrival in this file (the field on the clock of "
          "the token times)"));
    }
    arrivals_.push_back(*field);
    tokens_.push_back(record.input_toks);
    tokens_.push_back(record.output_toks);
    return absl::OkStatus();
  }

  Trace* out_;
  std::optional<VllmClock> clock_;
  std::vector<Pending> pending_;
  // Each row's arrival, as written, and its input and output tokens, in
  // file order (Finish sorts them).
  std::vector<double> arrivals_;
  std::vector<double> tokens_;
};

class VllmFormat final : public TraceFormat {
 public:
  absl::string_view name() const override { return "vLLM requests.jsonl"; }
  absl::string_view looks() const override {
    return "a JSON object with a field 'input_toks' a line";
  }
  bool Recognizes(absl::string_view first) const override { return LooksLikeVllmRecord(first); }
  absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const override {
    Reader reader(out);
    absl::string_view line = first;
    do {
      VllmRecord record;
      if (absl::Status s = ParseVllmRecord(line, &record); !s.ok()) return s;
      if (absl::Status s = reader.Row(lines->number(), record); !s.ok()) return s;
    } while (lines->NextNonBlank(&line));
    return reader.Finish();
  }
};

}  // namespace

const TraceFormat& VllmTraceFormat() {
  static const VllmFormat* format = new VllmFormat();
  return *format;
}

}  // namespace serq::sim
