// One row of vLLM's request records as LLMServingSim's bench writes them
// (bench/results/<run>/requests.jsonl: one JSON object a line, vLLM's
// RequestStateStats of each request):
//
//   {"request_id": "bench-0", "input_toks": 2358, "output_toks": 531,
//    "arrival_time": 1777142838.338653, "queued_ts": 479748.340626232,
//    "scheduled_ts": 479748.34067238, "first_token_ts": 479748.510151426,
//    "last_token_ts": 479764.054028055}
//
// Two readers share it, so that they agree on the clocks: the trace format
// (trace_vllm.cc: the arrivals and token counts replayed) and serq
// compare's measured run (serq/measured/measured.h: TTFT, TPOT and E2E).
//
// The clocks: vLLM 0.19.0 writes arrival_time on the wall clock (Unix
// seconds) and the other times on the engine's monotonic clock. The bench
// (bench/core/validate.py, _bench_arrival_ts) takes arrival_time unless it
// is in another clock than first_token_ts and last_token_ts, then
// queued_ts; ArrivalClock is that rule.
#ifndef SERQ_SIM_WORKLOAD_VLLM_RECORD_H_
#define SERQ_SIM_WORKLOAD_VLLM_RECORD_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace serq::sim {

// The fields serq reads; a time is absent when the row lacks it or has
// null there (a request that never got a token).
struct VllmRecord {
  double input_toks = 0;   // whole, 0 to kMaxTokens (ir/limits.h)
  double output_toks = 0;  // whole, 1 to kMaxTokens
  std::optional<double> arrival_time;  // each time finite and >= 0
  std::optional<double> queued_ts;
  std::optional<double> first_token_ts;
  std::optional<double> last_token_ts;
};

// A record is at most this long: one request's few hundred bytes, with
// room for fields a later vLLM adds. A longer line is refused before it is
// parsed (a line of 10^7 fields would take gigabytes as JSON values).
inline constexpr size_t kMaxVllmLine = 1 << 20;


// Whether `line` is a vLLM record: a JSON object with a field input_toks
// (the name the bench writes; Mooncake's rows have input_length). A line
// longer than kMaxVllmLine is judged by the text "input_toks" in it, so
// that ParseVllmRecord refuses it as too long rather than another format
// parsing it; a line that is not JSON, by the texts "input_toks" and
// "output_toks", so that its error is a vLLM record's, at its line.
bool LooksLikeVllmRecord(absl::string_view line);

// Parses one line. Errors (messages without file and line): not JSON, not
// an object, too long or too deep, input_toks or output_toks missing, not numbers, not
// whole or negative; a time that is not a number (null is absent) or is
// negative. Other fields are not read (request_id, scheduled_ts, ...).
absl::Status ParseVllmRecord(absl::string_view line, VllmRecord* out);

// Which field is a record's arrival.
enum class VllmClock { kArrivalTime, kQueuedTs };

// The bench's rule: queued_ts when arrival_time is absent; arrival_time
// when queued_ts is absent, or when arrival_time is within 10^5 s of both
// first_token_ts and last_token_ts (the same clock: requests take seconds,
// two clocks differ by days); else queued_ts when it is within 10^5 s of
// first_token_ts or last_token_ts; else arrival_time. nullopt when the
// record has neither.
std::optional<VllmClock> ArrivalClock(const VllmRecord& record);

// Whether the record has a token time (first_token_ts or last_token_ts):
// without one, nothing says which clock its arrival_time is on (a request
// that never got a token), so it takes the clock of the rows that do.
bool HasTokenTimes(const VllmRecord& record);

// The arrival's value in `clock` (which the record has).
double ArrivalIn(const VllmRecord& record, VllmClock clock);

// "arrival_time" or "queued_ts".
absl::string_view ClockName(VllmClock clock);

// The error of a row whose arrival is on `mine` where the file's first row
// with token times had `first`, with what the row shows of its fields, so
// that one field off by itself (a queued_ts shifted) reads as that: "the
// arrival is arrival_time here but queued_ts in the first row with token
// times (…): the rows mix two clocks; here arrival_time 479748.4 is 0.2 s
// and queued_ts 479748.4 is 0.2 s from first_token_ts 479748.6". The
// replay's reader and serq compare's say it alike.
std::string MixedClocks(const VllmRecord& record, VllmClock mine, VllmClock first);

// A measured duration past the simulated clock's range (2^63 ns) has no
// simulated figure to compare with, and a mean over such figures is inf:
// "" when `seconds` is within it, else why not.
std::string PastTheClock(double seconds);

// A row's token times against its arrival on `clock`: "" when they are in
// order (or the row lacks one of them), else what is wrong: first_token_ts
// before the arrival (an arrival on another clock than the tokens', as an
// arrival_time of the wall clock beside the engine's monotonic token
// times), last_token_ts before first_token_ts, or the request's time past
// the simulated clock's range. serq compare refuses such a row, and serq
// vllm refuses a folder holding one where its program replays the row.
std::string TokenTimesOutOfOrder(const VllmRecord& record, VllmClock clock);

}  // namespace serq::sim

#endif  // SERQ_SIM_WORKLOAD_VLLM_RECORD_H_
