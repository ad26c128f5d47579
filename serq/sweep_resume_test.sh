#!/usr/bin/env bash
# A sweep never loses work (docs/cli.md §serq sweep, Interrupted and
# resumed sweeps): the figures it is asked for are checked against the
# program before any task runs; a rerun into the same --out resumes (the
# finished task files kept, byte for byte and untouched, the others run)
# and a different plan, or the program edited since, is refused; SIGINT
# and SIGTERM stop the tasks, keep what finished, and say where it is and
# the command that resumes; a sweep without --out keeps its folder when
# interrupted and names it.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"
export TMPDIR=$tmp          # a sweep without --out makes its folder here

flows=testdata/sweep/flows.sq
grid=(-D W=0.5:1.5:0.5 --share=maxmin,bottleneck --replications 2)
metrics='mean(f3),p50(f3),rate(f3),mean(f1)'

# --metrics, --chart and --until name observations the program has, or
# nothing runs: no task file, no temporary folder.
expect 2 "serq: error: --metrics: mean(f9): the program observes no 'f9' (it observes 'f1', 'f2', 'f3')" -- \
  "$serq" sweep $flows "${grid[@]}" --metrics 'mean(f1),mean(f9)' --out "$tmp/typo"
[ -z "$(ls "$tmp/typo" 2>/dev/null | grep task-)" ] || fail "a --metrics typo ran tasks"
expect 2 "serq: error: --chart: p99(g): the program observes no 'g'" -- \
  "$serq" sweep $flows "${grid[@]}" --chart 'p99(g)'
[ -z "$(ls "$tmp" | grep serq-sweep-)" ] || fail "a --chart typo left a temporary folder"
expect 2 "serq: error: --until: mean(tt): the program observes no 'tt' (it observes 't')" -- \
  "$serq" search testdata/sweep/mm1.sq --param Rate --range 0.1:0.9 --until 'mean(tt) <= 2'
# A decode run's per-token observation is one too.
expect 2 "the program observes no 'tbt' (it observes 'e2e', 'itl', 'tpot', 'ttft')" -- \
  "$serq" sweep examples/pd-disaggregation/colocated_vllm.sq -D Rate=5 --metrics 'p99(tbt)' --horizon 1 --warmup 0

# Resume: two task files lost, the same command again runs those two only
# and leaves the others as they were (same inode, same mtime); the report is
# flows.txt, hand-checked (serq/sweep_test.sh).
"$serq" sweep $flows "${grid[@]}" --metrics "$metrics" --jobs 2 --out "$tmp/s" >/dev/null || fail "sweep: exit $?"
stamp() { stat -c '%i %Y.%y' "$tmp/s/task-$1.pb"; }
before0=$(stamp 0) before11=$(stamp 11)
rm "$tmp/s/task-3.pb" "$tmp/s/task-7.pb"
sleep 1.1  # a rewritten file would have another mtime
"$serq" sweep $flows "${grid[@]}" --metrics "$metrics" --jobs 2 --out "$tmp/s" >"$tmp/resumed.txt" 2>"$tmp/err" ||
  fail "the resumed sweep: exit $?: $(cat "$tmp/err")"
grep -qxF "serq: resumed the sweep in '$tmp/s': 10 of 12 tasks had finished before; ran the other 2" "$tmp/err" ||
  fail "the resumed sweep does not say so: $(cat "$tmp/err")"
cmp -s "$tmp/resumed.txt" testdata/sweep/flows.txt || fail "the resumed sweep: not flows.txt"
[ "$(stamp 0)" = "$before0" ] && [ "$(stamp 11)" = "$before11" ] || fail "a finished task file was rewritten"
[ -f "$tmp/s/task-3.pb" ] && [ -f "$tmp/s/task-7.pb" ] || fail "the lost tasks did not run again"
# Everything finished: a rerun runs nothing and prints the same report.
"$serq" sweep $flows "${grid[@]}" --metrics "$metrics" --out "$tmp/s" 2>"$tmp/err" | cmp -s - testdata/sweep/flows.txt ||
  fail "the finished sweep again: not flows.txt"
grep -qF "12 of 12 tasks had finished before; ran the other 0" "$tmp/err" || fail "the finished sweep again: $(cat "$tmp/err")"

# Another plan in the same folder is refused, saying what differs.
expect 2 "holds another sweep (its plan.pb differs: the replications (2, now 3))" -- \
  "$serq" sweep $flows -D W=0.5:1.5:0.5 --share=maxmin,bottleneck --replications 3 --out "$tmp/s"
expect 2 "holds another sweep (its plan.pb differs: the axes (-D, --share))" -- \
  "$serq" sweep $flows -D W=0.5:2:0.5 --share=maxmin,bottleneck --replications 2 --out "$tmp/s"
# The program edited since: the plan refuses to resume it, and a task of
# the old plan refuses to run it (its failure names the reason).
cp $flows "$tmp/edited.sq"
"$serq" sweep "$tmp/edited.sq" -D W=1 --replications 1 --out "$tmp/e" >/dev/null || fail "sweep of the copy: exit $?"
echo '// edited' >>"$tmp/edited.sq"
expect 2 "holds another sweep (its plan.pb differs: the program's text ('$tmp/edited.sq' changed since))" -- \
  "$serq" sweep "$tmp/edited.sq" -D W=1 --replications 1 --out "$tmp/e"
expect 1 "changed since the sweep was planned" -- "$serq" sweep --out "$tmp/e" --task 0

# A task killed outright (no interruption of the sweep: say, the OOM
# killer) is a failure of its point, and a resumed sweep runs it again.
# flows.sq's tasks end in milliseconds, so the kill is simulated by the
# file the executor writes for it (Failure exit code 0, "was killed by
# signal 9"), made from a real one: kill a task of a slow sweep.
mm1=(testdata/sweep/mm1.sq -D Rate=0.5 --replications 1 --horizon 3e6 --warmup 0 --metrics 'mean(t)')
"$serq" sweep "${mm1[@]}" --out "$tmp/k" --jobs 1 >/dev/null 2>"$tmp/err" &
parent=$!
child=
for _ in $(seq 200); do
  child=$(pgrep -P $parent -f -- '--task 0' || true)
  [ -n "$child" ] && break
  sleep 0.05
done
[ -n "$child" ] && kill -KILL $child
wait $parent
rc=$?
[ $rc -eq 1 ] || fail "a sweep whose task was killed: exit $rc, not 1: $(cat "$tmp/err")"
grep -qF "task 0 was killed by signal 9" "$tmp/err" || fail "the killed task is not said: $(cat "$tmp/err")"
"$serq" sweep "${mm1[@]}" --out "$tmp/k" --jobs 1 >"$tmp/out" 2>"$tmp/err" || fail "the rerun after a kill: exit $?: $(cat "$tmp/err")"
grep -qF "0 of 1 task had finished before; ran the other 1" "$tmp/err" || fail "the killed task was not run again: $(cat "$tmp/err")"
grep -qE '^ *0.5 .*STABLE$' "$tmp/out" || fail "the rerun after a kill: $(cat "$tmp/out")"

# SIGINT and SIGTERM. A sweep of 8 tasks of ~0.3 s each, one process at a
# time, is interrupted once its first task file is there: it stops the
# tasks, says how many finished, where they are and the command that
# resumes; exit 128 + the signal. A task it stopped leaves no file (not a
# failure: nothing of it is reported failed) and no temporary file. The
# command it prints finishes the sweep, with the report of an uninterrupted
# one. Job control (set -m) gives the sweep a process group of its own, as
# a terminal's foreground job has, whose every process ^C reaches.
slow=(testdata/sweep/mm1.sq -D Rate=0.2,0.4,0.6,0.8 --replications 2 --horizon 1e6 --metrics 'mean(t),p99(t)')
"$serq" sweep "${slow[@]}" --out "$tmp/whole" --jobs 2 >"$tmp/whole.txt" || fail "the uninterrupted sweep: exit $?"

# interrupt SIGNAL TARGET NAME [--out DIR]: run the slow sweep, send SIGNAL
# to TARGET (group: the whole process group, as a terminal's ^C; parent:
# the sweep alone, as kill does) once a task file is there.
interrupt() {
  local sig=$1 target=$2 name=$3
  shift 3
  set -m
  "$serq" sweep "${slow[@]}" --jobs 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  local pid=$!
  set +m
  for _ in $(seq 400); do
    compgen -G "$tmp/$name/task-*.pb" >/dev/null && break
    compgen -G "$tmp/serq-sweep-*/task-*.pb" >/dev/null && break
    sleep 0.05
  done
  if [ "$target" = group ]; then kill -s "$sig" -- -$pid; else kill -s "$sig" $pid; fi
  wait $pid
  echo $? >"$tmp/$name.rc"
}
check_interrupted() {  # NAME SIGNAL CODE DIR
  local name=$1 sig=$2 code=$3 dir=$4
  [ "$(cat "$tmp/$name.rc")" = "$code" ] || fail "$name: exit $(cat "$tmp/$name.rc"), not $code: $(cat "$tmp/$name.err")"
  grep -qE "^serq: interrupted by $sig: [1-7] of 8 tasks finished; their files are in '$dir'\$" "$tmp/$name.err" ||
    fail "$name: no interruption line: $(cat "$tmp/$name.err")"
  grep -q '^serq: resume with: ' "$tmp/$name.err" || fail "$name: no resume command: $(cat "$tmp/$name.err")"
  [ -s "$tmp/$name.out" ] && fail "$name: a report on stdout after the interruption"
  ls "$dir" | grep -q '\.tmp\.' && fail "$name: temporary task files left: $(ls "$dir")"
  # Every task file there holds results: none reads as failed.
  "$serq" sweep --merge "$dir" --metrics 'mean(t)' --format csv >"$tmp/$name.merged" 2>/dev/null
  grep -q ',failed$' "$tmp/$name.merged" && fail "$name: a stopped task reads as failed: $(cat "$tmp/$name.merged")"
  # The command it gives finishes the sweep: the uninterrupted report.
  local cmd
  cmd=$(sed -n 's/^serq: resume with: //p' "$tmp/$name.err")
  eval "$cmd" >"$tmp/$name.resumed" 2>"$tmp/$name.resumed.err" || fail "$name: the resume command failed: $cmd"
  grep -qE "^serq: resumed the sweep in '$dir': [1-7] of 8 tasks had finished before" "$tmp/$name.resumed.err" ||
    fail "$name: the resume command did not resume: $(cat "$tmp/$name.resumed.err")"
  cmp -s "$tmp/$name.resumed" "$tmp/whole.txt" || fail "$name: the resumed report is not the uninterrupted one"
}

interrupt INT group int --out "$tmp/int"
check_interrupted int SIGINT 130 "$tmp/int"
grep -qxF "serq: resume with: $serq sweep testdata/sweep/mm1.sq -D Rate=0.2,0.4,0.6,0.8 --replications 2 --horizon 1e6 --metrics 'mean(t),p99(t)' --jobs 1 --out $tmp/int" "$tmp/int.err" ||
  fail "the resume command is not the command typed: $(grep resume "$tmp/int.err")"

interrupt TERM parent term --out "$tmp/term"
check_interrupted term SIGTERM 143 "$tmp/term"
pgrep -f -- "--out $tmp/term --task" >/dev/null && fail "SIGTERM to the sweep left its tasks running"

# Without --out: the temporary folder is kept and named, and the resume
# command names it.
interrupt INT group notmp
dir=$(sed -n "s/^serq: interrupted by SIGINT: .* their files are in '\(.*\)'\$/\1/p" "$tmp/notmp.err")
case "$dir" in "$tmp"/serq-sweep-*) ;; *) fail "notmp: the folder is not named: $(cat "$tmp/notmp.err")" ;; esac
[ -f "$dir/plan.pb" ] || fail "notmp: the temporary folder was not kept"
grep -qF -- "--out $dir" "$tmp/notmp.err" || fail "notmp: the resume command lacks --out: $(cat "$tmp/notmp.err")"
check_interrupted notmp SIGINT 130 "$dir"

# A task file is its task's one replication: one whose results hold
# another (by hand, or a copy) merged as that replication, silently. The
# file is edited through its text form (protoc, as the build has it).
if command -v protoc >/dev/null; then
  "$serq" sweep testdata/sweep/mm1.sq -D Rate=0.5 --replications 2 --out "$tmp/relabel" >/dev/null 2>&1 ||
    fail "relabel: the sweep failed"
  protoc --proto_path=proto --decode=serq.sweep.Task sweep.proto <"$tmp/relabel/task-1.pb" |
    sed 's/^    index: 1$/    index: 0/' |
    protoc --proto_path=proto --encode=serq.sweep.Task sweep.proto >"$tmp/task-1.pb" &&
    mv "$tmp/task-1.pb" "$tmp/relabel/task-1.pb"
  expect 1 "$tmp/relabel/task-1.pb: error: task 1 is replication 1, and its results hold replication 0" -- \
    "$serq" sweep --merge "$tmp/relabel"
fi

[ "$failed" -eq 0 ]
