#!/usr/bin/env bash
# serq search end to end, on programs whose answer is known:
# - testdata/sweep/flows.sq (deterministic): mean(f3) = 2W/3 under maxmin,
#   so mean(f3) <= 0.81 holds for W <= 1.215: on the grid 0.1, 0.2, ... the
#   answer is 1.2 and 1.3 fails (2.6/3 = 0.8667); every half-width is 0.
# - testdata/sweep/mm1.sq: M/M/1, mean time 1 / (1 - Rate), so mean(t) <= 2
#   holds for Rate <= 0.5. On the grid 0.1, 0.15, ... 0.45 passes (1.82) and
#   0.5 sits on the bound, so no number of replications decides it: it must
#   come out undecided at the cap (or, at 2.5%, fail), and never pass.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
cd "$root" || exit 2

expect() {  # expect STATUS STDERR_PATTERN -- command...
  local status=$1 pattern=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = "$status" ] || fail "$*: exit $got, expected $status ($(head -3 "$tmp/err"))"
  grep -qF -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(head -3 "$tmp/err")"
}

flows=testdata/sweep/flows.sq
"$serq" search $flows --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' >"$tmp/f" ||
  fail "flows search: exit $?"
grep -qxF 'answer: W = 1.2; W = 1.3, one step above, fails' "$tmp/f" || fail "flows answer: $(grep answer "$tmp/f")"
# Bisection: 0.1 and 2.9 first, then midpoints of the grid's indices
# (0 and 28 -> 14 = 1.5, 0..14 -> 7 = 0.8, 7..14 -> 10 = 1.1, 10..14 -> 12 = 1.3, 10..12 -> 11 = 1.2).
got=$(sed -n '/^points tried/,$p' "$tmp/f" | awk 'NR > 2 {print $1 ":" $2}' | tr '\n' ' ')
[ "$got" = "0.1:pass 2.9:fail 1.5:fail 0.8:pass 1.1:pass 1.3:fail 1.2:pass " ] || fail "flows points: $got"
# Under bottleneck f3 ends at W: mean(f3) <= 0.81 up to W = 0.8.
"$serq" search $flows --share=bottleneck --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' >"$tmp/b"
grep -q '^answer: W = 0.8; W = 0.9, one step above, fails$' "$tmp/b" || fail "bottleneck answer: $(grep answer "$tmp/b")"
# The whole range passes; none passes.
"$serq" search $flows --param W --range 0.1:1 --until 'mean(f3) <= 5' | grep -q '^answer: W = 1, the top of the range' ||
  fail "the top of the range"
"$serq" search $flows --param W --range 0.5:1 --until 'mean(f3) < 0.1' | grep -q '^answer: none: W = 0.5, the lowest value, fails$' ||
  fail "no value"

mm1=testdata/sweep/mm1.sq
"$serq" search $mm1 --param Rate --range 0.1:0.9 --step 0.05 --until 'mean(t) <= 2' --jobs 2 >"$tmp/m" ||
  fail "mm1 search: exit $?"
grep -q '^answer: Rate = 0.45; Rate = 0.5, one step above, ' "$tmp/m" || fail "mm1 answer: $(grep answer "$tmp/m")"
awk '$1 == "0.5" && $2 == "pass"' "$tmp/m" | grep -q . && fail "Rate 0.5, on the bound, passed"
awk '$1 == "0.5" && $2 == "undecided" && $3 != 64' "$tmp/m" | grep -q . && fail "undecided 0.5 short of the cap"
# The same search on one thread: the same bytes.
"$serq" search $mm1 --param Rate --range 0.1:0.9 --step 0.05 --until 'mean(t) <= 2' --jobs 1 | cmp -s - "$tmp/m" ||
  fail "search --jobs 1 differs from --jobs 2"

# Misuse, and errors of the program or the condition.
expect 2 "serq: error: serq search needs --param NAME" -- "$serq" search $flows --range 1:2 --until 'mean(f3) < 1'
expect 2 "serq: error: malformed --range '2:1': expected lo:hi with lo < hi" -- "$serq" search $flows --param W --range 2:1 --until 'mean(f3) < 1'
expect 2 "serq: error: --until: col 13: expected a number" -- "$serq" search $flows --param W --range 1:2 --until 'mean(f3) <= x'
expect 2 "serq: error: -D W is the searched --param" -- "$serq" search $flows -D W=1 --param W --range 1:2 --until 'mean(f3) < 1'
expect 2 "serq: error: --param applies to 'serq search' only" -- "$serq" sweep $flows --param W
expect 1 "no observation 'zz' in the results" -- "$serq" search $flows --param W --range 1:2 --until 'mean(zz) < 1'
expect 1 "there is no param 'Nope'" -- "$serq" search $flows --param Nope --range 1:2 --until 'mean(f3) < 1'

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq search: all passed"
