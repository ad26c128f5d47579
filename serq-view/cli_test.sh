#!/usr/bin/env bash
# The serq-view command line: input from a file, stdin or binary IR,
# --format, --results, and the exit codes. Each case states what it
# expects; every failure is printed and the script fails at the end.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
view=$root/serq-view/serq-view
parse=$root/serq-parse/serq-parse
link=$root/serq-link/serq-link
sim=$root/serq-sim/serq-sim
data=$root/testdata/view
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL $*"; failures=$((failures + 1)); }
expect() {  # expect NAME WANT_EXIT GOT_EXIT
  [ "$2" = "$3" ] || fail "$1: exit $3, expected $2"
}

"$parse" "$data/egress.sq" | "$link" >"$tmp/egress.json" || fail "setup: parse | link"
"$parse" "$data/egress.sq" | "$link" --format=pb >"$tmp/egress.pb" || fail "setup: binary IR"

# A file, stdin and binary IR give the same drawing, the golden one.
"$view" "$tmp/egress.json" >"$tmp/file.svg" 2>"$tmp/err"
expect file 0 $?
cmp -s "$tmp/file.svg" "$data/egress.svg" || fail "file: differs from egress.svg"
[ -s "$tmp/err" ] && fail "file: printed errors: $(cat "$tmp/err")"
"$view" - <"$tmp/egress.json" >"$tmp/stdin.svg"
expect stdin 0 $?
cmp -s "$tmp/stdin.svg" "$data/egress.svg" || fail "stdin: differs"
"$view" <"$tmp/egress.pb" >"$tmp/pb.svg"
expect binary 0 $?
cmp -s "$tmp/pb.svg" "$data/egress.svg" || fail "binary IR: differs"

# Unlinked IR (serq-parse's) draws the same picture.
"$parse" "$data/egress.sq" | "$view" >"$tmp/unlinked.svg"
expect unlinked 0 $?
cmp -s "$tmp/unlinked.svg" "$data/egress.svg" || fail "unlinked: differs"

# --format=dot is the DOT golden.
"$view" --format=dot "$tmp/egress.json" >"$tmp/out.dot"
expect dot 0 $?
cmp -s "$tmp/out.dot" "$data/egress.dot" || fail "dot: differs from egress.dot"

# --results colours the stations: the results golden.
"$parse" "$data/results/egress.sq" | "$link" |
  "$view" --results "$data/results/egress.results.json" >"$tmp/results.svg"
expect results 0 $?
cmp -s "$tmp/results.svg" "$data/results/egress.svg" || fail "results: differs"

# With serq-sim's own results, the drawing is the one with the results
# derived by hand (the figures agree at the two decimals drawn).
for name in egress three_flows step; do
  "$parse" "$data/results/$name.sq" | "$link" >"$tmp/$name.json"
  "$sim" "$tmp/$name.json" >"$tmp/$name.results.json" || fail "sim $name"
  "$view" --results "$tmp/$name.results.json" "$tmp/$name.json" >"$tmp/$name.sim.svg"
  expect "sim-results $name" 0 $?
  cmp -s "$tmp/$name.sim.svg" "$data/results/$name.svg" ||
    fail "sim-results $name: differs from results/$name.svg"
done

# Misuse: exit 2 with a message.
"$view" --format=png "$tmp/egress.json" >"$tmp/out" 2>"$tmp/err"
expect bad-format 2 $?
grep -q "^serq-view: error: unknown --format 'png' (expected svg or dot)$" "$tmp/err" ||
  fail "bad-format: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "bad-format: printed output"
"$view" "$tmp/egress.json" "$tmp/egress.json" >/dev/null 2>"$tmp/err"
expect two-inputs 2 $?
"$view" "$tmp/missing.json" >/dev/null 2>"$tmp/err"
expect missing-input 2 $?
grep -q "cannot open" "$tmp/err" || fail "missing-input: $(cat "$tmp/err")"
"$view" --results "$tmp/missing.json" "$tmp/egress.json" >/dev/null 2>"$tmp/err"
expect missing-results 2 $?
"$view" --help >"$tmp/out" 2>&1
grep -q "serq-view \[ir|-\] \[--format=svg|dot\] \[--results r.json\]" "$tmp/out" ||
  fail "help: no usage line"

# Input the view cannot draw: exit 1, located by IR path, nothing on stdout.
cat >"$tmp/bad.json" <<'JSON'
{"version": 8, "session": [{"body": [{"run": {"stage": {"name": "nowhere"}}}]}]}
JSON
"$view" "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
expect bad-ir 1 $?
grep -qx "$tmp/bad.json:session\[0\].body\[0\].run.stage: error: unknown stage 'nowhere'" \
  "$tmp/err" || fail "bad-ir: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "bad-ir: printed output"
# Unlinked IR from serq-parse: the error points into the .sq source.
printf 'stage A : delay;\nworkload { arrive batch(1); }\nsession { run A (1); run Z (1); }\nrun { horizon 1; }\n' \
  >"$tmp/z.sq"
"$parse" "$tmp/z.sq" | "$view" >"$tmp/out" 2>"$tmp/err"
expect bad-source 1 $?
printf '%s\n' "$tmp/z.sq:3:26: error: unknown stage 'Z'" \
  "session { run A (1); run Z (1); }" "                         ^" | diff - "$tmp/err" >/dev/null ||
  fail "bad-source: $(cat "$tmp/err")"
echo '{"version": 12}' | "$view" >/dev/null 2>"$tmp/err"
expect bad-version 1 $?
grep -q "unsupported IR version 12" "$tmp/err" || fail "bad-version: $(cat "$tmp/err")"

# Results of another program: exit 1, naming what does not fit.
"$view" --results "$data/results/three_flows.results.json" "$tmp/egress.json" \
  >"$tmp/out" 2>"$tmp/err"
expect foreign-results 1 $?
grep -qx "$data/results/three_flows.results.json:replication\[0\].stage\[0\].name: error: the program declares no stage 'A'" "$tmp/err" ||
  fail "foreign-results: $(cat "$tmp/err")"
echo '{"version": 8, "replication": [{"stage": [{"nme": "x"}]}]}' >"$tmp/r.json"
"$view" --results "$tmp/r.json" "$tmp/egress.json" >/dev/null 2>"$tmp/err"
expect malformed-results 1 $?
grep -q "^$tmp/r.json" "$tmp/err" || fail "malformed-results: $(cat "$tmp/err")"

# Same input, same bytes.
"$view" "$tmp/egress.json" | cmp -s - "$tmp/file.svg" || fail "determinism"

# --plot: results in (the --results file), a chart out; the IR is not read.
"$sim" --sample 1 "$tmp/egress.json" >"$tmp/res.json" || fail "plot: simulate"
"$view" --results "$tmp/res.json" --plot cdf >"$tmp/cdf.svg" 2>"$tmp/err"
expect plot-cdf 0 $?
grep -q '>transferred (n=2)</text>' "$tmp/cdf.svg" || fail "plot-cdf: no legend"
"$view" --results "$tmp/res.json" --plot series --replication 0 >"$tmp/series.svg" 2>"$tmp/err"
expect plot-series 0 $?
grep -q '>pool kvD (cap 100) (replication 0): used</text>' "$tmp/series.svg" ||
  fail "plot-series: no chart of kvD's use"
"$view" --results - --plot cdf <"$tmp/res.json" | cmp -s - "$tmp/cdf.svg" || fail "plot: stdin"
for list in , transferred, ,transferred 'transferred,,transferred'; do
  "$view" --results "$tmp/res.json" --plot cdf --observe "$list" >/dev/null 2>"$tmp/err"
  expect "plot-empty-observe-$list" 2 $?
  grep -qF -- "--observe '$list': an empty name in the list" "$tmp/err" || fail "observe '$list': $(cat "$tmp/err")"
done
"$view" --results "$tmp/res.json" --plot cdf --observe nope >/dev/null 2>"$tmp/err"
expect plot-unknown-observation 1 $?
grep -qx "$tmp/res.json: error: no observation 'nope' in the results (they have transferred)" \
  "$tmp/err" || fail "plot-unknown-observation: $(cat "$tmp/err")"
"$view" --results "$tmp/res.json" --plot series --replication 3 >/dev/null 2>"$tmp/err"
expect plot-no-replication 1 $?
"$sim" "$tmp/egress.json" >"$tmp/plain.json"
"$view" --results "$tmp/plain.json" --plot series >/dev/null 2>"$tmp/err"
expect plot-no-series 1 $?
grep -q "no time series" "$tmp/err" || fail "plot-no-series: $(cat "$tmp/err")"
"$view" --plot cdf >/dev/null 2>&1
expect plot-no-results 2 $?
"$view" --results "$tmp/res.json" --plot pie >/dev/null 2>&1
expect plot-bad-kind 2 $?
"$view" --results "$tmp/res.json" --plot cdf "$tmp/egress.json" >/dev/null 2>&1
expect plot-with-ir 2 $?
"$view" --observe x "$tmp/egress.json" >/dev/null 2>&1
expect observe-without-plot 2 $?
# Each plot's own flag: with the other plot it would be ignored; an
# observation twice would draw one line over the other.
"$view" --results "$tmp/res.json" --plot cdf --replication 0 >/dev/null 2>"$tmp/err"
expect plot-cdf-replication 2 $?
grep -q "replication applies to --plot series" "$tmp/err" || fail "plot-cdf-replication: $(cat "$tmp/err")"
"$view" --results "$tmp/res.json" --plot series --observe transferred >/dev/null 2>"$tmp/err"
expect plot-series-observe 2 $?
grep -q "observe applies to --plot cdf" "$tmp/err" || fail "plot-series-observe: $(cat "$tmp/err")"
"$view" --results "$tmp/res.json" --plot cdf --observe transferred,transferred >/dev/null 2>"$tmp/err"
expect plot-observe-twice 2 $?
grep -q "observe names 'transferred' twice" "$tmp/err" || fail "plot-observe-twice: $(cat "$tmp/err")"

# IR that serq-link refuses is refused here too, with serq-link's error: a
# param whose value is NaN (a number JSON IR can carry, the source cannot).
"$parse" "$data/egress.sq" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d.setdefault("param", []).append({"name": "Bad", "value": {"number": "NaN"}})
json.dump(d, sys.stdout)' >"$tmp/nan.json"
"$link" "$tmp/nan.json" >/dev/null 2>"$tmp/link.err"
expect nan-param-link 1 $?
"$view" "$tmp/nan.json" >"$tmp/nan.svg" 2>"$tmp/err"
expect nan-param 1 $?
grep -q 'error: the value is NaN' "$tmp/err" || fail "nan-param: not serq-link's error: $(cat "$tmp/err")"
[ -s "$tmp/nan.svg" ] && fail "nan-param: drew a picture"

[ "$failures" -eq 0 ] && echo "all cases passed"
[ "$failures" -eq 0 ]
