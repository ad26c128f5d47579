#!/usr/bin/env bash
# The programs `serq physics` writes for the two measured runs of
# examples/vllm/runs from the model's config and the GPU's datasheet alone
# (docs/examples.md, "Predicting a GPU nobody profiled"), against the
# measurements: serq compare's errors (simulated - measured) / measured, in
# percent. Each figure is held to the issue's target (every mean within
# 10%) where serq meets it, and to the figure it reaches, with a margin,
# where it does not. The replays are deterministic, so a figure that moves
# out of its bound is a change of the model.
#
# It also holds the committed programs to what `serq physics` writes today,
# and the transfer the docs report: corrections fitted to the Llama run by
# `serq fit` (its result checked here) predicting the MoE run.
set -u
serq=serq/serq
fails=0 checks=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# The committed programs are the generator's output: regenerated in a
# folder of the same shape (runs/ linked), by the command in their first
# lines, and compared byte for byte.
here=$PWD
gen() {  # gen PROGRAM ARGS...
  local prog=$1 tmp
  shift
  checks=$((checks + 1))
  tmp=$(mktemp -d)
  mkdir -p "$tmp/examples/vllm" "$tmp/examples/physics"
  ln -s "$here/examples/vllm/runs" "$tmp/examples/vllm/runs"
  if ! (cd "$tmp" && "$here/$serq" physics "$@" --out "examples/physics/$prog.sq") 2>"$tmp/err"; then
    fail "serq physics $*: $(cat "$tmp/err")"
  elif ! diff -q "$tmp/examples/physics/$prog.sq" "examples/physics/$prog.sq" >/dev/null; then
    fail "examples/physics/$prog.sq is not what 'serq physics $*' writes"
  else
    echo "ok   examples/physics/$prog.sq is serq physics'"
  fi
  rm -rf "$tmp"
}
llama=llama-3.1-8b-rtxpro6000 lrun=rtxpro6000-llama-3.1-8b
moe=qwen3-30b-a3b-dp2-ep-rtxpro6000 mrun=rtxpro6000-qwen3-30b-a3b-dp2-ep
gen $llama --model llama-3.1-8b --gpu rtx-pro-6000 --max-num-seqs 128 --max-num-batched-tokens 2048 \
  --replay examples/vllm/runs/$lrun/requests.jsonl
gen $moe --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --link-bw 17.179869184 --link-latency 20 \
  --max-num-seqs 128 --max-num-batched-tokens 2048 --replay examples/vllm/runs/$mrun/requests.jsonl
gen $llama-rate --model llama-3.1-8b --gpu rtx-pro-6000 --max-num-seqs 128 --max-num-batched-tokens 2048 \
  --rate 10.2497 --requests 300
gen $llama-mixed --model llama-3.1-8b --gpu rtx-pro-6000 --max-num-seqs 128 --max-num-batched-tokens 2048 \
  --mixed-attention --replay examples/vllm/runs/$lrun/requests.jsonl
gen $moe-mixed --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --link-bw 17.179869184 --link-latency 20 \
  --max-num-seqs 128 --max-num-batched-tokens 2048 --mixed-attention \
  --replay examples/vllm/runs/$mrun/requests.jsonl
gen $moe-rate --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --link-bw 17.179869184 --link-latency 20 \
  --max-num-seqs 128 --max-num-batched-tokens 2048 --rate 10.2666 --requests 300

check() {  # check PROGRAM RUN METRIC BOUND_LO BOUND_HI WHY [-D ...]
  local prog=$1 run=$2 metric=$3 lo=$4 hi=$5 why=$6 out v measured
  shift 6
  measured="examples/vllm/runs/$run/requests.jsonl"
  case $prog in *-rate) measured="examples/physics/$run.summary.json" ;; esac
  out=$("$serq" compare --format=csv "$measured" "examples/physics/$prog.sq" "$@") ||
    { fail "serq compare $prog $*"; return; }
  checks=$((checks + 1))
  v=$(echo "$out" | awk -F, -v m="$metric" '
    $2 == "side" { for (i = 1; i <= NF; i++) col[$i] = i }
    $1 == m && $2 == "error_pct" { print $(col["mean_ms"]) }')
  if [ -z "$v" ]; then fail "$prog: no $metric mean error"; return; fi
  if awk -v v="$v" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
    echo "ok   $prog $metric mean error $v% ($why, within [$lo, $hi]) $*"
  else
    fail "$prog $metric mean error $v% outside [$lo, $hi] ($why) $*"
  fi
}

# Nothing fitted: BLIS's global corrections. The Llama run within 10% on
# every mean (+7.2, +9.1, +8.5 today).
for m in ttft tpot e2e; do check $llama $lrun $m -10 10 "target 10%"; done
# The MoE run over the link its folder describes (16 GB/s read as 2^30
# bytes, 20 us): TPOT and E2E within 10% (+4.4, +3.8); TTFT -15.1%, a miss.
check $moe $mrun tpot -10 10 "target 10%"
check $moe $mrun e2e -10 10 "target 10%"
check $moe $mrun ttft -16 -14 "target 10%, a documented miss"
# Over the preset's link (pcie5-x16, NCCL's 48 GB/s): TTFT -63.5%, TPOT
# -5.9%, E2E -7.8%.
pcie="-D LinkBw=48e9 -D LinkLatency=5.7e-6"
check $moe $mrun ttft -65 -62 "target 10%, a documented miss" $pcie
check $moe $mrun tpot -10 10 "target 10%" $pcie
check $moe $mrun e2e -10 10 "target 10%" $pcie

# Transfer: the corrections of the three largest terms fitted to the Llama
# run's latencies, then the MoE run predicted with them.
fit=$("$serq" fit examples/physics/$llama.sq --param PHYS_B1A=0.02:3,PHYS_B2B=0.5:4,PHYS_B3=0.5:3 \
  --to examples/vllm/runs/$lrun/requests.jsonl 2>/dev/null) || fail "serq fit: exit $?"
checks=$((checks + 1))
fitted=$(echo "$fit" | sed -n 's/^as flags: *//p')
# The documented point (docs/examples.md), each param within 1% (the
# optimiser's last digits may differ between builds).
if echo "$fitted" | awk '{
      split("1.4086324462970845 1.1640674429366227 1.4392951482823939", want, " ")
      n = 0
      for (i = 1; i <= NF; i++) if ($i ~ /^PHYS_/) { split($i, kv, "="); n++; got[n] = kv[2] }
      if (n != 3) exit 1
      for (i = 1; i <= 3; i++) if (got[i] < want[i] * 0.99 || got[i] > want[i] * 1.01) exit 1
    }'; then
  echo "ok   the fit on the Llama run: $fitted (docs/examples.md)"
else
  fail "the fit on the Llama run gave '$fitted', not the documented point"
fi
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $llama $lrun $m -0.2 0.2 "train, fitted" $fitted; done
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $moe $mrun $m -10 10 "test, target 10%" $fitted; done

# Summaries (figures only): the rate programs against each run's summary
# (examples/physics/summary.py), the fit on the Llama summary, the MoE
# summary predicted with it.
for f in $lrun $mrun; do
  checks=$((checks + 1))
  if examples/physics/summary.py "examples/vllm/runs/$f/requests.jsonl" | cmp -s - "examples/physics/$f.summary.json"; then
    echo "ok   examples/physics/$f.summary.json is summary.py's"
  else
    fail "examples/physics/$f.summary.json is not what summary.py writes"
  fi
done
check $llama-rate $lrun ttft -2 0 "summary, nothing fitted"
check $llama-rate $lrun tpot -10 10 "summary, nothing fitted, target 10%"
check $llama-rate $lrun e2e -10 10 "summary, nothing fitted, target 10%"
check $moe-rate $mrun ttft -42 -39 "summary, nothing fitted, a documented miss"
check $moe-rate $mrun tpot -10 10 "summary, nothing fitted, target 10%"
check $moe-rate $mrun e2e -10 10 "summary, nothing fitted, target 10%"
fit=$("$serq" fit examples/physics/$llama-rate.sq --param PHYS_B1A=0.02:3,PHYS_B2B=0.5:4,PHYS_B3=0.5:3 \
  --to examples/physics/$lrun.summary.json 2>/dev/null) || fail "serq fit to a summary: exit $?"
checks=$((checks + 1))
fitted=$(echo "$fit" | sed -n 's/^as flags: *//p')
if echo "$fitted" | awk '{
      split("1.5675930318293729 1.0845281649097114 1.4707074029601883", want, " ")
      n = 0
      for (i = 1; i <= NF; i++) if ($i ~ /^PHYS_/) { split($i, kv, "="); n++; got[n] = kv[2] }
      if (n != 3) exit 1
      for (i = 1; i <= 3; i++) if (got[i] < want[i] * 0.99 || got[i] > want[i] * 1.01) exit 1
    }'; then
  echo "ok   the fit on the Llama summary: $fitted (docs/examples.md)"
else
  fail "the fit on the Llama summary gave '$fitted', not the documented point"
fi
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $llama-rate $lrun $m -3 3 "summary, train, fitted" $fitted; done
# shellcheck disable=SC2086
check $moe-rate $mrun ttft -17.5 -15 "summary, test, a documented miss" $fitted
# shellcheck disable=SC2086
for m in tpot e2e; do check $moe-rate $mrun $m -10 10 "summary, test, target 10%" $fitted; done

# --mixed-attention, BLIS's corrections otherwise (docs/examples.md, "Why
# the MoE run's TTFT is low"): the MoE run within 10% on every mean (+7.1,
# +8.7, +8.7), the Llama run out (+17.3, +13.1, +14.0), documented misses.
check $llama-mixed $lrun ttft 16 19 "with the term, a documented miss"
check $llama-mixed $lrun tpot 12 14.5 "with the term, a documented miss"
check $llama-mixed $lrun e2e 13 15.5 "with the term, a documented miss"
for m in ttft tpot e2e; do check $moe-mixed $mrun $m -10 10 "with the term, target 10%"; done
# shellcheck disable=SC2086
check $moe-mixed $mrun ttft -44 -41 "with the term, the preset's link, a documented miss" $pcie
# shellcheck disable=SC2086
for m in tpot e2e; do check $moe-mixed $mrun $m -10 10 "with the term, the preset's link" $pcie; done

# The run fit with the term (docs/examples.md, "Calibration that
# transfers"): train within 0.3%, the MoE run predicted -55 / -12 / -14%.
fit=$("$serq" fit examples/physics/$llama-mixed.sq --param PHYS_B1A=0.02:3,PHYS_B2B=0.5:4,PHYS_B3=0.5:3 \
  --to examples/vllm/runs/$lrun/requests.jsonl 2>/dev/null) || fail "serq fit (mixed): exit $?"
checks=$((checks + 1))
fitted=$(echo "$fit" | sed -n 's/^as flags: *//p')
if echo "$fitted" | awk '{
      split("1.4581383919748148 1.4140362533424136 0.96138398192526431", want, " ")
      n = 0
      for (i = 1; i <= NF; i++) if ($i ~ /^PHYS_/) { split($i, kv, "="); n++; got[n] = kv[2] }
      if (n != 3) exit 1
      for (i = 1; i <= 3; i++) if (got[i] < want[i] * 0.99 || got[i] > want[i] * 1.01) exit 1
    }'; then
  echo "ok   the fit on the Llama run with the term: $fitted (docs/examples.md)"
else
  fail "the fit on the Llama run with the term gave '$fitted', not the documented point"
fi
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $llama-mixed $lrun $m -0.3 0.3 "train, fitted, with the term" $fitted; done
# shellcheck disable=SC2086
check $moe-mixed $mrun ttft -57 -53 "test, with the term, a documented miss" $fitted
# shellcheck disable=SC2086
check $moe-mixed $mrun tpot -14 -11 "test, with the term, a documented miss" $fitted
# shellcheck disable=SC2086
check $moe-mixed $mrun e2e -15.5 -12.5 "test, with the term, a documented miss" $fitted

# Calibration to a profile's rows (docs/examples.md): the profile-driven
# replays' steps (with their CUDA-graph padding, as vLLM runs them), the
# physics terms of basis.py, fit-steps --nonnegative,
# each fit's coefficients within 1% of the documented ones, then each run
# predicted with the other's.
terms='PHYS_B1A=pf_compute,PHYS_B2B=dc_kv,PHYS_B3=weights,PHYS_B2M=mixed,PHYS_B6=seqs'
rows() {  # rows VAR PHYSICS_PROGRAM PROFILE_PROGRAM WANT...: sets VAR to the fitted -D flags
  # (not printed for a $(...): a subshell's fail and checks would be lost)
  local var=$1 model=$2 prog=$3 tmp got
  shift 3
  printf -v "$var" '%s' ''
  tmp=$(mktemp -d)
  "$serq" run "examples/vllm/$prog.sq" --trace "$tmp/steps.jsonl" >/dev/null 2>&1 ||
    { fail "serq run examples/vllm/$prog.sq"; rm -rf "$tmp"; return; }
  python3 examples/physics/basis.py "examples/physics/$model.sq" "$tmp/steps.jsonl" >"$tmp/basis.csv" ||
    { fail "basis.py $model"; rm -rf "$tmp"; return; }
  got=$("$serq" fit-steps "$tmp/basis.csv" --nonnegative --terms "$terms" 2>&1 |
    sed -n 's/^param \(PHYS_[A-Z0-9]*\) = \(.*\);$/-D \1=\2/p' | tr '\n' ' ')
  rm -rf "$tmp"
  checks=$((checks + 1))
  if echo "$got" | awk -v want="$*" '{
        n = split(want, w, " "); m = 0
        for (i = 1; i <= NF; i++) if ($i ~ /^PHYS_/) { split($i, kv, "="); m++; g[m] = kv[2] }
        if (m != n) exit 1
        for (i = 1; i <= n; i++) {
          if (w[i] == 0) { if (g[i] != 0) exit 1 }
          else if (g[i] < w[i] * 0.99 || g[i] > w[i] * 1.01) exit 1
        }
      }'; then
    echo "ok   fit-steps --nonnegative on $prog's steps: $got" >&2
  else
    fail "fit-steps --nonnegative on $prog's steps gave '$got'" >&2
  fi
  printf -v "$var" '%s' "$got"
}
rows lrows $llama-mixed $llama 1.2327287779507388 1.3284104599055784 1.1640671194408423 1.526570951264195 0
rows mrows $moe-mixed $moe 1.2493229630662159 1.2500980100893024 1.0774927321129737 2.1359349525561377 34.483522806923752
# basis.py reads any program of the forms it writes the terms of, and
# refuses the others by name: tensor parallel 2.
checks=$((checks + 1))
tmp=$(mktemp -d)
"$serq" physics --model qwen3-32b --gpu rtx-pro-6000 --tp 2 --mixed-attention --rate 1 --out "$tmp/tp2.sq" 2>/dev/null
if python3 examples/physics/basis.py "$tmp/tp2.sq" /dev/null >/dev/null 2>"$tmp/err"; then
  fail "basis.py took a program at tensor parallel 2"
elif grep -qF "Tp 2: basis.py writes the terms of tensor parallel 1" "$tmp/err"; then
  echo "ok   basis.py refuses a program at tensor parallel 2, by name"
else
  fail "basis.py at tensor parallel 2: $(cat "$tmp/err")"
fi
rm -rf "$tmp"
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $llama-mixed $lrun $m -1 1 "the Llama profile's rows" $lrows; done
# shellcheck disable=SC2086
check $moe-mixed $mrun ttft -21 -18 "test, the Llama profile's rows, a documented miss" $lrows
# shellcheck disable=SC2086
for m in tpot e2e; do check $moe-mixed $mrun $m -10 10 "test, the Llama profile's rows" $lrows; done
# shellcheck disable=SC2086
for m in ttft tpot e2e; do check $moe-mixed $mrun $m -4 4 "the MoE profile's rows" $mrows; done
# shellcheck disable=SC2086
check $llama-mixed $lrun ttft 19 24 "test, the MoE profile's rows, a documented miss" $mrows
# shellcheck disable=SC2086
check $llama-mixed $lrun tpot 9.5 11.5 "test, the MoE profile's rows, a documented miss" $mrows
# shellcheck disable=SC2086
check $llama-mixed $lrun e2e 11 14 "test, the MoE profile's rows, a documented miss" $mrows

# docs/examples.md's tables of the means from config and datasheet alone
# (§From config and datasheet alone, and with the term, §Why the MoE run's
# TTFT is low) are these errors, rounded to two decimals as compare prints
# them: the docs say what the programs give today.
# The three means' errors of a program, as compare prints them (two
# decimals, signed).
means() {  # means PROGRAM RUN [-D ...]
  local prog=$1 run=$2
  shift 2
  "$serq" compare --format=csv "examples/vllm/runs/$run/requests.jsonl" "examples/physics/$prog.sq" "$@" |
    awk -F, '$2 == "error_pct" && ($1 == "ttft" || $1 == "tpot" || $1 == "e2e") { printf "%s%+.2f", sep, $4; sep = " " }'
}
# A docs section's table rows whose first N cells are the keys, the next
# three figures as "a b c" (the minus U+2212 made ASCII, bold dropped).
docs_cells() {  # docs_cells SECTION KEY...
  local section=$1
  shift
  awk -v s="## $section" '$0 == s { on = 1; next } on && /^## / { on = 0 } on' docs/examples.md |
    sed 's/\*\*//g; s/−/-/g' | awk -F'|' -v keys="$(printf '%s\t' "$@")" '
      BEGIN { n = split(keys, k, "\t") - 1 }
      { for (i = 1; i <= n; i++) { c = $(i + 1); gsub(/^ +| +$/, "", c); if (c != k[i]) next }
        out = ""; for (i = n + 2; i <= n + 4; i++) { v = $i; gsub(/[ %]/, "", v); out = out (i > n + 2 ? " " : "") v }
        print out }'
}
same_figures() {  # same_figures WHAT GOT WANT
  checks=$((checks + 1))
  if [ -z "$3" ] || [ -z "$2" ]; then
    fail "docs/examples.md $1: no figures (docs '$2', serq compare '$3')"
  elif [ "$3" = "$2" ]; then
    echo "ok   docs/examples.md $1: $2"
  else
    fail "docs/examples.md $1 says '$2', serq compare gives '$3'"
  fi
}
docs_means() {  # docs_means SECTION ROW_LABEL PROGRAM RUN [-D ...]
  local section=$1 label=$2
  shift 2
  same_figures "§$section '$label'" "$(docs_cells "$section" "$label")" "$(means "$@")"
}
alone="From config and datasheet alone" why="Why the MoE run's TTFT is low"
docs_means "$alone" "Llama-3.1-8B, one RTX PRO 6000" $llama $lrun
docs_means "$alone" "Qwen3-30B-A3B, DP 2 EP, the folder's link (16 GB/s)" $moe $mrun
# shellcheck disable=SC2086
docs_means "$alone" 'Qwen3-30B-A3B, DP 2 EP, the preset'"'"'s link (`pcie5-x16`)' $moe $mrun $pcie
docs_means "$why" "Llama-3.1-8B, one RTX PRO 6000" $llama-mixed $lrun
docs_means "$why" "Qwen3-30B-A3B, DP 2 EP, the folder's link" $moe-mixed $mrun
# shellcheck disable=SC2086
docs_means "$why" "Qwen3-30B-A3B, DP 2 EP, the preset's link" $moe-mixed $mrun $pcie

# ... and §Calibration to a profile's rows: each fit predicting its own run
# and the other one, a row by its first two cells.
docs_fit() {  # docs_fit FITTED_TO RUN_CELL PROGRAM RUN -D ...
  local fitted=$1 cell=$2 section="Calibration to a profile's rows"
  shift 2
  same_figures "§$section '$fitted' '$cell'" "$(docs_cells "$section" "$fitted" "$cell")" "$(means "$@")"
}
# shellcheck disable=SC2086
docs_fit "the Llama profile" "Llama-3.1-8B (its own profile's rows)" $llama-mixed $lrun $lrows
# shellcheck disable=SC2086
docs_fit "the Llama profile" "test: Qwen3-30B-A3B, the folder's link" $moe-mixed $mrun $lrows
# shellcheck disable=SC2086
docs_fit "the MoE profile" "Qwen3-30B-A3B (its own profile's rows)" $moe-mixed $mrun $mrows
# shellcheck disable=SC2086
docs_fit "the MoE profile" "test: Llama-3.1-8B" $llama-mixed $lrun $mrows

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
