#!/usr/bin/env bash
# Writes that never destroy (docs/cli.md §Writing output): every file a
# tool writes (serq run's --results and --trace, serq-sim's --trace, serq
# compare's --svg, serq fit-steps' --residuals) is its old self until the
# new one is whole. Each is made to fail half-way, then killed half-way,
# and the old file is read back; the temporary file `.NAME.tmp-PID` is
# gone, but after SIGKILL, which no process can catch.
#
# Half-way, deterministically: `ulimit -f N` stops a file at N KB. With
# SIGXFSZ ignored, the write past it fails (EFBIG, "File too large"): a
# failed write, exit 2. With SIGXFSZ at its default, the process is killed
# by it in the middle of the write (exit 128 + 25). Every new file below is
# larger than its limit: derivations at each case.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
sim=$root/serq-sim/serq-sim
parse=$root/serq-parse/serq-parse
link=$root/serq-link/serq-link
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"
export SERQ_PROGRESS=0
before=examples/before.sq

# kept WHAT FILE OLD: FILE holds OLD's bytes, and no temporary file of it is left.
kept() {
  cmp -s "$2" "$3" || fail "$1: the old file was not kept ($(wc -c <"$2") bytes, $(wc -c <"$3") before)"
  local left
  left=$(ls -A "$(dirname "$2")" | grep -F ".$(basename "$2").tmp-")
  [ -z "$left" ] || fail "$1: a temporary file was left: $left"
}

# failed LIMIT_KB WHAT FILE OLD PATTERN -- command: the command's write past
# LIMIT_KB fails; it exits 2 with PATTERN, and FILE is OLD.
failed_write() {
  local kb=$1 what=$2 file=$3 old=$4 pattern=$5; shift 6
  cp "$old" "$file"
  (trap '' XFSZ; ulimit -f "$kb"; exec "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = 2 ] || fail "$what: exit $got, expected 2 ($(head -3 "$tmp/err"))"
  grep -qF -- "$pattern" "$tmp/err" || fail "$what: stderr lacks '$pattern': $(head -3 "$tmp/err")"
  kept "$what" "$file" "$old"
}

# killed LIMIT_KB WHAT FILE OLD -- command: the command is killed by SIGXFSZ
# in the middle of its write past LIMIT_KB; FILE is OLD.
killed_write() {
  local kb=$1 what=$2 file=$3 old=$4; shift 5
  cp "$old" "$file"
  # (bash's notice of the signal to /dev/null)
  { (ulimit -f "$kb"; exec "$@") >"$tmp/out" 2>"$tmp/err" </dev/null; } 2>/dev/null
  local got=$?
  [ "$got" = $((128 + 25)) ] || fail "$what: exit $got, expected 153 (SIGXFSZ) ($(head -3 "$tmp/err"))"
  kept "$what" "$file" "$old"
}

# --- serq run --results: a good file, then a run writing another onto it.
# 300 replications of before.sq are 570 KB of JSON (~1.9 KB each), so a
# limit of 64 KB stops the write at its start.
"$serq" run --results "$tmp/good.json" --replications 300 $before >/dev/null || fail "the good results: exit $?"
[ "$(wc -c <"$tmp/good.json")" -gt $((64 * 1024)) ] || fail "the good results are not past 64 KB"
failed_write 64 "run --results, failed" "$tmp/r.json" "$tmp/good.json" "serq: error: cannot write '$tmp/r.json': File too large" -- \
  "$serq" run --results "$tmp/r.json" --replications 300 --seed 2 $before
killed_write 64 "run --results, killed" "$tmp/r.json" "$tmp/good.json" -- \
  "$serq" run --results "$tmp/r.json" --replications 300 --seed 2 $before
# Binary results (300 replications: 163 KB; the old file is JSON: any bytes do).
failed_write 64 "run --results .pb, failed" "$tmp/r.pb" "$tmp/good.json" "cannot write '$tmp/r.pb': File too large" -- \
  "$serq" run --results "$tmp/r.pb" --replications 300 $before
# And a run that succeeds replaces the file whole: what serq-sim writes.
cp "$tmp/good.json" "$tmp/r.json"
"$serq" run --results "$tmp/r.json" --seed 2 $before >/dev/null || fail "run --results: exit $?"
"$parse" $before | "$link" | "$sim" --seed 2 >"$tmp/sim.json"
cmp -s "$tmp/r.json" "$tmp/sim.json" || fail "run --results: not serq-sim's bytes"
kept "run --results, replaced" "$tmp/r.json" "$tmp/sim.json"

# --- --trace (serq run and serq-sim): 300 replications of before.sq log
# 39 lines each (the replication's line and 38 events of its two sessions
# and three pools, docs/cli.md §serq-sim), 11,700 lines of ~57 bytes:
# 672 KB.
echo '{"old": "trace"}' >"$tmp/old.jsonl"
failed_write 64 "run --trace, failed" "$tmp/t.jsonl" "$tmp/old.jsonl" "serq: error: cannot write output '$tmp/t.jsonl' (--trace): File too large" -- \
  "$serq" run --trace "$tmp/t.jsonl" --replications 300 $before
killed_write 64 "run --trace, killed" "$tmp/t.jsonl" "$tmp/old.jsonl" -- \
  "$serq" run --trace "$tmp/t.jsonl" --replications 300 $before
"$parse" $before | "$link" >"$tmp/before.linked.json"
failed_write 64 "serq-sim --trace, failed" "$tmp/t.jsonl" "$tmp/old.jsonl" "serq-sim: error: cannot write output '$tmp/t.jsonl' (--trace): File too large" -- \
  "$sim" --trace "$tmp/t.jsonl" --replications 300 "$tmp/before.linked.json"
failed_write 64 "serq-sim --trace chrome, failed" "$tmp/t.jsonl" "$tmp/old.jsonl" "(--trace): File too large" -- \
  "$sim" --trace "$tmp/t.jsonl" --trace-format=chrome --replications 300 "$tmp/before.linked.json"

# A run stopped by a signal while it writes its trace (a periodic arrival
# for 10^9 s: it runs until it is killed). SIGTERM: the process dies of
# it, the old trace stays, the temporary file is removed. SIGKILL cannot
# be caught: the old trace stays, and `.t.jsonl.tmp-PID` is left behind.
printf 'stage D : delay;\nworkload { arrive periodic(1); }\nsession { run D (0.5); }\nrun { horizon 1e9; }\n' >"$tmp/long.sq"
for sig in TERM KILL; do
  cp "$tmp/old.jsonl" "$tmp/t.jsonl"
  "$serq" run --trace "$tmp/t.jsonl" "$tmp/long.sq" >/dev/null 2>&1 &
  pid=$!
  # Until the log has bytes in its temporary file (the first 64 KB buffer),
  # or has written over the old one.
  for _ in $(seq 600); do
    [ -s "$tmp/.t.jsonl.tmp-$pid" ] && break
    cmp -s "$tmp/t.jsonl" "$tmp/old.jsonl" || break
    sleep 0.05
  done
  [ -s "$tmp/.t.jsonl.tmp-$pid" ] || fail "SIG$sig: no temporary file .t.jsonl.tmp-$pid"
  kill -$sig $pid
  wait $pid
  got=$?
  [ "$got" = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit $got"
  cmp -s "$tmp/t.jsonl" "$tmp/old.jsonl" || fail "SIG$sig: the old trace was not kept"
  if [ $sig = KILL ]; then
    [ -f "$tmp/.t.jsonl.tmp-$pid" ] || fail "SIGKILL: the temporary file is not .t.jsonl.tmp-$pid"
    rm -f "$tmp/.t.jsonl.tmp-$pid"
  fi
  kept "SIG$sig" "$tmp/t.jsonl" "$tmp/old.jsonl"
done

# --- serq compare --svg: the CDFs of vllm.measured against vllm.sq, 12 KB
# of SVG (each metric's two curves); a limit of 8 KB.
echo '<svg old="yes"/>' >"$tmp/old.svg"
c=testdata/compare
failed_write 8 "compare --svg, failed" "$tmp/c.svg" "$tmp/old.svg" "serq: error: cannot write output '$tmp/c.svg' (--svg): File too large" -- \
  "$serq" compare --svg "$tmp/c.svg" $c/vllm.measured $c/vllm.sq
killed_write 8 "compare --svg, killed" "$tmp/c.svg" "$tmp/old.svg" -- \
  "$serq" compare --svg "$tmp/c.svg" $c/vllm.measured $c/vllm.sq

# --- serq fit-steps --residuals: 2000 steps, a line of the residuals each
# (prefill, duration, fitted, residual: ~48 bytes), 96 KB; a limit of 8 KB.
python3 -c '
print("prefill,duration")
for i in range(2000): print("%d,%d" % (i, 100 + 2 * i + i % 7))' >"$tmp/steps.csv"
echo 'old residuals' >"$tmp/old.csv"
failed_write 8 "fit-steps --residuals, failed" "$tmp/res.csv" "$tmp/old.csv" "serq: error: cannot write '$tmp/res.csv' (--residuals): File too large" -- \
  "$serq" fit-steps "$tmp/steps.csv" --terms 'A=1,B=prefill' --residuals "$tmp/res.csv"
killed_write 8 "fit-steps --residuals, killed" "$tmp/res.csv" "$tmp/old.csv" -- \
  "$serq" fit-steps "$tmp/steps.csv" --terms 'A=1,B=prefill' --residuals "$tmp/res.csv"

# --- Not a regular file: written in place, as a stream (/dev/null stays a
# device); a symbolic link is written through.
"$serq" run --trace /dev/null $before >/dev/null || fail "--trace /dev/null: exit $?"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
cp "$tmp/good.json" "$tmp/real.json"
ln -s real.json "$tmp/link.json"
"$serq" run --results "$tmp/link.json" --seed 2 $before >/dev/null || fail "--results through a link: exit $?"
[ -L "$tmp/link.json" ] || fail "--results replaced the link"
cmp -s "$tmp/real.json" "$tmp/sim.json" || fail "--results through a link: not the new results"

[ "$failed" -eq 0 ]
