#!/usr/bin/env bash
# The serq-sim command line: unlinked IR refused, linked IR checked, flags that override the
# run block, -D, --trace, --format, exit codes, and a quiet stderr. Each
# case states what it expects; the script reports every case that fails.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
parse=$root/serq-parse/serq-parse
link=$root/serq-link/serq-link
sim=$root/serq-sim/serq-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL $1"; failures=$((failures + 1)); }
expect() {  # expect NAME WANT_EXIT GOT_EXIT
  [ "$2" = "$3" ] || fail "$1: exit $3, expected $2"
}

cat >"$tmp/p.sq" <<'SQ'
param W = 2;
param N = 2;
param L = 10;
stage D[N] : delay;
workload { arrive periodic(1); limit L; }
session { run D[0] (W); observe t = now - arrival; }
run { horizon 3; seed 5; }
SQ
"$parse" "$tmp/p.sq" >"$tmp/p.unlinked.json" || fail "parse"
"$link" "$tmp/p.unlinked.json" >"$tmp/p.json" || fail "link"

# A valid run: results on stdout, nothing on stderr (not a terminal: no
# progress line).
"$sim" "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
expect plain 0 $?
[ -s "$tmp/err" ] && fail "plain: stderr not empty: $(cat "$tmp/err")"
grep -q '"version": 11' "$tmp/out" || fail "plain: no results"
grep -q '"seed": "5"' "$tmp/out" || fail "plain: seed of the run block"

# Unlinked IR is refused, telling to run serq-link.
"$sim" "$tmp/p.unlinked.json" >"$tmp/out" 2>"$tmp/err"
expect unlinked 1 $?
grep -q "not linked; run serq-link first" "$tmp/err" || fail "unlinked: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "unlinked: wrote results"

# Linked IR is checked, not trusted: a reference whose decl points past
# every stage (the name is right) runs as the right IR does, and one whose
# name names nothing gets the linker's error, not a crash.
sed 's/"kind": "STAGE"/"kind": "STAGE", "decl": 7/' "$tmp/p.json" >"$tmp/p.decl.json"
grep -q '"decl": 7' "$tmp/p.decl.json" || fail "bad decl: not edited"
"$sim" "$tmp/p.decl.json" >"$tmp/out" 2>"$tmp/err"
expect bad-decl 0 $?
"$sim" "$tmp/p.json" 2>/dev/null | cmp -s - "$tmp/out" || fail "bad decl: results differ"
sed '0,/"name": "D"/! s/"name": "D",/"name": "E",/' "$tmp/p.json" >"$tmp/p.name.json"
"$sim" "$tmp/p.name.json" >"$tmp/out" 2>"$tmp/err"
expect bad-name 1 $?
grep -q "unknown stage 'E'" "$tmp/err" || fail "bad name: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "bad name: wrote results"

# The same from stdin, and byte-identical results twice.
"$sim" - <"$tmp/p.json" >"$tmp/a" 2>/dev/null
expect stdin 0 $?
"$sim" "$tmp/p.json" >"$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || fail "deterministic: two runs differ"

# Flags override the run block: 3 replications, seed 9, horizon 5 (so
# periodic(1) arrives at 0..4 and the runs of 2 s that end before 5 are
# those that arrived at 0, 1, 2).
"$sim" --replications 3 --seed 9 --horizon 5 "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
expect overrides 0 $?
grep -q '"seed": "9"' "$tmp/out" || fail "overrides: seed"
grep -q '"replications": 3' "$tmp/out" || fail "overrides: replications"
[ "$(grep -c '"index"' "$tmp/out")" -ge 2 ] || fail "overrides: replications written"
grep -q '"horizon": 5' "$tmp/out" || fail "overrides: horizon"

# -D: a param's value; one that sizes an array is refused with advice.
"$sim" -D W=1 "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
expect define 0 $?
python3 - "$tmp/out" <<'PY' || fail "define: samples"
import json, sys
r = json.load(open(sys.argv[1]))
# W = 1: arrivals at 0, 1, 2 each take 1 s: all three end before 3.
assert r["replication"][0]["observation"][0]["sample"] == [1, 1], r
PY
"$sim" -D N=3 "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect define-size 1 $?
grep -q "param 'N' sizes array 'D'.*give -D N=3 to serq-link" "$tmp/err" ||
  fail "define-size: $(cat "$tmp/err")"
"$sim" -D N "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect define-malformed 2 $?
# An override meets every static rule, as serq-link -D's does: a limit of
# 2.5 is refused at its line with the linker's words (it was floored to 2).
"$sim" -D L=2.5 "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect define-rule 1 $?
grep -q "p.sq:5:38: error: the limit must be a whole number at least 0, not 2.5" "$tmp/err" ||
  fail "define-rule: $(cat "$tmp/err")"

# --trace writes JSON lines: every line parses, and the run's events are
# there. Horizon 3: arrivals at 0, 1, 2; only the run from 0 (2 s) ends
# before the horizon (the one from 1 ends at 3, which is not simulated).
"$sim" --trace "$tmp/trace.jsonl" "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect trace 0 $?
python3 - "$tmp/trace.jsonl" <<'PY' || fail "trace: log"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
events = [l.get("event") for l in lines]
assert lines[0] == {"replication": 0}, lines[0]
assert events.count("arrive") == 3 and events.count("done") == 1, events
assert events.count("run") == 3 and events.count("observe") == 1, events
assert events.count("end") == 1, events
PY

# --trace's pool events (engine_trace.cc), derived by hand. kv has 10 units
# and evicts by (since); a, b, c arrive at 0:
#   0    a admits 6, b admits 4 (used 6, 10); c runs D for 3 s.
#   1    a's block ends: its 6 units become a lease of 0.5 s.
#   1.5  the lease expires (used 4).
#   2    b's block ends: a lease of 4 until released (no duration field).
#   3    c asks for 8 with 6 free: b's lease is evicted (used 0),
#        c admits 8 (used 8) and releases them (used 0) in its block.
cat >"$tmp/pools.sq" <<'SQ'
pool kv { cap 10; evict by (since); }
stage D : delay;
workload a { arrive batch(1); }
workload b { arrive batch(1); }
workload c { arrive batch(1); }
session a { hold kv (6) { run D (1); } lease kv (0.5); }
session b { hold kv (4) { run D (2); } lease kv (inf); }
session c { run D (3); hold kv (8) { release kv; } }
run { horizon 4; }
SQ
"$parse" "$tmp/pools.sq" | "$link" >"$tmp/pools.json" || fail "pools: link"
"$sim" --trace "$tmp/pools.jsonl" "$tmp/pools.json" >/dev/null 2>"$tmp/err"
expect trace-pools 0 $?
python3 - "$tmp/pools.jsonl" <<'PY' || fail "trace: pool events"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])][1:]
def ev(e):
    keys = [k for k in ("pool", "amount", "units", "duration", "by") if k in e]
    return (e["t"], e["event"], e.get("session")) + tuple((k, e[k]) for k in keys)
got = [ev(e) for e in lines if e["event"] in
       ("admit", "wait", "lease", "release", "expire", "evict")]
want = [
    (0, "admit", 0, ("pool", "kv"), ("amount", 6)),
    (0, "admit", 1, ("pool", "kv"), ("amount", 4)),
    (1, "lease", 0, ("pool", "kv"), ("units", 6), ("duration", 0.5)),
    (1.5, "expire", 0, ("pool", "kv"), ("units", 6)),
    (2, "lease", 1, ("pool", "kv"), ("units", 4)),
    (3, "evict", 1, ("pool", "kv"), ("units", 4)),
    (3, "admit", 2, ("pool", "kv"), ("amount", 8)),
    (3, "release", 2, ("pool", "kv"), ("units", 8), ("by", "release")),
]
assert got == want, got
used = [(e["t"], e["used"]) for e in lines if e["event"] == "pool"]
assert used == [(0, 6), (0, 10), (1.5, 4), (3, 0), (3, 8), (3, 0)], used
PY

# --trace-format=chrome: the Trace Event Format. Every event has the fields
# the format requires (ph, pid, tid, name; ts but on metadata; dur on X;
# numeric args on C), B/E nest per thread, and the values are those of
# testdata/series/step-grow.sq, derived there: steps [0, 0.75) and
# [2.5, 3.5) on E (one decode job, context 3 then 4); session 0 (a) from 0
# to 3.5 with its run on E and a stall from 0.75 to 2.5 inside; session 1
# (b) from 0 to 2.5 with its run on D; kv used 2, 2 (the load), 3, 4, then
# 3 and 4 at 2.5 (b's unit back, a's growth), 0 at 3.5.
cat >"$tmp/grow.sq" <<'SQ'
pool kv { cap 4; }
stage E : step(0.25 * context);
stage D : delay;
workload a { arrive batch(1); }
workload b { arrive batch(1); }
session a {
  hold kv (2) {
    load kv (2);
    run E decode (2) growing kv;
    observe a_done = now;
  }
}
session b { hold kv (1) { run D (2.5); } }
run { horizon 10; }
SQ
"$parse" "$tmp/grow.sq" | "$link" >"$tmp/grow.json" || fail "grow: link"
"$sim" --trace "$tmp/grow.trace.json" --trace-format=chrome "$tmp/grow.json" >/dev/null 2>"$tmp/err"
expect trace-chrome 0 $?
python3 - "$tmp/grow.trace.json" <<'PY' || fail "trace-chrome: format"
import json, sys
doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
for e in events:
    for k in ("ph", "pid", "tid", "name"):
        assert k in e, (k, e)
    assert e["ph"] in "XCiMbne", e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] == "X":
        assert isinstance(e["dur"], (int, float)) and e["dur"] > 0, e
    if e["ph"] == "C":
        assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
procs = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
assert procs == {1: "stages (replication 0)", 2: "sessions (replication 0)",
                 3: "pools (replication 0)"}, procs
# Sessions: async slices (b/e) nested by id, no thread each; the slices as
# (session, name, begin, end).
assert not any(pid == 2 for pid, tid in names), names
stacks, slices = {}, []
for e in events:
    if e["ph"] == "b":
        stacks.setdefault(e["id"], []).append(e)
    elif e["ph"] == "e":
        b = stacks[e["id"]].pop()
        assert b["name"] == e["name"] and b["ts"] <= e["ts"], (b, e)
        slices.append((e["id"], b["name"], b["ts"], e["ts"]))
assert all(not s for s in stacks.values()), stacks
assert sorted(slices) == sorted([
    (0, "a", 0, 3500000), (0, "E", 0, 3500000), (0, "stall kv", 750000, 2500000),
    (1, "b", 0, 2500000), (1, "D", 0, 2500000)]), slices
steps = [(names[(e["pid"], e["tid"])], e["ts"], e["dur"], e["args"]["seqs"],
          e["args"]["tokens"], e["args"]["context"], e["args"]["tau"])
         for e in events if e["ph"] == "X"]
assert steps == [("E", 0, 750000, 1, 1, 3, 0.75), ("E", 2500000, 1000000, 1, 1, 4, 1)], steps
used = [(e["ts"], e["args"]["used"]) for e in events if e["ph"] == "C" and e["name"] == "kv"]
# A counter changes once an instant: the last value of each (0: 2, 2, 3,
# then 4; 2.5 s: 3, then 4).
assert used == [(0, 4), (2500000, 4), (3500000, 0)], used
PY
# Slices still open at the horizon end there: p.sq's runs from 1 and 2
# (2 s each) and their sessions are cut at 3.
"$sim" --trace "$tmp/p.trace.json" --trace-format=chrome "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect trace-chrome-horizon 0 $?
python3 - "$tmp/p.trace.json" <<'PY' || fail "trace-chrome: horizon"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
ends = sorted((e["id"], e["name"], e["ts"]) for e in events if e["ph"] == "e")
assert ends == [(0, "D[0]", 2000000), (0, "session", 2000000),
                (1, "D[0]", 3000000), (1, "session", 3000000),
                (2, "D[0]", 3000000), (2, "session", 3000000)], ends
PY
"$sim" --trace-format=chrome "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect trace-format-alone 2 $?
"$sim" --trace "$tmp/x" --trace-format=perfetto "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect trace-format-bad 2 $?

# --data-dir (and --data_dir): relative trace paths resolve there, else
# next to the program's source.
mkdir -p "$tmp/data"
printf 'time,prompt\n0,7\n' >"$tmp/data/rows.csv"
cat >"$tmp/t.sq" <<'SQ'
workload { arrive trace("rows.csv"); }
session { observe p = prompt; }
run { horizon 1; }
SQ
"$parse" "$tmp/t.sq" | "$link" >"$tmp/t.json" || fail "trace: link"
"$sim" "$tmp/t.json" >/dev/null 2>"$tmp/err"
expect data-dir-absent 1 $?
grep -q "cannot open trace '$tmp/rows.csv'" "$tmp/err" || fail "data-dir-absent: $(cat "$tmp/err")"
for form in "--data-dir $tmp/data" "--data-dir=$tmp/data" "--data_dir=$tmp/data"; do
  # shellcheck disable=SC2086
  "$sim" $form "$tmp/t.json" >"$tmp/out" 2>"$tmp/err"
  expect "data-dir $form" 0 $?
  grep -q '"sample": \[' "$tmp/out" || fail "data-dir $form: no sample"
done

# Binary results; refused to a terminal is tested by ir/cli; here a file.
"$sim" --format=pb "$tmp/p.json" >"$tmp/out.pb" 2>/dev/null
expect format-pb 0 $?
[ "$(head -c1 "$tmp/out.pb")" != "{" ] || fail "format-pb: wrote JSON"
"$sim" --format=xml "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect format-bad 2 $?

# Misuse: two inputs, an unreadable file, zero replications, bad horizon.
"$sim" "$tmp/p.json" "$tmp/p.json" >/dev/null 2>&1
expect two-inputs 2 $?
"$sim" "$tmp/absent.json" >/dev/null 2>&1
expect absent 2 $?
"$sim" --replications 0 "$tmp/p.json" >/dev/null 2>&1
expect replications-0 2 $?
"$sim" --horizon -1 "$tmp/p.json" >/dev/null 2>&1
expect horizon-negative 2 $?
"$sim" --help >/dev/null 2>&1
[ $? -le 1 ] || fail "help"

# --sample DT: the series' times are k * DT up to the horizon (3: 0, 1.5,
# 3); a bad interval is misuse; one that makes over a million samples is
# refused (exit 1), not gigabytes of results.
"$sim" --sample 1.5 --replications 2 "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
expect sample 0 $?
python3 - "$tmp/out" <<'PY' || fail "sample: series"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["sample"] == 1.5, r["sample"]
for rep in r["replication"]:
    s = rep["series"]
    assert s["time"] == [0, 1.5, 3], s["time"]
    # Arrivals at 0, 1, 2 (periodic(1)), each 2 s on D[0]: at 0 one job, at
    # 1.5 two (0 and 1), at 3 two (1 and 2: the 0 one ended at 2).
    assert s["stage"][0]["present"] == [1, 2, 2], s["stage"][0]
    assert s["stage"][1]["present"] == [0, 0, 0], s["stage"][1]
    assert s["session"][0]["inProgress"] == [1, 2, 2], s["session"]
PY
for bad in 0 -1 inf nan x; do
  "$sim" --sample "$bad" "$tmp/p.json" >/dev/null 2>"$tmp/err"
  expect "sample $bad" 2 $?
done
"$sim" --sample 1e-6 "$tmp/p.json" >/dev/null 2>"$tmp/err"
expect sample-too-many 1 $?
grep -q "error: --sample: a sample every 1e-06 s over the horizon 3 makes more than 1000000 samples" \
  "$tmp/err" || fail "sample-too-many: $(cat "$tmp/err")"

[ "$failures" -eq 0 ] && echo "serq-sim cli: all cases pass"
[ "$failures" -eq 0 ]
