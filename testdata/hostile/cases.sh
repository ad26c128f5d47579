# The hostile cases (issue 12), one list for two scripts: sourced by
# hostile_test.sh (which checks each case's exit status and error) and by
# bench/hostile.sh (which measures each case's time and peak RSS, before
# and after the fixes). Before sourcing, the sourcer defines:
#   case_ NAME MEMORY_MB CPU_S STATUS PATTERN -- command...
#     STATUS is the exit status wanted; PATTERN a fixed string stderr must
#     hold ("": anything); MEMORY_MB and CPU_S the test's limits.
#   here   testdata/hostile (the current directory is the repository root)
#   tmp    an empty scratch directory
# and puts the six tools on PATH. The setup lines between the cases make
# their inputs in $tmp with the tools on PATH.
full="No space left on device"
before=testdata/hostile/before.sq
serq-parse $before > "$tmp/before.ir.json"
serq-link "$tmp/before.ir.json" > "$tmp/before.linked.json"
serq-sim "$tmp/before.linked.json" > "$tmp/before.results.json"
serq-parse $here/sessions-poisson.sq | serq-link > "$tmp/poisson.linked.json"
serq-parse $here/hang-ps.sq | serq-link > "$tmp/hang.linked.json"

# --- Finding 6: a failed write is "cannot write output: <reason>", exit 2,
# for every tool and every output. /dev/full fails every write with ENOSPC;
# the outputs below 4 KB are the ones stdio alone lost.
sh_to() { local out=$1; shift; exec "$@" > "$out"; }
export -f sh_to
w="cannot write output: $full"
case_ write-parse 500 20 2 "serq-parse: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-parse $before
case_ write-parse-pb 500 20 2 "serq-parse: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-parse --format=pb $before
case_ write-link 500 20 2 "serq-link: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-link "$tmp/before.ir.json"
case_ write-sim 500 20 2 "serq-sim: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-sim "$tmp/before.linked.json"
case_ write-sim-pb 500 20 2 "serq-sim: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-sim --format=pb "$tmp/before.linked.json"
case_ write-sim-trace 500 20 2 "serq-sim: error: cannot write output '/dev/full' (--trace): $full" -- \
  bash -c 'sh_to /dev/null "$@"' _ serq-sim --trace /dev/full "$tmp/before.linked.json"
case_ write-report 500 20 2 "serq-report: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-report "$tmp/before.results.json"
case_ write-report-json 500 20 2 "serq-report: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-report --format=json "$tmp/before.results.json"
case_ write-view 500 20 2 "serq-view: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-view "$tmp/before.linked.json"
for c in run fmt view; do
  case_ write-serq-$c 500 20 2 "serq: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq $c $before
done
case_ write-serq-run-trace 500 20 2 "serq: error: cannot write output '/dev/full' (--trace): $full" -- \
  bash -c 'sh_to /dev/null "$@"' _ serq run --trace /dev/full $before
case_ write-help 500 20 2 "serq-sim: error: $w" -- bash -c 'sh_to /dev/full "$@"' _ serq-sim --help

# --- Finding 1: state that grows with the run is bounded, with an error
# naming the workload, the time, the count and the flag. Each program piled
# up sessions until std::bad_alloc (2.5 GB, 16-38 s); now ~470 MB, 0.7 s.
lim="the --max-sessions limit"
case_ sessions-poisson 1500 60 1 "sessions-poisson.sq:3:1: error: at t=" -- serq run $here/sessions-poisson.sq
case_ sessions-poisson-flag 1500 60 1 "$lim" -- serq run $here/sessions-poisson.sq
case_ sessions-periodic 1500 60 1 "$lim" -- serq run $here/sessions-periodic.sq
case_ sessions-long-run 1500 60 1 "$lim" -- serq run $here/sessions-long-run.sq
case_ sessions-small-limit 300 20 1 "while 1000 are alive, $lim" -- serq run --max-sessions 1000 $here/sessions-poisson.sq
case_ sessions-pipe 1500 60 1 "$lim" -- serq-sim --max-sessions 1000 "$tmp/poisson.linked.json"
case_ leases 300 20 1 "leases are alive (10 times --max-sessions)" -- serq run --max-sessions 1000 $here/leases.sq
case_ bad-batch 300 20 1 "bad-batch.sq:3:25: error: batch(n) needs a whole number n from 0 to 1000000, not 1000000000000" -- serq run $here/bad-batch.sq

# What no bound covers ends as a clear error, exit 2, not std::bad_alloc's
# abort (exit 134): the same program under 300 MB of address space, where
# its million live sessions need ~470 MB (each binary's main installs the
# std::terminate hook: ir/cli.h ExitOnOutOfMemory). Not under ASan, whose allocator
# reports and aborts by itself at hard_rss_limit_mb.
oom="error: out of memory: an allocation failed"
if [ "${SERQ_ASAN:-0}" != 1 ]; then
  case_ out-of-memory-run 300 20 2 "serq: $oom" -- serq run $here/sessions-poisson.sq
  case_ out-of-memory-sim 300 20 2 "serq-sim: $oom" -- serq-sim "$tmp/poisson.linked.json"
  # 200 threads' stacks (8 MB each) past 400 MB: a thread that cannot start.
  case_ out-of-threads 400 20 2 "serq: error: a system call failed: Resource temporarily unavailable" -- \
    serq run --jobs 200 --replications 200 $before
fi

# --- Finding 2: replications bounded on the command line like in the source.
case_ replications-flag 300 20 2 "--replications must be from 1 to 100000, not 1000000000" -- serq run --replications 1000000000 $before
case_ replications-flag-sim 300 20 2 "--replications must be from 1 to 100000" -- serq-sim --replications 1000000000 "$tmp/before.linked.json"
case_ bad-replications 300 20 1 "replications must be a whole number from 1 to 100000, not 1000000" -- serq check $here/bad-replications.sq

# --- Finding 4: runs that would not end, bounded by --max-events and
# --max-cpu (each ran over 60 s with flat memory).
ev="the --max-events limit"
case_ hang-ps 300 60 1 "$ev" -- serq run --max-events 1000000 $here/hang-ps.sq
case_ hang-step 300 60 1 "$ev" -- serq run --max-events 1000000 $here/hang-step.sq
case_ hang-periodic 300 60 1 "hang-periodic.sq:3:1: error: at t=" -- serq run --max-events 1000000 $here/hang-periodic.sq
# A run without a horizon is told to take fewer arrivals or a horizon, not
# to lower the horizon it does not have (each arrival is two events, its
# start and its end, so 1000 events stop it near the 500th arrival).
case_ drained-events 300 20 1 "and has not drained (the run has no horizon: it ends when its last session does) (raise --max-events, or give the run fewer arrivals or a horizon)" -- serq run --max-events 1000 $here/drained-events.sq
case_ drained-cpu 300 20 1 "(raise --max-cpu, lower the replications, or give the run fewer arrivals or a horizon)" -- serq run --max-cpu 0.01 $here/drained-events.sq
# Without a flag (issue 26): time that crawls is found from the replication's
# progress, extrapolated to the horizon past 10^12 events, in seconds.
rw="would need about"
case_ runaway-ps 300 20 1 "hang-ps.sq:5:1: error: at t=" -- serq run $here/hang-ps.sq
case_ runaway-ps-bound 300 20 1 "past the bound of 1e+12 events" -- serq run $here/hang-ps.sq
case_ runaway-step 300 20 1 "the latest event: stage 'E'" -- serq run $here/hang-step.sq
# A step under the clock's tick (1 ns) rounds to none: once it was found
# only by the same-instant guard's 10^8 events (50 s under ASan).
case_ tick-step 300 20 1 "hang-tick.sq:3:16: error: at t=0: tau of 'E' is 1e-300" -- serq run $here/hang-tick.sq
case_ runaway-periodic 300 20 1 "hang-periodic.sq:3:1: error: at t=" -- serq run $here/hang-periodic.sq
case_ runaway-periodic-rate 300 20 1 "$rw 1.05e+16 events" -- serq run $here/hang-periodic.sq
case_ runaway-sim 300 20 1 "$rw" -- serq-sim "$tmp/hang.linked.json"
case_ hang-cpu 300 60 1 "the --max-cpu limit" -- serq run --max-cpu 1 --max-events 1000000000000000 $here/hang-ps.sq
case_ hang-cpu-sim 300 60 1 "the --max-cpu limit" -- serq-sim --max-cpu 1 --max-events 1000000000000000 "$tmp/hang.linked.json"
# Many short replications, none of 65,536 events (the loop's check): the
# limit is checked as each starts too (100,000 of before.sq take 5 s).
case_ many-replications-cpu 300 60 1 "the --max-cpu limit, as replication" -- serq-sim --replications 100000 --max-cpu 0.2 "$tmp/before.linked.json"

# --- Finding 3: 10^7 empty stages, 20 MB of binary IR, took 3.7 GB in
# serq-link and 1 GB in serq-sim and serq-view: now refused by counting the
# encoding's fields before decoding. Many errors: the first 100, then a count.
python3 -c 'import sys; sys.stdout.buffer.write(b"\x08\x08" + b"\x42\x00" * 10**7)' > "$tmp/stages.pb"
for t in serq-link serq-sim serq-view; do
  case_ ir-stages-$t 400 20 1 "more than 1000000 'stage' entries" -- $t "$tmp/stages.pb"
done
python3 -c 'import json; print(json.dumps({"version": 8, "stage": [{"name": "s%d" % i} for i in range(200000)]}))' > "$tmp/errors.json"
case_ link-error-limit 400 30 1 "more after the first 20 not shown" -- serq-link "$tmp/errors.json"
# One line of 32 MB, an error every two bytes: the lexer stops at the 20th,
# and each error shows 200 bytes of the line around its column. (The last
# round lexed to the end, reserving a token for every four bytes, 320 MB,
# and printed the whole line and a caret line as long with each error.)
python3 -c 'import sys; sys.stdout.write("# " * (16 << 20))' > "$tmp/garbage.sq"
case_ parse-error-limit 300 20 1 "garbage.sq: error: too many errors: stopped after the first 20" -- serq-parse "$tmp/garbage.sq"

# --- Finding 7: inputs that are not files.
case_ dir-link 300 20 2 "serq-link: error: cannot read '$here': it is a directory" -- serq-link $here
case_ dir-sim 300 20 2 "serq-sim: error: cannot read '$here': it is a directory" -- serq-sim $here
case_ dir-report 300 20 2 "serq-report: error: cannot read '$here': it is a directory" -- serq-report $here
case_ dir-parse 300 20 2 "serq-parse: error: cannot read '$here': it is a directory" -- serq-parse $here
case_ dir-serq 300 20 2 "serq: error: cannot read '$here': it is a directory" -- serq run $here
case_ zero-link 1500 30 2 "larger than 512 MB" -- serq-link /dev/zero
case_ empty-report 300 20 1 "empty input: expected results as JSON" -- serq-report /dev/null

# --- Finding 8: validation gaps.
case_ nan-param 300 20 1 "param[0].value: error: the value is NaN" -- serq-link --check $here/bad-nan-param.json
serq-parse --format=pb $before > "$tmp/before.pb"
case_ ir-as-results 300 20 1 "not serq results: protobuf fields 8" -- serq-report "$tmp/before.pb"
serq-sim --format=pb "$tmp/before.linked.json" > "$tmp/before.results.pb"
case_ results-as-ir 300 20 1 "invalid IR: neither JSON nor a valid protobuf binary message" -- serq-link "$tmp/before.results.pb"
python3 -c 'print("{\"version\": 8, \"run\": " + "{\"x\": " * 1000000 + "1" + "}" * 1000001)' > "$tmp/deep.json"
case_ deep-json 200 20 1 "JSON nested more than 136 levels deep" -- serq-link "$tmp/deep.json"
case_ deep-json-report 200 20 1 "JSON nested more than 136 levels deep" -- serq-report "$tmp/deep.json"
case_ duplicate-key 200 20 1 "the key 'version' appears twice in one object (line 1)" -- \
  bash -c 'echo "{\"version\": 8, \"version\": 8}" | serq-link'
case_ duplicate-key-camel 200 20 1 "the key 'service_sum' appears twice" -- serq-report $here/bad-duplicate-key.json
# A binary results stream cut short (a later replication's runtime error)
# decodes as fewer replications: refused, never a smaller report.
head -c $(( $(stat -c %s "$tmp/before.results.pb") - 40 )) "$tmp/before.results.pb" > "$tmp/short.pb" 2>/dev/null
serq-sim --format=pb --replications 3 "$tmp/before.linked.json" > "$tmp/three.pb"
python3 - "$tmp/three.pb" "$tmp/cut.pb" <<'PY'
import sys
# Keep the header and the first replication: the header is every field before
# the first field 7 (tag 0x3a); a replication is tag, varint length, bytes.
b = open(sys.argv[1], "rb").read()
i = b.index(b"\x3a")
def varint(b, i):
    n = s = 0
    while True:
        c = b[i]; i += 1; n |= (c & 0x7f) << s; s += 7
        if c < 0x80: return n, i
n, j = varint(b, i + 1)
open(sys.argv[2], "wb").write(b[: j + n])
PY
case_ results-cut-short 200 20 1 "results cut short: 1 of the 3 replications" -- serq-report "$tmp/cut.pb"

# --- Findings 5 and 7: traces. Wide traces are made here: a CSV of 10,000
# columns, the most a CSV header may have (text/csv.h), and Mooncake rows of
# 10^5 fields.
cp $here/trace-wide.sq $here/trace-wide-mooncake.sq "$tmp/"
python3 -c '
n = 9999
print("time," + ",".join("c%d" % c for c in range(n)))
for r in range(10): print(str(r) + ",1" * n)' > "$tmp/wide.csv"
python3 -c '
n = 100000
for r in range(10):
    print("{\"timestamp\": %d, \"input_length\": 10, \"output_length\": 5, " % (r * 1000) + ", ".join("\"c%d\": 1" % c for c in range(n)) + "}")' > "$tmp/wide.jsonl"
case_ trace-wide 600 20 0 "" -- serq run "$tmp/trace-wide.sq"
case_ trace-wide-mooncake 800 20 0 "" -- serq run "$tmp/trace-wide-mooncake.sq"
# Issue 26, finding 8: a header of 10^7 columns (89 MB) took 1.09 GB and 18
# CPU s; now refused when counted, in the memory of its line (140 MB, 1 s).
python3 -c '
import sys
n = 10**7
sys.stdout.write("time," + ",".join("c%d" % c for c in range(n)) + "\n0" + ",1" * 10 + "\n")' > "$tmp/header.csv"
sed 's/wide.csv/header.csv/' $here/trace-wide.sq > "$tmp/trace-header.sq"
case_ trace-wide-header 400 20 1 "header.csv:1: error: the header has 10000001 columns; serq reads at most 10000" -- serq run "$tmp/trace-header.sq"
rm -f "$tmp/header.csv"
case_ trace-dir 300 20 1 "trace-dir.sq:4:1: error: cannot read trace 'testdata/hostile/trace-dir.d': it is a directory" -- serq run $here/trace-dir.sq
case_ trace-zero 1000 60 1 "/dev/zero:1: error: a line longer than 256 MB (is this a trace?)" -- serq run $here/trace-zero.sq


# --- Issue 24: profile tables, read by serq-link a line at a time. 10^7
# rows kept stop at the 200,001st; 10^7 rows of which none is kept are
# read in bounded memory; a header of 10^6 columns and a line without end
# are refused.
cp $here/table-rows.sq $here/table-where.sq $here/table-wide.sq "$tmp/"
seq 1 10000000 | awk '{print $1 ",1"}' | sed '1i tokens,time_us' > "$tmp/rows.csv"
seq 1 10000000 | awk '{print "y," $1 ",1"}' | sed '1i layer,tokens,time_us' > "$tmp/where.csv"
seq 1 1000000 | awk 'BEGIN{ORS=","} {print "c" $1}' | sed 's/$/tokens,time_us\n1,1/' > "$tmp/wide-table.csv"
case_ table-rows 400 30 1 "rows.csv:200002: error: table 't': more than 200000 rows selected" -- serq check "$tmp/table-rows.sq"
case_ table-where 400 60 1 "error: cannot read table 't' from '$tmp/where.csv': no row matches the table's 'where'" -- serq check "$tmp/table-where.sq"
case_ table-wide 400 30 1 "wide-table.csv:1: error: table 't': the header has more than 10000 columns" -- serq check "$tmp/table-wide.sq"
case_ table-zero 1000 60 1 "/dev/zero:1: error: table 't': a line longer than 256 MB: not a CSV table" -- serq check $here/table-zero.sq

# --- Issue 24: vLLM's request records and BLIS's TraceV2 as traces, and
# serq compare's readers of measured runs. Every output checked; a row of
# 10^7 fields or columns refused before it is split or parsed; 10^6 rows in
# memory proportional to their figures; NaN, negative times, rows out of
# order and two clocks refused at their line.
c=testdata/compare
case_ write-serq-compare 500 20 2 "serq: error: $w" -- \
  bash -c 'sh_to /dev/full "$@"' _ serq compare $c/vllm.measured $c/vllm.sq
case_ write-serq-compare-json 500 20 2 "serq: error: $w" -- \
  bash -c 'sh_to /dev/full "$@"' _ serq compare --format=json $c/vllm.measured $c/vllm.sq
case_ write-serq-compare-svg 500 20 2 "serq: error: cannot write output '/dev/full' (--svg): $full" -- \
  bash -c 'sh_to /dev/null "$@"' _ serq compare --svg /dev/full $c/vllm.measured $c/vllm.sq
# A program replaying $tmp/NAME, reading no column (any format will do).
replay() { printf 'stage D : delay;\nworkload w { arrive trace("%s"); }\nsession w { run D (0); }\nrun { horizon %s; }\n' "$1" "${2:-10}" > "$tmp/$1.sq"; }
# (The 10^7 fields repeat one name: refused before it matters.)
python3 -c '
import sys
sys.stdout.write("{\"input_toks\": 1, \"output_toks\": 1, \"queued_ts\": 0" + ", \"c\": 1" * 10**7 + "}\n")' > "$tmp/vllm-wide.jsonl"
replay vllm-wide.jsonl
case_ trace-vllm-wide 900 60 1 "vllm-wide.jsonl:1: error: a line of 80000051 bytes: a vLLM record is one request's few hundred, at most 1 MB" -- serq run "$tmp/vllm-wide.jsonl.sq"
case_ compare-vllm-wide 900 60 1 "vllm-wide.jsonl:1: error: a line of 80000051 bytes" -- serq compare "$tmp/vllm-wide.jsonl" $c/vllm.sq
rm -f "$tmp/vllm-wide.jsonl"
python3 -c '
import sys
sys.stdout.write("arrival_time_us" + ",c" * 10**7 + "\n")' > "$tmp/blis-wide.trace.csv"
printf 'trace_version: 3\ntime_unit: microseconds\n' > "$tmp/blis-wide.trace.yaml"
replay blis-wide.trace.csv
case_ trace-blis-wide 600 60 1 "blis-wide.trace.csv:1: error: a header of more than 1000 columns (TraceV2 has 27 to 32)" -- serq run "$tmp/blis-wide.trace.csv.sq"
rm -f "$tmp/blis-wide.trace.csv"
python3 -c '
import sys
sys.stdout.write("[{\"c\": 1" + ", \"c\": 1" * 10**7 + "}]\n")' > "$tmp/blis-wide.json"
case_ compare-blis-wide 900 60 1 "blis-wide.json:1: error: element 0 is longer than 1 MB" -- serq compare "$tmp/blis-wide.json" $c/vllm.sq
python3 -c 'print("[{\"a\": " + "[" * 200000 + "]" * 200000 + "}]")' > "$tmp/blis-deep.json"
case_ compare-blis-deep 300 20 1 "element 0 is nested more than 32 levels deep" -- serq compare "$tmp/blis-deep.json" $c/vllm.sq
python3 -c 'print("{\"input_toks\": 1, \"a\": " + "[" * 200000 + "]" * 200000 + "}")' > "$tmp/vllm-deep.jsonl"
replay vllm-deep.jsonl
case_ trace-vllm-deep 300 20 1 "vllm-deep.jsonl:1: error: JSON nested more than 32 levels deep" -- serq run "$tmp/vllm-deep.jsonl.sq"
# Mooncake's rows went to protobuf's parser unchecked too (minutes at 2·10^5 levels).
python3 -c 'print("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"a\": " + "[" * 200000 + "]" * 200000 + "}")' > "$tmp/mooncake-deep.jsonl"
replay mooncake-deep.jsonl
case_ trace-mooncake-deep 300 20 1 "mooncake-deep.jsonl:1: error: JSON nested more than 32 levels deep" -- serq run "$tmp/mooncake-deep.jsonl.sq"
rm -f "$tmp/blis-wide.json" "$tmp/blis-deep.json" "$tmp/vllm-deep.jsonl" "$tmp/mooncake-deep.jsonl"
# Many rows: the trace holds 24 bytes a vLLM row, 56 a BLIS row (a short
# horizon replays few of them); a measured run ~100 bytes a request, both
# sides read. JSON rows are parsed by protobuf (~10 us a row): 2*10^5 of
# them; 10^6 BLIS CSV rows.
python3 -c '
for i in range(2 * 10**5): print("{\"input_toks\": 1, \"output_toks\": 2, \"queued_ts\": %.3f, \"first_token_ts\": %.3f, \"last_token_ts\": %.3f}" % (i / 1000, i / 1000 + 0.5, i / 1000 + 1))' > "$tmp/vllm-rows.jsonl"
replay vllm-rows.jsonl 0.1
case_ trace-vllm-rows 300 60 0 "" -- serq run "$tmp/vllm-rows.jsonl.sq"
case_ compare-vllm-rows 400 60 0 "" -- serq compare "$tmp/vllm-rows.jsonl" "$tmp/vllm-rows.jsonl"
rm -f "$tmp/vllm-rows.jsonl"
python3 -c '
print("request_id,session_id,round_index,prefix_group,prefix_length,input_tokens,output_tokens,arrival_time_us,send_time_us")
for i in range(10**6): print("%d,s%d,0,,0,512,128,%d,%d" % (i, i, i * 10, i * 10))' > "$tmp/blis-rows.trace.csv"
printf 'trace_version: 3\ntime_unit: microseconds\n' > "$tmp/blis-rows.trace.yaml"
replay blis-rows.trace.csv 0.001
case_ trace-blis-rows 500 60 0 "" -- serq run "$tmp/blis-rows.trace.csv.sq"
rm -f "$tmp/blis-rows.trace.csv"
python3 -c '
print("[" + ",\n".join("{\"request_id\": %d, \"ttft_us\": %d, \"e2e_us\": %d, \"input_tokens\": 512, \"output_tokens\": 128}" % (i, 1000 + i % 977, 90000 + i % 9973) for i in range(2 * 10**5)) + "]")' > "$tmp/blis-rows.json"
case_ compare-blis-rows 400 60 0 "" -- serq compare "$tmp/blis-rows.json" "$tmp/blis-rows.json"
rm -f "$tmp/blis-rows.json"
# NaN, negative times, rows out of order, two clocks: each at its line.
v='"input_toks": 1, "output_toks": 2'
printf '{%s, "queued_ts": 1}\n{%s, "queued_ts": NaN}\n' "$v" "$v" > "$tmp/vllm-nan.jsonl"; replay vllm-nan.jsonl
case_ trace-vllm-nan 300 20 1 "vllm-nan.jsonl:2: error: malformed JSON" -- serq run "$tmp/vllm-nan.jsonl.sq"
printf '{%s, "queued_ts": 1}\n{%s, "queued_ts": -1}\n' "$v" "$v" > "$tmp/vllm-neg.jsonl"; replay vllm-neg.jsonl
case_ trace-vllm-negative 300 20 1 "vllm-neg.jsonl:2: error: queued_ts -1 is negative" -- serq run "$tmp/vllm-neg.jsonl.sq"
printf '{%s, "queued_ts": 2}\n{%s, "queued_ts": 1}\n' "$v" "$v" > "$tmp/vllm-order.jsonl"; replay vllm-order.jsonl
# Rows out of time order (a data-parallel run's engines stamp queued_ts) are
# replayed in arrival order, not refused.
case_ trace-vllm-order 300 20 0 "" -- serq run "$tmp/vllm-order.jsonl.sq"
printf '{%s, "arrival_time": 1.7e9, "queued_ts": 5, "first_token_ts": 6, "last_token_ts": 7}\n{%s, "arrival_time": 6, "queued_ts": 6, "first_token_ts": 7, "last_token_ts": 8}\n' "$v" "$v" > "$tmp/vllm-clock.jsonl"; replay vllm-clock.jsonl
case_ trace-vllm-clock 300 20 1 "vllm-clock.jsonl:2: error: the arrival is arrival_time here but queued_ts in the first row with token times" -- serq run "$tmp/vllm-clock.jsonl.sq"
case_ compare-vllm-clock 300 20 1 "vllm-clock.jsonl:2: error: the arrival is arrival_time here but queued_ts" -- serq compare "$tmp/vllm-clock.jsonl" $c/vllm.sq
printf '{%s, "queued_ts": 5, "first_token_ts": 4, "last_token_ts": 7}\n' "$v" > "$tmp/vllm-ttft.jsonl"
case_ compare-vllm-negative 300 20 1 "vllm-ttft.jsonl:1: error: first_token_ts 4 is before the arrival, queued_ts 5" -- serq compare "$tmp/vllm-ttft.jsonl" $c/vllm.sq
h=request_id,session_id,round_index,prefix_group,prefix_length,input_tokens,output_tokens,arrival_time_us,send_time_us
for name in nan neg order clock; do printf 'trace_version: 2\ntime_unit: us\n' > "$tmp/blis-$name.trace.yaml"; replay blis-$name.trace.csv; done
printf '%s\n0,,0,,0,1,1,0,0\n1,,0,,0,1,1,NaN,0\n' $h > "$tmp/blis-nan.trace.csv"
case_ trace-blis-nan 300 20 1 "blis-nan.trace.csv:3: error: 'NaN' in column 'arrival_time_us' is not a whole number" -- serq run "$tmp/blis-nan.trace.csv.sq"
printf '%s\n0,,0,,0,1,1,0,-7\n' $h > "$tmp/blis-neg.trace.csv"
case_ trace-blis-negative 300 20 1 "blis-neg.trace.csv:2: error: send_time_us -7 is negative" -- serq run "$tmp/blis-neg.trace.csv.sq"
printf '%s\n0,,0,,0,1,1,9,9\n1,,0,,0,1,1,8,8\n' $h > "$tmp/blis-order.trace.csv"
case_ trace-blis-order 300 20 1 "blis-order.trace.csv:3: error: send_time_us 8 is before the previous row's 9 (rows must be in time order)" -- serq run "$tmp/blis-order.trace.csv.sq"
printf '%s\n0,,0,,0,1,1,0,1777142838000000\n1,,0,,0,1,1,5,0\n' $h > "$tmp/blis-clock.trace.csv"
case_ trace-blis-clock 300 20 1 "blis-clock.trace.csv:3: error: the rows mix two clocks" -- serq run "$tmp/blis-clock.trace.csv.sq"

# --- Issue 26: bytes that are not UTF-8 where the IR keeps a string. A
# protobuf string holds UTF-8 only: such IR made protobuf log "invalid
# UTF-8" as it was written, and binary IR or results from a tool were
# refused as "neither JSON nor a valid protobuf binary message", the log
# line naming the field but no place. A program's string is refused at its
# byte; IR and results from a tool at the string's IR path; a file name
# keeps such bytes as \xHH (lang/parse/parser_test).
printf 'table t = "caf\xe9.csv" { key tokens; value time_us; }\nrun { horizon 1; }\n' > "$tmp/utf8-string.sq"
case_ utf8-string 300 20 1 "utf8-string.sq:1:15: error: string is not UTF-8 (byte 0xe9)" -- serq-parse "$tmp/utf8-string.sq"
case_ utf8-string-run 300 20 1 "utf8-string.sq:1:15: error: string is not UTF-8 (byte 0xe9)" -- serq run "$tmp/utf8-string.sq"
sed 's/caf\xe9/cafe/' "$tmp/utf8-string.sq" > "$tmp/utf8-ok.sq"
serq-parse --format=pb "$tmp/utf8-ok.sq" | LC_ALL=C sed 's/cafe/caf\xe9/' > "$tmp/utf8.pb"
utf8_ir="table[0].file: error: string is not UTF-8 (byte 0xe9 at offset 3)"
for tool in serq-link serq-sim serq-view; do
  case_ utf8-ir-pb-$tool 300 20 1 "utf8.pb:$utf8_ir" -- $tool "$tmp/utf8.pb"
done
serq-parse "$tmp/utf8-ok.sq" | LC_ALL=C sed 's/cafe/caf\xe9/' > "$tmp/utf8.json"
case_ utf8-ir-json 300 20 1 "utf8.json: error: invalid JSON: a string that is not UTF-8 (byte 0xe9) at line" -- serq-link "$tmp/utf8.json"
serq-sim --format=pb "$tmp/before.linked.json" | LC_ALL=C sed 's/transferred/transferr\xe9d/' > "$tmp/utf8.results.pb"
case_ utf8-results-pb 300 20 1 "string is not UTF-8 (byte 0xe9 at offset 9)" -- serq-report "$tmp/utf8.results.pb"

# --- Issue 34, item 6: writes that never destroy. --results was opened in
# place and truncated: a run killed while it wrote (here by SIGXFSZ at
# `ulimit -f 64`, 64 KB into 570 KB of results) left the old 570 KB file
# cut to 64 KB (a 12.8 MB file killed so was left at 0 bytes). Now it is
# written to .r.json.tmp-PID and renamed: the old file reads back whole.
# `kept OLD NEW`: exit 9 when NEW is not OLD's bytes or a temporary file is left.
kept='cmp -s "$1" "$2" || { echo "kept: $2 is not the old file" >&2; exit 9; }; ! ls -A "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.tmp-" || { echo "kept: a temporary file is left" >&2; exit 9; }'
serq run --results "$tmp/good.json" --replications 300 $before > /dev/null
case_ write-results-killed 500 20 153 "" -- bash -c "cp \"\$1\" \"\$2\"; (ulimit -f 64; exec serq run --results \"\$2\" --replications 300 --seed 2 $before >/dev/null); s=\$?; $kept; exit \$s" _ "$tmp/good.json" "$tmp/r.json"
case_ write-results-failed 500 20 2 "cannot write '$tmp/r.json': File too large" -- bash -c "cp \"\$1\" \"\$2\"; (trap '' XFSZ; ulimit -f 64; exec serq run --results \"\$2\" --replications 300 --seed 2 $before >/dev/null); s=\$?; $kept; exit \$s" _ "$tmp/good.json" "$tmp/r.json"
case_ write-trace-killed 500 20 153 "" -- bash -c "cp \"\$1\" \"\$2\"; (ulimit -f 64; exec serq-sim --trace \"\$2\" --replications 300 \"$tmp/before.linked.json\" >/dev/null); s=\$?; $kept; exit \$s" _ "$tmp/good.json" "$tmp/t.jsonl"
# Out of memory while a trace is open (its temporary file written as the
# run goes; the window keeps it small): the handler removes the temporary
# file, and the old trace reads back whole (ir/output.h
# RemoveTemporaryOutputs). Not under ASan (out-of-memory-run says why).
if [ "${SERQ_ASAN:-0}" != 1 ]; then
  case_ write-trace-out-of-memory 300 20 2 "serq: $oom" -- bash -c "cp \"\$1\" \"\$2\"; serq run --trace \"\$2\" --trace-window 0:1e-6 $here/sessions-poisson.sq >/dev/null; s=\$?; $kept; exit \$s" _ "$tmp/good.json" "$tmp/t.jsonl"
fi

# --- Issue 34, item 8: every JSON reader bounded in depth. serq physics'
# files and serq fit-steps' lines went to protobuf's parser unchecked, whose
# time grows faster than the square of the depth (20,000 levels, 40 KB:
# 6.8 s; 200,000 levels, 400 KB: over 300 s). Now one scan refuses JSON past
# 32 levels (136 for IR and results) at the bracket that crosses it.
python3 -c 'print("{\"a\": " + "[" * 200000 + "]" * 200000 + "}")' > "$tmp/deep-200k.json"
python3 -c 'print("{\"t\":0,\"event\":\"step\",\"tau\":1}\n{\"event\":\"step\",\"a\":" + "[" * 200000 + "]" * 200000 + "}")' > "$tmp/deep-steps.jsonl"
b=testdata/blis
dj="levels deep"
case_ physics-deep-config 300 5 1 "deep-200k.json:1:38: error: JSON nested more than 32 $dj" -- serq physics "$tmp/deep-200k.json" $b/hardware_config.json
case_ physics-deep-hardware 300 5 1 "deep-200k.json:1:38: error: JSON nested more than 32 $dj" -- serq physics $b/qwen3-14b.config.json "$tmp/deep-200k.json" --gpu H100
case_ physics-deep-coefficients 300 5 1 "deep-200k.json:1:38: error: JSON nested more than 32 $dj" -- serq physics $b/qwen3-14b.config.json $b/hardware_config.json --gpu H100 --coefficients "$tmp/deep-200k.json"
case_ fit-steps-deep 300 5 1 "deep-steps.jsonl:2: error: JSON nested more than 32 $dj" -- serq fit-steps "$tmp/deep-steps.jsonl" --terms A=1

# --- Issue 34, item 7: the program's totals. The 10^6 bound on an array was
# per declaration: three `stage x[1000000]` and two `pool p[1000000]` (239
# bytes) ran 34.8 s to 5.67 GB, and died of std::bad_alloc, unlocated, under
# a 4 GiB limit. The linker bounds the stages' and pools' elements in all
# (and the sessions' statements, and the tables' rows), at the declaration
# that crosses: 0.1 s, 9 MB.
case_ total-elements 300 10 1 "bad-total-elements.sq:5:1: error: the program's stages and pools have more than 1000000 elements in all: stage 'b' adds 1000000 to the 1000000 before it" -- serq run testdata/link/bad-total-elements.sq
case_ total-elements-sim 300 10 1 "stage[1]: error: the program's stages and pools have more than 1000000 elements in all" -- \
  bash -c 'serq-parse testdata/link/bad-total-elements.sq | python3 -c "import json, sys; p = json.load(sys.stdin); p[\"linked\"] = True; [s.pop(\"loc\", None) for s in p[\"stage\"] + p[\"pool\"]]; json.dump(p, sys.stdout)" | serq-sim'
cp $here/table-total.sq "$tmp/"
seq 1 200000 | awk '{print $1 ",1"}' | sed '1i tokens,time_us' > "$tmp/rows200k.csv"
case_ total-table-rows 400 30 1 "rows200k.csv:2: error: table 't5': more than 0 rows selected; the program's tables keep at most 1000000 rows in all, and the tables before it keep 1000000" -- serq check "$tmp/table-total.sq"

# --- Issue 34, item 9: a measured run's token count of 1e300 was read, and
# its TPOT (~1e-300 s) moved the mean; a count is at most 10^9, in every
# reader of one.
printf '{"input_toks": 1, "output_toks": 2, "queued_ts": 5, "first_token_ts": 6, "last_token_ts": 7}\n{"input_toks": 1, "output_toks": 1e300, "queued_ts": 5, "first_token_ts": 6, "last_token_ts": 7}\n' > "$tmp/vllm-tokens.jsonl"
case_ compare-vllm-tokens 300 20 1 "vllm-tokens.jsonl:2: error: output_toks 1e+300 is not a whole number of tokens from 0 to 1000000000" -- serq compare "$tmp/vllm-tokens.jsonl" $c/vllm.sq

# --- Issue 34, item 9: binary IR whose field runs past the end of the
# message that holds it. protobuf read on into the fields after it, logged
# "String field 'serq.ir.Stage.name' contains invalid UTF-8 data" for the
# ff bytes there and failed with no place (0.6% of a mutation corpus of IR
# and results did so). The check now reads as protobuf does: stage[0] is 3
# bytes, its name 5 ('a' and the ff after the stage), refused at its path.
printf '\010\012\102\003\012\005a\377\377\377\377' > "$tmp/overrun.pb"
for t in serq-link serq-sim serq-view; do
  case_ ir-overrun-$t 300 20 1 "overrun.pb:stage[0].name: error: string is not UTF-8 (byte 0xff at offset 1)" -- $t "$tmp/overrun.pb"
done
