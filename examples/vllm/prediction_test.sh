#!/usr/bin/env bash
# The programs `serq vllm` writes for the two measured runs, against the
# measurements: serq compare's errors (simulated - measured) / measured, in
# percent, held to the issue's targets (means within 2%, p50 to p99 within
# 5%) where serq meets them, and to the figure it reaches, with its margin,
# where it does not (docs/examples.md, "Predicting real vLLM runs", says
# what each miss is made of). Nothing in either program was fitted to the
# measured latencies, so a change that moves a figure out of its bound is a
# change of the model, not noise: the replays are deterministic.
#
# It also holds the committed programs to what `serq vllm` writes today
# (regenerate them with the commands in their first lines), so the
# figures are the generator's, and the generator and the replay under a
# CPU second each is a benchmark's figure (docs/examples.md), not tested.
set -u
serq=serq/serq
fails=0 checks=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# The committed programs are the generator's output: regenerated in a
# folder of the same shape (runs/ linked), by the command in their first
# lines, and compared byte for byte.
here=$PWD
for pair in llama-3.1-8b-rtxpro6000:rtxpro6000-llama-3.1-8b \
            qwen3-30b-a3b-dp2-ep-rtxpro6000:rtxpro6000-qwen3-30b-a3b-dp2-ep; do
  prog=${pair%%:*} run=${pair##*:}
  checks=$((checks + 1))
  tmp=$(mktemp -d)
  mkdir -p "$tmp/examples/vllm"
  ln -s "$here/examples/vllm/runs" "$tmp/examples/vllm/runs"
  if ! (cd "$tmp" && "$here/$serq" vllm "examples/vllm/runs/$run" --out "examples/vllm/$prog.sq") \
       2>"$tmp/err"; then
    fail "serq vllm $run: $(cat "$tmp/err")"
  elif ! diff -q "$tmp/examples/vllm/$prog.sq" "examples/vllm/$prog.sq" >/dev/null; then
    fail "examples/vllm/$prog.sq is not what 'serq vllm examples/vllm/runs/$run' writes"
  else
    echo "ok   examples/vllm/$prog.sq is serq vllm's"
  fi
  rm -rf "$tmp"
done

check() {  # check PROGRAM RUN METRIC COLUMN BOUND [WHY]
  local out v
  out=$("$serq" compare --format=csv "examples/vllm/runs/$2/requests.jsonl" "examples/vllm/$1.sq") ||
    { fail "serq compare $1"; return; }
  checks=$((checks + 1))
  v=$(echo "$out" | awk -F, -v m="$3" -v c="$4" '
    $2 == "side" { for (i = 1; i <= NF; i++) col[$i] = i }
    $1 == m && $2 == "error_pct" { print $(col[c]) }')
  if [ -z "$v" ]; then fail "$1: no $3 $4 error"; return; fi
  if awk -v v="$v" -v b="$5" 'BEGIN { exit !(v <= b && v >= -b) }'; then
    echo "ok   $1 $3 $4 error $v% (bound $5%${6:+, $6})"
  else
    fail "$1 $3 $4 error $v% outside +-$5%"
  fi
}

llama=llama-3.1-8b-rtxpro6000 lrun=rtxpro6000-llama-3.1-8b
for m in ttft tpot e2e; do check $llama $lrun $m mean_ms 2; done
for m in tpot e2e; do for c in p50_ms p90_ms p99_ms; do check $llama $lrun $m $c 5; done; done
check $llama $lrun ttft p90_ms 5
check $llama $lrun ttft p99_ms 5
# A miss: -5.9% today (the target is 5%; LLMServingSim, the same profile,
# -8.6%): the median request waits for a seat, and the seats come free
# early because the early requests decode 2.5-3.5% fast in serq (docs/examples.md).
check $llama $lrun ttft p50_ms 7 "target 5%, a documented miss"

moe=qwen3-30b-a3b-dp2-ep-rtxpro6000 mrun=rtxpro6000-qwen3-30b-a3b-dp2-ep
for m in ttft tpot e2e; do check $moe $mrun $m mean_ms 2; done
for m in tpot e2e; do for c in p50_ms p90_ms p99_ms; do check $moe $mrun $m $c 5; done; done
check $moe $mrun ttft p50_ms 5
# Misses (the target 5%), p90 still better than LLMServingSim's on this run
# (-10.9%), p99 not (LLMServingSim -1.0%): the requests that wait for a
# seat, after 25 s, wait for it on the engine the balancer sent them to,
# and serq's engines free seats at another pace than vLLM's
# (docs/examples.md). -8.0% and +8.6% today.
check $moe $mrun ttft p90_ms 10.9 "target 5%, a documented miss; LLMServingSim -10.9%"
check $moe $mrun ttft p99_ms 9 "target 5%, a documented miss"

# docs/examples.md's table of the figures (§The figures) is these errors:
# each serq row's five figures, rounded to two decimals as compare prints
# them, so the docs say what the replay gives today.
docs_row() {  # docs_row RUN_LABEL METRIC PROGRAM RUN
  local label=$1 metric=$2 want got
  local upper
  upper=$(echo "$metric" | tr a-z A-Z)
  checks=$((checks + 1))
  want=$("$serq" compare --format=csv "examples/vllm/runs/$4/requests.jsonl" "examples/vllm/$3.sq" |
    awk -F, -v m="$metric" '$1 == m && $2 == "error_pct" { printf "%+.2f %+.2f %+.2f %+.2f %+.2f", $4, $5, $6, $7, $8 }')
  # The table's rows: a run's first row names it, the next ones leave the
  # cell empty; the minus is U+2212 and a miss is in bold.
  got=$(sed -n '/^## The figures/,/^## /p' docs/examples.md | sed 's/\*\*//g; s/−/-/g' |
    awk -F'|' -v run="$label" -v row="$upper serq" '
      { gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3) }
      $2 != "" { current = $2 }
      current == run && $3 == row {
        out = ""
        for (i = 4; i <= 8; i++) { v = $i; gsub(/[ %]/, "", v); out = out (i > 4 ? " " : "") v }
        print out
      }')
  if [ -z "$want" ] || [ -z "$got" ]; then
    fail "docs/examples.md $label $upper serq: no figures (docs '$got', serq compare '$want')"
  elif [ "$want" = "$got" ]; then
    echo "ok   docs/examples.md $label $upper serq: $got"
  else
    fail "docs/examples.md $label $upper serq says '$got', serq compare gives '$want'"
  fi
}
for m in ttft tpot e2e; do
  docs_row Llama-3.1-8B $m $llama $lrun
  docs_row "Qwen3-30B-A3B DP2 EP" $m $moe $mrun
done
# ... and the first row of §How the program is built, the programs as
# generated: the MoE run's five TTFT figures and TPOT mean, the Llama run's.
errors() {  # errors PROGRAM RUN METRIC COLUMNS...: the figures, 2 decimals, signed
  local prog=$1 run=$2 metric=$3
  shift 3
  "$serq" compare --format=csv "examples/vllm/runs/$run/requests.jsonl" "examples/vllm/$prog.sq" |
    awk -F, -v m="$metric" -v cols="$*" '
      $2 == "side" { for (i = 1; i <= NF; i++) col[$i] = i }
      $1 == m && $2 == "error_pct" { n = split(cols, c, " "); for (i = 1; i <= n; i++) printf "%s%+.2f", (i > 1 ? " " : ""), $(col[c[i]]) }'
}
checks=$((checks + 1))
five="mean_ms p50_ms p90_ms p95_ms p99_ms"
# shellcheck disable=SC2086
want="$(errors $moe $mrun ttft $five) | $(errors $moe $mrun tpot mean_ms) | $(errors $llama $lrun ttft $five) | $(errors $llama $lrun tpot mean_ms)"
got=$(grep '^| as generated |' docs/examples.md | sed 's/−/-/g; s/^| as generated | //; s/ |$//')
# The table writes a positive figure with its sign, as compare's %+ does.
if [ "$want" = "$got" ]; then
  echo "ok   docs/examples.md 'as generated': $got"
else
  fail "docs/examples.md's 'as generated' row says '$got', serq compare gives '$want'"
fi

# ... and the other rows of that table: each a program without CUDA graphs
# (serq vllm --enforce-eager) with the one line the row names edited, its
# figures as the docs round them (two decimals, or one).
variants() {  # variants RUN PROGRAM_COLUMN(2|4) LABEL SED
  local run=$1 col=$2 label=$3 edit=$4 want got
  checks=$((checks + 1))
  # Beside the programs, whose trace paths are relative to their folder.
  sed "$edit" "$vtmp/examples/vllm/$run.sq" >"$vtmp/examples/vllm/v.sq"
  if [ -n "$edit" ] && cmp -s "$vtmp/examples/vllm/$run.sq" "$vtmp/examples/vllm/v.sq"; then
    fail "variant '$label': the edit '$edit' changes nothing"; return
  fi
  want=$("$serq" compare --format=csv "examples/vllm/runs/$run/requests.jsonl" "$vtmp/examples/vllm/v.sq" |
    awk -F, '$2 == "error_pct" && $1 == "ttft" { t = $4 " " $5 " " $6 " " $7 " " $8 }
             $2 == "error_pct" && $1 == "tpot" { p = $4 } END { print t " " p }')
  got=$(grep -F "| $label |" docs/examples.md | sed 's/−/-/g' |
    awk -F'|' -v c="$col" '{ print $(c + 1) " " $(c + 2) }')
  if [ -z "$got" ]; then fail "docs/examples.md: no variant row '$label'"; return; fi
  # Each of the docs' figures within half its last digit of compare's.
  if awk -v w="$want" -v g="$got" 'BEGIN {
        n = split(w, a, " "); m = split(g, b, " "); if (n != m) exit 1
        for (i = 1; i <= n; i++) {
          d = b[i]; sub(/^[+-]?[0-9]*/, "", d); ulp = length(d) > 1 ? 10 ^ -(length(d) - 1) : 1
          if (a[i] - b[i] > ulp / 2 + 1e-9 || b[i] - a[i] > ulp / 2 + 1e-9) exit 1
        }
      }'; then
    echo "ok   docs/examples.md variant '$label': $got"
  else
    fail "docs/examples.md variant '$label' says '$got', serq compare gives '$want'"
  fi
}
vtmp=$(mktemp -d)
mkdir -p "$vtmp/examples/vllm"
ln -s "$here/examples/vllm/runs" "$vtmp/examples/vllm/runs"
for run in $lrun $mrun; do
  checks=$((checks + 1))
  (cd "$vtmp" && "$here/$serq" vllm "examples/vllm/runs/$run" --enforce-eager --out "examples/vllm/$run.sq") \
    2>"$vtmp/err" || fail "serq vllm $run --enforce-eager: $(cat "$vtmp/err")"
done
eager='without CUDA graphs (every operator at the step'"'"'s own tokens: `serq vllm --enforce-eager`, as a run with `enforce_eager` in its `meta.json` is written)'
variants $lrun 4 "$eager" ''
variants $lrun 4 'TTFT from the arrival, not `queued`' 's/observe ttft = now - queued;/observe ttft = now - arrival;/'
variants $lrun 4 'without `async`' 's/ async;//'
variants $lrun 4 'no skew blend (attention at the mean KV)' 's/let attend = max(t_mean + alpha \* max(t_max - t_mean, 0), 0);/let attend = t_mean;/'
variants $mrun 2 "$eager" ''
# The MoE rows below the second: the balancer on the counts of the instant.
sed -i 's/ every 0\.1;/;/' "$vtmp/examples/vllm/$mrun.sq"
variants $mrun 2 'the balancer on the counts of the instant (no `every 0.1`)' ''
variants $mrun 2 'TTFT from the arrival, not `queued`' 's/observe ttft = now - queued;/observe ttft = now - arrival;/'
variants $mrun 2 'without `async`' 's/ async;//'
variants $mrun 2 'engines not in `lockstep`' 's/ lockstep;//'
variants $mrun 2 'no expert exchange (no all-gather, reduce-scatter)' 's/let exchange = 1e6 \* (all_gather/let exchange = 0 * (all_gather/'
variants $mrun 2 "experts at each engine's own tokens" 's/let gathered = group_tokens;/let gathered = tokens;/'
variants $mrun 2 'requests to the engines in turn' 's/choose i in E by (4 \* waiting(E\[i\]) + running(E\[i\]));/choose i in E by abs(i - serial % Engines);/'
variants $mrun 2 'no skew blend (attention at the mean KV)' 's/let attend = max(t_mean + alpha \* max(t_max - t_mean, 0), 0);/let attend = t_mean;/'
rm -rf "$vtmp"

# ... and §Where serq and LLMServingSim differ: each row of its two bands
# tables is bands.py's row for that band, on the MoE or the Llama replay's
# trace.
checks=$((checks + 1))
tmp=$(mktemp -d)
if ! "$serq" run "examples/vllm/$moe.sq" --trace "$tmp/moe.jsonl" >/dev/null 2>"$tmp/err"; then
  fail "serq run examples/vllm/$moe.sq --trace: $(cat "$tmp/err")"
elif ! "$serq" run "examples/vllm/$llama.sq" --trace "$tmp/llama.jsonl" >/dev/null 2>"$tmp/err"; then
  fail "serq run examples/vllm/$llama.sq --trace: $(cat "$tmp/err")"
elif ! { python3 examples/vllm/bands.py "examples/vllm/runs/$mrun" "$tmp/moe.jsonl" &&
         python3 examples/vllm/bands.py "examples/vllm/runs/$lrun" "$tmp/llama.jsonl"; } >"$tmp/bands" 2>"$tmp/err"; then
  fail "bands.py: $(cat "$tmp/err")"
else
  # The docs' rows, "| 0–19 | 156.1 | ... |", as bands.py prints them: "0-19 156.1 ...".
  sed -n '/^## Where serq and LLMServingSim differ/,/^## /p' docs/examples.md | sed 's/–/-/g' |
    awk -F'|' '$2 ~ /^ [0-9]+-[0-9]+ $/ { out = ""; for (i = 2; i <= 8; i++) { v = $i; gsub(/ /, "", v); out = out (i > 2 ? " " : "") v }; print out }' \
    >"$tmp/docs"
  tr -s ' |' ' ' <"$tmp/bands" | sed 's/^ //; s/ $//' >"$tmp/printed"
  bad=""
  while read -r row; do
    grep -qxF "$row" "$tmp/printed" || bad="$bad; '$row'"
  done <"$tmp/docs"
  if [ ! -s "$tmp/docs" ]; then
    fail "docs/examples.md: no bands table found"
  elif [ -n "$bad" ]; then
    fail "docs/examples.md's bands tables have rows bands.py does not print${bad}"
  else
    echo "ok   docs/examples.md's bands tables: $(wc -l <"$tmp/docs") rows, each bands.py's"
  fi
fi
rm -rf "$tmp"

# ... and §How much a derived KV count matters: the Llama folder at an RTX
# 4090's memory. The count derived (2,942, 2,941 holding requests), the
# warning that the requests can fill it, and the table's rows: the derived
# count's figures as they are, the larger counts' as changes from them.
tmp=$(mktemp -d)
checks=$((checks + 1))
"$serq" vllm "examples/vllm/runs/$lrun" --gpu-memory 23.64 --out "$tmp/kv.sq" 2>"$tmp/err"
if grep -q '^param KvBlocks = 2941;' "$tmp/kv.sq" &&
   grep -qF "KV cache: 2941 blocks of 16 tokens, derived from the GPU's memory (the run records no count), and the run's requests can fill it: its 128 longest (max_num_seqs 128) hold up to 15988 blocks together." "$tmp/err"; then
  echo "ok   §How much a derived KV count matters: 2941 blocks derived, and said"
else
  fail "serq vllm --gpu-memory 23.64: not 2941 blocks with the warning ($(cat "$tmp/err"))"
fi
kv_figures() {  # kv_figures PROGRAM: preemptions, TTFT mean and p50, TPOT mean, E2E mean (ms)
  local p
  p=$("$serq" run "$1" | sed -n 's/^preemptions: \([0-9]*\) .*/\1/p')
  "$serq" compare --format=csv "examples/vllm/runs/$lrun/requests.jsonl" "$1" |
    awk -F, -v p="$p" '$2 == "simulated" && $1 == "ttft" { t = $4; t50 = $5 }
      $2 == "simulated" && $1 == "tpot" { tp = $4 } $2 == "simulated" && $1 == "e2e" { e = $4 }
      END { print p, t, t50, tp, e }'
}
base=$(kv_figures "$tmp/kv.sq")
want=$(echo "$base" | awk '{ printf "| 2,941 (derived) | %d | %.2f s | %.2f s | %.2f ms | %.2f s |", $1, $2 / 1e3, $3 / 1e3, $4, $5 / 1e3 }')
for pair in 3201:"3,200 (+8.8%)" 3401:"3,400 (+15.6%)"; do
  "$serq" vllm "examples/vllm/runs/$lrun" --gpu-memory 23.64 --kv-blocks "${pair%%:*}" --out "$tmp/kv.sq" 2>/dev/null
  want="$want
$(kv_figures "$tmp/kv.sq" | awk -v b="$base" -v label="${pair#*:}" '{
    split(b, z, " "); printf "| %s | %d |", label, $1
    for (i = 2; i <= 5; i++) { d = ($i - z[i]) / z[i] * 100; printf " %+.2f%% |", d }
  }')"
done
got=$(sed -n '/^## How much a derived KV count matters/,/^#/p' docs/examples.md | grep -E '^\| [0-9],[0-9]{3} ' | sed 's/−/-/g')
checks=$((checks + 1))
if [ "$want" = "$got" ]; then
  echo "ok   §How much a derived KV count matters: its table is the replays'"
else
  fail "docs/examples.md §How much a derived KV count matters says
$got
where the replays give
$want"
fi
rm -rf "$tmp"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
