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
# disaggregated candidates from the folder (below); misuse is refused.
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
# The step-time line quotes the method's measured errors on the runs at
# hand: each figure it quotes is one docs/examples.md's tables give (they
# are held to serq compare's output by examples/vllm's and
# examples/physics' prediction tests), so the line cannot go stale alone.
sed 's/−/-/g' docs/examples.md >"$tmp/examples.md"
for f in "$tmp/a.out" "$tmp/s.out"; do
  line=$(grep '^step time: ' "$f")
  [ -n "$line" ] || fail "$f: no step-time line"
  figures=$(echo "$line" | grep -oE '[-+][0-9]+\.[0-9]+%' | sort -u)
  [ "$(echo "$figures" | wc -l)" -ge 6 ] || fail "$f: the step-time line quotes fewer than 6 errors: $line"
  for x in $figures; do
    grep -qF -- "$x" "$tmp/examples.md" || fail "$f: the step-time line quotes $x, which docs/examples.md does not give"
  done
done
# A trace in a folder whose name holds a quote and a backslash: every
# generator writes its path as one string of the language (\" and \\), and
# the programs parse and run (they did not: the quote ended the string).
odd="$tmp/we\"ird\\dir"
mkdir -p "$odd" && cp "$run/requests.jsonl" "$odd/requests.jsonl"
"$serq" physics --model llama-3.1-8b --gpu rtx-pro-6000 --replay "$odd/requests.jsonl" --out "$tmp/odd.sq" \
  2>"$tmp/odd.err" || fail "physics --replay in an odd folder: exit $?: $(cat "$tmp/odd.err")"
grep -q 'we\\"ird\\\\dir/requests.jsonl' "$tmp/odd.sq" || fail "physics: the path not escaped: $(grep trace "$tmp/odd.sq")"
"$serq" check "$tmp/odd.sq" || fail "physics program of an odd folder does not link"
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --replay "$odd/requests.jsonl" --until 'p99(ttft) <= 2' \
  --no-early-stop --emit=parallel --out "$tmp/odd-plan" >/dev/null 2>"$tmp/odd.err" \
  || fail "plan --replay in an odd folder: exit $?: $(cat "$tmp/odd.err")"
for f in "$tmp"/odd-plan/programs/*.sq; do "$serq" check "$f" || fail "$f does not link"; done
grep -q 'TraceRate / Rate); }' "$tmp/odd-plan/programs/agg-tp1x1.sq" || fail "odd folder: not the scaled trace"

# Disaggregated from the folder (--kv-link names the link the KV crosses):
# on exactly 3 GPUs at tp1 and tp2, by hand 1P2D and 2P1D at tp1, 1P tp1 +
# 1D tp2 and 1P tp2 + 1D tp1 (the colocated ones as above). The mixed one's
# roles each take their degree's profile under their own names (attnP from
# profile/tp1, attnD from profile/tp2, each role's skew fit), the decode
# role's all-reduces at TpD; a token's KV over the whole model 2 (K, V) x
# 32 layers x 8 KV heads x 128 x 2 bytes = 131072 bytes. --emit writes the
# programs without searching them.
"$serq" plan --run "$run" --gpus 3 --tps 1,2 --kv-link pcie5-x16 --until 'p99(ttft) <= 2' --no-early-stop \
  --emit=parallel --out "$tmp/d" >/dev/null 2>"$tmp/d.err" || fail "plan --run --kv-link: exit $?: $(cat "$tmp/d.err")"
got=$(cd "$tmp/d/programs" && ls pd-*.sq | tr '\n' ' ')
want="pd-1p-tp1-1d-tp2-s128-t2048.sq pd-1p-tp1-2d-tp1-s128-t2048.sq pd-1p-tp2-1d-tp1-s128-t2048.sq "
want+="pd-2p-tp1-1d-tp1-s128-t2048.sq "
[ "$got" = "$want" ] || fail "disaggregated programs: $got"
f=$tmp/d/programs/pd-1p-tp1-1d-tp2-s128-t2048.sq
for want in 'table attnP = ".*/profile/tp1/attention.csv"' 'table attnD = ".*/profile/tp2/attention.csv"' \
            '^param AlphaDefaultP = .*skew_fit.per_tp.1' '^param AlphaDefaultD = .*skew_fit.per_tp.2' \
            '^param TpP = 1;' '^param TpD = 2;' '^param KvTokenBytes = 131072;' \
            '^param XferTokens = 1 \* 4.8e+10 / KvTokenBytes;' 'all_reduce(TpD, ' 'skewD(n_bin' \
            '^  seqs SeqsD; tokens TokensD; preempt by (-since); recompute last; async;'; do
  grep -q "$want" "$f" || fail "$f: no '$want'"
done
grep -q 'all_reduce(TpP' "$f" && fail "$f: the tp1 prefill role all-reduces"
"$serq" check "$f" || fail "$f does not link"
# The KV transfer's time, by hand: one request at a time (0.2 a second) of
# 1024 prompt tokens, 1P1D at tp1 against one colocated tp1 engine. The
# colocated TTFT is the prefill step; the disaggregated one the same
# prefill step, the transfer of 1024 tokens' KV at 48e9 bytes a second
# (pcie5-x16) = 1024 x 131072 / 48e9 = 2.796 ms, and the decode engine's
# first step, a decode of one at about the colocated engine's ITL: the
# medians' difference less that ITL is the transfer, to 0.5 ms.
"$serq" plan --run "$run" --gpus 2 --tps 1 --kv-link pcie5-x16 --lengths fixed:1024,32 --until 'p99(ttft) <= 2' \
  --no-early-stop --emit=parallel --out "$tmp/k" >/dev/null 2>"$tmp/k.err" || fail "plan fixed lengths: exit $?"
median() {  # median PROGRAMS_DIR PROGRAM OBSERVATION: its p50 at one request each 5 s
  "$serq" run "$1/$2.sq" -D Rate=0.2 --quantiles=50 --format csv \
    | awk -F, -v o="$3" '$1 == "observe" {for (i = 1; i <= NF; i++) if ($i == "p50") c = i} $1 == o {print $c}'
}
transfer() {  # transfer PROGRAMS_DIR SPLIT COLOCATED: SPLIT's TTFT median less COLOCATED's and its ITL
  awk -v pd="$(median "$1" "$2" ttft)" -v col="$(median "$1" "$3" ttft)" -v itl="$(median "$1" "$3" itl)" \
    'BEGIN {printf "%.6f", pd - col - itl}'
}
xfer=$(transfer "$tmp/k/programs" pd-1p-tp1-1d-tp1-s128-t2048 agg-tp1x1-s128-t2048)
awk -v x="$xfer" 'BEGIN {d = x - 1024 * 131072 / 48e9; exit !(d < 0.0005 && d > -0.0005)}' \
  || fail "the KV transfer: $xfer s, not 0.002796 s"

# A mixture of experts' disaggregated candidates from its folder (the MoE
# run: data parallel 2, expert parallel, profile tp1): each role serq vllm's
# data-parallel engines at its count, one lockstep group a role, its experts
# over its GPUs (EpP, EpD) and its own tables. By hand, as above: one
# request at a time of 1024 prompt tokens, 2P + 2D at tp1 against the
# colocated tp1 x2 (the same lockstep pair, the same steps): the TTFT
# medians' difference less ITL is the transfer, 1024 x 98304 bytes (48
# layers x 2 x 4 KV heads x 128 x 2 bytes a token) / 48e9 = 0.002097 s.
moe=examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep
"$serq" plan --run "$moe" --gpus 4 --tps 1 --kv-link pcie5-x16 --lengths fixed:1024,32 --until 'p99(ttft) <= 2' \
  --no-early-stop --emit=parallel --out "$tmp/m" >/dev/null 2>"$tmp/m.err" || fail "plan --run MoE: exit $?: $(cat "$tmp/m.err")"
f=$tmp/m/programs/pd-2p-tp1-2d-tp1-s128-t2048.sq
[ -f "$f" ] || fail "MoE disaggregated: programs $(ls "$tmp/m/programs")"
for want in '^param EpP = 2;' '^param EpD = 2;' 'table moeP = ' 'table moeD = ' 'experts = moeP(gathered / EpP / BalancednessP, reached)' \
            'experts = moeD(gathered / EpD / BalancednessD, reached)' 'let gathered = graphed \* NP \* padded' \
            '^  seqs SeqsP; tokens TokensP; preempt by (-since); reserve prompt; async; lockstep;' \
            '^  seqs SeqsD; tokens TokensD; preempt by (-since); recompute last; async; lockstep;' \
            'choose j in D by (4 \* waiting(D\[j\]) + running(D\[j\])) every 0.1;'; do
  grep -q "$want" "$f" || fail "$f: no '$want'"
done
grep -qw 'Ep' "$f" && fail "$f: an Ep of no role"
"$serq" check "$f" || fail "$f does not link"
xfer=$(transfer "$tmp/m/programs" pd-2p-tp1-2d-tp1-s128-t2048 agg-tp1x2-s128-t2048)
awk -v x="$xfer" 'BEGIN {d = x - 1024 * 98304 / 48e9; exit !(d < 0.0005 && d > -0.0005)}' \
  || fail "the MoE KV transfer: $xfer s, not 0.002097 s"

# The generator's warnings, said once however many candidates carry them:
# 4096 batched tokens pass the profile's sweep (engine_effective 2048) in
# each of the three candidates of two GPUs at tp1 (x1, x2, 1P + 1D). The
# plan's --interconnect is no serq vllm flag that "changes nothing" on a
# candidate of tp1: not said a candidate; said once of the plan, where no
# candidate uses it (tp1 only, the KV over --kv-link).
"$serq" plan --run "$run" --gpus 2 --tps 1 --batched-tokens 4096 --kv-link pcie5-x16 --interconnect pcie5-x16 \
  --until 'p99(ttft) <= 2' \
  --no-early-stop --emit=parallel --out "$tmp/w" >/dev/null 2>"$tmp/w.err" || fail "plan --batched-tokens: exit $?"
[ "$(ls "$tmp/w/programs" | wc -l)" -eq 3 ] || fail "plan --batched-tokens: programs $(ls "$tmp/w/programs")"
want="serq plan: warning: $run/profile/meta.yaml: the profile was swept to engine_effective.max_num_batched_tokens"
want+=" 2048, the engine runs to 4096: its attention and dense lookups past that extrapolate"
unused="serq plan: warning: --interconnect pcie5-x16 changes nothing: no candidate's GPUs exchange anything over it"
unused+=" (each engine is one GPU, at tensor parallel 1, stepping on its own; the KV cache crosses --kv-link)"
[ "$(grep -c 'warning' "$tmp/w.err")" -eq 2 ] && grep -qxF "$want" "$tmp/w.err" && grep -qxF "$unused" "$tmp/w.err" \
  || fail "plan --batched-tokens 4096: warnings $(cat "$tmp/w.err")"

# --enforce-eager: the folder's engines without CUDA graphs (the run had
# them), every operator at the step's own tokens.
"$serq" plan --run "$run" --gpus 1 --enforce-eager --until 'p99(ttft) <= 2' --no-early-stop --emit=parallel \
  --out "$tmp/e" >/dev/null 2>"$tmp/e.err" || fail "plan --enforce-eager: exit $?: $(cat "$tmp/e.err")"
f=$tmp/e/programs/agg-tp1x1-s128-t2048.sq
grep -q 'GraphMax' "$f" && fail "$f: CUDA graphs with --enforce-eager"
grep -q 'let us = embedding(tokens)' "$f" || fail "$f: not at the step's own tokens"
[ -s "$tmp/e.err" ] && fail "plan --enforce-eager said: $(cat "$tmp/e.err")"

# Misuse.
expect 2 "--lengths and --requests go with Poisson arrivals, not --replay" -- "$serq" plan --run "$run" --gpus 1 \
  --replay "$run/requests.jsonl" --lengths sharegpt --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--run takes the model and the GPU from the run folder" -- "$serq" plan --run "$run" --model llama-3.1-8b \
  --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 1 "disaggregated candidates need the link the KV cache crosses: give --kv-link NAME" -- "$serq" plan \
  --run "$run" --kinds disaggregated --gpus 2 --until 'p99(ttft) <= 1' --out "$tmp/c"
# No candidate left: the reason the enumeration gave (here a degree the
# profile lacks) is said with the flags to widen.
expect 2 "no candidate (tensor parallel 4: the profile (" -- "$serq" plan --run "$run" --gpus 4 --tps 4 \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
grep -q "has tp_degrees \[1, 2\]): widen --gpus, --tps or --kinds" "$tmp/err" || fail "no candidate: $(cat "$tmp/err")"
expect 1 "nope: error: not a folder" -- "$serq" plan --run "$tmp/nope" --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/c"
# A trace whose path a program's string cannot hold (a line break): said at
# once, by plan's generator as by serq physics's (they share the reader).
nl="$tmp/two
lines"
mkdir -p "$nl" && cp "$run/requests.jsonl" "$nl/requests.jsonl"
expect 1 "the path holds a control character (\n), which the program's strings cannot hold" -- "$serq" plan \
  --run "$run" --gpus 1 --replay "$nl/requests.jsonl" --until 'p99(ttft) <= 1' --out "$tmp/c"

# A plan's own error that quotes a folder's located one keeps its prefix:
# the run on a GPU of 10 GB (the cluster file's mem_size), where no engine
# of one GPU holds the weights.
small=$tmp/small-gpu
cp -r "$run" "$small"
sed -i 's/"mem_size": 96/"mem_size": 10/' "$small/llmservingsim-config.json"
expect 1 "serq plan: error: $small: no engine of up to 1 GPUs" -- "$serq" plan --run "$small" --gpus 1 \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
grep -q "at tensor parallel 1, $small: error: no room for the KV cache" "$tmp/err" \
  || fail "the folder's own error not quoted: $(cat "$tmp/err")"
# ... without serq vllm's hint, a flag serq plan does not take.
grep -q -- "--kv-blocks" "$tmp/err" && fail "serq vllm's --kv-blocks hint in a plan's error: $(cat "$tmp/err")"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq plan --run: all passed"
