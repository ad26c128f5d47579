#!/usr/bin/env bash
# serq plan --rate R without --gpus: the fewest GPUs meeting R, on a case
# whose answer follows from queueing theory.
#
# The candidates are Llama-3.1-8B engines on H100s at tensor parallel 1
# with max_num_seqs 1 (--seqs 1) and every request 128 prompt and 32
# output tokens (--lengths fixed:128,32): an engine serves one request at a
# time, each in the same time S = TTFT + 31 x ITL at a batch of one, which
# a run of the 1-GPU program at a low rate gives (its median E2E: at 0.5
# requests a second 9 requests in 10 find the engine idle). An engine is
# then a single server of deterministic service S, stable below 1/S
# requests a second; k engines taking requests in turn (vLLM's balancer
# for a dense model) each get R/k, so k engines serve R when R/k < 1/S.
# With R = 2.3/S: one engine is searched only up to 16 requests a second
# (--max-rate-per-gpu) and is unstable above 1/S; two engines each get
# 1.15/S, overloaded, and their search's grid (1 request a second apart)
# would have to pass at 11 > 10.5 requests a second to meet R; three get
# 0.77/S each, stable, so the fewest GPUs is 3. The budgets tried: 1
# (short), 2 (short), 4 (meets), then the bisection between 2 and 4: 3
# (meets). The plan found is `serq plan --gpus 3 --rate R`'s, byte for
# byte; the same bytes whatever --jobs; the cap (--max-gpus 2) that cannot
# meet R is an error, exit 1, as is a rate no budget's search reaches;
# misuse is refused.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"

args=(plan --model llama-3.1-8b --gpu h100-sxm --tps 1 --kinds colocated --seqs 1 --lengths fixed:128,32
      --until 'p99(ttft) <= 5' --requests 200 --replications 2 --max-replications 4 --rate-steps 32)
# S, from the 1-GPU plan's program run at 0.5 requests a second.
"$serq" "${args[@]}" --gpus 1 --out "$tmp/one" >"$tmp/one.out" 2>&1 || fail "plan --gpus 1: exit $?"
"$serq" run "$tmp/one/programs/agg-tp1x1-s1.sq" -D Rate=0.5 --format csv --quantiles=50 >"$tmp/s.csv" \
  || fail "serq run at 0.5"
s=$(awk -F, '$1 == "observe" {for (i = 1; i <= NF; i++) if ($i == "p50") c = i} $1 == "e2e" {print $c}' "$tmp/s.csv")
[ -n "$s" ] || fail "no median e2e in $tmp/s.csv"
# R to a tenth, as the summary prints it (10.0 as 10).
rate=$(awk -v s="$s" 'BEGIN {printf "%.1f", 2.3 / s}' | sed 's/\.0$//')
echo "S = $s s, R = 2.3 / S = $rate requests a second"

"$serq" "${args[@]}" --rate "$rate" --out "$tmp/grow" >"$tmp/grow.out" 2>"$tmp/grow.err" \
  || fail "plan --rate $rate: exit $?: $(cat "$tmp/grow.err")"
grep -q "^fewest GPUs for $rate req/s: 3 (colocated tp1 x3 seqs 1, " "$tmp/grow.out" \
  || fail "fewest GPUs: $(grep fewest "$tmp/grow.out")"
grep -q "^budgets tried for $rate req/s: 1 short, 2 short, 4 meets, 3 meets; the fewest GPUs: 3$" "$tmp/grow.out" \
  || fail "budgets: $(grep budgets "$tmp/grow.out")"
grep -q "^plan for llama-3.1-8b on up to 3 x " "$tmp/grow.out" || fail "summary's budget: $(head -1 "$tmp/grow.out")"
# A progress line a budget, in the order tried, on stderr.
got=$(sed -n 's/^serq plan: \([0-9]*\) GPUs\{0,1\}: [0-9]* candidates\{0,1\}, .*\(short of\|meets\).*/\1 \2/p' \
  "$tmp/grow.err" | tr '\n' ',')
[ "$got" = "1 short of,2 short of,4 meets,3 meets," ] || fail "progress lines: '$got': $(cat "$tmp/grow.err")"
# The plan found is the plan at --gpus 3 (its page names the command).
"$serq" "${args[@]}" --rate "$rate" --gpus 3 --out "$tmp/three" >"$tmp/three.out" 2>&1 || fail "plan --gpus 3: exit $?"
for f in candidates.csv pareto.csv pareto.svg best-colocated.sq vllm-serve.sh; do
  cmp -s "$tmp/grow/$f" "$tmp/three/$f" || fail "$f differs from the plan at --gpus 3"
done
grep -q "^fewest GPUs for $rate req/s: 3 " "$tmp/three.out" || fail "--gpus 3 --rate: $(grep fewest "$tmp/three.out")"
# The same bytes whatever --jobs.
"$serq" "${args[@]}" --rate "$rate" --out "$tmp/grow" --jobs 2 >"$tmp/jobs.out" 2>"$tmp/jobs.err" || fail "--jobs 2"
cmp -s "$tmp/grow.out" "$tmp/jobs.out" || fail "stdout differs with --jobs 2"
cmp -s "$tmp/grow.err" "$tmp/jobs.err" || fail "stderr differs with --jobs 2"
# A cap below the answer: the budgets up to it fall short, exit 1.
expect 1 "serq plan: error: no budget of up to 2 GPUs (--max-gpus) meets $rate req/s: on 2 GPUs, the most any candidate meets the SLOs at is " \
  -- "$serq" "${args[@]}" --rate "$rate" --max-gpus 2 --out "$tmp/cap"
grep -q "^serq plan: 2 GPUs: " "$tmp/err" || fail "cap: no progress line for 2 GPUs"
# A rate beyond every budget's search: 1000 requests a second at 16 a GPU
# takes at least 63 GPUs (1000 / 16 = 62.5), more than 8; nothing runs.
expect 1 "no budget of up to 8 GPUs (--max-gpus) meets 1000 req/s: a candidate of g GPUs is searched up to g x 16 req/s (--max-rate-per-gpu), so 1000 req/s takes at least 63 GPUs" \
  -- "$serq" "${args[@]}" --rate 1000 --max-gpus 8 --out "$tmp/far"
# Misuse.
expect 2 "serq: error: expected --gpus N, the GPU budget, or --rate R alone" -- "$serq" plan --model llama-3.1-8b \
  --gpu h100-sxm --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--max-gpus goes with --rate without --gpus" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 \
  --rate 5 --max-gpus 8 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--max-gpus must be from 1 to 1024, not 0" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --rate 5 --max-gpus 0 \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--tps 16 is more than --max-gpus 8" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --rate 5 \
  --max-gpus 8 --tps 16 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--emit, --candidate and --merge plan one budget: give --gpus N" -- "$serq" plan --model llama-3.1-8b \
  --gpu h100-sxm --rate 5 --until 'p99(ttft) <= 1' --no-early-stop --emit=parallel --out "$tmp/c"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq plan --rate: all passed"
