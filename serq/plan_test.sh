#!/usr/bin/env bash
# serq plan end to end on a small plan: Llama-3.1-8B on up to 2 H100s at
# tensor parallel 1. By hand the candidates are three: colocated tp1 x1
# (1 GPU) and tp1 x2 (2 GPUs), and disaggregated 1P1D (2 GPUs, the
# budget). Checked: the files, their rows and GPU counts; the front is the
# candidates no other dominates (recomputed here from candidates.csv);
# the same bytes with --jobs 1 and 2; the best colocated program rerun
# with serq run gives the figures the plan printed (p99 TTFT, p99 TPOT,
# tokens/s = rate(ttft) + rate(itl)), and the best programs' reports give
# their throughputs per GPU over the candidate's GPUs, which -D follows;
# the page names its step-time source and marks the kinds; misuse is
# refused.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"

args=(plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 1 --rate 4 --price 2
      --until 'p99(ttft) <= 1 && p99(tpot) <= 0.05' --requests 200 --replications 2
      --max-replications 4 --rate-steps 16 --no-early-stop)
"$serq" "${args[@]}" --out "$tmp/a" --jobs 2 >"$tmp/a.out" 2>"$tmp/a.err" || fail "plan: exit $?: $(cat "$tmp/a.err")"
for f in candidates.csv pareto.csv pareto.svg pareto.html best-colocated.sq best-disaggregated.sq vllm-serve.sh \
         programs/agg-tp1x1.sq programs/agg-tp1x2.sq programs/pd-1p-tp1-1d-tp1.sq; do
  [ -s "$tmp/a/$f" ] || fail "no $f"
done
# A progress line on stderr as the candidates' searches end (in candidate
# order, whatever --jobs), each candidate once, numbered 1 to 3.
[ "$(grep -c '^serq plan: candidate [123] of 3 searched (' "$tmp/a.err")" = 3 ] ||
  fail "progress: not three lines: $(cat "$tmp/a.err")"
for c in 'colocated tp1 x1' 'colocated tp1 x2' 'disaggregated 1P tp1 + 1D tp1'; do
  grep -qF "searched ($c): " "$tmp/a.err" || fail "progress: no line of $c: $(cat "$tmp/a.err")"
done
# The candidates and their GPUs, counted by hand.
got=$(awk -F, 'NR > 1 {print $1 ":" $3}' "$tmp/a/candidates.csv" | tr '\n' ' ')
[ "$got" = "agg-tp1x1:1 agg-tp1x2:2 pd-1p-tp1-1d-tp1:2 " ] || fail "candidates: $got"
# The front, recomputed: the ok rows (status ok or front) no other ok row
# dominates (tokens_s_gpu column 18, tokens_s_user column 20).
want=$(awk -F, 'NR > 1 && ($12 == "ok" || $12 == "front") {n++; id[n] = $1; x[n] = $18; y[n] = $20}
  END {for (i = 1; i <= n; i++) {d = 0
         for (j = 1; j <= n; j++) if (j != i && x[j] >= x[i] && y[j] >= y[i] && (x[j] > x[i] || y[j] > y[i])) d = 1
         if (!d) print id[i]}}' "$tmp/a/candidates.csv" | sort | tr '\n' ' ')
got=$(awk -F, 'NR > 1 {print $1}' "$tmp/a/pareto.csv" | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] || fail "front: pareto.csv has '$got', the non-dominated are '$want'"
got=$(awk -F, 'NR > 1 && $12 == "front" {print $1}' "$tmp/a/candidates.csv" | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "candidates.csv marks '$got' on the front, not '$want'"
# Cost a million output tokens: $2 a GPU-hour over the tokens an hour.
awk -F, 'NR > 1 && $16 != "" {c = 2 * $3 / 3600 / $16 * 1e6; if (c - $42 > 1e-3 || $42 - c > 1e-3) print $1, c, $42}' \
  "$tmp/a/candidates.csv" | grep . && fail "cost column"
# The same bytes whatever --jobs.
"$serq" "${args[@]}" --out "$tmp/b" --jobs 1 >"$tmp/b.out" 2>&1 || fail "plan --jobs 1: exit $?"
for f in candidates.csv pareto.csv pareto.svg best-colocated.sq; do
  cmp -s "$tmp/a/$f" "$tmp/b/$f" || fail "$f differs between --jobs 2 and --jobs 1"
done
# The page records the command without --jobs (it once held it): the same
# but for the --out each was given.
sed "s|$tmp/b|$tmp/a|g" "$tmp/b/pareto.html" | cmp -s - "$tmp/a/pareto.html" ||
  fail "pareto.html differs between --jobs 2 and --jobs 1 beyond --out"
grep -q -- '--jobs' "$tmp/a/pareto.html" && fail "pareto.html records --jobs"
# --max-gpus goes with a budget grown to a rate: refused beside --gpus at
# any value, its default's too (it was refused at other values only).
expect 2 "--max-gpus goes with --rate without --gpus" -- "$serq" "${args[@]}" --max-gpus 64 --out "$tmp/m"
# An engine that fits no budget's GPUs says why without the generator's own
# flags (--tp, --gpu-memory-utilization, which serq plan does not take).
expect 1 "qwen3-30b-a3b fits no engine of up to 1 x h100-sxm: at tensor parallel 1, vLLM 0.19 would not start" -- \
  "$serq" plan --model qwen3-30b-a3b --gpu h100-sxm --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/q"
grep -q -- 'give \|--tp)\|--gpu-memory-utilization' "$tmp/err" && fail "a generator's hint: $(cat "$tmp/err")"

# The best colocated program, rerun alone at the plan's replications, gives
# the plan's figures.
row=$(awk -F, -v want="$(sed -n 's/^best colocated: .* at \([0-9.]*\) req\/s.*/\1/p' "$tmp/a.out")" \
  'NR > 1 && $2 == "colocated" && $13 == want' "$tmp/a/candidates.csv" | head -1)
reps=$(echo "$row" | cut -d, -f15)
[ -n "$reps" ] || fail "no row for the best colocated"
"$serq" run "$tmp/a/best-colocated.sq" --replications "$reps" --format csv >"$tmp/run.csv" || fail "serq run best"
fig() { awk -F, -v o="$1" -v c="$2" '$1 == o {print $c}' "$tmp/run.csv"; }
p99ttft=$(printf '%.6f' "$(fig ttft 10)") p99tpot=$(printf '%.6f' "$(fig tpot 10)")
tokens=$(awk -v a="$(fig ttft 7)" -v b="$(fig itl 7)" 'BEGIN {printf "%.3f", a + b}')
[ "$p99ttft" = "$(echo "$row" | cut -d, -f28)" ] || fail "p99 ttft: run $p99ttft, plan $(echo "$row" | cut -d, -f28)"
[ "$p99tpot" = "$(echo "$row" | cut -d, -f34)" ] || fail "p99 tpot: run $p99tpot, plan $(echo "$row" | cut -d, -f34)"
[ "$tokens" = "$(echo "$row" | cut -d, -f16)" ] || fail "tokens/s: run $tokens, plan $(echo "$row" | cut -d, -f16)"
# Each candidate's program states its GPUs (`run { ... gpus G; }`), so the
# rerun's report gives its throughputs per GPU over the candidate's GPUs
# (candidates.csv column 3), and the plan's tokens/s/GPU (column 18) is the
# rerun's rate(ttft) + rate(itl) over those same GPUs. (The report's own
# output tokens/s counts each decode run whole when it completes, the
# plan's each token when it is made: the two differ by the decodes in
# progress at the window's ends, 3% apart in this plan; docs/cli.md §serq
# plan.)
per_gpu() {  # per_gpu CSV ROW WHAT: the report's GPUs against the plan's row
  local g
  g=$(awk -F, '$1 == "output_tokens" {print $4}' "$1")
  [ "$g" = "$(echo "$2" | cut -d, -f3)" ] || fail "$3: the report's GPUs '$g', the candidate's $(echo "$2" | cut -d, -f3)"
  g=$(awk -F, -v g="$g" '$1 == "ttft" {a = $7} $1 == "itl" {b = $7} END {printf "%.3f", (a + b) / g}' "$1")
  [ "$g" = "$(echo "$2" | cut -d, -f18)" ] || fail "$3: tokens/s/GPU: run $g, plan $(echo "$2" | cut -d, -f18)"
}
per_gpu "$tmp/run.csv" "$row" "best colocated"
row=$(awk -F, -v want="$(sed -n 's/^best disaggregated: .* at \([0-9.]*\) req\/s.*/\1/p' "$tmp/a.out")" \
  'NR > 1 && $2 == "disaggregated" && $13 == want' "$tmp/a/candidates.csv" | head -1)
reps=$(echo "$row" | cut -d, -f15)
[ -n "$reps" ] || fail "no row for the best disaggregated"
"$serq" run "$tmp/a/best-disaggregated.sq" --replications "$reps" --format csv >"$tmp/pd.csv" || fail "serq run pd"
per_gpu "$tmp/pd.csv" "$row" "best disaggregated"
# Its GPUs in its params, NP x TpP + ND x TpD: a second prefill engine
# makes 3.
"$serq" run "$tmp/a/best-disaggregated.sq" -D NP=2 | grep -q '; per GPU (3 GPUs): ' || fail "-D NP=2: not 3 GPUs"
# The page: its step-time source, both kinds marked, a hover title a point.
grep -q 'id="step-time"><b>Step time:</b> serq physics' "$tmp/a/pareto.html" || fail "page: no step-time source"
grep -q 'class="point colocated' "$tmp/a/pareto.html" || fail "page: no colocated point"
grep -q 'class="point disaggregated' "$tmp/a/pareto.html" || fail "page: no disaggregated point"
[ "$(grep -c '<title>' "$tmp/a/pareto.svg")" = 3 ] || fail "svg: not one title a point"
grep -q 'CUDA_VISIBLE_DEVICES=0 vllm serve meta-llama/Llama-3.1-8B --port 8100 --tensor-parallel-size 1' \
  "$tmp/a/vllm-serve.sh" || fail "vllm-serve.sh: no prefill line"
# Misuse.
expect 2 "serq: error: expected --gpus N" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--tps 3: an engine of 3 x h100-sxm cannot serve llama-3.1-8b: tensor parallel 3 does not divide the model's 32 attention heads" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm \
  --gpus 4 --tps 3 --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "observes no 'nope'" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 \
  --until 'p99(ttft) <= 1 && p99(nope) <= 1' --out "$tmp/c"
# ... and leaves no folder behind that it made (it wrote the programs to
# check the condition against one).
[ -e "$tmp/c" ] && fail "a refused plan left $tmp/c behind: $(ls -R "$tmp/c")"
expect 2 "--until: col" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --until 'p99(ttft) <=' \
  --out "$tmp/c"
expect 2 "--tps 8 is more than --gpus 2" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 8 \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
# A trace that cannot be read is misuse, as in serq physics, not a model
# that fits no engine; each refusal below, misuse or not, leaves no folder
# it made (--emit's flags are checked before any program is written; a
# budget too small for the rate is known only once planned).
expect 2 "serq: error: --replay $tmp/none.jsonl: cannot be read" -- "$serq" plan --model llama-3.1-8b \
  --gpu h100-sxm --gpus 2 --until 'p99(ttft) <= 1' --replay "$tmp/none.jsonl" --out "$tmp/c"
# A request vLLM refuses (no output token) is the trace's error at its
# row, once, not a model that fits no engine.
printf 'time,input_tokens,output_tokens\n0,5,1\n0.5,7,0\n' >"$tmp/out0.csv"
expect 1 "$tmp/out0.csv: error: row 2 in arrival order, 0.5 s after the first arrival: output_tokens 0: expected" -- \
  "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --until 'p99(ttft) <= 1' --replay "$tmp/out0.csv" \
  --out "$tmp/c"
expect 2 "give --no-early-stop" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 \
  --until 'p99(ttft) <= 1' --emit=parallel --out "$tmp/c"
expect 2 "unknown --emit 'mpi'" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 \
  --until 'p99(ttft) <= 1' --emit=mpi --no-early-stop --out "$tmp/c"
expect 1 "serq plan: error: no budget of up to 2 GPUs (--max-gpus) meets 100 req/s" -- "$serq" plan \
  --model llama-3.1-8b --gpu h100-sxm --rate 100 --max-gpus 2 --until 'p99(ttft) <= 1' --out "$tmp/c"
[ -e "$tmp/c" ] && fail "a refused plan left $tmp/c behind: $(ls -R "$tmp/c")"
# A run folder's own located error, once: not under a second "error:".
expect 1 "$tmp/none: error: not a folder" -- "$serq" plan --run "$tmp/none" --gpus 1 --until 'p99(ttft) <= 1' \
  --out "$tmp/c"
grep -q "serq plan: error: $tmp/none" "$tmp/err" && fail "the run folder's error under a second prefix: $(cat "$tmp/err")"
# A degree that cannot serve the model while another can is said with its
# reason, not dropped in silence: a datasheet that names no link between
# its GPUs, so tensor parallel 2 has none to cross (tp1 x1 and x2 remain).
printf '{"TFlopsPeak": 989.5, "BwPeakTBs": 3.35, "MemoryGiB": 79.22}\n' >"$tmp/nolink.json"
"$serq" plan --model llama-3.1-8b --gpu "$tmp/nolink.json" --gpus 2 --kinds colocated --requests 100 \
  --until 'p99(ttft) <= 2' --out "$tmp/mi" >"$tmp/out" 2>"$tmp/err" || fail "no-link plan: exit $?: $(tail -3 "$tmp/err")"
grep -qF "not a candidate: tensor parallel 2: $tmp/nolink.json: error: Interconnect: none" \
  "$tmp/out" || fail "no-link plan: tensor parallel 2 dropped without a word: $(grep -F 'not a candidate' "$tmp/out")"
# --interconnect where no candidate's GPUs exchange anything is said, as
# serq physics says it: at --gpus 1 the one candidate is one GPU at tensor
# parallel 1. Where a disaggregated candidate's KV cache crosses it (no
# --kv-link), it is used, and nothing is said.
# --kv-link where no candidate is disaggregated, likewise. Said where the
# plan is made, not again by its tasks.
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --interconnect nvlink4 --kv-link nvlink4 --requests 100 \
  --until 'p99(ttft) <= 2' --no-early-stop --emit=parallel --out "$tmp/ic1" >"$tmp/out" 2>"$tmp/err" ||
  fail "--interconnect at --gpus 1: exit $?"
grep -qF "serq plan: warning: --interconnect nvlink4 changes nothing: no candidate's GPUs exchange anything over it" \
  "$tmp/err" || fail "--interconnect at --gpus 1: not said: $(cat "$tmp/err")"
grep -qF "serq plan: warning: --kv-link nvlink4 changes nothing: no candidate is disaggregated" "$tmp/err" ||
  fail "--kv-link at --gpus 1: not said: $(cat "$tmp/err")"
"$serq" plan --out "$tmp/ic1" --candidate 0 >/dev/null 2>"$tmp/err" || fail "--candidate 0: exit $?"
grep -q warning "$tmp/err" && fail "the plan's task said the plan's warnings again: $(cat "$tmp/err")"
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 1 --kinds disaggregated --interconnect nvlink4 \
  --requests 100 --until 'p99(ttft) <= 2' --out "$tmp/ic2" >"$tmp/out" 2>"$tmp/err" || fail "1P1D over nvlink4: exit $?"
grep -q "warning" "$tmp/err" && fail "1P1D over nvlink4: the KV link's use said unused: $(cat "$tmp/err")"
# --seed is the written programs' seed: the best program rerun alone at the
# plan's replications gives the plan's p99 TTFT (it said seed 1, the
# default's figures).
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --kinds colocated --requests 100 --seed 5 \
  --until 'p99(ttft) <= 2' --out "$tmp/seed" >"$tmp/out" 2>"$tmp/err" || fail "plan --seed 5: exit $?"
grep -q '^run { .*; seed 5; gpus ' "$tmp/seed/best-colocated.sq" || fail "plan --seed 5: $(grep '^run' "$tmp/seed/best-colocated.sq")"
row=$(awk -F, 'NR == 2' "$tmp/seed/candidates.csv")
"$serq" run "$tmp/seed/best-colocated.sq" --replications "$(echo "$row" | cut -d, -f15)" --format csv >"$tmp/run.csv" ||
  fail "serq run of the --seed plan's best"
got=$(printf '%.6f' "$(awk -F, '$1 == "ttft" {print $10}' "$tmp/run.csv")")
[ "$got" = "$(echo "$row" | cut -d, -f28)" ] || fail "plan --seed 5: p99 ttft run $got, plan $(echo "$row" | cut -d, -f28)"
# A seed the programs' run { seed } cannot hold (above 2^53) is misuse,
# not a plan that fails at its own program.
expect 2 "--seed 9007199254740993: serq plan writes it into its programs' run { seed }, a whole number from 0 to 2^53" \
  -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --seed 9007199254740993 --until 'p99(ttft) <= 2' \
  --out "$tmp/seed-big"
[ -e "$tmp/seed-big" ] && fail "a refused --seed left $tmp/seed-big"

# A degree whose KV cache cannot hold one request of max_model_len is not
# a candidate, as vLLM would not start it (Llama-3.1-70B at tp2 on H100s:
# 1,224 blocks of 16, 19,584 tokens, against 131,072); --max-model-len
# makes it one.
"$serq" plan --model llama-3.1-70b --gpu h100-sxm --gpus 2 --kinds colocated --requests 100 \
  --until 'p99(ttft) <= 2' --out "$tmp/l70" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] || fail "llama-3.1-70b on 2 x h100-sxm: expected exit 1"
grep -qF "at tensor parallel 2, vLLM 0.19 would not start: one request of max_model_len 131072" "$tmp/err" ||
  fail "llama-3.1-70b on 2 x h100-sxm: $(cat "$tmp/err")"
"$serq" plan --model llama-3.1-70b --gpu h100-sxm --gpus 2 --kinds colocated --requests 100 --max-model-len 16384 \
  --until 'p99(ttft) <= 2' --out "$tmp/l70" >"$tmp/out" 2>"$tmp/err" || fail "--max-model-len 16384: exit $?: $(tail -2 "$tmp/err")"
grep -q "^1 candidates:" "$tmp/out" || fail "--max-model-len 16384: $(grep candidates "$tmp/out")"
# A trace (--replay) does not make it one: a candidate has not run, so its
# max_model_len is not fitted to its cache as serq physics --replay fits a
# replayed run's.
printf 'time,input_tokens,output_tokens\n0,100,10\n1,100,10\n' >"$tmp/l70.csv"
"$serq" plan --model llama-3.1-70b --gpu h100-sxm --gpus 2 --kinds colocated --replay "$tmp/l70.csv" \
  --until 'p99(ttft) <= 2' --out "$tmp/l70r" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] || fail "llama-3.1-70b on 2 x h100-sxm, --replay: expected exit 1"
grep -qF "at tensor parallel 2, vLLM 0.19 would not start: one request of max_model_len 131072" "$tmp/err" ||
  fail "llama-3.1-70b on 2 x h100-sxm, --replay: $(cat "$tmp/err")"
# What vLLM refuses whatever the GPUs is said once, before any candidate,
# not as "fits no engine".
expect 1 "serq plan: error: --max-model-len 200000 is more than the model's 131072" -- "$serq" plan \
  --model llama-3.1-8b --gpu h100-sxm --gpus 2 --max-model-len 200000 --until 'p99(ttft) <= 1' --out "$tmp/c"
grep -q "fits no engine" "$tmp/err" && fail "--max-model-len 200000 said as fitting no engine: $(cat "$tmp/err")"
expect 1 "serq plan: error: --lengths fixed:1000,5: it draws a prompt of 1000 tokens, not less than max_model_len 1000" \
  -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --max-model-len 1000 --lengths fixed:1000,5 \
  --until 'p99(ttft) <= 1' --out "$tmp/c"
expect 2 "--max-model-len must be a number of tokens from 2 to 4294967296, not 1" -- "$serq" plan \
  --model llama-3.1-8b --gpu h100-sxm --gpus 1 --max-model-len 1 --until 'p99(ttft) <= 1' --out "$tmp/c"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq plan: all passed"
