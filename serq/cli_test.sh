#!/usr/bin/env bash
# The serq driver as a command: its commands, flags, exit codes, and that
# `serq check`/`serq fmt` agree with the binaries they stand for. (That
# `serq run` prints the pipe's bytes is checked against the pipe's goldens
# by //testdata/sim:run_golden.)
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
parse=$root/serq-parse/serq-parse
link=$root/serq-link/serq-link
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
cd "$root" || exit 2

expect() {  # expect STATUS STDOUT_EMPTY(yes|no) STDERR_PATTERN -- command...
  local status=$1 empty=$2 pattern=$3; shift 4
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = "$status" ] || fail "$*: exit $got, expected $status"
  if [ "$empty" = yes ] && [ -s "$tmp/out" ]; then fail "$*: wrote to stdout"; fi
  if [ "$empty" = no ] && [ ! -s "$tmp/out" ]; then fail "$*: wrote nothing to stdout"; fi
  if [ -z "$pattern" ]; then
    [ -s "$tmp/err" ] && fail "$*: unexpected stderr: $(head -3 "$tmp/err")"
  else
    grep -q -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(head -3 "$tmp/err")"
  fi
}
before=testdata/sim/before.sq

# Misuse: exit 2, nothing on stdout.
expect 2 yes "serq: error: expected a command: run, check, fmt, view, sweep, search, compare, physics, fit, fit-steps, vllm or plan" -- "$serq"
expect 2 yes "serq: error: unknown command 'simulate'" -- "$serq" simulate $before
expect 2 yes "serq: error: unknown flag '--bogus'" -- "$serq" run --bogus $before
# --kv-blocks from 2 to 2^40 (what a derived count is capped at), for both
# commands that read it: a count past it printed as 9.223372037e+18.
expect 2 yes "serq: error: --kv-blocks must be from 2 (vLLM's null block and one more) to 1099511627776, not 9223372036854775807" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --kv-blocks 9223372036854775807
expect 2 yes "serq: error: --kv-blocks must be from 2 (vLLM's null block and one more) to 1099511627776, not 1" \
  -- "$serq" vllm /nonexistent --kv-blocks 1
# The KV flags' other checks, one function for both commands.
expect 2 yes "serq: error: --gpu-memory-utilization must be above 0 and at most 1, not 2" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --gpu-memory-utilization 2
expect 2 yes "serq: error: --gpu-memory-utilization must be above 0 and at most 1, not 0" \
  -- "$serq" vllm /nonexistent --gpu-memory-utilization 0
expect 2 yes "serq: error: --gpu-memory must be a finite number above 0 (GiB), not -1" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --gpu-memory -1
expect 2 yes "serq: error: invalid value 'x' for flag '--seed'" -- "$serq" run --seed x $before
expect 2 yes "serq: error: --replications must be from 1 to 100000, not 0" -- "$serq" run --replications 0 $before
expect 2 yes "serq: error: --replications must be from 1 to 100000, not 1000000000" -- "$serq" run --replications 1000000000 $before
expect 2 yes "serq: error: --horizon must be > 0 and finite" -- "$serq" run --horizon -1 $before
# A long run shows progress on a stderr that is not a terminal (issue 26):
# a whole line every 5 s once a replication has run 5 s. periodic(1e-6)
# over 10^5 s is 10^11 events (under the runaway bound, hours of work);
# --max-cpu 6 ends it after 6 CPU seconds, so at least 6 s of wall time.
printf 'stage D : delay;\nworkload { arrive periodic(1e-6); }\nsession { run D (0); }\nrun { horizon 100000; }\n' >"$tmp/long.sq"
expect 1 yes "the --max-cpu limit" -- "$serq" run --max-cpu 6 "$tmp/long.sq"
# Under `serq run` the line names serq, as its errors do.
grep -q '^serq: replication 1 of 1, t = [0-9.e+]* of 100000 ([0-9]*%), .* events/s, .* simulated s/s$' "$tmp/err" ||
  fail "no progress line on stderr: $(cat "$tmp/err")"
# A run without a horizon (a drained replay) has no end to give a share
# of: the line says so instead of "of inf (0%)" (issue 36).
printf 'stage D : delay;\nworkload { arrive periodic(1e-6); limit 1e11; }\nsession { run D (0); }\nrun { }\n' >"$tmp/drain.sq"
expect 1 yes "the --max-cpu limit" -- "$serq" run --max-cpu 6 "$tmp/drain.sq"
grep -q '^serq: replication 1 of 1, t = [0-9.e+]* (no horizon: until every session has ended), .* events/s, .* simulated s/s$' "$tmp/err" ||
  fail "no progress line of a drained run on stderr: $(cat "$tmp/err")"
grep -q 'of inf' "$tmp/err" && fail "a drained run's progress gives a share of inf: $(cat "$tmp/err")"

# --warmup (issue 26): a shorter --horizon than the program's warm-up can be
# run; the report's first line says the window; bad values are refused.
mm1=testdata/sweep/mm1.sq  # run { horizon 4000; warmup 400; }
expect 1 yes "(give --warmup with --horizon)" -- "$serq" run --horizon 100 $mm1
expect 0 no "" -- "$serq" run --horizon 100 --warmup 10 $mm1
head -1 "$tmp/out" | grep -qF 'horizon 100, warmup 10,' || fail "--warmup: not in the run line: $(head -1 "$tmp/out")"
expect 1 yes "run.warmup: error: --warmup 200 must be less than the horizon 100" -- "$serq" run --horizon 100 --warmup 200 $mm1
expect 2 yes "serq: error: --warmup must be >= 0 and finite" -- "$serq" run --warmup -1 $mm1
expect 2 yes "serq: error: --seed does not apply to 'serq check'" -- "$serq" check --seed 3 $before
expect 2 yes "serq: error: --format does not apply to 'serq fmt'" -- "$serq" fmt --format=csv $before
expect 2 yes "serq: error: -D does not apply to 'serq fmt'" -- "$serq" fmt -D x=1 $before
expect 2 yes "serq: error: malformed -D 'x'" -- "$serq" run -D x $before
expect 2 yes "serq: error: cannot open 'no/such.sq'" -- "$serq" run no/such.sq
expect 2 yes "serq: error: expected one program file, got 2" -- "$serq" run $before $before

# serq compare: misuse is exit 2 with nothing on stdout.
c=testdata/compare
expect 2 yes "serq: error: serq compare: expected MEASURED SIMULATED (two files, or a run folder and a file), got 1" -- "$serq" compare $c/vllm.measured
expect 2 yes "serq: error: unknown --format 'md' (expected text, csv, json or html)" -- "$serq" compare --format=md $c/vllm.measured $c/vllm.sq
expect 2 yes "serq: error: --names: unknown metric 'ttfb'" -- "$serq" compare --names ttfb=x $c/vllm.measured $c/vllm.sq
expect 2 yes "serq: error: -D, --seed, --replications, --horizon and --data-dir apply when the simulated run is a program" -- "$serq" compare --seed 2 $c/vllm.measured $c/vllm.results.json
expect 2 yes "serq: error: -D, --seed, --replications, --horizon and --data-dir apply when the simulated run is a program" -- "$serq" compare -D x=1 $c/vllm.measured $c/vllm.results.json
expect 2 yes "serq: error: --quantiles applies to 'serq run' only" -- "$serq" compare --quantiles=50 $c/vllm.measured $c/vllm.sq
# --data-dir that changes nothing of the simulated program is said, as in
# serq run: vllm.sq with its trace by an absolute path reads nothing by it;
# as it is (a relative trace), nothing is said.
sed "s|trace(\"vllm.measured\")|trace(\"$PWD/$c/vllm.measured\")|" $c/vllm.sq >"$tmp/vllm-abs.sq"
expect 0 no "serq: warning: --data-dir $tmp changes nothing: $tmp/vllm-abs.sq reads no file by a relative path" -- \
  "$serq" compare --data-dir "$tmp" $c/vllm.measured "$tmp/vllm-abs.sq"
expect 0 no "" -- "$serq" compare --data-dir $c $c/vllm.measured $c/vllm.sq
# --svg draws the runs' values: two summaries have none (it drew empty
# charts).
summ="$tmp/summary.json"  # vLLM's benchmark result: figures only
echo '{"completed": 2, "mean_ttft_ms": 10, "p99_ttft_ms": 12, "mean_e2el_ms": 90, "p99_e2el_ms": 99}' >"$summ"
expect 2 yes "serq: error: --svg draws the runs' values, and neither run has any" -- \
  "$serq" compare $summ $summ --svg "$tmp/empty.svg"
[ -e "$tmp/empty.svg" ] && fail "compare --svg of two summaries wrote a file"
# --names renames serq's observations: with no serq run on either side it
# would be ignored.
expect 2 yes "serq: error: --names names serq's observations, and neither run is serq's" -- \
  "$serq" compare --names ttft=x $c/vllm.measured $c/vllm.measured
expect 2 yes "serq: error: --svg applies to 'serq compare' only" -- "$serq" run --svg x.svg $before
expect 2 yes "serq: error: cannot open 'no/such.jsonl'" -- "$serq" compare no/such.jsonl $c/vllm.sq
expect 2 yes "serq: error: cannot open 'no/such.sq'" -- "$serq" compare $c/vllm.measured no/such.sq
expect 2 yes "serq: error: --format=html is the simulated run's report page" -- "$serq" compare --format=html $c/vllm.measured $c/vllm.measured
# ... misuse before what the runs hold: other counts on the two sides too.
expect 2 yes "serq: error: --format=html is the simulated run's report page" -- "$serq" compare --format=html $c/vllm.measured testdata/blis/w1.results.json
# The simulated program's own errors are the program's: exit 1, located.
expect 1 yes "testdata/sim/bad-division.sq:" -- "$serq" compare $c/vllm.measured testdata/sim/bad-division.sq
# The html page: the simulated run's report with the comparison's tables and
# one figure a metric (two CDFs each); --svg writes the same charts alone.
expect 0 no "" -- "$serq" compare --format=html --svg "$tmp/cdf.svg" $c/vllm.measured $c/vllm.sq
grep -q '<h2>Comparison</h2>' "$tmp/out" || fail "compare html: no Comparison table"
grep -q '<h2>Measured and simulated</h2>' "$tmp/out" || fail "compare html: no figures"
[ "$(grep -c '<figure id="section-0-' "$tmp/out")" = 3 ] || fail "compare html: not 3 figures (ttft, tpot, e2e)"
grep -q '<h2>Observations</h2>' "$tmp/out" || fail "compare html: not the report's page"
[ "$(grep -c '<g' "$tmp/cdf.svg")" -gt 0 ] && grep -q 'measured (n=4)' "$tmp/cdf.svg" && grep -q 'simulated (n=4)' "$tmp/cdf.svg" \
  || fail "compare --svg: no CDF of both runs"

"$serq" --help >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] || fail "--help: exit status not 0"
grep -q '^usage: serq run x.sq' "$tmp/out" || fail "--help: no usage line"
grep -q 'serq compare MEASURED SIMULATED' "$tmp/out" || fail "--help: no compare usage"
grep -q -- '--replications' "$tmp/out" || fail "--help: does not list --replications"
# `serq COMMAND --help`: that command's usage, description and flags
# alone, each with its meaning and default for it; physics and plan list
# the presets.
"$serq" physics --help >"$tmp/out" 2>"$tmp/err" || fail "physics --help: exit $?"
grep -q '^usage: serq physics --model M --gpu G' "$tmp/out" || fail "physics --help: no usage line: $(head -3 "$tmp/out")"
grep -q '^usage: serq run' "$tmp/out" && fail "physics --help: run's usage too"
grep -q '^GPU presets: .*h100-sxm' "$tmp/out" || fail "physics --help: no GPU presets"
grep -q '^model presets: .*llama-3.1-8b' "$tmp/out" || fail "physics --help: no model presets"
grep -q -- '^  --gpus=' "$tmp/out" && fail "physics --help: lists plan's --gpus"
grep -q -- '^  --requests=300$' "$tmp/out" || fail "physics --help: --requests' default is not 300"
grep -A1 -- '^  --out=' "$tmp/out" | grep -q 'the file the program is written to' || fail "physics --help: --out is the sweep's"
# serq physics reads no run folder: its KV and link flags say what they
# replace there (the GPU's datasheet), not a run's files.
grep -q 'llmservingsim-config\|the run'"'"'s' "$tmp/out" && fail "physics --help: a flag speaks of a run folder: $(grep 'llmservingsim-config\|the run'"'"'s' "$tmp/out")"
grep -A1 -- '^  --gpu-memory=' "$tmp/out" | grep -q "the GPU's datasheet, MemoryGiB" || fail "physics --help: --gpu-memory's default"
"$serq" vllm --help >"$tmp/vout" 2>"$tmp/err" || fail "vllm --help: exit $?"
grep -A1 -- '^  --gpu-memory=' "$tmp/vout" | grep -q "llmservingsim-config.json's mem_size" || fail "vllm --help: --gpu-memory's default"
# A flag's help for one command is cut from a text for several (ForCommand):
# each command's part must close what it opens (vllm's --gpu-memory once
# ended "...the vendor's figure", its ')' left in physics' part).
for c in run sweep search check fmt view compare fit fit-steps physics vllm plan; do
  "$serq" $c --help >"$tmp/hout" 2>/dev/null || fail "$c --help: exit $?"
  awk -v c="$c" '/^  --/ { flag = $1; next } flag != "" && /^      / {
      s = $0; if (gsub(/\(/, "(", s) != gsub(/\)/, ")", s)) print c " --help: " flag "\x27s text opens and closes unequally: " $0 }' \
    "$tmp/hout" >"$tmp/unbalanced"
  [ -s "$tmp/unbalanced" ] && fail "$(cat "$tmp/unbalanced")"
done
"$serq" view --help >"$tmp/out" 2>"$tmp/err" || fail "view --help: exit $?"
grep -A1 -- '^  --format=' "$tmp/out" | grep -q 'svg (the default) or dot' || fail "view --help: --format is the report's"
grep -A1 -- '^  --results=' "$tmp/out" | grep -q 'whose figures to overlay' || fail "view --help: --results"
grep -A1 -- '^  --results=' "$tmp/out" | grep -q 'also write' && fail "view --help: --results is run's"
# serq search starts a point at 4 replications whatever the run block says.
"$serq" search --help >"$tmp/sout" 2>"$tmp/err" || fail "search --help: exit $?"
grep -A1 -- '^  --replications=' "$tmp/sout" | grep -q 'a point starts with (default 4' || fail "search --help: --replications"
grep -A1 -- '^  --format=' "$tmp/sout" | grep -q 'view\|compare' && fail "search --help: --format lists other commands'"
"$serq" fit --help >"$tmp/out" 2>"$tmp/err" || fail "fit --help: exit $?"
grep -q -- '--param NAME=LO:HI\[,...\]: the params fitted' "$tmp/out" || fail "fit --help: says nothing of --param"
grep -A1 -- '^  --jobs=' "$tmp/out" | grep -q 'the measured runs (--to, --test) simulated at once' || fail "fit --help: --jobs"
"$serq" plan --help >"$tmp/out" 2>"$tmp/err" || fail "plan --help: exit $?"
grep -q -- '^  --requests=1000$' "$tmp/out" || fail "plan --help: --requests' default for plan is not 1000"
grep -q -- '^  --max-in-progress=0.5$' "$tmp/out" || fail "plan --help: --max-in-progress' default for plan is not 0.5"
grep -A1 -- '^  --rate=0$' "$tmp/out" | grep -q 'a target rate' || fail "plan --help: --rate is not the target rate"
"$serq" search --help >"$tmp/out" 2>"$tmp/err" || fail "search --help: exit $?"
grep -q -- '^  --metrics=' "$tmp/out" && fail "search --help: lists --metrics, which search refuses"
grep -q -- '^  --until=' "$tmp/out" || fail "search --help: no --until"
expect 2 yes "--metrics applies to 'serq sweep' only: serq search reports the figures of --until" -- \
  "$serq" search testdata/sweep/flows.sq --param W --range 0.1:1 --until 'mean(f3) <= 1' --metrics 'mean(f1)'
# A usage error's hint names the command's own help once the command is
# known, and `serq --help` before; a flag's value out of its range is
# misuse (exit 2) in every command, naming the value.
expect 2 yes "^run 'serq physics --help' for usage$" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate -1
grep -q -- "--rate must be a number of requests a second above 0, not -1$" "$tmp/err" || fail "physics --rate -1: $(head -1 "$tmp/err")"
expect 2 yes "--rate must be a number of requests a second above 0, not nan" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate nan
expect 2 yes "--tp and --dp must be from 1 to 4096, not 0 and 1" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --tp 0 --rate 1
expect 2 yes "--tp and --dp must be from 1 to 4096, not 0 and 1" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --blis --tp 0
# A degree past the language's elements is the flag's misuse, not an error in
# a program never written (it was: "<stdout>:67:9: error: the size of 'kv' ...").
expect 2 yes "--tp and --dp must be from 1 to 4096, not 1 and 2147483647" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --dp 2147483647
expect 2 yes "--tp and --dp must be from 1 to 4096, not 1 and 4097" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --dp 4097
# A flag of serq's form that --blis shares with serq vllm is refused too,
# not dropped (--kv-blocks once gave an unbounded pool without a word).
expect 2 yes "^serq: error: --columns goes with --replay$" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm \
  --blis --columns a,b
for f in "--kv-blocks 100" "--enforce-eager" "--interconnect nvlink3" "--gpu-memory 10" \
         "--gpu-memory-utilization 0.5" "--no-prefix-cache" "--dp 2"; do
  expect 2 yes "^serq: error: ${f%% *} does not apply to --blis" -- "$serq" physics --model llama-3.1-8b \
    --gpu h100-sxm --blis $f
done
# A count past an int's range is refused as it is written, not wrapped to
# a negative count (a uint32 --rate-steps 3000000000 once searched
# nothing and exited 0).
expect 2 yes "invalid value '3000000000' for flag '--tp'" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm \
  --tp 3000000000 --rate 1
expect 2 yes "invalid value '3000000000' for flag '--rate-steps'" -- "$serq" plan --model llama-3.1-8b \
  --gpu h100-sxm --gpus 1 --rate-steps 3000000000 --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
expect 2 yes "--gpus must be from 1 to 1024, not -3" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus -3 \
  --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
expect 2 yes "--gpus must be from 1 to 1024, not 0" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 0 \
  --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
# A plan none of whose candidates can be written names each one's reason
# (the MoE run on 4 GPUs, disaggregated: 3 engines the 128 experts do not
# split over, the others a KV link not given), not the first alone.
"$serq" plan --run examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep --gpus 4 --rate 10 --kinds disaggregated \
  --until 'p99(ttft) <= 2' --out "$tmp/plan-none" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "plan with no candidate: exit not 1"
grep -qF "serq plan: error: no candidate can be written; the 6 candidates, each dropped:" "$tmp/err" &&
  grep -qF "  disaggregated 1P tp1 + 3D tp1 seqs 128 tokens 2048: examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep: error: the engine asked for, tensor parallel 1 and data parallel 3: the model's 128 experts do not split over 3 GPUs" "$tmp/err" &&
  grep -qF "  disaggregated 2P tp1 + 2D tp1 seqs 128 tokens 2048: disaggregated candidates need the link the KV cache crosses: give --kv-link NAME" "$tmp/err" ||
  fail "plan with no candidate: $(cat "$tmp/err")"
# A flag is given when the command line names it, whatever its value: a
# flag's default given to a command that does not read it is misuse, and
# serq plan keeps --max-in-progress 0.1, --max-replications 64 and
# --requests 300 (the values the other commands default to) instead of
# its own 0.5, 16 and 1000, in what --emit records for its tasks too.
expect 2 yes "--tp applies to 'serq physics' only" -- "$serq" run examples/before.sq --tp 1
expect 2 yes "--format does not apply to 'serq check'" -- "$serq" check examples/before.sq --format=text
"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --until 'p99(ttft) <= 1' --max-in-progress 0.1 \
  --max-replications 64 --requests 300 --no-early-stop --emit=parallel --out "$tmp/plan-given" >/dev/null 2>"$tmp/err" \
  || fail "plan --emit with the shared defaults: exit $?: $(cat "$tmp/err")"
# A trace that cannot be opened is an output that cannot be written:
# misuse, exit 2, in serq run and serq-sim alike (it was a rejected
# program, exit 1).
expect 2 yes "serq: error: cannot write output '$tmp/no/such/t.jsonl' (--trace): No such file or directory" \
  -- "$serq" run examples/before.sq --trace "$tmp/no/such/t.jsonl"
# An empty value names no number: misuse (`--seed=` was no seed). A text
# flag whose default is empty took it as not given: `--replay=` ran the
# rate's workload, `--out ""` wrote to stdout. Misuse too. One whose
# default is not empty may be empty (`--quantiles=`: no quantile column).
expect 2 yes "flag '--seed' needs a value, not an empty one" -- "$serq" run examples/before.sq --seed=
expect 2 yes "flag '--format' needs a value, not an empty one (the flag left out has its default)" \
  -- "$serq" run examples/before.sq --format=
expect 2 yes "flag '--replay' needs a value, not an empty one (the flag left out has its default)" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --replay=
expect 2 yes "flag '--out' needs a value, not an empty one (the flag left out has its default)" \
  -- "$serq" vllm examples/vllm/runs/rtxpro6000-llama-3.1-8b --out ""
# Outputs on one file keep only the last written, and an output over an
# input destroys it (--series x.sq overwrote the program with CSV): misuse,
# before anything runs, and the files stay as they were.
cp examples/before.sq "$tmp/victim.sq"
expect 2 yes "serq: error: --series names the program, '$tmp/victim.sq': writing it would destroy what is read" \
  -- "$serq" run "$tmp/victim.sq" --sample 1 --series "$tmp/victim.sq"
cmp -s examples/before.sq "$tmp/victim.sq" || fail "--series over the program changed it"
expect 2 yes "serq: error: --results and --series name one file, '$tmp/./r.json': each would replace the other's" \
  -- "$serq" run examples/before.sq --sample 1 --results "$tmp/r.json" --series "$tmp/./r.json"
expect 2 yes "serq: error: --series and --trace name one file" \
  -- "$serq" run examples/before.sq --sample 1 --trace "$tmp/t.jsonl" --series "$tmp/t.jsonl"
mkdir -p "$tmp/run" && cp -rL examples/vllm/runs/rtxpro6000-llama-3.1-8b/. "$tmp/run/"
expect 2 yes "serq: error: --out names the run's requests.jsonl, '$tmp/run/requests.jsonl': writing it would destroy" \
  -- "$serq" vllm "$tmp/run" --out "$tmp/run/requests.jsonl"
cmp -s examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl "$tmp/run/requests.jsonl" ||
  fail "serq vllm --out over the run's requests changed them"
"$serq" run --quantiles= examples/before.sq >"$tmp/noq" 2>"$tmp/err" || fail "--quantiles= (no quantile): exit $?"
grep -q "p99" "$tmp/noq" && fail "--quantiles= still printed a p99 column: $(cat "$tmp/noq")"
# --max-sessions near 2^64: its leases' bound (ten a session) saturates,
# where it wrapped to 0 and failed examples/before.sq's first lease.
expect 0 no "" -- "$serq" run examples/before.sq --max-sessions 9223372036854775808
# Values that once ran quietly as something else: a list naming a value
# twice (the same candidates twice, one file), a share above 1, more
# replications than the most a point gets, no jobs, and a max_num_seqs
# above max_num_batched_tokens (vLLM refuses it; serq lowered it).
plan1=(plan --model llama-3.1-8b --gpu h100-sxm --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/plan-q")
expect 2 yes "--tps names 1 twice" -- "$serq" "${plan1[@]}" --tps 1,1
expect 2 yes "--kinds names colocated twice" -- "$serq" "${plan1[@]}" --kinds colocated,colocated
expect 2 yes "--max-in-progress must be a share from 0 to 1" -- "$serq" "${plan1[@]}" --max-in-progress 2
expect 2 yes "--replications 20 is more than --max-replications 16" -- "$serq" "${plan1[@]}" --replications 20
expect 2 yes "--jobs must be at least 1" -- "$serq" "${plan1[@]}" --jobs 0
expect 2 yes "--warmup must be a number of seconds from 0 to 1e9" -- "$serq" "${plan1[@]}" --warmup inf
# Counts inside an int's range but past what a plan can mean: a budget of
# 2^31 GPUs doubled its degrees past the range (t *= 2 wrapped to 0: a loop
# to std::bad_alloc, exit 134); a grid of 2^31 steps searched rates too
# small to simulate; max_num_seqs past 2^62 wrapped 2 x max_num_seqs (the
# CUDA graphs went silently). Each is refused at its flag.
expect 2 yes "--gpus must be from 1 to 1024, not 2147483647" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm \
  --gpus 2147483647 --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
expect 2 yes "--max-gpus must be from 1 to 1024, not 1073741825" -- "$serq" plan --model llama-3.1-8b \
  --gpu h100-sxm --rate 5 --max-gpus 1073741825 --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
expect 2 yes "--rate-steps must be from 2 to 10000, not 10001" -- "$serq" "${plan1[@]}" --rate-steps 10001
expect 2 yes "--seqs 1048577 is more than 1048576" -- "$serq" "${plan1[@]}" --seqs 1048577
expect 2 yes "--batched-tokens 16777217 is more than 16777216" -- "$serq" "${plan1[@]}" --batched-tokens 16777217
# The enumeration's bound: every disaggregated size up to 1024 GPUs at tp 1
# is x + y <= 1024 over x, y >= 1: 1023 x 1024 / 2 = 523,776 of them, with
# 1024 colocated, past 10,000. On exactly 1024 (the default, budget), 1023
# disaggregated and 1024 colocated, but with 40 x 40 engine options each
# 3.3 x 10^6 (with every size 8.4 x 10^8, some 60 GB had they been built
# first). Said before more than 10,001 are built, and the folder it made
# removed.
expect 2 yes "the plan of 1024 GPUs has more than 10000 candidates, the most one plan searches: .* or give --disaggregated-gpus budget" \
  -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1024 --tps 1 --disaggregated-gpus all \
  --until 'p99(ttft) <= 1' --out "$tmp/plan-many"
[ ! -e "$tmp/plan-many" ] || fail "a plan refused for its candidates left its folder"
expect 2 yes "the plan of 1024 GPUs has more than 10000 candidates, the most one plan searches: narrow .*--routers$" \
  -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 1024 --tps 1 \
  --seqs "$(seq -s, 1 40)" --batched-tokens "$(seq -s, 100 139)" --until 'p99(ttft) <= 1' --out "$tmp/plan-many"
[ ! -e "$tmp/plan-many" ] || fail "a plan refused for its candidates left its folder"
for v in 0 1048577 4611686018427387904; do
  expect 2 yes "--max-num-seqs must be from 1 to 1048576, not $v" -- "$serq" physics --model llama-3.1-8b \
    --gpu h100-sxm --rate 1 --max-num-seqs $v
done
expect 2 yes "--max-num-batched-tokens must be from 1 to 16777216, not 16777217" -- "$serq" physics \
  --model llama-3.1-8b --gpu h100-sxm --rate 1 --max-num-batched-tokens 16777217
# --blis too (it wrote `seqs -5;`, which serq check then refused).
expect 2 yes "--max-num-seqs must be from 1 to 1048576, not -5" -- "$serq" physics --model llama-3.1-8b \
  --gpu h100-sxm --blis --max-num-seqs -5
expect 2 yes "--requests must be from 1 to 2^53, not 9007199254740993" -- "$serq" physics --model llama-3.1-8b \
  --gpu h100-sxm --rate 1 --requests 9007199254740993
expect 2 yes "--requests must be from 100 to 10^7 for serq plan (arrivals a replication), not 2147483648" -- \
  "$serq" "${plan1[@]}" --requests 2147483648
# A kind's own flags with the kind left out, or physics corrections for a
# run folder's profile-timed candidates, would be ignored.
expect 2 yes "--kv-link applies to disaggregated candidates, and --kinds has none" -- \
  "$serq" "${plan1[@]}" --kinds colocated --kv-link nvlink4
expect 2 yes "--routers applies to colocated candidates, and --kinds has none" -- \
  "$serq" "${plan1[@]}" --kinds disaggregated --routers round-robin
echo '{"alpha_coeffs": [0, 0, 0], "beta_coeffs": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}' >"$tmp/coefficients.json"
expect 2 yes "--coefficients corrects the physics step time of --model and --gpu" -- "$serq" plan \
  --run examples/vllm/runs/rtxpro6000-llama-3.1-8b --gpus 1 --until 'p99(ttft) <= 1' --out "$tmp/plan-q" \
  --coefficients "$tmp/coefficients.json"
# A plan whose every candidate's search failed (here at its first point:
# 1e300 requests a second start more sessions than --max-sessions) writes
# its files and exits 1.
expect 1 no "serq plan: error: every candidate's search failed (candidates.csv says why); the first: " \
  -- "$serq" "${plan1[@]}" --replications 2 --requests 100 --rate-steps 8 --max-rate-per-gpu 1e300
rm -rf "$tmp/plan-q"
# A flag's value is checked when given, whether or not this deployment
# uses it (an unknown link on one GPU; a malformed --lengths); a trace or a
# file that cannot be read is misuse too.
expect 2 yes "--interconnect foo: no such interconnect (known: pcie4-x16" -- "$serq" physics --model llama-3.1-8b \
  --gpu h100-sxm --rate 1 --interconnect foo
expect 2 yes "--kv-link foo: no such interconnect" -- "$serq" "${plan1[@]}" --kv-link foo
# A flag that changes nothing of the program is said (serq vllm's rule):
# a link where no GPUs exchange anything, expert parallel on one GPU, a
# utilization beside a given block count. The program is still written.
expect 0 no "serq physics: warning: --interconnect changes nothing: the GPUs exchange nothing (tensor parallel 1, a dense model)" -- \
  "$serq" physics --model llama-3.1-8b --gpu rtx-pro-6000 --rate 10 --dp 2 --interconnect nvlink4
expect 0 no "serq physics: warning: --ep changes nothing: the experts are on one GPU" -- \
  "$serq" physics --model qwen3-30b-a3b --gpu rtx-pro-6000 --rate 10 --ep
expect 0 no "serq physics: warning: --gpu-memory-utilization changes nothing: --kv-blocks gives" -- \
  "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --kv-blocks 30000 --gpu-memory-utilization 0.8
expect 2 yes "--lengths foo: expected sharegpt" -- "$serq" "${plan1[@]}" --lengths foo
expect 2 yes "--lengths foo: expected sharegpt" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --lengths foo
expect 2 yes "--kv-cache-dtype fp16: expected auto, bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm \
  --rate 1 --kv-cache-dtype fp16
expect 2 yes "--replay and --rate: one workload or the other" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm \
  --rate 1 --replay examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl
expect 2 yes "serq: error: --replay $tmp: cannot be read: Is a directory" -- "$serq" physics --model llama-3.1-8b \
  --gpu h100-sxm --replay "$tmp"
expect 2 yes "serq: error: cannot read '$tmp': it is a directory" -- "$serq" physics --model llama-3.1-8b \
  --gpu h100-sxm --rate 1 --coefficients "$tmp"
# A workload the generator cannot read: said once, as the trace's, before
# any candidate (it was said as the reason no engine fits).
expect 1 yes "^serq plan: error: --columns: the first line of examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl names no column 'a'$" \
  -- "$serq" "${plan1[@]}" --replay examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl --columns=a,b
expect 2 yes "--replications 8 is more than --max-replications 2" -- "$serq" search testdata/sweep/flows.sq \
  --param W --range 1:2 --until 'mean(f3) <= 1' --replications 8 --max-replications 2
expect 1 yes "serq physics: error: max_num_seqs 100000 is more than max_num_batched_tokens 8192, which vLLM refuses" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --max-num-seqs 100000
for line in "flag max-in-progress 0.1" "flag max-replications 64" "flag requests 300"; do
  grep -qx "$line" "$tmp/plan-given/plan.flags" || fail "plan.flags lacks '$line': $(cat "$tmp/plan-given/plan.flags")"
done
expect 2 yes "--requests must be from 1 to 2^53, not 0" -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --requests 0
expect 2 yes "--link-bw must be above 0 (GB/s) and --link-latency at least 0 (us)" -- "$serq" physics \
  --model qwen3-30b-a3b --gpu h100-sxm --dp 2 --ep --link-bw 10 --link-latency -3 --rate 1
expect 2 yes "^run 'serq plan --help' for usage$" -- "$serq" plan --gpus abc
expect 2 yes "--rate must be a number of requests a second, at least 0, not inf" -- "$serq" plan \
  --model llama-3.1-8b --gpu h100-sxm --rate inf --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
[ -e "$tmp/plan-inf" ] && fail "plan --rate inf made its --out"
expect 2 yes "--price must be a finite number, at least 0" -- "$serq" plan --model llama-3.1-8b --gpu h100-sxm \
  --gpus 1 --price inf --until 'p99(ttft) <= 1' --out "$tmp/plan-inf"
expect 2 yes "^run 'serq vllm --help' for usage$" -- "$serq" vllm "$tmp" --kv-blocks 0
expect 2 yes "^serq: error: serq vllm: expected a run folder, got an empty name$" -- "$serq" vllm ""
expect 2 yes "--gpu-memory must be a finite number above 0 (GiB)" -- "$serq" vllm "$tmp" --gpu-memory inf
# A profile table the run would refuse is refused when the program is
# written (serq vllm links what it writes), at the table's line, and no
# program is written; the same folder's program links and is written.
# -L: the runfiles are symlinks to the workspace, which a write through one
# would change.
cp -rL examples/vllm/runs/rtxpro6000-llama-3.1-8b "$tmp/nan-run"
awk -F, -v OFS=, 'NR==3{$NF="nan"}1' examples/vllm/runs/rtxpro6000-llama-3.1-8b/profile/tp1/dense.csv \
  >"$tmp/nan-run/profile/tp1/dense.csv"
expect 1 yes "^$tmp/nan-run/profile/tp1/dense.csv:3: error: table '[a-z_]*': the value is nan" -- \
  "$serq" vllm "$tmp/nan-run" --out "$tmp/nan.sq"
[ -e "$tmp/nan.sq" ] && fail "serq vllm wrote a program that does not link"
cp examples/vllm/runs/rtxpro6000-llama-3.1-8b/profile/tp1/dense.csv "$tmp/nan-run/profile/tp1/dense.csv"
expect 0 yes "" -- "$serq" vllm "$tmp/nan-run" --out "$tmp/nan.sq"
# The flags that change the program are in its first lines' command, and
# the program says it is the folder's and theirs, not the folder's alone.
"$serq" vllm examples/vllm/runs/rtxpro6000-llama-3.1-8b --kv-blocks 300 --no-skew >"$tmp/vout" 2>"$tmp/err" ||
  fail "vllm with flags: exit $?: $(head -3 "$tmp/err")"
grep -q '^// Written by `serq vllm examples/vllm/runs/rtxpro6000-llama-3.1-8b --kv-blocks 300 --no-skew`$' \
  "$tmp/vout" || fail "vllm with flags: the program's command: $(sed -n 2p "$tmp/vout")"
grep -q '^//   from the run folder and the flags: every figure' "$tmp/vout" ||
  fail "vllm with flags: 'from the run folder and the flags': $(sed -n 2,3p "$tmp/vout")"
# compare: a run folder is its requests.jsonl, to the byte.
"$serq" compare examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl examples/vllm/llama-3.1-8b-rtxpro6000.sq \
  >"$tmp/c1" 2>&1 || fail "compare requests.jsonl: exit $?"
"$serq" compare examples/vllm/runs/rtxpro6000-llama-3.1-8b examples/vllm/llama-3.1-8b-rtxpro6000.sq \
  >"$tmp/c2" 2>&1 || fail "compare RUN_DIR: exit $?: $(head -3 "$tmp/c2")"
sed 's|runs/rtxpro6000-llama-3.1-8b/requests.jsonl|RUN|' "$tmp/c1" >"$tmp/c1s"
sed 's|runs/rtxpro6000-llama-3.1-8b/requests.jsonl|RUN|' "$tmp/c2" >"$tmp/c2s"
cmp -s "$tmp/c1s" "$tmp/c2s" || fail "compare RUN_DIR differs from its requests.jsonl: $(diff "$tmp/c1s" "$tmp/c2s" | head -4)"
# --expert-balancedness: above 0 and at most 1 (misuse otherwise); below
# 1/Ep of the run's 2 GPUs, an error; on a run without expert parallel, a
# flag that changes nothing, said. Its effect on a step is derived in
# physics_test; here the MoE replay's TPOT rises as it falls.
expect 2 yes "--expert-balancedness must be above 0 and at most 1" -- \
  "$serq" vllm examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep --expert-balancedness 1.5
expect 2 yes "--expert-balancedness must be above 0 and at most 1" -- \
  "$serq" physics --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --rate 1 --expert-balancedness 0
expect 1 yes "serq vllm: error: --expert-balancedness 0.4 is below 1/2" -- \
  "$serq" vllm examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep --expert-balancedness 0.4
"$serq" vllm examples/vllm/runs/rtxpro6000-llama-3.1-8b --expert-balancedness 0.8 >/dev/null 2>"$tmp/err" ||
  fail "vllm --expert-balancedness on a dense run: exit $?"
grep -qF "serq vllm: warning: --expert-balancedness changes nothing: the run's experts are not spread whole over GPUs" \
  "$tmp/err" || fail "vllm --expert-balancedness on a dense run: $(cat "$tmp/err")"
# The busiest GPU computes 1/B times the mean's pairs: TPOT rises as B falls
# (1, 0.75, 0.5: the experts' kernels at more tokens on the busiest GPU).
tpots=""
for b in 1 0.75 0.5; do
  tpots="$tpots $("$serq" run examples/vllm/qwen3-30b-a3b-dp2-ep-rtxpro6000.sq -D Balancedness=$b |
    awk '$1 == "tpot" { print $3 }')"
done
echo "$tpots" | awk '{ exit !($1 < $2 && $2 < $3) }' || fail "TPOT at Balancedness 1, 0.75, 0.5:$tpots"
# Its range, [1 / Ep, 1]: -D outside it is an error at the param, and so
# is a fit's box or a search's range that reaches outside, before any
# simulation; a fitted point's param line keeps the range.
moe_sq=examples/vllm/qwen3-30b-a3b-dp2-ep-rtxpro6000.sq
moe_run=examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep/requests.jsonl
expect 1 yes "-D Balancedness=0.4 is outside the param's range \\[0.5, 1\\]" -- \
  "$serq" run "$moe_sq" -D Balancedness=0.4
expect 1 yes "--param Balancedness=0.3:1: the box reaches outside the param's range \\[0.5, 1\\] in $moe_sq" -- \
  "$serq" fit "$moe_sq" --param Balancedness=0.3:1 --to "$moe_run"
expect 2 yes "--range 0.3:1 of --param Balancedness reaches outside the param's range \\[0.5, 1\\] in $moe_sq" -- \
  "$serq" search "$moe_sq" --param Balancedness --range 0.3:1 --step 0.1 --until 'p99(ttft) <= 20'
# A range whose end moves with the fit (B2's reads B0, through a param)
# could not be checked before it: refused.
sed 's/^param B0 = \([^;]*\);/param B0 = \1 in [5000, 20000];\nparam B0k = B0 \/ 1000;/; s/^param B2 = \([^;]*\);/param B2 = \1 in [B0k, 100];/' \
  testdata/compare/blis-w1.sq >"$tmp/w1-ranges.sq"
expect 1 yes "--param B2: its range, \[B0k, 100\] in $tmp/w1-ranges.sq, reads B0, which the fit moves too" -- \
  "$serq" fit "$tmp/w1-ranges.sq" --param B0=5000:20000,B2=14:100 --to testdata/blis/w1.results.json@testdata/blis/w1.trace.csv
# A search's range starting at 1/3, which 15 digits round below: its
# points stay within it (0.33333333333333331 tried, not 0.333333333333333).
printf 'param Rate = 0.5 in [1 / 3, 0.9];\nstage S : fifo(1);\nworkload { arrive poisson(Rate); limit 200; }\nsession { run S (1); observe t = now - arrival; }\nrun { seed 1; }\n' \
  >"$tmp/third.sq"
"$serq" search "$tmp/third.sq" --param Rate --range 0.3333333333333333:0.9 --step 0.1 --until 'mean(t) <= 100' \
  >"$tmp/out" 2>"$tmp/err" || fail "search from 1/3: exit $?: $(cat "$tmp/err")"
grep -q '^0.33333333333333331  pass' "$tmp/out" || fail "search from 1/3: $(cat "$tmp/out")"
# (Three evaluations do not converge: exit 1, the best point printed.)
"$serq" fit "$moe_sq" --param Balancedness=0.5:1 --to "$moe_run" --max-evals 3 >"$tmp/fit" 2>"$tmp/err"
grep -qF "the fit did not converge in 3 evaluations" "$tmp/err" || fail "fit Balancedness in its range: $(cat "$tmp/err")"
grep -qE '^param Balancedness = [0-9.]+ in \[1 / Ep, 1\];$' "$tmp/fit" || fail "fit's param line: $(cat "$tmp/fit")"
# physics reads the decoders its form describes, and names another type at
# its field; BLIS's dense form (--blis) reads any config's shapes, as BLIS.
printf '{"model_type": "gemma3_text", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
  "num_key_value_heads": 4, "vocab_size": 100, "intermediate_size": 128, "torch_dtype": "bfloat16"}\n' \
  >"$tmp/gemma.json"
expect 1 yes "gemma.json: error: model_type: 'gemma3_text': not a decoder serq physics knows" -- \
  "$serq" physics --model "$tmp/gemma.json" --gpu h100-sxm --rate 1
"$serq" physics --model "$tmp/gemma.json" --gpu h100-sxm --blis >/dev/null 2>"$tmp/err" ||
  fail "physics --blis of a gemma3_text config: exit $?: $(cat "$tmp/err")"
# A memory that makes more KV blocks than an int64 holds: an error naming
# where the memory came from, not a count wrapped negative.
expect 1 yes "serq physics: error: 1e+300 GiB of GPU memory makes more than 2^40 KV blocks: is the memory (--gpu-memory) in GiB?" \
  -- "$serq" physics --model llama-3.1-8b --gpu h100-sxm --rate 1 --gpu-memory 1e300
expect 2 yes "^run 'serq --help' for usage$" -- "$serq" bogus
expect 2 yes "^run 'serq --help' for usage$" -- "$serq" --bogus-flag run

# check: silent on a valid program, the linker's diagnostics on a bad one.
expect 0 yes "" -- "$serq" check $before
for bad in testdata/link/bad-*.sq; do
  "$parse" "$bad" 2>/dev/null | "$link" >/dev/null 2>"$tmp/want"
  "$serq" check "$bad" >"$tmp/out" 2>"$tmp/got"
  status=$?
  [ "$status" = 1 ] || fail "check $bad: exit $status, expected 1"
  cmp -s "$tmp/want" "$tmp/got" || fail "check $bad: differs from serq-parse | serq-link: $(diff "$tmp/want" "$tmp/got" | head -4)"
done

# fmt: canonical source that parses to the same IR (locations aside) and is
# a fixed point.
for program in testdata/parse/[!b]*.sq; do
  "$serq" fmt "$program" >"$tmp/fmt.sq" || fail "fmt $program: exit $?"
  "$serq" fmt "$tmp/fmt.sq" >"$tmp/fmt2.sq" || fail "fmt of fmt $program: exit $?"
  cmp -s "$tmp/fmt.sq" "$tmp/fmt2.sq" || fail "fmt $program is not a fixed point"
done
expect 1 yes "bad-number.sq:1:11: error: invalid number '1e'" -- "$serq" fmt testdata/parse/bad-number.sq

# -D reaches the linker: the Before with one decoder pair less is refused
# for its constant index, with two more it runs (kvD and link have size ND).
cat >"$tmp/nd.sq" <<'SQ'
param ND = 2;
pool kvD[ND] { cap 100; }
stage link[ND] : ps(1);
workload { arrive batch(2); }
session { set j = serial; hold kvD[j] (10) { run link[j] (1); } observe done = now; }
run { horizon 10; }
SQ
"$serq" run "$tmp/nd.sq" >"$tmp/out" || fail "nd.sq: exit $?"
"$serq" run -D ND=4 "$tmp/nd.sq" >"$tmp/out4" || fail "nd.sq -D ND=4: exit $?"
grep -q '^link\[3\]' "$tmp/out4" || fail "-D ND=4 did not size link to 4: $(head -12 "$tmp/out4")"
grep -q '^link\[3\]' "$tmp/out" && fail "without -D link has 4 elements"

# view: --results overlays a run's figures; misuse of its flags.
"$root/serq-sim/serq-sim" --help >/dev/null 2>&1  # (present in runfiles for the pipe below)
"$parse" testdata/sim/egress-maxmin.sq | "$link" | "$root/serq-sim/serq-sim" >"$tmp/r.json" ||
  fail "egress-maxmin: pipe to serq-sim failed"
"$serq" view --results "$tmp/r.json" testdata/sim/egress-maxmin.sq >"$tmp/v.svg" || fail "view --results: exit $?"
grep -q 'util' "$tmp/v.svg" || fail "view --results: no utilisation on the stations"
expect 2 yes "serq: error: --results applies to 'serq run' and 'serq view' only" -- "$serq" check --results "$tmp/r.json" $before

# run --results: the results beside the report, as serq-sim writes them
# (JSON byte for byte; binary that serq-report reads back to the same
# report), the encoding chosen by the extension.
"$parse" $before | "$link" | "$root/serq-sim/serq-sim" --seed 3 >"$tmp/pipe.json"
"$serq" run --seed 3 --results "$tmp/run.json" $before >"$tmp/run.txt" || fail "run --results x.json: exit $?"
cmp -s "$tmp/pipe.json" "$tmp/run.json" || fail "run --results x.json differs from serq-sim's output"
"$root/serq-report/serq-report" "$tmp/run.json" >"$tmp/again.txt"
cmp -s "$tmp/run.txt" "$tmp/again.txt" || fail "the report of run --results x.json differs from run's"
"$serq" run --seed 3 --results "$tmp/run.pb" $before >"$tmp/run-pb.txt" || fail "run --results x.pb: exit $?"
head -c 1 "$tmp/run.pb" | grep -q '{' && fail "run --results x.pb wrote JSON"
"$root/serq-report/serq-report" "$tmp/run.pb" >"$tmp/again-pb.txt"
cmp -s "$tmp/run.txt" "$tmp/again-pb.txt" || fail "the report of run --results x.pb differs from run's"
"$serq" run --seed 3 --format=csv --results "$tmp/run2.json" $before >"$tmp/run.csv" || fail "run --format=csv: exit $?"
head -1 "$tmp/run.csv" | grep -q '^program,horizon' || fail "run --format=csv: not csv"
cmp -s "$tmp/pipe.json" "$tmp/run2.json" || fail "run --results with --format=csv: other results"
expect 2 yes "serq: error: --results 'r.txt': the name must end in .json (JSON) or .pb (protobuf binary)" -- "$serq" run --results r.txt $before
expect 2 yes "serq: error: cannot write 'no/such/dir/r.json': No such file or directory" -- "$serq" run --results no/such/dir/r.json $before
# A runtime error writes no results file.
"$serq" run --results "$tmp/bad.json" testdata/sim/bad-division.sq >/dev/null 2>&1
[ -e "$tmp/bad.json" ] && fail "run --results wrote a file for a failed run"
expect 2 yes "serq: error: --format: unknown format 'xml' (expected text, csv, json, md or html)" -- "$serq" run --format=xml $before
expect 2 yes "serq: error: --quantiles: quantile 150 is not between 0 and 100 (exclusive)" -- "$serq" run --quantiles=150 $before
expect 2 yes "serq: error: unknown --format 'png' (expected svg or dot)" -- "$serq" view --format=png $before
expect 2 yes "serq: error: cannot open 'no/such.json'" -- "$serq" view --results no/such.json $before

# `serq --help` names, for each flag several commands read, the commands
# that read it; each command's own --help lists its flags from the tables
# of uses (SharedFlagUses and each command's). The two must agree, for
# every flag more than one command reads (they had drifted: --seed named
# neither fit nor plan, --model not plan).
commands="run sweep search check fmt view compare fit fit-steps physics vllm plan"
for c in $commands; do
  "$serq" $c --help 2>/dev/null | sed -n 's/^  --\([a-z-]*\).*/\1/p' | sed "s/\$/ $c/"
done | sort -u >"$tmp/flag-readers"
shared=$(awk '{n[$1]++} END {for (f in n) if (n[f] > 1 && f != "help") print f}' "$tmp/flag-readers" | sort)
[ "$(echo "$shared" | wc -w)" -ge 20 ] || fail "flags several commands read: only [$shared]"
for f in $shared; do
  readers=$(awk -v f="$f" '$1 == f {print $2}' "$tmp/flag-readers" | sort -u | tr '\n' ' ')
  named=$("$serq" --help 2>&1 | grep -A1 "^  --$f[=]\|^  --$f\$" | tail -1 | tr ';' '\n' | sed 's/^ *//' |
          awk -F': ' 'NF > 1 {print $1}' | tr ',' '\n' | tr -d ' ' | sort -u | tr '\n' ' ')
  [ "$readers" = "$named" ] || fail "serq --help's --$f names [$named], the commands' --help [$readers]"
done
# A command's --help gives its part of a help of several parts: sweep's
# --out is its folder, physics' --rate the Poisson rate alone.
"$serq" sweep --help | grep -A1 '^  --out=' | tail -1 | grep -qx '      the directory of the sweep.s plan and task files (default: a temporary one)' ||
  fail "sweep --help's --out: $("$serq" sweep --help | grep -A1 '^  --out=')"
"$serq" physics --help | grep -A1 '^  --rate=' | tail -1 | grep -q 'plan' &&
  fail "physics --help's --rate has plan's part: $("$serq" physics --help | grep -A1 '^  --rate=')"

# Same program, same seed: the same bytes.
"$serq" run testdata/sim/egress-maxmin.sq >"$tmp/a"
"$serq" run testdata/sim/egress-maxmin.sq >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "two runs differ"

# --share overrides the declaration. three-flows-maxmin.sq and
# three-flows-bottleneck.sq differ in their 'share' line only, so the first
# run with --share=bottleneck prints the second's report, the first line
# (which names the file) aside; serq-link --share writes the policy into
# the IR, and the pipe from it gives the second's results.
sim=$root/serq-sim/serq-sim
tf=testdata/sim/three-flows
"$serq" run --share=bottleneck $tf-maxmin.sq | tail -n +2 >"$tmp/a"
"$serq" run $tf-bottleneck.sq | tail -n +2 >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "run --share=bottleneck: not the bottleneck program's report"
"$serq" run --share=maxmin $tf-bottleneck.sq | tail -n +2 >"$tmp/a"
"$serq" run $tf-maxmin.sq | tail -n +2 >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "run --share=maxmin: not the maxmin program's report"
"$parse" $tf-maxmin.sq | "$link" --share=bottleneck >"$tmp/ir.json" || fail "serq-link --share: exit $?"
grep -q '"share": "BOTTLENECK"' "$tmp/ir.json" || fail "serq-link --share: the IR keeps its policy"
"$sim" "$tmp/ir.json" | sed 's/three-flows-maxmin/three-flows-bottleneck/' >"$tmp/a"
cmp -s "$tmp/a" $tf-bottleneck.results.json || fail "serq-link --share | serq-sim: not the bottleneck results"
# A flag of the link that changes nothing of the program is said, and the
# program runs: --share where no run names several stages (before.sq runs
# each stage alone), --data-dir where no file is read by a relative path
# (before.sq reads none). Where it does change something (three-flows'
# flows, above), nothing is said.
expect 0 no "serq: warning: --share maxmin changes nothing: no run of $before names several stages" -- \
  "$serq" run --share=maxmin $before
expect 0 no "serq: warning: --data-dir $tmp changes nothing: $before reads no file by a relative path" -- \
  "$serq" run --data-dir "$tmp" $before
expect 0 no "serq: warning: --share bottleneck changes nothing" -- "$serq" view --share=bottleneck $before
expect 0 yes "serq: warning: --share bottleneck changes nothing" -- "$serq" check --share=bottleneck $before
"$parse" $before | "$link" --share=maxmin >/dev/null 2>"$tmp/err" || fail "serq-link --share on before.sq: exit $?"
grep -qF "serq-link: warning: --share maxmin changes nothing: no run of $before names several stages" "$tmp/err" ||
  fail "serq-link --share on before.sq: $(cat "$tmp/err")"
"$serq" run --share=maxmin $tf-bottleneck.sq >/dev/null 2>"$tmp/err" || fail "run --share on flows: exit $?"
[ -s "$tmp/err" ] && fail "run --share on a program of flows said: $(cat "$tmp/err")"
# A file that cannot be written keeps the warning before its error.
expect 2 yes "serq: warning: --share maxmin changes nothing" -- "$serq" run --share=maxmin --results "$tmp/no/r.json" $before
grep -q "cannot write '$tmp/no/r.json'" "$tmp/err" || fail "run --results unwritable: $(cat "$tmp/err")"
# serq-link's --data-dir places tables only (serq-sim's, traces), and a
# table whose rows linked IR holds is not read again: a relative table
# file is a use, a trace is not, nor is the table of linked IR.
mkdir -p "$tmp/dd"
printf 'x,t\n1,2\n2,4\n' >"$tmp/dd/svc.csv"
printf 'time\n0\n1\n' >"$tmp/dd/arrivals.csv"
cat >"$tmp/traced.sq" <<'EOF'
run { horizon 10; }
stage S : fifo(1);
workload { arrive trace("arrivals.csv"); }
session { run S (1); }
EOF
cat >"$tmp/tabled.sq" <<'EOF'
run { horizon 10; }
table svc = "svc.csv" { key x; value t; }
stage S : fifo(1 / svc(1));
workload { arrive batch(2); }
session { run S (1); }
EOF
"$parse" "$tmp/traced.sq" | "$link" --check --data-dir "$tmp/dd" 2>"$tmp/err" || fail "serq-link --data-dir on a trace: exit $?"
grep -qF "serq-link: warning: --data-dir $tmp/dd changes nothing: $tmp/traced.sq reads no file by a relative path" \
  "$tmp/err" || fail "serq-link --data-dir on a trace: $(cat "$tmp/err")"
expect 0 no "" -- "$serq" run --data-dir "$tmp/dd" "$tmp/traced.sq"
"$parse" "$tmp/tabled.sq" | "$link" --data-dir "$tmp/dd" >"$tmp/tables.json" 2>"$tmp/err" ||
  fail "serq-link --data-dir on a table: exit $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "serq-link --data-dir on a table said: $(cat "$tmp/err")"
"$link" --check --data-dir "$tmp" "$tmp/tables.json" 2>"$tmp/err" || fail "serq-link on linked tables: exit $?"
grep -qF -- "--data-dir $tmp changes nothing" "$tmp/err" || fail "serq-link --data-dir on linked tables: $(cat "$tmp/err")"
expect 2 yes "serq: error: unknown --share 'fair' (expected maxmin or bottleneck)" -- "$serq" run --share=fair $before
expect 2 yes "serq: error: --share does not apply to 'serq fmt'" -- "$serq" fmt --share=maxmin $before
expect 2 yes "serq-link: error: unknown --share 'fair' (expected maxmin or bottleneck)" -- "$link" --share=fair $root/testdata/link-ir/before.json

# --jobs: replications on threads, the same bytes as one after the other.
"$serq" run --replications 5 testdata/sim/egress-maxmin.sq >"$tmp/a"
"$serq" run --replications 5 --jobs 3 testdata/sim/egress-maxmin.sq >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "run --jobs 3 differs from --jobs 1"
"$parse" examples/pd-disaggregation/colocated.sq | "$link" >"$tmp/col.json"
"$sim" --replications 4 --horizon 40 "$tmp/col.json" >"$tmp/a"
"$sim" --replications 4 --horizon 40 --jobs 4 "$tmp/col.json" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "serq-sim --jobs 4 differs from --jobs 1"
expect 2 yes "serq: error: --jobs does not apply to 'serq check'" -- "$serq" check --jobs 2 $before
expect 2 yes "serq-sim: error: --jobs must be at least 1" -- "$sim" --jobs 0 "$tmp/col.json"

# run --series FILE: the pipe's `serq-report --series` csv beside an
# unchanged report, every 1 s without --sample, the same bytes for any --jobs.
"$serq" run --seed 3 --replications 2 $before >"$tmp/plain.txt" || fail "run: exit $?"
"$serq" run --seed 3 --replications 2 --series "$tmp/s1.csv" $before >"$tmp/s.txt" ||
  fail "run --series: exit $?"
cmp -s "$tmp/plain.txt" "$tmp/s.txt" || fail "run --series changed the report"
"$serq" run --seed 3 --replications 2 --jobs 4 --series "$tmp/s4.csv" $before >/dev/null ||
  fail "run --series --jobs 4: exit $?"
cmp -s "$tmp/s1.csv" "$tmp/s4.csv" || fail "run --series: --jobs 4 wrote other bytes than --jobs 1"
"$parse" $before | "$link" | "$root/serq-sim/serq-sim" --seed 3 --replications 2 --sample 1 |
  "$root/serq-report/serq-report" --series >"$tmp/pipe-series.csv"
cmp -s "$tmp/s1.csv" "$tmp/pipe-series.csv" || fail "run --series differs from the pipe's serq-report --series"
head -1 "$tmp/s1.csv" | grep -q '^replication,time,' || fail "run --series: no csv header"
sed -n 3p "$tmp/s1.csv" | grep -q '^0,1,' || fail "run --series: the second row is not at 1 s"
expect 2 yes "serq: error: --series applies to 'serq run' only" -- "$serq" check --series "$tmp/x.csv" $before
# A run without a horizon has no series: the error names the flag given
# (--series, which asks for one every second), not --sample.
expect 1 yes "drain-overload.sq: error: --series: a time series needs a horizon" -- \
  "$serq" run --series "$tmp/d.csv" testdata/sim/drain-overload.sq
expect 1 yes "drain-overload.sq: error: --sample: a time series needs a horizon" -- \
  "$serq" run --sample 1 --results "$tmp/d.json" testdata/sim/drain-overload.sq
# A series that nothing shows (the text report has none) is misuse.
expect 2 yes "serq: error: --sample records a time series, which only --series FILE, --results FILE and --format=html show" -- \
  "$serq" run --sample 1 $before
# A flag twice would keep its second value unseen; a -D twice likewise.
expect 2 yes "serq: error: flag '--seed' is given twice" -- "$serq" run --seed 1 $before --seed 2
expect 2 yes "serq: error: -D W is given twice" -- "$serq" run -D W=1 -D W=2 testdata/sweep/flows.sq

# A program's first lines name the command that writes it again: each
# figure as it was given, to its last digit (a --link-bw 17.179869184 was
# once printed 17.1799, whose program has another link).
written_by() {  # the command in a program's first lines, without "serq "
  sed -n '/Written by `/,/`/p' "$1" | sed 's|^//||' | tr '\n' ' ' | sed 's/.*Written by `serq \([^`]*\)`.*/\1/'
}
has_words() {  # has_words WHAT COMMAND WORDS...: COMMAND holds each WORD (two words each)
  local what=$1 cmd=$2 word
  local -a argv
  shift 2
  read -r -a argv <<<"$cmd"
  for word in "$@"; do
    case " ${argv[*]} " in *" $word "*) ;; *) fail "$what's first lines: no '$word' in: $cmd" ;; esac
  done
}
rewrites() {  # rewrites WHAT PROGRAM: the program's own command writes it again, byte for byte
  local -a argv
  read -r -a argv <<<"$(written_by "$2")"
  "$serq" "${argv[@]}" >"$tmp/again.sq" || fail "the $1 program's own command: exit $?"
  cmp -s "$2" "$tmp/again.sq" || fail "the $1 program's own command writes another program"
}
"$serq" physics --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --link-bw 17.179869184 \
  --link-latency 2.5 --gpu-memory 94.97 --gpu-memory-utilization 0.875 --rate 10.2666 >"$tmp/p1.sq" ||
  fail "physics for the command: exit $?"
has_words physics "$(written_by "$tmp/p1.sq")" "--link-bw 17.179869184" "--link-latency 2.5" "--gpu-memory 94.97" \
  "--gpu-memory-utilization 0.875" "--rate 10.2666"
rewrites physics "$tmp/p1.sq"
"$serq" vllm "$root/examples/vllm/runs/rtxpro6000-llama-3.1-8b" --gpu-memory 94.97123 \
  --gpu-memory-utilization 0.8765 >"$tmp/v1.sq" || fail "vllm for the command: exit $?"
has_words vllm "$(written_by "$tmp/v1.sq")" "--gpu-memory 94.97123" "--gpu-memory-utilization 0.8765"
rewrites vllm "$tmp/v1.sq"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq cli: all passed"
