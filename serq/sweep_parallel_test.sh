#!/usr/bin/env bash
# A sweep run by GNU parallel (Debian's `parallel`): the emitted task list
# fed to `parallel --jobs 2`, merged, and compared byte for byte with the
# same sweep run by serq's own local processes: the report, and every task
# file. Skipped, saying so, only when parallel is not installed
# (tools/install-deps.sh installs it, and CI runs that).
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 2
if ! command -v parallel >/dev/null 2>&1; then
  echo "SKIPPED: GNU parallel is not installed (tools/install-deps.sh installs Debian's 'parallel')"
  exit 0
fi
export HOME=$tmp  # parallel keeps its state in ~/.parallel
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# 3 rates x 2 engine counts x 2 replications = 12 tasks of a real program.
args=(examples/pd-disaggregation/colocated.sq -D Rate=10:30:10 -D NE=2,4 --replications 2 --horizon 40
      --metrics 'mean(ttft),p99(ttft),rate(e2e)')
"$serq" sweep "${args[@]}" --jobs 2 --out "$tmp/local" >"$tmp/local.txt" || fail "local sweep: exit $?"
"$serq" sweep "${args[@]}" --emit=parallel --out "$tmp/par" >"$tmp/tasks" || fail "emit: exit $?"
[ "$(wc -l <"$tmp/tasks")" = 12 ] || fail "emit: $(wc -l <"$tmp/tasks") tasks, expected 12"
parallel --will-cite --jobs 2 --halt now,fail=1 <"$tmp/tasks" || fail "parallel: exit $?"
"$serq" sweep --merge "$tmp/par" --metrics 'mean(ttft),p99(ttft),rate(e2e)' >"$tmp/par.txt" || fail "merge: exit $?"
cmp "$tmp/local.txt" "$tmp/par.txt" || { fail "the report of parallel's run differs"; diff "$tmp/local.txt" "$tmp/par.txt"; }
for i in $(seq 0 11); do
  cmp -s "$tmp/local/task-$i.pb" "$tmp/par/task-$i.pb" || fail "task $i: parallel's file differs"
done
grep -q '^  *30  *4 ' "$tmp/par.txt" || fail "no row for Rate 30, NE 4: $(cat "$tmp/par.txt")"
cat "$tmp/par.txt"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq sweep with GNU parallel: all passed"
