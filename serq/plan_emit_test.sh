#!/usr/bin/env bash
# serq plan --emit=parallel: the plan of plan_test.sh (three candidates:
# colocated tp1 x1 and x2, disaggregated 1P1D) emitted as three tasks, run
# by GNU parallel, merged with `serq plan --merge`, and compared byte for
# byte with the same plan run locally (both with --no-early-stop, which
# --emit needs: a task searches its candidate alone). The merge of a folder
# lacking a result names the candidate and exits 1; misuse exits 2; the
# Slurm script is a job array of the three. Skipped, saying so, only when
# parallel is not installed.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"
if ! command -v parallel >/dev/null 2>&1; then
  echo "SKIPPED: GNU parallel is not installed (tools/install-deps.sh installs Debian's 'parallel')"
  exit 0
fi
export HOME=$tmp  # parallel keeps its state in ~/.parallel

args=(plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 1 --rate 4 --price 2
      --until 'p99(ttft) <= 1 && p99(tpot) <= 0.05' --requests 200 --replications 2
      --max-replications 4 --rate-steps 16 --no-early-stop)
# The local run writes into the folder the emitted one will use (the page
# prints the command, the best programs name files relative to it), then
# moves aside.
"$serq" "${args[@]}" --out "$tmp/p" >"$tmp/local.out" 2>"$tmp/local.err" || fail "local plan: exit $?: $(cat "$tmp/local.err")"
mv "$tmp/p" "$tmp/local"

"$serq" "${args[@]}" --out "$tmp/p" --emit=parallel >"$tmp/tasks" 2>"$tmp/emit.err" || fail "emit: exit $?: $(cat "$tmp/emit.err")"
[ "$(wc -l <"$tmp/tasks")" = 3 ] || fail "emit: $(wc -l <"$tmp/tasks") tasks, expected 3: $(cat "$tmp/tasks")"
grep -q -- "plan --out '$tmp/p' --candidate 2\$" "$tmp/tasks" || fail "task 2: $(sed -n 3p "$tmp/tasks")"

# Before any task ran: every candidate is named missing, exit 1.
expect 1 "3 of 3 candidates have no result" -- "$serq" plan --merge "$tmp/p"
grep -q "candidate 2 (.*): no $tmp/p/results/candidate-2.txt" "$tmp/err" || fail "missing 2: $(cat "$tmp/err")"

parallel --will-cite --jobs 2 --halt now,fail=1 <"$tmp/tasks" || fail "parallel: exit $?"
for k in 0 1 2; do [ -s "$tmp/p/results/candidate-$k.txt" ] || fail "no result of candidate $k"; done

# One result removed: the merge names it.
mv "$tmp/p/results/candidate-1.txt" "$tmp/c1"
expect 1 "1 of 3 candidates have no result" -- "$serq" plan --merge "$tmp/p"
grep -q "candidate 1 (" "$tmp/err" || fail "missing 1: $(cat "$tmp/err")"
mv "$tmp/c1" "$tmp/p/results/candidate-1.txt"

"$serq" plan --merge "$tmp/p" >"$tmp/merged.out" 2>"$tmp/merge.err" || fail "merge: exit $?: $(cat "$tmp/merge.err")"
cmp "$tmp/local.out" "$tmp/merged.out" || { fail "the summary differs"; diff "$tmp/local.out" "$tmp/merged.out"; }
for f in candidates.csv pareto.csv pareto.svg pareto.html best-colocated.sq best-disaggregated.sq vllm-serve.sh \
         programs/agg-tp1x1.sq programs/agg-tp1x2.sq programs/pd-1p-tp1-1d-tp1.sq; do
  [ -s "$tmp/local/$f" ] || fail "the local run wrote no $f"
  cmp -s "$tmp/local/$f" "$tmp/p/$f" || fail "$f differs between the local run and the merge"
done
# The test can fail: the local run found something on the front.
grep -q ',front,' "$tmp/p/candidates.csv" || fail "no candidate on the front: $(cat "$tmp/p/candidates.csv")"

# The Slurm script: an array of the three, each a --candidate.
"$serq" "${args[@]}" --out "$tmp/s" --emit=slurm >"$tmp/s.sh" || fail "emit slurm: exit $?"
grep -q '^#SBATCH --array=0-2$' "$tmp/s.sh" || fail "slurm array: $(cat "$tmp/s.sh")"
grep -q -- "plan --out '$tmp/s' --candidate \"\$SLURM_ARRAY_TASK_ID\"\$" "$tmp/s.sh" || fail "slurm exec: $(cat "$tmp/s.sh")"

# Misuse.
no_stop=()
for a in "${args[@]}"; do [ "$a" = --no-early-stop ] || no_stop+=("$a"); done
expect 2 "give --no-early-stop" -- "$serq" "${no_stop[@]}" --out "$tmp/x" --emit=parallel
expect 2 "unknown --emit 'pbs'" -- "$serq" "${args[@]}" --out "$tmp/x" --emit=pbs
expect 2 "has 3 candidates, numbered from 0" -- "$serq" plan --out "$tmp/p" --candidate 3
# Past an int's range: once cast to a negative index (a crash: 2^31 a
# segfault, 2^32 - 1 a bad_alloc), now past the count as 3 is.
for k in 2147483648 4294967295; do
  expect 2 "--candidate $k: the plan in $tmp/p has 3 candidates" -- "$serq" plan --out "$tmp/p" --candidate $k
done
expect 2 "give --gpus to the \`serq plan --emit\`" -- "$serq" plan --merge "$tmp/p" --gpus 4
expect 2 "--jobs applies to running the candidates here, not to --merge" -- "$serq" plan --merge "$tmp/p" --jobs 2
expect 2 "--jobs applies to running the candidates here, not to --candidate" -- \
  "$serq" plan --out "$tmp/p" --candidate 0 --jobs 2
expect 2 "is $tmp/nothing a folder \`serq plan --emit\` wrote?" -- "$serq" plan --merge "$tmp/nothing"

[ "$failed" -eq 0 ] || { echo "$failed failed"; exit 1; }
echo "serq plan with GNU parallel: all passed"
