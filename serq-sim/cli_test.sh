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
stage D[N] : delay;
workload { arrive periodic(1); }
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
grep -q '"version": 9' "$tmp/out" || fail "plain: no results"
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

[ "$failures" -eq 0 ] && echo "serq-sim cli: all cases pass"
[ "$failures" -eq 0 ]
