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
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"

flows=testdata/sweep/flows.sq
"$serq" search $flows --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' >"$tmp/f" ||
  fail "flows search: exit $?"
grep -qxF 'answer: W = 1.2; W = 1.3, one step above, fails' "$tmp/f" || fail "flows answer: $(grep answer "$tmp/f")"
# Bisection: 0.1 and 2.9 first, then midpoints of the grid's indices
# (0 and 28 -> 14 = 1.5, 0..14 -> 7 = 0.8, 7..14 -> 10 = 1.1, 10..14 -> 12 = 1.3, 10..12 -> 11 = 1.2).
got=$(sed -n '/^points tried/,/^$/p' "$tmp/f" | awk 'NR > 2 && NF {print $1 ":" $2}' | tr '\n' ' ')
[ "$got" = "0.1:pass 2.9:fail 1.5:fail 0.8:pass 1.1:pass 1.3:fail 1.2:pass " ] || fail "flows points: $got"
# Under bottleneck f3 ends at W: mean(f3) <= 0.81 up to W = 0.8.
"$serq" search $flows --share=bottleneck --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' >"$tmp/b"
grep -q '^answer: W = 0.8; W = 0.9, one step above, fails$' "$tmp/b" || fail "bottleneck answer: $(grep answer "$tmp/b")"
# The whole range passes; none passes.
"$serq" search $flows --param W --range 0.1:1 --until 'mean(f3) <= 5' | grep -q '^answer: W = 1, the top of the range' ||
  fail "the top of the range"
"$serq" search $flows --param W --range 0.5:1 --until 'mean(f3) < 0.1' | grep -q '^answer: none: W = 0.5, the lowest value, fails$' ||
  fail "no value"
# One replication a point: "needed more than 1 replication", not "1 replications".
"$serq" search $flows --param W --range 0.5:1 --replications 1 --until 'mean(f3) <= 5' >"$tmp/one" || fail "one replication: exit $?"
grep -qF 'needed more than 1 replication; 0 stayed undecided' "$tmp/one" || fail "one replication: $(grep -A1 'how sure' "$tmp/one")"

mm1=testdata/sweep/mm1.sq
"$serq" search $mm1 --param Rate --range 0.1:0.9 --step 0.05 --until 'mean(t) <= 2' --jobs 2 >"$tmp/m" ||
  fail "mm1 search: exit $?"
grep -q '^answer: Rate = 0.45; Rate = 0.5, one step above, ' "$tmp/m" || fail "mm1 answer: $(grep answer "$tmp/m")"
awk '$1 == "0.5" && $2 == "pass"' "$tmp/m" | grep -q . && fail "Rate 0.5, on the bound, passed"
awk '$1 == "0.5" && $2 == "undecided" && $3 != 64' "$tmp/m" | grep -q . && fail "undecided 0.5 short of the cap"
# The same search on one thread: the same bytes.
"$serq" search $mm1 --param Rate --range 0.1:0.9 --step 0.05 --until 'mean(t) <= 2' --jobs 1 | cmp -s - "$tmp/m" ||
  fail "search --jobs 1 differs from --jobs 2"

# Overload is part of every verdict (testdata/sweep/overload.sq): p99(size)
# is ln(100) = 4.6 at every Rate, so its figures pass everywhere, but at
# Rate 1.1 and 1.5 (rho > 1) the queue grows through the window: OVERLOADED
# (docs/report.md: rho = 1.1 over this window gains ~9% of its ~4000
# arrivals, far above the 2% rule). Grid 0.3, 0.7, 1.1, 1.5: 0.3 passes,
# 1.5 fails as overloaded, 1.1 fails likewise, 0.7 (rho 0.7) passes: the
# answer is 0.7, and the report says why each failing point failed.
over=testdata/sweep/overload.sq
"$serq" search $over --param Rate --range 0.3:1.5 --step 0.4 --until 'p99(size) <= 10' --jobs 2 >"$tmp/o" ||
  fail "overload search: exit $?"
grep -qxF 'answer: Rate = 0.7; Rate = 1.1, one step above, fails' "$tmp/o" || fail "overload answer: $(grep answer "$tmp/o")"
awk '$1 == "1.5"' "$tmp/o" | grep -q 'fail .*OVERLOADED' || fail "Rate 1.5: not failed as OVERLOADED: $(awk '$1 == "1.5"' "$tmp/o")"
awk '$1 == "0.7"' "$tmp/o" | grep -q 'pass .*STABLE' || fail "Rate 0.7: not a STABLE pass: $(awk '$1 == "0.7"' "$tmp/o")"
grep -q '^  Rate = 1.5: not in a steady state (OVERLOADED)' "$tmp/o" || fail "no reason for Rate 1.5: $(cat "$tmp/o")"
# --allow-overload judges the figures alone: every value passes.
"$serq" search $over --param Rate --range 0.3:1.5 --step 0.4 --until 'p99(size) <= 10' --allow-overload >"$tmp/a" ||
  fail "--allow-overload: exit $?"
grep -q '^answer: Rate = 1.5, the top of the range' "$tmp/a" || fail "--allow-overload answer: $(grep answer "$tmp/a")"
# With it, --max-in-progress would be ignored: misuse.
expect 2 "serq: error: --max-in-progress applies without --allow-overload" -- \
  "$serq" search $over --param Rate --range 0.3:1.5 --step 0.4 --until 'p99(size) <= 10' --allow-overload \
  --max-in-progress 0.2
# A failing figure is named with its value and bound (flows: mean(f3) at
# W = 2.9 is 2 * 2.9 / 3 = 1.9333, exactly, every half-width 0).
grep -q '^  W = 2.9: mean(f3) = 1.9333 ± 0.0000, not <= 0.81$' "$tmp/f" || fail "no reason for W = 2.9: $(cat "$tmp/f")"

# The html page (--format=html), held to testdata/html/search-flows.html,
# which the browser test opens: the question and answer, a table row a point
# tried, and mean(f3) against W with the bound drawn. By hand: mean(f3) =
# 2W/3 spans 0.0667 (W = 0.1) to 1.9333 (2.9), more than ten times, so the y
# axis is logarithmic, 0.01 to 10 (three decades over 190 px up from y =
# 230): y(v) = 230 - (log10 v + 2) / 3 * 190, so W = 1.2's 0.8 is at 109.5
# and the bound 0.81 at 109.1; x runs 0 to 3 over 672 px from x = 76, so
# x(1.2) = 344.8. The three that failed (1.3, 1.5, 2.9) are ringed.
"$serq" search $flows --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' --format html >"$tmp/f.html" ||
  fail "html: exit $?"
cmp -s "$tmp/f.html" testdata/html/search-flows.html || fail "html: not testdata/html/search-flows.html"
grep -qF '<p class="headline" id="answer">answer: W = 1.2; W = 1.3, one step above, fails</p>' "$tmp/f.html" || fail "html: no answer"
[ "$(grep -c '^<tr><td' "$tmp/f.html")" = 7 ] || fail "html: not a row a point tried: $(grep -c '^<tr><td' "$tmp/f.html")"
grep -qF '<circle cx="344.8" cy="109.5" r="3.5"' "$tmp/f.html" || fail "html: W = 1.2 is not where derived"
grep -qF '<line x1="70" y1="109.1" x2="754" y2="109.1" stroke="#b22222"' "$tmp/f.html" || fail "html: the bound is not where derived"
[ "$(grep -c 'r="7.5" fill="none" stroke="#d62728"' "$tmp/f.html")" = 3 ] || fail "html: not three rings"
# --log-y=off: linear, 0 to 2 over 190 px, y(0.8) = 230 - 0.8 / 2 * 190 = 154.0.
"$serq" search $flows --param W --range 0.1:2.9 --step 0.1 --until 'mean(f3) <= 0.81' --format html --log-y=off |
  grep -qF '<circle cx="344.8" cy="154.0" r="3.5"' || fail "html --log-y=off: W = 1.2 is not at y 154.0"
expect 2 "serq: error: --log-y applies to the charts of --format=html" -- \
  "$serq" search $flows --param W --range 1:2 --until 'mean(f3) < 1' --log-y
expect 2 "serq: error: unknown --format 'csv' for 'serq search' (expected text or html)" -- \
  "$serq" search $flows --param W --range 1:2 --until 'mean(f3) < 1' --format csv

# Misuse, and errors of the program or the condition.
expect 2 "serq: error: serq search needs --param NAME" -- "$serq" search $flows --range 1:2 --until 'mean(f3) < 1'
# A point that never decides doubles its replications up to the bound: 10^6
# ran 47 s and 1.7 GB before; the bound is --replications' own.
expect 2 "serq: error: --max-replications must be from 2 to 100000, not 1000000" -- \
  "$serq" search $flows --param W --range 1:2 --until 'mean(f3) < 1' --max-replications 1000000
expect 2 "serq: error: malformed --range '2:1': expected lo:hi with lo < hi" -- "$serq" search $flows --param W --range 2:1 --until 'mean(f3) < 1'
# A step past the range leaves its low end alone to try: misuse, not
# "W = 0, the top of the range".
expect 2 "serq: error: --step 5 is more than the range [0, 3]: the search would try its low end alone" -- \
  "$serq" search $flows --param W --range 0:3 --step 5 --until 'mean(f3) <= 0.81'
# (1e300 - 0.1) / 1e-300 = 1e600 grid points: past an int64 (once "every
# value searched passes" at W = 0.1), refused before any point runs.
expect 2 "serq: error: --step 1e-300 over [0.1, 1e+300] makes more than 2^53 points to search" -- \
  "$serq" search $flows --param W --range 0.1:1e300 --step 1e-300 --until 'mean(f3) <= 1'
expect 2 "serq: error: --until: col 13: expected a number" -- "$serq" search $flows --param W --range 1:2 --until 'mean(f3) <= x'
expect 2 "serq: error: -D W is the searched --param" -- "$serq" search $flows -D W=1 --param W --range 1:2 --until 'mean(f3) < 1'
expect 2 "serq: error: --param applies to 'serq search' only" -- "$serq" sweep $flows --param W
expect 2 "serq: error: --until: mean(zz): the program observes no 'zz' (it observes 'f1', 'f2', 'f3')" -- "$serq" search $flows --param W --range 1:2 --until 'mean(zz) < 1'
# A --param the program lacks is the flag's mistake (it was the link's, as '-D Nope', exit 1).
expect 2 "serq: error: --param Nope: testdata/sweep/flows.sq has no param 'Nope'" -- "$serq" search $flows --param Nope --range 1:2 --until 'mean(f3) < 1'


# Goodput at an SLO (docs/cli.md §serq search): the highest rate at which at
# least 47.8% of the sessions complete within 1 s. In M/M/1 the share is
# 1 - exp(-(1 - Rate)), >= 0.478 for Rate <= 1 + ln(1 - 0.478) = 0.350: on
# the grid 0.1 ... 0.9 the answer is 0.3 (0.503) and 0.4 fails (0.451).
"$serq" search testdata/sweep/mm1-slo.sq --param Rate --range 0.1:0.9 --step 0.1 \
  --until 'mean(ok) >= 0.478' >"$tmp/slo" || fail "slo search: exit $?"
grep -qxF 'answer: Rate = 0.3; Rate = 0.4, one step above, fails' "$tmp/slo" ||
  fail "slo answer: $(grep answer "$tmp/slo")"
expect 2 "unknown function 'goodputs' (expected mean, pNN, rate or goodput)" -- \
  "$serq" search testdata/sweep/mm1-slo.sq --param Rate --range 0.1:0.9 --until 'goodputs(ok) >= 0.1'

# --share on a program whose runs each name one stage changes nothing: said
# before the search runs (and it runs); on flows.sq, above, nothing is.
expect 0 "serq: warning: --share maxmin changes nothing: no run of testdata/sweep/mm1-slo.sq names several stages" \
  -- "$serq" search testdata/sweep/mm1-slo.sq --share=maxmin --param Rate --range 0.1:0.3 --until 'mean(ok) <= 100' \
  --replications 2 --max-replications 2
"$serq" search $flows --share=bottleneck --param W --range 0.1:0.3 --step 0.1 --until 'mean(f3) <= 0.81' \
  >/dev/null 2>"$tmp/err" || fail "flows search --share: exit $?"
[ -s "$tmp/err" ] && fail "search --share on flows.sq said: $(cat "$tmp/err")"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq search: all passed"
