#!/usr/bin/env bash
# serq plan over a run folder (--run): the Llama-3.1-8B run of
# examples/vllm/runs, whose profile has tp1 and tp2, on up to 4 GPUs. By
# hand the candidates are six, colocated at the run's max_num_seqs 128 and
# max_num_batched_tokens 2048 (meta.json): tp1 x1..x4 (1-4 GPUs) and tp2 x1,
# x2 (2 and 4 GPUs); tensor parallel 4 fits the budget but the profile
# lacks it, so it is not enumerated and the summary says so. Checked: the
# candidates and their GPUs; each program's step time from the profile at
# its degree (profile/tp1 or profile/tp2), the link from the folder's
# llmservingsim-config.json (link_bw 16 GB/s read as 16 x 2^30 bytes/s =
# 17179869184), the engines behind vLLM's balancer (Engines = replicas);
# the KV cache of a tp1 engine the same count `serq vllm RUN` derives (the
# same engine, the same GPU memory); the best program rerun gives the
# plan's figures; the page names its step-time source; --replay (the run's
# own requests, scaled to each rate) from the folder and from presets;
# misuse is refused.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"

run=examples/vllm/runs/rtxpro6000-llama-3.1-8b
"$serq" plan --run "$run" --gpus 4 --rate 8 --until 'p99(ttft) <= 2 && p99(tpot) <= 0.05' --requests 200 \
  --replications 2 --max-replications 4 --rate-steps 16 --out "$tmp/a" --jobs 2 >"$tmp/a.out" 2>"$tmp/a.err" \
  || fail "plan --run: exit $?: $(cat "$tmp/a.err")"
got=$(awk -F, 'NR > 1 {print $1 ":" $3}' "$tmp/a/candidates.csv" | tr '\n' ' ')
want="agg-tp1x1-s128-t2048:1 agg-tp1x2-s128-t2048:2 agg-tp1x3-s128-t2048:3 agg-tp1x4-s128-t2048:4 "
want+="agg-tp2x1-s128-t2048:2 agg-tp2x2-s128-t2048:4 "
[ "$got" = "$want" ] || fail "candidates: $got"
grep -qF "not a candidate: tensor parallel 4: the profile ($run/profile/meta.yaml) has tp_degrees [1, 2]" \
  "$tmp/a.out" || fail "no line for the unprofiled tp4: $(cat "$tmp/a.out")"
p=$tmp/a/programs
for r in 1 2 3 4; do
  f=$p/agg-tp1x$r-s128-t2048.sq
  grep -q 'profile/tp1/attention.csv' "$f" || fail "$f: not profile/tp1"
  grep -q 'profile/tp2/' "$f" && fail "$f: reads profile/tp2"
  grep -q '^param LinkBw' "$f" && fail "$f: a link at tensor parallel 1"
  if [ $r -gt 1 ]; then grep -q "^param Engines = $r;" "$f" || fail "$f: not $r engines"; fi
done
for r in 1 2; do
  f=$p/agg-tp2x$r-s128-t2048.sq
  grep -q 'profile/tp2/attention.csv' "$f" || fail "$f: not profile/tp2"
  grep -q '^param Tp = 2;' "$f" || fail "$f: not Tp 2"
  grep -q '^param LinkBw = 17179869184;' "$f" || fail "$f: not the folder's link"
done
# Their GPUs, for the reports' per-GPU figures: serq vllm's run block
# (Engines x Tp in the params the program has) with the plan's horizon.
grep -q '; seed 1; gpus 1; }$' "$p/agg-tp1x1-s128-t2048.sq" || fail "tp1 x1: not 1 GPU"
grep -q '; seed 1; gpus Engines; }$' "$p/agg-tp1x3-s128-t2048.sq" || fail "tp1 x3: not Engines GPUs"
grep -q '; seed 1; gpus Engines \* Tp; }$' "$p/agg-tp2x2-s128-t2048.sq" || fail "tp2 x2: not Engines x Tp GPUs"
grep -q '^param Seqs = 128;' "$p/agg-tp2x1-s128-t2048.sq" || fail "not the run's max_num_seqs"
grep -q '^param Tokens = 2048;' "$p/agg-tp2x1-s128-t2048.sq" || fail "not the run's max_num_batched_tokens"
kv=$("$serq" vllm "$run" | sed -n 's/^param KvBlocks = \([0-9]*\);.*/\1/p')
[ -n "$kv" ] && grep -q "^param KvBlocks = $kv;" "$p/agg-tp1x1-s128-t2048.sq" \
  || fail "KvBlocks: serq vllm derives '$kv', the plan's tp1 program has $(grep '^param KvBlocks' "$p/agg-tp1x1-s128-t2048.sq")"
grep -q '^workload requests { arrive poisson(Rate); }' "$p/agg-tp1x1-s128-t2048.sq" || fail "not a Poisson workload"
grep -q 'vllm serve meta-llama/Llama-3.1-8B .*--max-num-seqs 128' "$tmp/a/vllm-serve.sh" \
  || fail "vllm-serve.sh: $(cat "$tmp/a/vllm-serve.sh")"
grep -q 'id="step-time"><b>Step time:</b> the GPU profile of the run folder' "$tmp/a/pareto.html" \
  || fail "page: not the profile as the step-time source"
# The best program, rerun alone at the plan's replications, gives the
# plan's figures.
row=$(awk -F, -v want="$(sed -n 's/^best colocated: .* at \([0-9.]*\) req\/s.*/\1/p' "$tmp/a.out")" \
  'NR > 1 && $2 == "colocated" && $13 == want' "$tmp/a/candidates.csv" | head -1)
reps=$(echo "$row" | cut -d, -f15)
[ -n "$reps" ] || fail "no row for the best colocated"
"$serq" run "$tmp/a/best-colocated.sq" --replications "$reps" --format csv >"$tmp/run.csv" || fail "serq run best"
fig() { awk -F, -v o="$1" -v c="$2" '$1 == o {print $c}' "$tmp/run.csv"; }
p99ttft=$(printf '%.6f' "$(fig ttft 10)")
tokens=$(awk -v a="$(fig ttft 7)" -v b="$(fig itl 7)" 'BEGIN {printf "%.3f", a + b}')
[ "$p99ttft" = "$(echo "$row" | cut -d, -f28)" ] || fail "p99 ttft: run $p99ttft, plan $(echo "$row" | cut -d, -f28)"
[ "$tokens" = "$(echo "$row" | cut -d, -f16)" ] || fail "tokens/s: run $tokens, plan $(echo "$row" | cut -d, -f16)"
# --replay: the run's own 300 requests as the workload, at each rate the
# search tries. Their mean rate is measured once: 300 arrivals, the first
# at 0, so TraceRate x TraceLast = 299 gaps; each program scales the trace
# by TraceRate / Rate and ends at its last arrival; the best program
# rerun gives the plan's figures (a trace's replications are the same
# arrivals, so its ± are 0).
"$serq" plan --run "$run" --gpus 1 --replay "$run/requests.jsonl" --until 'p99(ttft) <= 2 && p99(tpot) <= 0.05' \
  --replications 2 --max-replications 2 --rate-steps 16 --out "$tmp/r" >"$tmp/r.out" 2>"$tmp/r.err" \
  || fail "plan --replay: exit $?: $(cat "$tmp/r.err")"
f=$tmp/r/programs/agg-tp1x1-s128-t2048.sq
grep -q 'arrive trace(".*requests.jsonl", TraceRate / Rate); }' "$f" || fail "$f: not the scaled trace"
grep -q '^run { horizon TraceLast \* TraceRate / Rate;' "$f" || fail "$f: not the scaled trace's end"
gaps=$(awk '/^param TraceRate =/ {r = $4 + 0} /^param TraceLast =/ {l = $4 + 0} END {printf "%.6f", r * l}' "$f")
[ "$gaps" = "299.000000" ] || fail "TraceRate x TraceLast: $gaps, not 299"
grep -q 'the trace .*requests.jsonl (300 arrivals' "$tmp/r.out" || fail "summary: not the trace: $(head -1 "$tmp/r.out")"
rate=$(sed -n 's/^best colocated: .* at \([0-9.]*\) req\/s.*/\1/p' "$tmp/r.out")
row=$(awk -F, -v want="$rate" 'NR > 1 && $13 == want' "$tmp/r/candidates.csv" | head -1)
[ -n "$row" ] || fail "--replay: no best colocated"
"$serq" run "$tmp/r/best-colocated.sq" --replications 2 --format csv >"$tmp/run.csv" || fail "serq run best (replay)"
p99ttft=$(printf '%.6f' "$(fig ttft 10)")
[ "$p99ttft" = "$(echo "$row" | cut -d, -f28)" ] || fail "replay p99 ttft: run $p99ttft, plan $(echo "$row" | cut -d, -f28)"
# The same from presets (serq physics's step time).
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --replay "$run/requests.jsonl" --until 'p99(ttft) <= 2' \
  --replications 2 --max-replications 2 --rate-steps 16 --out "$tmp/s" >"$tmp/s.out" 2>"$tmp/s.err" \
  || fail "plan --model --replay: exit $?: $(cat "$tmp/s.err")"
grep -q 'TraceRate / Rate); }' "$tmp/s/programs/agg-tp1x1.sq" || fail "physics program: not the scaled trace"

# Misuse.
expect 2 "--lengths and --requests go with Poisson arrivals, not --replay" -- "$serq" plan --run "$run" --gpus 1 \
  --replay "$run/requests.jsonl" --lengths sharegpt --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--run takes the model and the GPU from the run folder" -- "$serq" plan --run "$run" --model llama-3.1-8b \
  --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "disaggregated candidates from a run folder (--run) are not planned yet" -- "$serq" plan --run "$run" \
  --kinds disaggregated --gpus 2 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 1 "nope: error: not a folder" -- "$serq" plan --run "$tmp/nope" --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/c"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq plan --run: all passed"
