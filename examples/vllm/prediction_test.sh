#!/usr/bin/env bash
# The profile-based program against the measured vLLM run: serq compare's
# errors (simulated - measured) / measured in percent must stay within the
# budget docs/examples.md states: |error| <= 3% on the means of TTFT, TPOT
# and E2E, <= 5% on their p50, p90 and p99, but TTFT's p50, which misses
# that target (-6.25% today with vLLM's scheduler options on: async,
# blocks of 16, reserve prompt; LLMServingSim, with the same profile, -8.6%).
# The median request waits for a seat (128 running); after its seat serq
# is within 10 ms, but the seats come free ~560 ms early because the early
# arrivals decode ~4% fast in serq: the per-second series puts the profile's
# step 2.2-2.7 ms short at 40-60 decodes, a cost the eager per-kernel
# profile does not hold and nothing in it derives (docs/examples.md, "What
# TTFT's p50 error is made of"; examples/vllm/ttft_median.py). It is held
# to 7%. Nothing here was fitted to the measured latencies, so a change
# that moves the prediction out of budget is a change of the model, not
# noise: the replay is deterministic.
set -u
serq=serq/serq
prog=examples/vllm/llama-3.1-8b-rtxpro6000.sq
run=examples/vllm/rtxpro6000-llama-3.1-8b-tp1/requests.jsonl
out=$("$serq" compare --format=csv "$run" "$prog") || { echo "serq compare failed"; exit 1; }
fails=0
check() {  # check METRIC COLUMN BOUND
  local v
  v=$(echo "$out" | awk -F, -v m="$1" -v c="$2" '
    $2 == "side" { for (i = 1; i <= NF; i++) col[$i] = i }
    $1 == m && $2 == "error_pct" { print $(col[c]) }')
  if [ -z "$v" ]; then echo "FAIL: no $1 $2 error in the comparison"; fails=$((fails + 1)); return; fi
  if awk -v v="$v" -v b="$3" 'BEGIN { exit !(v <= b && v >= -b) }'; then
    echo "ok   $1 $2 error $v% (budget $3%)"
  else
    echo "FAIL $1 $2 error $v% outside +-$3%"; fails=$((fails + 1))
  fi
}
for m in ttft tpot e2e; do check "$m" mean_ms 3; done
for m in tpot e2e; do for c in p50_ms p90_ms p99_ms; do check "$m" "$c" 5; done; done
check ttft p50_ms 7
check ttft p90_ms 5
check ttft p99_ms 5
echo "$((15 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
