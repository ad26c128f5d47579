#!/usr/bin/env bash
# serq fit end to end (docs/cli.md §serq fit), on runs whose answer is known:
# small.sq's own results at B0 = 2000, B1 = 30, B2 = 400 (us) are the
# "measured" run, replayed over burst.csv; a fit from the box's centre must
# find B0 (and B1) again. One param: to 1e-4 relative (the objective is 0
# there and Nelder-Mead's last simplex is that small). Two: within 1%
# (the objective is flat in steps near the truth: a batch's make-up changes
# only when a step time crosses an arrival). Then held-out runs, the same
# bytes for --jobs 1 and 2, and every bad input.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
. "$root/tools/testlib.sh"  # tmp, failed, fail, expect; cd "$root"
fitted() { awk -v p="$1" '$1 == p && NF == 4 {print $4}' "$2"; }
near() {  # near VALUE TRUTH RELATIVE
  awk -v v="$1" -v t="$2" -v r="$3" 'BEGIN {d = v - t; if (d < 0) d = -d; exit !(v != "" && d <= r * t)}'
}

p=testdata/fit/small.sq
trace=testdata/fit/burst.csv
"$serq" run $p --results "$tmp/truth.json" >/dev/null || fail "serq run the truth"
"$serq" run $p -D B2=500 --results "$tmp/other.json" >/dev/null || fail "serq run the other"

# One param.
"$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$trace" >"$tmp/one" 2>"$tmp/one.err" ||
  fail "one param: exit $? ($(cat "$tmp/one.err"))"
b0=$(fitted B0 "$tmp/one")
near "$b0" 2000 1e-4 || fail "one param: B0 = $b0, not 2000"
grep -q '^result     converged after [0-9]* evaluations' "$tmp/one" || fail "one param: $(grep result "$tmp/one")"
grep -q '^serq fit: [0-9]* simulations, [0-9.]* CPU seconds$' "$tmp/one.err" || fail "the CPU time: $(cat "$tmp/one.err")"
grep -qx "as flags:  -D B0=$b0" "$tmp/one" || fail "the flags: $(grep 'as flags' "$tmp/one")"
grep -qx "param B0 = $b0;" "$tmp/one" || fail "the param block"
grep -q '^training run at the fitted point$' "$tmp/one" || fail "the compare table"
grep -q '^ttft    error %' "$tmp/one" || fail "the compare table's errors"

# --data-dir where the program reads no file by a relative path is said
# before the fit's first simulation, as serq run says it; where its trace
# is relative (small.sq's), nothing is said.
sed "s|trace(\"burst.csv\")|trace(\"$PWD/$trace\")|" $p >"$tmp/abs.sq"
"$serq" fit "$tmp/abs.sq" --data-dir "$tmp" --param B0=200:20000 --max-evals 3 --to "$tmp/truth.json@$trace" \
  >/dev/null 2>"$tmp/abs.err"
[ "$(head -1 "$tmp/abs.err")" = "serq: warning: --data-dir $tmp changes nothing: $tmp/abs.sq reads no file by a relative path (a trace workload's or a table's)" ] ||
  fail "fit --data-dir unused: $(cat "$tmp/abs.err")"
# (--max-evals 3 stops the fit unconverged: exit 1, the best point
# printed, both times.)
[ "$(head -1 "$tmp/abs.err")" != "" ] && grep -q "did not converge in 3 evaluations" "$tmp/abs.err" ||
  fail "fit --data-dir unused: the fit did not run: $(cat "$tmp/abs.err")"
"$serq" fit $p --data-dir testdata/fit --param B0=200:20000 --max-evals 3 --to "$tmp/truth.json@$trace" \
  >/dev/null 2>"$tmp/rel.err"
[ $? = 1 ] && grep -q "did not converge in 3 evaluations" "$tmp/rel.err" ||
  fail "fit --data-dir used: the fit did not run: $(cat "$tmp/rel.err")"
grep -q warning "$tmp/rel.err" && fail "fit --data-dir used: $(cat "$tmp/rel.err")"

# Two params, comma-separated and repeated alike.
"$serq" fit $p --param B0=200:20000,B1=0:100 --to "$tmp/truth.json@$trace" >"$tmp/two" || fail "two params: exit $?"
"$serq" fit $p --param B0=200:20000 --param B1=0:100 --to "$tmp/truth.json@$trace" >"$tmp/two2" || fail "two params, repeated: exit $?"
cmp -s "$tmp/two" "$tmp/two2" || fail "--param a,b and --param a --param b differ"
near "$(fitted B0 "$tmp/two")" 2000 0.01 || fail "two params: B0 = $(fitted B0 "$tmp/two")"
near "$(fitted B1 "$tmp/two")" 30 0.01 || fail "two params: B1 = $(fitted B1 "$tmp/two")"

# The replay is at the measured run's own times: a time scale in the
# program's trace(...) is not applied to it (docs/cli.md §serq fit). At 3x
# the burst would spread over 3 s, queue less and fit another B0.
sed 's|trace("burst.csv")|trace("burst.csv", 3)|' $p >"$tmp/scaled.sq"
grep -q 'burst.csv", 3' "$tmp/scaled.sq" || fail "the scaled program"
"$serq" fit "$tmp/scaled.sq" --param B0=200:20000 --to "$tmp/truth.json@$trace" >"$tmp/scaled" ||
  fail "scaled trace: exit $?"
near "$(fitted B0 "$tmp/scaled")" 2000 1e-4 || fail "scaled trace: B0 = $(fitted B0 "$tmp/scaled"), not 2000"

# Held out: trained on the truth, tested on B2 = 500's run (B2 is not fitted,
# so the test error is the 25% more a decode job costs there).
"$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$trace" --test "$tmp/other.json@$trace" >"$tmp/held" ||
  fail "held out: exit $?"
grep -q '^train  RMSE 0.00[0-9]%$' "$tmp/held" || fail "held out, train: $(grep '^train' "$tmp/held")"
grep -q '^test   RMSE [1-9]' "$tmp/held" || fail "held out, test: $(grep '^test' "$tmp/held")"
grep -q '^held-out run at the fitted point$' "$tmp/held" || fail "held out: no table"

# Two training runs: the same bytes on one thread and on two.
"$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$trace,$tmp/other.json@$trace" --jobs 1 >"$tmp/j1" || fail "jobs 1"
"$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$trace" --to "$tmp/other.json@$trace" --jobs 2 >"$tmp/j2" || fail "jobs 2"
cmp -s "$tmp/j1" "$tmp/j2" || fail "--jobs 1 and 2 differ"
grep -q '1 param to 2 measured runs' "$tmp/j1" || fail "two runs: $(head -1 "$tmp/j1")"

# --max-evals is a bound on the evaluations, every phase's share held:
# DIRECT-L's share of 2 is 2 x 2 / 3 = 1 (and the polish's 1), where NLopt's
# DIRECT-L given 1 evaluated 2 ("after 3 evaluations" under "at most 2").
for n in 1 2 3; do
  "$serq" fit $p --param B0=200:20000,B2=100:1000 --to "$tmp/truth.json@$trace" --max-evals $n >"$tmp/few" 2>/dev/null
  grep -q "^result     NOT CONVERGED: .* after $n evaluations, $((n + 1)) simulations" "$tmp/few" ||
    fail "--max-evals $n: $(grep '^result' "$tmp/few")"
done

# Bad input: exit 1 with a clear message.
m="$tmp/truth.json@$trace"
expect 1 "--param 'B0=5:5': the range is empty (LO must be below HI)" -- "$serq" fit $p --param B0=5:5 --to "$m"
expect 1 "--param 'B0=9:5': the range is inverted (LO must be below HI)" -- "$serq" fit $p --param B0=9:5 --to "$m"
expect 1 "--param 'B0=a:5': expected NAME=LO:HI" -- "$serq" fit $p --param B0=a:5 --to "$m"
expect 1 "--param 'B0=1:2:3': expected NAME=LO:HI" -- "$serq" fit $p --param B0=1:2:3 --to "$m"
expect 1 "--param 'B0=1=2:3': expected NAME=LO:HI" -- "$serq" fit $p --param B0=1=2:3 --to "$m"
expect 2 "--jobs must be at least 1" -- "$serq" fit $p --param B0=1:2 --to "$m" --jobs 0
expect 1 "--param 'X': testdata/fit/small.sq declares no param 'X'" -- "$serq" fit $p --param X=1:2 --to "$m"
# A measured run with its trace once: spelled twice in --to it would weigh
# twice; in --to and --test its test error would be a train error.
expect 2 "serq: error: the measured run '$tmp/./truth.json' is given twice (--to $tmp/truth.json and --to $tmp/./truth.json): it would count twice" -- \
  "$serq" fit $p --param B0=200:20000 --to "$m" --to "$tmp/./truth.json@$trace"
expect 2 "): a run fitted to is not held out" -- "$serq" fit $p --param B0=200:20000 --to "$m" --test "$tmp/truth.json@./$trace"
expect 1 "no usable row" -- "$serq" fit $p --param B0=1:2 --to testdata/compare/bad-unusable.measured@$trace
expect 1 "the objective has no value at B0=" -- "$serq" fit $p --param B0=200:20000 --to "$m" --objective itl.mean
# The first point that fails is the one named, the range's centre (200 +
# 20000) / 2 = 10100, and nothing more is simulated: DIRECT-L asks for more
# points after the stop, and named its second once.
expect 1 "the objective has no value at B0=10100:" -- "$serq" fit $p --param B0=200:20000 --to "$m" --objective itl.mean --algorithm direct
grep -qx 'serq fit: 1 simulations, [0-9.]* CPU seconds' "$tmp/err" || fail "after the failure: $(cat "$tmp/err")"
expect 1 "no itl.mean on both sides (the objective is NaN)" -- "$serq" fit $p --param B0=200:20000 --to "$m" --objective itl.mean
expect 1 "--objective: unknown term 'ttft.p42'" -- "$serq" fit $p --param B0=200:20000 --to "$m" --objective ttft.p42
expect 1 "the fit did not converge in 5 evaluations (--max-evals)" -- "$serq" fit $p --param B0=200:20000 --to "$m" --max-evals 5
grep -q '^result     NOT CONVERGED: the best point found is printed (a partial result)' "$tmp/out" || fail "partial: $(grep result "$tmp/out")"
expect 1 "the program needs exactly one workload that arrives by trace(...), not 0" -- "$serq" fit testdata/sweep/mm1.sq --param Rate=0.1:0.5 --to "$m"
expect 2 "cannot" -- "$serq" fit $p --param B0=200:20000 --to "$tmp/none.json@$trace"
# A trace that cannot be opened is misuse, found before the first
# simulation (which found it, exit 1, naming the program's workload).
expect 2 "serq: error: cannot open the trace '$tmp/none.csv' (--to $tmp/truth.json@$tmp/none.csv): No such file or directory" -- \
  "$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$tmp/none.csv"
expect 2 "serq: error: cannot read the trace '$tmp' (--test $tmp/truth.json@$tmp): it is a directory" -- \
  "$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$trace" --test "$tmp/truth.json@$tmp"
grep -q "^serq fit: 0 simulations," "$tmp/err" || fail "a trace that cannot be read: simulated first: $(cat "$tmp/err")"
# A trace under a path that is not UTF-8 cannot be the IR's file (a
# protobuf string): refused by name, escaped, before anything runs.
latin1="$tmp/burst-caf$(printf '\xe9').csv"
cp "$trace" "$latin1"
expect 1 "trace '$tmp/burst-caf\\xe9.csv': the path is not UTF-8 (byte 0xe9); rename the file" -- \
  "$serq" fit $p --param B0=200:20000 --to "$tmp/truth.json@$latin1"
expect 2 "is both fitted (--param) and set (-D)" -- "$serq" fit $p --param B0=1:2 -D B0=3 --to "$m"
expect 2 "serq fit needs --to MEASURED" -- "$serq" fit $p --param B0=1:2
expect 2 "unknown --algorithm 'simplex'" -- "$serq" fit $p --param B0=1:2 --to "$m" --algorithm simplex
expect 2 "--objective applies to 'serq fit' only" -- "$serq" run $p --objective ttft.mean
# Output that cannot be written.
if [ -w /dev/full ]; then
  "$serq" fit $p --param B0=200:20000 --to "$m" --max-evals 20 >/dev/full 2>"$tmp/err"
  [ $? = 2 ] || fail "/dev/full: exit not 2"
fi

# A summary (figures only, vLLM's benchmark result form): the program
# generates its workload, and the fit finds the param the summary's figures
# were made at (generated.sq at B0 = 0.02: generated.summary.json holds its
# TTFT and E2E mean, p50, p90, p99 and its TPOT mean).
g=testdata/fit/generated.sq gs=testdata/fit/generated.summary.json
"$serq" fit $g --param B0=0.001:0.1 --to $gs >"$tmp/gfit" 2>/dev/null || fail "fit to a summary: exit $?"
b0=$(sed -n 's/^as flags: *-D B0=//p' "$tmp/gfit")
awk -v b="$b0" 'BEGIN {exit !(b != "" && b > 0.0198 && b < 0.0202)}' || fail "fit to a summary: B0 $b0, not 0.02 within 1%"
grep -q "vLLM benchmark result" "$tmp/gfit" || fail "fit to a summary: the source is not said"
expect 1 "a summary has no requests to replay: the program's workload must be generated" -- \
  "$serq" fit testdata/fit/small.sq --param B0=0.001:0.1 --to $gs
expect 1 "a vLLM benchmark result has no requests: @TRACE does not apply" -- \
  "$serq" fit $g --param B0=0.001:0.1 --to "$gs@testdata/fit/burst.csv"
expect 1 "summaries (figures only) and runs with requests cannot be fitted together" -- \
  "$serq" fit $g --param B0=0.001:0.1 --to $gs --test "$m"
# A measured figure of 0 gives no relative error (it was "no ttft.mean on
# both sides"), one of 1e-300 an error whose square passes a double (the
# objective had "no value" and no reason); counts that differ name no flag
# serq fit does not take.
sed 's/"mean_ttft_ms": [0-9.]*/"mean_ttft_ms": 0/' $gs >"$tmp/zero.json"
expect 1 "zero.json: the measured ttft.mean is 0: a relative error has no denominator" -- \
  "$serq" fit $g --param B0=0.001:0.1 --to "$tmp/zero.json"
sed 's/"mean_ttft_ms": [0-9.]*/"mean_ttft_ms": 1e-300/' $gs >"$tmp/tiny.json"
expect 1 "tiny.json: the relative error of ttft.mean is " -- \
  "$serq" fit $g --param B0=0.001:0.1 --to "$tmp/tiny.json"
sed 's/"completed": 100/"completed": 99/' $gs >"$tmp/c99.json"
expect 1 "a fit compares the same requests only (a summary's program must generate its completed count)" -- \
  "$serq" fit $g --param B0=0.001:0.1 --to "$tmp/c99.json"
# The objective's terms exactly (ttft.mean.x was read as ttft.mean) and
# once each (a term twice counted twice); --max-evals within NLopt's int
# (2^31 was a negative budget, read as none: one evaluation, "converged").
expect 1 "--objective: unknown term 'ttft.mean.x'" -- "$serq" fit $p --param B0=200:20000 --to "$m" --objective ttft.mean.x
expect 1 "--objective: 'ttft.mean' appears twice" -- \
  "$serq" fit $p --param B0=200:20000 --to "$m" --objective ttft.mean,e2e.p90,ttft.mean
expect 2 "--max-evals must be from 1 to 1000000, not 2147483648" -- \
  "$serq" fit $p --param B0=200:20000 --to "$m" --max-evals 2147483648
# MEASURED@TRACE splits at the last '@' unless the whole names a file; an
# empty side is misuse (`@trace` read the measured run from stdin).
mkdir -p "$tmp/at@2" && cp $gs "$tmp/at@2/g.json"
expect 1 "the fit did not converge in 3 evaluations (--max-evals)" -- \
  "$serq" fit $g --param B0=0.001:0.1 --to "$tmp/at@2/g.json" --max-evals 3
expect 2 "--to '@$trace': expected MEASURED or MEASURED@TRACE, each a file (MEASURED is empty)" -- \
  "$serq" fit $p --param B0=200:20000 --to "@$trace"
expect 2 "(TRACE is empty)" -- "$serq" fit $p --param B0=200:20000 --to "$m@"

# serq physics on the command line: the files' errors (exit 1), misuse and
# output that cannot be written (exit 2). The two files as positionals are
# --model and --gpu FILE:NAME.
hw=testdata/blis/hardware_config.json
echo '{"model_type": "llama", "num_hidden_layers": 2}' >"$tmp/c.json"
expect 1 "c.json: error: hidden_size: missing: the model's config.json gives it" -- "$serq" physics "$tmp/c.json" $hw --gpu H100 --rate 1
expect 1 "no GPU 'B200' (the file has A100-80, H100, L40S)" -- "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu B200 --rate 1
expect 1 "serq physics: error: tensor parallel 3 does not divide the model's 40 attention heads (num_attention_heads)" -- \
  "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --tp 3 --rate 1
expect 1 "tensor parallel 3 must be at least 1 and divide the heads (40) and the KV heads (8)" -- \
  "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --tp 3 --blis
expect 1 "serq physics: error: --model 'no-such': no such model preset or file (presets: deepseek-v3," -- \
  "$serq" physics --model no-such --gpu h100-sxm --rate 1
expect 1 "serq physics: error: --gpu 'h100': no such GPU preset or file (presets: a100-40gb," -- \
  "$serq" physics --model llama-3.1-8b --gpu h100 --rate 1
expect 2 "serq physics: expected --model M --gpu G (or CONFIG.json HARDWARE.json), got 1 files" -- "$serq" physics $hw
expect 2 "serq physics: a workload: --replay TRACE, or --rate R" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm
expect 2 "--kv-tokens needs --replay" -- "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --blis --kv-tokens 5
# --blis around a trace reads the trace as the replay will, before writing
# (a program that `serq run` refused was written): its default columns,
# and an output of 0 tokens.
expect 1 "burst.csv: error: no column 'input_tokens' in its rows" -- \
  "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --blis --replay testdata/fit/burst.csv \
  --out "$tmp/blis.sq"
[ -e "$tmp/blis.sq" ] && fail "--blis --replay with a trace it cannot read wrote its program"
printf 'time,input_tokens,output_tokens\n0,10,5\n1,10,0\n' >"$tmp/zero-out.csv"
expect 2 "serq: error: --out names --replay, '$tmp/zero-out.csv': writing it would destroy what is read" -- \
  "$serq" physics --model llama-3.1-8b --gpu h100-sxm --replay "$tmp/zero-out.csv" --out "$tmp/zero-out.csv"
cp $hw "$tmp/hw.json"
expect 2 "serq: error: --out names the GPU's datasheet, '$tmp/hw.json'" -- \
  "$serq" physics testdata/blis/qwen3-14b.config.json "$tmp/hw.json" --gpu H100 --rate 1 --out "$tmp/hw.json"
expect 2 "serq: error: --residuals names the steps, 'testdata/fit/burst.csv'" -- \
  "$serq" fit-steps testdata/fit/burst.csv --terms B0=1 --residuals testdata/fit/burst.csv
expect 1 "output_tokens 0: expected a whole number of tokens from 1" -- \
  "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --blis --replay "$tmp/zero-out.csv"
expect 2 "--dp does not apply to --blis" -- "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --blis --dp 2
expect 2 "--interconnect and --link-bw: one link or the other" -- \
  "$serq" physics --model llama-3.1-8b --gpu h100-sxm --tp 2 --rate 1 --interconnect nvlink4 --link-bw 100
expect 2 "--no-skew applies to 'serq vllm' only" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --no-skew
# The issue's command, offline, and its program run.
"$serq" physics --model llama-3.1-8b --gpu h100-sxm --tp 2 --rate 10 >"$tmp/p.sq" || fail "serq physics --rate 10: exit $?"
"$serq" run "$tmp/p.sq" >/dev/null || fail "its program: exit $?"
if [ -w /dev/full ]; then
  "$serq" physics testdata/blis/qwen3-14b.config.json $hw --gpu H100 --rate 1 >/dev/full 2>/dev/null
  [ $? = 2 ] || fail "physics to /dev/full: exit not 2"
fi
# serq fit-steps on the command line.
printf 'prefill,tau\n1,2\n2,3\n3,4\n' >"$tmp/s.csv"
"$serq" fit-steps "$tmp/s.csv" --terms 'A=1,B=prefill' --residuals "$tmp/r.csv" >"$tmp/out" || fail "fit-steps: exit $?"
# tau = 1 + prefill exactly, to the rounding of the least squares.
near "$(awk '$1 == "param" && $2 == "B" {sub(";", "", $4); print $4}' "$tmp/out")" 1 1e-12 ||
  fail "fit-steps: $(cat "$tmp/out")"
[ "$(sed -n 1p "$tmp/r.csv")" = "prefill,duration,fitted,residual" ] || fail "fit-steps residuals' header"
awk -F, 'NR > 1 {d = $4; if (d < 0) d = -d; if (d > 1e-12 || $3 - $2 > 1e-12 || $2 - $3 > 1e-12) exit 1}' "$tmp/r.csv" ||
  fail "fit-steps residuals: $(cat "$tmp/r.csv")"
expect 1 "the terms are collinear on these steps" -- "$serq" fit-steps "$tmp/s.csv" --terms 'A=1,B=2'
expect 2 "serq fit-steps needs --terms" -- "$serq" fit-steps "$tmp/s.csv"
if [ -w /dev/full ]; then
  "$serq" fit-steps "$tmp/s.csv" --terms 'A=1' >/dev/full 2>/dev/null
  [ $? = 2 ] || fail "fit-steps to /dev/full: exit not 2"
  "$serq" fit-steps "$tmp/s.csv" --terms 'A=1' --residuals /dev/full >/dev/null 2>&1
  [ $? = 2 ] || fail "fit-steps --residuals /dev/full: exit not 2"
fi

echo "$failed failed"
[ "$failed" = 0 ]
