#!/usr/bin/env bash
# serq sweep end to end: the local executor, the task list run in another
# order, task files, merging, the report's formats, a point against
# `serq run`, and every misuse. testdata/sweep/flows.txt is the report of
# testdata/sweep/flows.sq over W = 0.5, 1, 1.5 and both policies, checked by
# hand against the program's comment: f3 ends at 2W/3 under maxmin and at W
# under bottleneck; f1 at 2 under both; one f3 per replication of 10 s, so
# rate(f3) = 0.1; the program is deterministic, so every half-width is 0.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"

flows=testdata/sweep/flows.sq
grid=(-D W=0.5:1.5:0.5 --share=maxmin,bottleneck --replications 2)
metrics='mean(f3),p50(f3),rate(f3),mean(f1)'

# Local processes, two at a time: the hand-checked report.
"$serq" sweep $flows "${grid[@]}" --metrics "$metrics" --jobs 2 --out "$tmp/local" >"$tmp/local.txt" ||
  fail "local sweep: exit $?"
cmp -s "$tmp/local.txt" testdata/sweep/flows.txt || { fail "local sweep: not flows.txt"; diff "$tmp/local.txt" testdata/sweep/flows.txt; }
[ "$(ls "$tmp/local" | grep -c '^task-.*\.pb$')" = 12 ] || fail "local sweep: not 12 task files (6 points x 2)"
# Without --out: a temporary directory, the same report, and one process.
"$serq" sweep $flows "${grid[@]}" --metrics "$metrics" --jobs 1 >"$tmp/tmpdir.txt" || fail "sweep without --out"
cmp -s "$tmp/tmpdir.txt" testdata/sweep/flows.txt || fail "sweep without --out: not flows.txt"

# The task list, run last task first: the same files, the same report.
"$serq" sweep $flows "${grid[@]}" --emit=parallel --out "$tmp/emitted" >"$tmp/tasks" || fail "emit: exit $?"
[ "$(wc -l <"$tmp/tasks")" = 12 ] || fail "emit=parallel: not 12 lines"
grep -q -- "sweep --out '$tmp/emitted' --task 11\$" "$tmp/tasks" || fail "emit=parallel: no task 11: $(tail -1 "$tmp/tasks")"
tac "$tmp/tasks" | sh || fail "the emitted tasks failed"
for i in $(seq 0 11); do
  cmp -s "$tmp/local/task-$i.pb" "$tmp/emitted/task-$i.pb" || fail "task $i: the files differ"
done
"$serq" sweep --merge "$tmp/emitted" --metrics "$metrics" >"$tmp/merged.txt" || fail "merge: exit $?"
cmp -s "$tmp/merged.txt" testdata/sweep/flows.txt || fail "merge of the reversed run: not flows.txt"

# The report's other formats say the same.
"$serq" sweep --merge "$tmp/emitted" --metrics "$metrics" --format csv >"$tmp/r.csv"
head -1 "$tmp/r.csv" | grep -qxF 'W,share,replications,mean(f3),mean(f3) hw95,p50(f3),p50(f3) hw95,rate(f3),rate(f3) hw95,mean(f1),mean(f1) hw95,status' ||
  fail "csv header: $(head -1 "$tmp/r.csv")"
sed -n 5p "$tmp/r.csv" | grep -qxF '1,bottleneck,2,1,0,1,0,0.1,0,2,0,STABLE' || fail "csv row W=1 bottleneck: $(sed -n 5p "$tmp/r.csv")"
"$serq" sweep --merge "$tmp/emitted" --metrics "$metrics" --format json >"$tmp/r.json"
python3 - "$tmp/r.json" <<'PY' || fail "json: not the figures"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["points"][2]
assert r["parameters"] == ["W", "share"], r["parameters"]
assert p["settings"] == {"W": 1, "share": "maxmin"}, p
# f3 ends at 2/3, on the clock's first nanosecond at or after it
# (docs/simulation.md §Time, order and determinism): 0.666666667.
assert p["figures"]["mean(f3)"]["value"] == 0.666666667, p
PY
"$serq" sweep --merge "$tmp/emitted" --metrics "$metrics" --format md >"$tmp/r.md"
grep -q '^| *W *| share' "$tmp/r.md" || fail "md: no header row: $(sed -n 3p "$tmp/r.md")"

# A point's figures are `serq run`'s at that point: colocated.sq at Rate 20,
# 3 replications; the csv of both prints the mean and its half-width in
# the shortest exact form.
col=examples/pd-disaggregation/colocated.sq
"$serq" sweep $col -D Rate=20 --replications 3 --horizon 45 --metrics 'mean(ttft)' --format csv >"$tmp/p.csv" ||
  fail "colocated sweep: exit $?"
"$serq" run $col -D Rate=20 --replications 3 --horizon 45 --format csv >"$tmp/run.csv"
want=$(grep '^ttft,' "$tmp/run.csv" | cut -d, -f3,4)
got=$(sed -n 2p "$tmp/p.csv" | cut -d, -f3,4)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "sweep point: mean(ttft) $got, serq run says $want"

# A figure whose 95% interval is wider than itself gets a note under the
# table, whatever the point's status: M/M/1 over 100 s, 2 replications,
# Student's t(0.975, 1) = 12.71 (docs/cli.md §serq sweep, The report). The
# count the note gives is the csv's figures with half-width > |value|.
wide=(testdata/sweep/mm1.sq -D Rate=0.5,0.9 --replications 2 --horizon 100 --warmup 0 --metrics 'p50(t),mean(t)')
"$serq" sweep "${wide[@]}" --out "$tmp/wide" >"$tmp/wide.txt" || fail "wide sweep: exit $?"
"$serq" sweep --merge "$tmp/wide" --format csv >"$tmp/wide.csv"
n=$(awk -F, 'NR > 1 { for (i = 3; i <= 6; i += 2) if ($(i+1) + 0 > ($i < 0 ? -$i : $i)) n++ } END { print n + 0 }' "$tmp/wide.csv")
[ "$n" -gt 0 ] || fail "wide sweep: no interval wider than its figure: $(cat "$tmp/wide.csv")"
grep -qE "^note: $n figures? ha(s|ve) a 95% interval wider than the figure itself \(.*\); with 2 replications a half-width is 12.71 standard errors" "$tmp/wide.txt" ||
  fail "wide sweep: no note for $n figures: $(tail -2 "$tmp/wide.txt")"
grep -q '^note:' testdata/sweep/flows.txt && fail "flows.txt has a note"

# A lost task file: the merge says which and how to run it again; then it merges.
rm "$tmp/emitted/task-5.pb"
expect 1 "lacks 1 of its 12 task files: task 5; run one with: serq sweep --out $tmp/emitted --task 5" -- \
  "$serq" sweep --merge "$tmp/emitted"
"$serq" sweep --out "$tmp/emitted" --task 5 || fail "rerun of task 5"
"$serq" sweep --merge "$tmp/emitted" --metrics "$metrics" | cmp -s - testdata/sweep/flows.txt || fail "merge after the rerun"
# A task file of another task in its place is refused (task 5 is point 5 / 2
# = 2, W=1 maxmin, replication 1; task 6 is point 3, W=1 bottleneck, replication 0).
cp "$tmp/emitted/task-6.pb" "$tmp/emitted/task-5.pb"
expect 1 "emitted/task-5.pb: error: the file is task 6 (W=1, share=bottleneck, replication 0), not task 5 of this sweep (W=1, share=maxmin, replication 1)" -- \
  "$serq" sweep --merge "$tmp/emitted"

# Each mode reads its own flags; another of serq sweep's flags is refused,
# not ignored (--jobs with --merge, --metrics with --task or --emit).
expect 2 "serq: error: --jobs does not apply to --merge" -- "$serq" sweep --merge "$tmp/emitted" --jobs 2
expect 2 "serq: error: --out does not apply to --merge" -- "$serq" sweep --merge "$tmp/emitted" --out "$tmp/x"
expect 2 "serq: error: --metrics does not apply to --task" -- \
  "$serq" sweep --out "$tmp/emitted" --task 0 --metrics 'mean(f1)'
expect 2 "serq: error: --log-y does not apply to --emit: the report's flags go to --merge" -- \
  "$serq" sweep $flows "${grid[@]}" --emit=parallel --out "$tmp/emitted" --chart 'mean(f1)' --log-y
# A percentile has one spelling: p50.0 is p50, so listed beside it it is
# the same figure twice.
expect 2 "serq: error: --metrics: 'p50(f1)' is listed twice" -- \
  "$serq" sweep --merge "$tmp/emitted" --metrics 'p50(f1),p50.0(f1)'

# Errors of the program: at a point (exit 1, naming it); in a task.
expect 1 "serq: error: the program is rejected at the sweep's point Rate=-1" -- "$serq" sweep testdata/sweep/mm1.sq -D Rate=-1
grep -qF "poisson(rate) needs a finite rate above 0, not -1" "$tmp/err" || fail "the point's link error is not shown"
# Too many tasks, said with the count before any point is linked: 10^5 x
# 10^5 points is 10^10; four such axes, 10^20, are past 2^64, where the
# count saturates, and are said as more than it (it read
# "18446744073709551615 points", a count the sweep does not have). The
# program is rejected at every point: the count was checked only once a
# point linked, so these linked point after point for hours. With
# replications, the product: 2^16 points x 2^16 replications (given:
# before any point is linked; the program's own count: at its first
# point).
printf 'param A = 1;\nparam B = 1;\nparam C = 1;\nparam D = 1;\nstage S : fifo(1);\nnot a program\n' >"$tmp/four.sq"
expect 2 "serq: error: the sweep has 10000000000 points: too many tasks (at most 2147483648 points × replications)" -- \
  "$serq" sweep "$tmp/four.sq" -D A=1:100000:1 -D B=1:100000:1
expect 2 "serq: error: the sweep has more than 18446744073709551615 points: too many tasks" -- \
  "$serq" sweep "$tmp/four.sq" -D A=1:100000:1 -D B=1:100000:1 -D C=1:100000:1 -D D=1:100000:1
expect 2 "serq: error: the sweep has 65536 points × 65536 replications: too many tasks (at most 2147483648" -- \
  "$serq" sweep testdata/sweep/mm1-slo.sq -D Rate=1:65536:1 --replications 65536
expect 2 "serq: error: the sweep has 65536 points × 65536 replications: too many tasks" -- \
  "$serq" sweep "$tmp/four.sq" -D A=1:65536:1 --replications 65536
printf 'param A = 1;\nstage S : fifo(1);\nworkload { arrive poisson(0.5); }\nsession { run S (A); }\nrun { horizon 10; replications 65536; }\n' >"$tmp/many.sq"
expect 2 "serq: error: the sweep has 65536 points × 65536 replications: too many tasks" -- \
  "$serq" sweep "$tmp/many.sq" -D A=1:65536:1
# A -D the one program lacks is the flag's mistake, as with several (it was
# the program rejected at the first point, exit 1).
expect 2 "serq: error: -D Nope: testdata/sweep/flows.sq has no param 'Nope'" -- "$serq" sweep $flows -D Nope=1,2
expect 1 "serq: error: 1 of 1 point failed" -- "$serq" sweep testdata/sim/bad-distribution.sq
grep -qF "bernoulli(1.5): p must be between 0 and 1" "$tmp/err" || fail "the task's runtime error is not shown"

# A failing point does not stop the sweep (testdata/sweep/fails.sq: P = 1.5
# is a runtime error, P = 0 and 1 make x = P exactly): the other points
# run, the table has them and marks the failed one, stderr says which point
# failed and why, and the exit code is 1. The task files record the failure,
# so --merge says the same; a missing task file leaves its point out, named.
fails=(testdata/sweep/fails.sq -D P=0,1.5,1 --replications 2 --metrics 'mean(x)' --format csv)
expect 1 "serq: error: 1 of 3 points failed: P=1.5: task 2 exited with 1: testdata/sweep/fails.sq:8:15: error: at t=0, session 0: bernoulli(1.5): p must be between 0 and 1" -- \
  "$serq" sweep "${fails[@]}" --out "$tmp/fails" --jobs 1
cat >"$tmp/fails.want" <<'CSV'
P,replications,mean(x),mean(x) hw95,status
0,2,0,0,STABLE
1.5,2,,,failed
1,2,1,0,STABLE
CSV
cmp -s "$tmp/out" "$tmp/fails.want" || { fail "the sweep with a failed point: not the table"; diff "$tmp/out" "$tmp/fails.want"; }
[ -f "$tmp/fails/task-5.pb" ] || fail "the point after the failed one did not run"
expect 1 "serq: error: 1 of 3 points failed: P=1.5: task 2 exited with 1" -- \
  "$serq" sweep --merge "$tmp/fails" --metrics 'mean(x)' --format csv
cmp -s "$tmp/out" "$tmp/fails.want" || fail "--merge of the sweep with a failed point: not the table"
rm "$tmp/fails/task-5.pb"
expect 1 "lacks 1 of its 6 task files: task 5; run one with: serq sweep --out $tmp/fails --task 5" -- \
  "$serq" sweep --merge "$tmp/fails" --metrics 'mean(x)' --format csv
grep -qxF '1,2,,,missing' "$tmp/out" || fail "--merge with a missing task: no missing row: $(cat "$tmp/out")"
# Every point failed: the horizon, warmup and seeds are no merged results'
# (the header said "horizon 0, warmup 0, seeds ").
"$serq" sweep testdata/sweep/fails.sq -D P=1.5 --replications 2 >"$tmp/allfail" 2>/dev/null
head -1 "$tmp/allfail" | grep -qxF "sweep of testdata/sweep/fails.sq: 1 point x 2 replications, no point merged: horizon, warmup and seed as the program gives them" ||
  fail "every point failed: the header says $(head -1 "$tmp/allfail")"
"$serq" sweep testdata/sweep/fails.sq -D P=1.5 --replications 2 --format json 2>/dev/null | grep -qF '"horizon": null' ||
  fail "every point failed: the json's horizon is not null"
grep -qxF '0,2,0,0,STABLE' "$tmp/out" || fail "--merge with a missing task: the first point is not merged"

# A program whose path is not UTF-8 (POSIX allows any bytes but / and NUL):
# the plan and the task files keep paths and the failed task's message as
# bytes, so the sweep and its merge give the table above. (A protobuf
# string holds UTF-8 only: a plan written with one is refused on reading.)
latin1="$tmp/fails-caf$(printf '\xe9').sq"
cp testdata/sweep/fails.sq "$latin1"
"$serq" sweep "$latin1" -D P=0,1.5,1 --replications 2 --metrics 'mean(x)' --format csv \
  --out "$tmp/latin1" --jobs 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "the sweep of a program under a non-UTF-8 path: exit $rc, not 1: $(cat "$tmp/err")"
grep -qF "1 of 3 points failed: P=1.5: task 2 exited with 1" "$tmp/err" ||
  fail "the sweep of a program under a non-UTF-8 path: $(cat "$tmp/err")"
cmp -s "$tmp/out" "$tmp/fails.want" || fail "the sweep of a program under a non-UTF-8 path: not the table: $(cat "$tmp/out")"
"$serq" sweep --merge "$tmp/latin1" --metrics 'mean(x)' --format csv >"$tmp/out" 2>"$tmp/err"
cmp -s "$tmp/out" "$tmp/fails.want" || fail "--merge of a program under a non-UTF-8 path: not the table: $(cat "$tmp/err")"

# Misuse: exit 2.
expect 2 "serq: error: malformed -D 'W=1:2': expected start:stop:step, e.g. -D Rate=10:30:5" -- "$serq" sweep $flows -D W=1:2
expect 2 "serq: error: malformed -D 'W=1,2': expected name=number" -- "$serq" run $flows -D W=1,2
expect 2 "serq: error: -D W is given twice" -- "$serq" sweep $flows -D W=1 -D W=2
expect 2 "serq: error: unknown --share 'fair' (expected maxmin or bottleneck)" -- "$serq" sweep $flows --share=maxmin,fair
expect 2 "serq: error: --emit needs --out DIR" -- "$serq" sweep $flows --emit=parallel
expect 2 "serq: error: unknown --emit 'pbs' (expected parallel or slurm)" -- "$serq" sweep $flows --emit=pbs --out "$tmp/x"
expect 2 "serq: error: --merge takes no program: the plan names it" -- "$serq" sweep --merge "$tmp/local" $flows
expect 2 "serq: error: --task needs --out DIR" -- "$serq" sweep --task 1
expect 2 "serq: error: serq sweep needs a program file, not standard input" -- "$serq" sweep -
expect 2 "serq: error: --task 12: the sweep has 12 tasks, 0 to 11" -- "$serq" sweep --out "$tmp/local" --task 12
expect 2 "holds no sweep (no plan.pb" -- "$serq" sweep --out "$tmp/nothing" --task 0
# ... and for --merge alike (it was exit 1 there).
expect 2 "holds no sweep (no plan.pb" -- "$serq" sweep --merge "$tmp/nothing"
expect 2 "holds another sweep (its plan.pb differs: the axes (-D, --share), the replications (2, now 1))" -- "$serq" sweep $flows -D W=2 --out "$tmp/local"
expect 2 "serq: error: --out does not apply to 'serq run'" -- "$serq" run $flows --out "$tmp/x"
expect 2 "serq: error: --metrics: bad figure 'avg(f3)'" -- "$serq" sweep $flows --metrics 'avg(f3)'
expect 1 "no observation 'f9' in the results (there are 'f1', 'f2', 'f3')" -- "$serq" sweep --merge "$tmp/local" --metrics 'mean(f9)'

# $SERQ names the executable of the tasks (another host's install), for both.
SERQ=/opt/serq/bin/serq "$serq" sweep $flows "${grid[@]}" --emit=parallel --out "$tmp/emitted" >"$tmp/tasks2" ||
  fail "emit with SERQ: exit $?"
[ "$(grep -c "^'/opt/serq/bin/serq' sweep --out" "$tmp/tasks2")" = 12 ] || fail "SERQ: not in the task list: $(head -1 "$tmp/tasks2")"
SERQ=/opt/serq/bin/serq "$serq" sweep $flows "${grid[@]}" --emit=slurm --out "$tmp/emitted" |
  grep -q "^exec '/opt/serq/bin/serq' sweep" || fail "SERQ: not in the slurm script"

# The Slurm script: a job array of the 12 tasks, each one `--task`.
"$serq" sweep $flows "${grid[@]}" --emit=slurm --out "$tmp/slurm" >"$tmp/job.sh" || fail "emit=slurm: exit $?"
head -1 "$tmp/job.sh" | grep -qx '#!/bin/sh' || fail "slurm: no #!/bin/sh"
grep -qx '#SBATCH --array=0-11' "$tmp/job.sh" || fail "slurm: no --array=0-11"
grep -q -- "sweep --out '$tmp/slurm' --task \"\$SLURM_ARRAY_TASK_ID\"\$" "$tmp/job.sh" || fail "slurm: no task line"
# sbatch reads an #SBATCH line word by word: a folder with a space (or a
# line break, which broke the script's comment into a line of shell) is
# misuse, and nothing is written.
expect 2 "serq: error: --emit=slurm: the folder '$tmp/a b' holds a space or a control character" -- \
  "$serq" sweep $flows "${grid[@]}" --emit=slurm --out "$tmp/a b"
[ -e "$tmp/a b" ] && fail "slurm: a folder with a space was made"
# The chart's own flags without a chart drew nothing, silently.
expect 2 "serq: error: --chart-x shapes a chart: give --chart FIGURE or --format=html" -- \
  "$serq" sweep --merge "$tmp/slurm" --chart-x W

# The chart: mean(t) of an M/M/1 queue against Rate, a line per Mu, held to
# testdata/sweep/mm1-chart.svg. Checked by hand: the mean time in system is
# 1 / (Mu - Rate), which every point's bar must cover (the csv below); the
# chart is serq-view/chart.cc's (plot area x 70..754, y 34..236, the axes'
# ends 6 px inside): the y axis runs 0 to 6 (the top bar ends at 2.9072 +
# 2.6421 = 5.55: about 5 ticks over 5.55 are 2 apart) over 190 px up from
# y = 230, the x axis 0.2 to 0.6 over 672 px from x = 76, so the point
# (Rate 0.2, 1.2821) is at x = 76.0, y = 230 - 1.2821 / 6 * 190 = 189.4.
mm1=(testdata/sweep/mm1.sq -D Rate=0.2:0.6:0.2 -D Mu=1,2 --replications 3 --horizon 1000)
"$serq" sweep "${mm1[@]}" --out "$tmp/mm1" --chart 'mean(t)' >"$tmp/chart.svg" || fail "chart: exit $?"
cmp -s "$tmp/chart.svg" testdata/sweep/mm1-chart.svg || fail "chart: not mm1-chart.svg"
grep -qF '<circle cx="76.0" cy="189.4" r="3.5" fill="#1f77b4"' "$tmp/chart.svg" || fail "chart: the first point is not where derived"
# The sweep's html page: its table and a chart a figure (the first the
# chart above, with --slo's bound drawn on it: the chart below), held to
# testdata/html/sweep-mm1.html, which
# //testdata/html:html_browser_test opens in chromium.
"$serq" sweep --merge "$tmp/mm1" --format html --slo 'mean(t) <= 2' >"$tmp/sweep.html" || fail "html: exit $?"
cmp -s "$tmp/sweep.html" testdata/html/sweep-mm1.html || fail "html: not testdata/html/sweep-mm1.html"
grep -qF '<circle cx="76.0" cy="189.4" r="3.5" fill="#1f77b4"' "$tmp/sweep.html" || fail "html: no chart of mean(t)"
"$serq" sweep --merge "$tmp/mm1" --metrics 'mean(t)' --format csv | awk -F, 'NR > 1 {
  want = 1 / ($2 - $1); d = $4 - want; if (d < 0) d = -d
  if (d > $5) { print "Rate " $1 " Mu " $2 ": mean " $4 " +- " $5 " misses " want; bad = 1 } }
  END { exit bad }' || fail "chart: a bar misses 1 / (Mu - Rate)"
expect 2 "serq: error: --chart-x: 'share' is not a number: give it to --chart-lines" -- \
  "$serq" sweep --merge "$tmp/local" --chart 'mean(f3)' --chart-x share
expect 2 "serq: error: --chart-lines: the same parameter as --chart-x" -- \
  "$serq" sweep --merge "$tmp/mm1" --chart 'mean(t)' --chart-x Rate --chart-lines Rate
"$serq" sweep --merge "$tmp/mm1" --chart 'p50(t)' --chart-x Mu | grep -q '^<svg' ||
  fail "chart of a figure the default figures do not list"
# The chart is drawn instead of the report: --metrics beside it would be
# ignored.
expect 2 "serq: error: --metrics lists the report's figures: --chart draws its own figure instead" -- \
  "$serq" sweep --merge "$tmp/mm1" --chart 'p50(t)' --metrics 'mean(t)' --chart-x Mu
expect 2 "serq: error: --slo bounds no p50(t), the figure --chart draws: none of its bounds would be drawn" -- \
  "$serq" sweep --merge "$tmp/mm1" --chart 'p50(t)' --slo 'mean(t) <= 2' --chart-x Mu
"$serq" sweep --merge "$tmp/local" --chart 'mean(f3)' --chart-x W >/dev/null || fail "chart of flows: exit $?"

# Overload is marked (testdata/sweep/overload.sq, M/M/1 with mu = 1): at
# Rate 1.2 the queue grows through the window (OVERLOADED), at 0.5 it is
# STABLE, though p99(size) is ln(100) = 4.6 at both; the chart rings the
# one unsettled point in red and says so in its title.
over=(testdata/sweep/overload.sq -D Rate=0.5,1.2 --replications 2 --metrics 'p99(size)')
"$serq" sweep "${over[@]}" --out "$tmp/over" --format csv >"$tmp/over.csv" || fail "overload sweep: exit $?"
grep -q '^0.5,2,.*,STABLE$' "$tmp/over.csv" || fail "Rate 0.5 not STABLE: $(cat "$tmp/over.csv")"
grep -q '^1.2,2,.*,OVERLOADED$' "$tmp/over.csv" || fail "Rate 1.2 not OVERLOADED: $(cat "$tmp/over.csv")"
"$serq" sweep --merge "$tmp/over" --chart 'p99(size)' >"$tmp/over.svg" || fail "overload chart: exit $?"
[ "$(grep -c 'r="7.5" fill="none" stroke="#d62728"' "$tmp/over.svg")" = 1 ] || fail "overload chart: not one red ring"
grep -q 'red ring: not in a steady state' "$tmp/over.svg" || fail "overload chart: the title does not say"

# Every output checked: to a full disk, each is exit 2 with the reason.
full() {  # full WHAT -- command...
  local what=$1; shift 2
  "$@" >/dev/full 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = 2 ] || fail "$what to /dev/full: exit $got, expected 2"
  grep -qF "serq: error: cannot write output: No space left on device" "$tmp/err" ||
    fail "$what to /dev/full: no reason: $(head -3 "$tmp/err")"
}
for f in text csv json md; do
  full "--merge --format $f" -- "$serq" sweep --merge "$tmp/local" --metrics "$metrics" --format $f
done
full "--chart" -- "$serq" sweep --merge "$tmp/mm1" --chart 'mean(t)'
full "a sweep" -- "$serq" sweep $flows -D W=1 --replications 1 --jobs 1
full "--emit=parallel" -- "$serq" sweep $flows "${grid[@]}" --emit=parallel --out "$tmp/full-p"
full "--emit=slurm" -- "$serq" sweep $flows "${grid[@]}" --emit=slurm --out "$tmp/full-s"
full "search" -- "$serq" search testdata/sweep/mm1.sq --param Rate --range 0.1:0.3 --step 0.1 \
  --until 'mean(t) <= 100' --replications 2 --horizon 1000 --seed 1 --jobs 1
ln -s /dev/full "$tmp/full.json"
expect 2 "serq: error: cannot write '$tmp/full.json': No space left on device" -- \
  "$serq" run $flows --results "$tmp/full.json"


# Two programs in one table (docs/cli.md §serq sweep, several programs):
# testdata/sweep/flows.sq over W and testdata/sweep/flows-fixed.sq over Cap,
# each without the other's param, so each has its own two points. By hand
# (the programs' comments): flows.sq's f3 ends at 2W/3 (1/3 at W = 0.5, on
# the clock's nanosecond 0.333333334; 1 at 1.5), flows-fixed.sq's at 1/Cap
# (1 at Cap = 1, 0.5 at 2); f1 at 2 in both; deterministic, so every
# half-width is 0.
two=(testdata/sweep/flows.sq testdata/sweep/flows-fixed.sq -D W=0.5,1.5 -D Cap=1,2 --replications 2
     --metrics 'mean(f3),mean(f1)')
"$serq" sweep "${two[@]}" --out "$tmp/two" --format csv >"$tmp/two.csv" || fail "two programs: exit $?"
cat >"$tmp/two.want" <<'CSV'
program,W,Cap,replications,mean(f3),mean(f3) hw95,mean(f1),mean(f1) hw95,status
testdata/sweep/flows.sq,0.5,,2,0.333333334,0,2,0,STABLE
testdata/sweep/flows.sq,1.5,,2,1,0,2,0,STABLE
testdata/sweep/flows-fixed.sq,,1,2,1,0,2,0,STABLE
testdata/sweep/flows-fixed.sq,,2,2,0.5,0,2,0,STABLE
CSV
cmp -s "$tmp/two.csv" "$tmp/two.want" || { fail "two programs: not the derived csv"; diff "$tmp/two.csv" "$tmp/two.want"; }
[ "$(ls "$tmp/two" | grep -c '^task-.*\.pb$')" = 8 ] || fail "two programs: not 8 task files (4 points x 2)"
"$serq" sweep --merge "$tmp/two" --metrics 'mean(f3),mean(f1)' >"$tmp/two.txt" || fail "two programs: merge: exit $?"
head -1 "$tmp/two.txt" | grep -qxF 'sweep of testdata/sweep/flows.sq and testdata/sweep/flows-fixed.sq: 4 points x 2 replications, horizon 10, warmup 0, seed 1' ||
  fail "two programs: first line: $(head -1 "$tmp/two.txt")"
grep -qE '^testdata/sweep/flows-fixed.sq +- +2 +0.5000 ' "$tmp/two.txt" || fail "two programs: no Cap=2 row: $(cat "$tmp/two.txt")"
grep -qxF 'note: testdata/sweep/flows.sq has no param Cap ("-" in its rows): its points are over the others' "$tmp/two.txt" ||
  fail "two programs: no note of the param flows.sq lacks"
"$serq" sweep --merge "$tmp/two" --metrics 'mean(f3)' --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["programs"] == ["testdata/sweep/flows.sq", "testdata/sweep/flows-fixed.sq"], r
p = r["points"][3]
assert p["program"] == "testdata/sweep/flows-fixed.sq" and p["settings"] == {"Cap": 2}, p
assert p["figures"]["mean(f3)"]["value"] == 0.5, p' || fail "two programs: json"
# Resumed as a sweep of one program is: the plan records both.
"$serq" sweep "${two[@]}" --out "$tmp/two" --format csv >"$tmp/two2.csv" 2>"$tmp/two2.err" || fail "two programs: rerun: exit $?"
grep -qF "8 of 8 tasks had finished before; ran the other 0" "$tmp/two2.err" || fail "two programs: not resumed: $(cat "$tmp/two2.err")"
cmp -s "$tmp/two2.csv" "$tmp/two.want" || fail "two programs: the resumed report differs"
expect 2 "holds another sweep (its plan.pb differs: the programs ('testdata/sweep/flows.sq and testdata/sweep/flows-fixed.sq', now 'testdata/sweep/flows-fixed.sq and testdata/sweep/flows.sq'))" -- \
  "$serq" sweep testdata/sweep/flows-fixed.sq testdata/sweep/flows.sq -D W=0.5,1.5 -D Cap=1,2 --replications 2 --out "$tmp/two"
# The task list, run last first, merges into the same table.
"$serq" sweep "${two[@]}" --emit=parallel --out "$tmp/two-p" >"$tmp/two-tasks" || fail "two programs: emit: exit $?"
[ "$(wc -l <"$tmp/two-tasks")" = 8 ] || fail "two programs: emit=parallel: not 8 lines"
tac "$tmp/two-tasks" | sh || fail "two programs: the emitted tasks failed"
"$serq" sweep --merge "$tmp/two-p" --metrics 'mean(f3),mean(f1)' --format csv | cmp -s - "$tmp/two.want" ||
  fail "two programs: the emitted tasks' merge differs"
# A param no program has is misuse; so is a program twice.
expect 2 "serq: error: -D Q: none of the programs (testdata/sweep/flows.sq and testdata/sweep/flows-fixed.sq) has a param 'Q'" -- \
  "$serq" sweep testdata/sweep/flows.sq testdata/sweep/flows-fixed.sq -D Q=1,2
expect 2 "serq: error: the program 'testdata/sweep/flows.sq' is given twice" -- \
  "$serq" sweep testdata/sweep/flows.sq testdata/sweep/flows.sq -D W=1
expect 2 "serq: error: the program './testdata/sweep/flows.sq' is given twice (as 'testdata/sweep/flows.sq')" -- \
  "$serq" sweep testdata/sweep/flows.sq ./testdata/sweep/flows.sq -D W=1
# A figure must be of an observation every program makes (mm1.sq makes t
# alone): found before any task runs.
expect 2 "serq: error: --metrics: mean(f3): the program observes no 'f3'" -- \
  "$serq" sweep testdata/sweep/flows.sq testdata/sweep/mm1.sq -D W=1 -D Rate=0.5 --metrics 'mean(f3)'
# The chart against W: flows.sq's line through (0.5, 1/3) and (1.5, 1), and
# flows-fixed.sq, which has no W, a dashed level a Cap over W's range, at 1
# and 0.5. The axes (chart.cc): y 0 to 1 (ticks 0.2 apart) over 190 px up
# from y = 230, so y(1) = 40.0, y(0.5) = 135.0, y(1/3) = 166.7; x from 0.4 to
# 1.6 (ticks 0.2 apart, the first at or below 0.5) over 672 px from x = 76,
# so x(0.5) = 76 + 0.1 / 1.2 * 672 = 132.0, x(1.5) = 692.0. The legend names
# each program by its file's name.
"$serq" sweep --merge "$tmp/two" --chart 'mean(f3)' --chart-x W >"$tmp/two.svg" || fail "two programs: chart: exit $?"
grep -qF '<polyline points="132.0,166.7 692.0,40.0" fill="none" stroke="#1f77b4"' "$tmp/two.svg" || fail "two programs: chart: no flows.sq line"
grep -qF '<polyline points="132.0,40.0 692.0,40.0" fill="none" stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="6 4"' "$tmp/two.svg" ||
  fail "two programs: chart: no dashed level of Cap=1"
grep -qF '<polyline points="132.0,135.0 692.0,135.0" fill="none" stroke="#2ca02c"' "$tmp/two.svg" || fail "two programs: chart: no level of Cap=2"
# (The legend wraps "flows-fixed.sq, Cap=2 (no W)" at its space.)
grep -A1 -F '>flows-fixed.sq, Cap=2</text>' "$tmp/two.svg" | grep -qF '>(no W)</text>' ||
  fail "two programs: chart: no legend of Cap=2"
# Its html page, with the default figures (every one of f1, f2, f3 and
# the request throughput), held to testdata/html/sweep-two.html, which the
# browser test opens.
"$serq" sweep --merge "$tmp/two" --format html --chart-x W >"$tmp/two.html" || fail "two programs: html: exit $?"
cmp -s "$tmp/two.html" testdata/html/sweep-two.html || fail "two programs: html: not testdata/html/sweep-two.html"
grep -qF '<th>program</th>' "$tmp/two.html" || fail "two programs: html: no program column"

# --slo: its figures join the table, and each bound is a labelled line on
# its figure's chart; --log-y and --log-y=off override the automatic axis.
# On the M/M/1 sweep above (mean(t) from 1.28 to 2.91: a linear axis, ticks
# 0 to 6 two apart, y(v) = 230 - v / 6 * 190), the bound 2 is at y(2) =
# 166.7, its label 6 px inside the plot's right end (754) and 5 px above.
"$serq" sweep --merge "$tmp/mm1" --chart 'mean(t)' --slo 'mean(t) <= 2' >"$tmp/slo.svg" || fail "slo chart: exit $?"
grep -qF '<line x1="70" y1="166.7" x2="754" y2="166.7" stroke="#b22222" stroke-width="1.5" stroke-dasharray="8 4"/>' "$tmp/slo.svg" ||
  fail "slo chart: no line at y(2)"
grep -qF '<text x="748" y="162" ' "$tmp/slo.svg" && grep -qF '>mean(t) &lt;= 2</text>' "$tmp/slo.svg" || fail "slo chart: no label"
# Without the bound, the chart is the golden's, byte for byte.
diff <(grep -v b22222 "$tmp/slo.svg") testdata/sweep/mm1-chart.svg >/dev/null || fail "slo chart: more than the rule differs"
"$serq" sweep --merge "$tmp/mm1" --chart 'mean(t)' --log-y >"$tmp/log.svg" || fail "--log-y: exit $?"
# (mean(t) in s: `observe t = now - arrival` is a time by its expression,
# the results' timeObservation, though its name is no latency word.)
grep -qF 'mean(t) (s) (bars: 95% interval) (log scale)</text>' "$tmp/log.svg" || fail "--log-y: the axis is not logarithmic"
"$serq" sweep --merge "$tmp/mm1" --chart 'mean(t)' --log-y=off | cmp -s - testdata/sweep/mm1-chart.svg ||
  fail "--log-y=off: not the linear chart"
expect 2 "serq: error: --slo: mean(f9): the program observes no 'f9'" -- \
  "$serq" sweep $flows -D W=1 --slo 'mean(f9) <= 1'
expect 2 "serq: error: --slo applies to 'serq sweep' only (serq search takes --until)" -- \
  "$serq" run $flows --slo 'mean(f3) <= 1'

# goodput(x), the sum of x a second (docs/cli.md §Figures), on M/M/1 with an
# SLO: testdata/sweep/mm1-slo.sq's ok is 1 when the time in system, which is
# exponential of rate 1 - Rate, is at most 1; so goodput(ok) is
# Rate (1 - exp(-(1 - Rate))): 0.13191, 0.19673, 0.16590 at 0.25, 0.5, 0.75
# (not monotone: past 0.6 the sessions within the SLO fall faster than the
# rate rises). Each value must sit within its 95% interval of the truth.
"$serq" sweep testdata/sweep/mm1-slo.sq -D Rate=0.25,0.5,0.75 --replications 8 \
  --metrics 'goodput(ok),mean(ok)' --format csv >"$tmp/goodput.csv" || fail "goodput sweep: exit $?"
head -1 "$tmp/goodput.csv" | grep -qxF 'Rate,replications,goodput(ok),goodput(ok) hw95,mean(ok),mean(ok) hw95,status' ||
  fail "goodput header: $(head -1 "$tmp/goodput.csv")"
awk -F, 'NR > 1 {
  truth = $1 * (1 - exp(-(1 - $1)))
  d = $3 - truth; if (d < 0) d = -d
  if (!(d <= $4 && $4 < 0.02)) { print "Rate " $1 ": goodput(ok) " $3 " +- " $4 ", derived " truth; bad = 1 }
  n++
} END { if (n != 3) { print n " rows"; bad = 1 } exit bad }' "$tmp/goodput.csv" >"$tmp/goodput.bad" ||
  fail "goodput: $(cat "$tmp/goodput.bad")"

# --data-dir: a table's file resolves there, as in `serq run --data-dir`,
# at planning and in every task (the linker read it next to the program).
# The service time is the table's t at x = W: 2 s at W = 1 and 4 s at W =
# 2 in data/, so three requests of a batch on one server end at 2, 4, 6
# (mean 4) and at 4, 8, 12 (mean 8); the program's own folder has no file.
mkdir -p "$tmp/dd/prog" "$tmp/dd/data"
cat >"$tmp/dd/prog/t.sq" <<'EOF'
param W = 1;
run { horizon 100; }
table svc = "svc.csv" { key x; value t; }
stage S : fifo(1 / svc(W));
workload { arrive batch(3); }
session { run S (1); observe done = now; }
EOF
printf 'x,t\n1,2\n2,4\n' >"$tmp/dd/data/svc.csv"
"$serq" sweep "$tmp/dd/prog/t.sq" -D W=1,2 --data-dir "$tmp/dd/data" --metrics 'mean(done)' --format csv \
  --jobs 1 --out "$tmp/dd/s" >"$tmp/dd.csv" 2>"$tmp/dd.err" || fail "--data-dir sweep: exit $?: $(cat "$tmp/dd.err")"
[ "$(cut -d, -f1,3 "$tmp/dd.csv" | tr '\n' ' ')" = "W,mean(done) 1,4 2,8 " ] || fail "--data-dir sweep: $(cat "$tmp/dd.csv")"
[ -s "$tmp/dd.err" ] && fail "--data-dir sweep said: $(cat "$tmp/dd.err")"
# With a program that reads nothing by it beside: still used, nothing said;
# over programs none of which reads by it, said once.
"$serq" sweep "$tmp/dd/prog/t.sq" testdata/sweep/mm1-slo.sq -D W=1 --data-dir "$tmp/dd/data" --replications 1 \
  --jobs 1 >/dev/null 2>"$tmp/dd.err" || fail "--data-dir sweep of two: exit $?: $(cat "$tmp/dd.err")"
[ -s "$tmp/dd.err" ] && fail "--data-dir sweep of two said: $(cat "$tmp/dd.err")"
"$serq" sweep $flows testdata/sweep/mm1-slo.sq -D W=1 --data-dir "$tmp/dd/data" --replications 1 --jobs 1 \
  >/dev/null 2>"$tmp/dd.err" || fail "--data-dir sweep of two, no file: exit $?"
[ "$(grep -c warning "$tmp/dd.err")" = 1 ] && grep -qF "serq: warning: --data-dir $tmp/dd/data changes nothing: \
each of $flows, testdata/sweep/mm1-slo.sq reads no file by a relative path" "$tmp/dd.err" ||
  fail "--data-dir sweep of two, no file: $(cat "$tmp/dd.err")"

# A --share axis over a program whose runs each name one stage makes the
# same point twice: said once, at planning, and the sweep runs. flows.sq
# (the hand-checked sweep above) has flows: nothing said there.
"$serq" sweep testdata/sweep/mm1-slo.sq -D Rate=0.25 --share=maxmin,bottleneck --replications 1 --jobs 1 \
  >/dev/null 2>"$tmp/share.err" || fail "--share axis on mm1-slo.sq: exit $?"
[ "$(grep -c 'warning' "$tmp/share.err")" = 1 ] && grep -qxF "serq: warning: --share maxmin,bottleneck changes \
nothing: no run of testdata/sweep/mm1-slo.sq names several stages (the policy divides only their flows)" "$tmp/share.err" ||
  fail "--share axis on mm1-slo.sq: $(cat "$tmp/share.err")"
"$serq" sweep $flows "${grid[@]}" --emit=parallel --out "$tmp/flows-emit" >/dev/null 2>"$tmp/share.err" ||
  fail "flows emit: exit $?"
[ -s "$tmp/share.err" ] && fail "--share axis on flows.sq said: $(cat "$tmp/share.err")"

# A point rejected when its model is built (its warmup past the --horizon
# given: the program has none, so the link cannot know) fails as its task,
# and the other points run, whether or not the sweep reads the
# replications from the program there (it read them at the first point and
# refused the whole sweep). At Wu = 1 the two jobs of the batch end at 1
# and 2 s, both in the window [1, 10]: mean(t) 1.5. A count of
# replications that reads a swept param is refused, of any program of the
# sweep: a sweep runs one count at every point.
cat >"$tmp/wu.sq" <<'EOF'
param Wu = 0;
param Rp = 2;
run { warmup Wu; replications Rp; seed 3; }
stage S : fifo(1);
workload { arrive batch(2); }
session { run S (1); observe t = now; }
EOF
"$serq" sweep "$tmp/wu.sq" -D Wu=20,1 --horizon 10 --metrics 'mean(t)' --format csv --jobs 1 >"$tmp/wu.csv" 2>"$tmp/wu.err"
[ $? = 1 ] || fail "a sweep with a rejected point: expected exit 1"
[ "$(cut -d, -f1,2,3,5 "$tmp/wu.csv" | tr '\n' ' ')" = "Wu,replications,mean(t),status 20,2,,failed 1,2,1.5,STABLE " ] ||
  fail "a sweep with a rejected first point: $(cat "$tmp/wu.csv")"
expect 2 "serq: error: $tmp/wu.sq: its run { replications } reads the swept param 'Rp', and a sweep runs one count" \
  -- "$serq" sweep "$tmp/wu.sq" -D Rp=2,5 --horizon 10 --jobs 1
expect 2 "serq: error: $tmp/wu.sq: its run { replications } reads the swept param 'Rp'" \
  -- "$serq" sweep $flows "$tmp/wu.sq" -D Rp=2,5 --horizon 10 --jobs 1
"$serq" sweep "$tmp/wu.sq" -D Rp=2,5 --replications 1 --horizon 10 --jobs 1 >/dev/null 2>&1 ||
  fail "-D Rp=2,5 --replications 1: exit $?"

# A run without a horizon (each replication to its last event): rate(t)
# over [warmup, end], as the report's. By hand: three jobs of a batch on
# one server end at 1, 2 and 3 s, so 3 samples over 3 s, 1 a second in
# every replication.
cat >"$tmp/drained.sq" <<'EOF'
run { seed 1; replications 3; }
stage S : fifo(1);
workload { arrive batch(3); }
session { run S (1); observe t = now; }
EOF
"$serq" sweep "$tmp/drained.sq" --metrics 'rate(t),goodput(t)' --jobs 1 --format csv >"$tmp/drained.csv" ||
  fail "drained sweep: exit $?"
[ "$(sed -n 2p "$tmp/drained.csv" | cut -d, -f2,3,4)" = "1,0,2" ] || fail "drained sweep: $(cat "$tmp/drained.csv")"
# With a warmup of 2.5 s every replication's window is [2.5, 3]: one
# sample (t = 3) in 0.5 s, 2 a second. With a warmup of 5 no replication
# has a window (each ended by then): the figure is blank, not 0 a second.
"$serq" sweep "$tmp/drained.sq" --warmup 2.5 --metrics 'rate(t)' --jobs 1 --format csv >"$tmp/drained.csv" ||
  fail "drained sweep --warmup 2.5: exit $?"
[ "$(sed -n 2p "$tmp/drained.csv" | cut -d, -f2,3)" = "2,0" ] || fail "drained sweep --warmup 2.5: $(cat "$tmp/drained.csv")"
"$serq" sweep "$tmp/drained.sq" --warmup 5 --metrics 'rate(t)' --jobs 1 --format csv >"$tmp/drained.csv" ||
  fail "drained sweep --warmup 5: exit $?"
[ "$(sed -n 2p "$tmp/drained.csv" | cut -d, -f2,3)" = "," ] || fail "drained sweep --warmup 5: $(cat "$tmp/drained.csv")"
"$serq" sweep "$tmp/drained.sq" --metrics 'rate(t)' --jobs 1 | head -1 | grep -qF "no horizon (each run to its last event)" ||
  fail "drained sweep's first line: $("$serq" sweep "$tmp/drained.sq" --metrics 'rate(t)' --jobs 1 | head -1)"

# A window a swept param sets differs by point: the first line gives its
# range, not the first point's, and the json each point's. By hand: a
# batch of three jobs of 1 s on one server ends at 1, 2 and 3 s; over a
# horizon of H = 2.5 two end, over 4 all three (rate(t) 2 / 2.5 and 3 / 4).
# A program without a horizon beside one with: "or none".
cat >"$tmp/window.sq" <<'EOF'
param H = 2;
param W = 0;
run { horizon H; warmup W; seed 1; }
stage S : fifo(1);
workload { arrive batch(3); }
session { run S (1); observe t = now; }
EOF
"$serq" sweep "$tmp/window.sq" -D H=2.5,4 --metrics 'rate(t)' --jobs 1 >"$tmp/window.txt" || fail "window sweep: exit $?"
[ "$(head -1 "$tmp/window.txt")" = "sweep of $tmp/window.sq: 2 points x 1 replication, horizon by point (2.5 to 4), warmup 0, seed 1" ] ||
  fail "window by point: $(head -1 "$tmp/window.txt")"
"$serq" sweep "$tmp/window.sq" -D H=2.5,4 --metrics 'rate(t)' --jobs 1 --format json >"$tmp/window.json" ||
  fail "window sweep json: exit $?"
grep -q '^  "horizon": null,$' "$tmp/window.json" || fail "window json's top-level horizon: $(cat "$tmp/window.json")"
grep -q '"settings": {"H": 2.5}, "figures": {"rate(t)": {"value": 0.8,.*"horizon": 2.5}' "$tmp/window.json" &&
  grep -q '"settings": {"H": 4}, "figures": {"rate(t)": {"value": 0.75,.*"horizon": 4}' "$tmp/window.json" ||
  fail "window json's points: $(cat "$tmp/window.json")"
"$serq" sweep "$tmp/window.sq" -D W=0,1 --jobs 1 | head -1 | grep -qF "horizon 2, warmup by point (0 to 1), seed 1" ||
  fail "warmup by point: $("$serq" sweep "$tmp/window.sq" -D W=0,1 --jobs 1 | head -1)"
"$serq" sweep "$tmp/window.sq" "$tmp/drained.sq" --jobs 1 | head -1 |
  grep -qF "horizon by point (2, or none), warmup 0, seed" ||
  fail "a horizon beside none: $("$serq" sweep "$tmp/window.sq" "$tmp/drained.sq" --jobs 1 | head -1)"

# inf as a value of a list, as every command's -D takes it (a pool without
# a limit). Three sessions of a batch each hold one unit of a pool of Cap
# units while a delay of 1 s runs. Cap = 1: one at a time, they end at 1,
# 2 and 3 s (mean 2); Cap = inf: all at once, each at 1 s (mean 1). A
# range's ends stay finite, and no x axis places inf.
cat >"$tmp/cap.sq" <<'EOF'
param Cap = 1;
param D = 1;
run { horizon 10; }
pool kv { cap Cap; }
stage S : delay;
workload { arrive batch(3); }
session { hold kv (1) { run S (D); } observe t = now; }
EOF
"$serq" sweep "$tmp/cap.sq" -D Cap=1,inf --metrics 'mean(t)' --format csv --jobs 1 >"$tmp/cap.csv" ||
  fail "-D Cap=1,inf: exit $?"
[ "$(cut -d, -f1,3 "$tmp/cap.csv" | tr '\n' ' ')" = "Cap,mean(t) 1,2 inf,1 " ] || fail "-D Cap=1,inf: $(cat "$tmp/cap.csv")"
"$serq" run "$tmp/cap.sq" -D Cap=inf --format csv | grep -q '^t,3,1,' || fail "run -D Cap=inf: not mean 1"
expect 2 "malformed -D 'Cap=1:inf:1': expected start:stop:step" -- "$serq" sweep "$tmp/cap.sq" -D Cap=1:inf:1
# The chart's axes are checked against the plan before any task runs (no
# folder is left); without --chart-x the x axis is the first that an axis
# places, and inf is a line's label.
expect 2 "--chart-x: 'Cap' has an infinite value, which no x axis places" -- \
  "$serq" sweep "$tmp/cap.sq" -D Cap=1,inf -D D=1,2 --chart 'mean(t)' --chart-x Cap --jobs 1 --out "$tmp/cx"
[ -e "$tmp/cx" ] && fail "a refused chart left $tmp/cx: $(ls "$tmp/cx")"
expect 2 "--chart: the sweep has no numeric parameter of several values that an x axis places" -- \
  "$serq" sweep "$tmp/cap.sq" -D Cap=1,inf --chart 'mean(t)' --jobs 1
"$serq" sweep "$tmp/cap.sq" -D Cap=1,inf -D D=1,2 --chart 'mean(t)' --jobs 1 >"$tmp/cap.svg" ||
  fail "a chart of D with Cap's lines: exit $?"
grep -q 'Cap=inf' "$tmp/cap.svg" || fail "a chart of D with Cap's lines: no line Cap=inf"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq sweep: all passed"
