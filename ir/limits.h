// The fixed bounds of what serq accepts, in one place so that the linker,
// the simulator and the command-line flags agree (docs/cli.md §Limits).
// Each keeps a typo or a unit mistake from exhausting memory: an input past
// a bound is an error with its location, never std::bad_alloc.
#ifndef SERQ_IR_LIMITS_H_
#define SERQ_IR_LIMITS_H_

#include <cmath>
#include <cstdint>

namespace serq {

// The simulated clock's range: 2^63 nanoseconds (int64 ticks), about 292
// years. A time or a duration past it is never reached; a measured figure
// past it cannot be compared with a simulated one.
inline constexpr double kClockRangeSeconds = 9223372036.854775808;

// `stage s[n]`, `pool p[n]`: n at most this.
inline constexpr int64_t kMaxArraySize = 1000000;

// The program's totals: the bounds above and kMaxTableRows are per
// declaration, so a program of three `stage x[1000000]` and two `pool
// p[1000000]` (239 bytes) ran 34.8 s to 5.67 GB, and died of bad_alloc
// under a 4 GiB limit. The linker bounds the sums too, with an error at the
// declaration, statement or table that crosses one. Stage and pool
// elements together (a scalar is one): a station costs ~1 KB and a pool
// element ~2 KB through `serq run`, so the most is ~2 GB ...
inline constexpr int64_t kMaxElements = 1000000;
// ... the statements of all sessions, the simulator's instructions (~600
// bytes each through `serq run`) ...
inline constexpr int64_t kMaxStatements = 1000000;
// ... and the rows all tables keep (~40 bytes each in the linked IR, more
// in the simulator's grids): five tables of kMaxTableRows.
inline constexpr int64_t kMaxTotalTableRows = 1000000;

// `arrive batch(n)`: the n sessions all start at time 0 and are all live at
// once, so n is bounded like an array size (and by the default
// --max-sessions).
inline constexpr int64_t kMaxBatch = 1000000;
// exactly(n, T): n at most 2^53, a whole number a double holds exactly (the
// sessions arrive one at a time, so n costs no memory).
inline constexpr int64_t kMaxExactly = int64_t{1} << 53;

// `run { replications n; }` and --replications. serq-sim streams each
// replication out as it ends, but `serq run` and serq-report keep every
// replication's summary (~7 KB without samples: 10^5 of them is ~0.7 GB)
// and its observations' samples, which can be megabytes a replication (a
// vLLM replay's per-token gaps): past the memory they end in
// ExitOnOutOfMemory's error (ir/cli.h), docs/cli.md §Limits.
inline constexpr int64_t kMaxReplications = 100000;
// run { gpus N; }: the GPUs of a deployment, at most this many.
inline constexpr int64_t kMaxGpus = 1000000;

// serq-sim --max-sessions' default: the sessions alive at once (arrived and
// not yet ended, or ended with a lease still alive). ~0.5 KB each.
inline constexpr uint64_t kDefaultMaxSessions = 1000000;

// Live leases are bounded by this many times --max-sessions.
inline constexpr uint64_t kLeasesPerSession = 10;

// Every tool shows at most this many errors, then "too many errors": clang's
// default -ferror-limit. The lexer and the parser stop reading there, as
// clang does: past a score of errors the rest are mostly the first ones'
// echo, and a garbage file would otherwise be parsed to its end (a late
// fuzz_parse corpus spent three fifths of its time so, bench/README.md
// §fuzz). serq-link goes on checking and counts the rest: a tool-made IR of
// 10^7 bad stages then keeps 20 errors, not gigabytes of them.
inline constexpr int kMaxErrors = 20;

// Any input a tool reads (source, IR, results): at most this many bytes,
// so /dev/zero or a runaway pipe is refused rather than read for ever ...
inline constexpr int64_t kMaxInputBytes = 512LL << 20;
// ... and at most this many declarations, statements or expression nodes
// of each kind before linking starts work proportional to them.
inline constexpr int64_t kMaxIrItems = 1000000;

// JSON nesting: objects and arrays inside one another, counted by one scan
// (JsonDeeperThan, ir/input_shape.h) before any JSON reaches protobuf's
// parser, whose time grows faster than the square of the depth (a 40 KB
// file of 20,000 levels took 6.8 s, 200,000 levels minutes) and whose
// refusal says nothing of depth or place. IR and results, typed messages
// at most kMaxIrDepth (64) deep, an object and an array a level: ...
inline constexpr int kMaxJsonDepth = 2 * 64 + 8;
// ... every other JSON serq reads (trace rows, measured runs, serq
// physics' files, serq fit-steps' lines), read as protobuf's Struct, which
// protobuf refuses past about 49 levels ("JSON transcoder produced invalid
// protobuf output"): a limit below that, so that the refusal is ours and
// located. Those files are flat, or a few levels deep.
inline constexpr int kMaxDataJsonDepth = 32;

// A request's token count, wherever serq reads one (vLLM's records and
// BLIS's results and traces, as traces and as measured runs; Mooncake's
// lengths): a whole number from 0 to this. The largest context of any
// model is ~10^7 tokens; a count of 1e300 read as a measured run made its
// TPOT ~0 and moved the mean.
inline constexpr int64_t kMaxTokens = 1000000000;
inline bool IsTokenCount(double v) {
  return v >= 0 && v <= static_cast<double>(kMaxTokens) && v == std::floor(v);  // (NaN: false)
}

// A profile table (`table`): at most this many selected rows, each up to
// four keys and a value, which the linked IR carries (~8 MB as protobuf);
// rows a `where` leaves out are read past without being kept.
inline constexpr int64_t kMaxTableRows = 200000;
// ... and at most this many key columns: a 4-D attention profile is the
// largest any published profile has.
inline constexpr int kMaxTableKeys = 4;

}  // namespace serq

#endif  // SERQ_IR_LIMITS_H_
