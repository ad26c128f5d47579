#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS on a seed corpus made from testdata/:
#
#   tools/fuzz.sh TARGET SECONDS      e.g. tools/fuzz.sh fuzz_parse 60
#   tools/fuzz.sh list                 the targets
#
# TARGET is a //fuzz target (fuzz_parse, fuzz_link, fuzz_sim, fuzz_trace,
# fuzz_blis_header, fuzz_measured, fuzz_report, fuzz_table, fuzz_calibrate, fuzz_vllm), built with
# --config=fuzz (clang, libFuzzer, ASan, UBSan).
# The corpus grows in $SERQ_FUZZ_DIR/TARGET (default /tmp/serq-fuzz; what
# is there already is kept, the seeds are added); a
# crash, a sanitizer report, a leak or a timeout exits non-zero after
# printing "fuzz: TARGET: FAILED on INPUT" with the input saved under
# $SERQ_FUZZ_DIR/TARGET-artifacts/. On success it prints
# "fuzz: TARGET: N runs in S s (R exec/s), corpus C inputs, slowest input T s".
set -u
cd "$(dirname "$0")/.."
targets="fuzz_parse fuzz_link fuzz_sim fuzz_trace fuzz_blis_header fuzz_measured fuzz_report fuzz_table fuzz_calibrate fuzz_vllm"
if [ "${1:-}" = list ]; then echo $targets; exit 0; fi
target=${1:?usage: tools/fuzz.sh TARGET SECONDS (tools/fuzz.sh list)}
seconds=${2:?usage: tools/fuzz.sh TARGET SECONDS}
case " $targets " in *" $target "*) ;; *) echo "fuzz: unknown target '$target' (expected: $targets)" >&2; exit 2 ;; esac

# SERQ_FUZZ_BINARY runs a binary kept aside instead of building one
# (bench/fuzz.sh compares builds so).
if [ -n "${SERQ_FUZZ_BINARY:-}" ]; then
  binary=$SERQ_FUZZ_BINARY
else
  bazel build --config=fuzz "//fuzz:$target" >&2 || { echo "fuzz: $target: FAILED to build"; exit 1; }
  binary="$(bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz/$target"
fi

dir=${SERQ_FUZZ_DIR:-/tmp/serq-fuzz}
corpus="$dir/$target"
artifacts="$dir/$target-artifacts"
mkdir -p "$corpus" "$artifacts"
seed() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(echo "$f" | tr / _)"; done; }
shopt -s nullglob
case $target in
  fuzz_parse|fuzz_sim) seed testdata/parse/*.sq testdata/sim/*.sq testdata/link/*.sq examples/*.sq \
                         examples/pd-disaggregation/*.sq testdata/hostile/*.sq ;;
  fuzz_link) seed testdata/link-ir/*.json testdata/parse/*.ir.json testdata/hostile/*.json ;;
  fuzz_trace) seed examples/traces/*.csv examples/traces/*.jsonl testdata/traces/*.csv \
                testdata/traces/*.jsonl testdata/sim/*.csv testdata/blis/*.trace.csv \
                examples/vllm/runs/*/requests.jsonl ;;
  fuzz_blis_header) seed testdata/blis/*.yaml testdata/traces/*.yaml ;;
  fuzz_measured) seed testdata/compare/*.measured testdata/compare/*.results.json \
                   testdata/blis/*.results.json examples/vllm/runs/*/requests.jsonl ;;
  fuzz_table) seed testdata/link/*.csv examples/vllm/runs/*/profile/tp1/*.csv ;;
  fuzz_calibrate) seed testdata/blis/*.config.json testdata/blis/hardware_config.json \
                    examples/fit/*.json testdata/fit/*.csv serq/models/presets/gpus.json \
                    serq/models/presets/models/*.json ;;
  fuzz_vllm) seed examples/vllm/runs/*/profile/meta.yaml testdata/vllm/*.yaml examples/vllm/runs/*/model.json \
               examples/vllm/runs/*/meta.json examples/vllm/runs/*/llmservingsim-config.json \
               testdata/vllm/*.json ;;
  fuzz_report) seed testdata/report/*.json testdata/report/parts/*.json testdata/sim/*.results.json \
                 testdata/traces/*.results.json ;;
esac

# The readers of whole runs are seeded with a real run's records (a vLLM
# requests.jsonl of 524 KB), and libFuzzer lets mutants grow to the largest
# seed: each run then parsed half a megabyte (fuzz_measured 58 exec/s). 64 KB
# keeps hundreds of records of every seed, which is all a reader's paths need.
max_len=()
case $target in fuzz_trace|fuzz_measured) max_len=(-max_len=65536) ;; esac

log="$dir/$target.log"
# -timeout: one input may take at most 30 s (a run bounded by the target's
# limits takes milliseconds); -rss_limit_mb: 2 GB, a fifth of nothing
# here but far above any bounded input; -reload=0: one process owns the
# corpus, so libFuzzer's rereading of its directory every second (a stat a
# file, a few per cent of the time) finds nothing;
# -entropic_feature_frequency_threshold=32: the entropic schedule keeps
# every feature seen fewer times than this as rare, and clang 14's libFuzzer
# scans that list for each feature of every run (LLVM 18 made it a bitset):
# at the default 255 the scan was 40% of fuzz_sim's time (bench/README.md
# §fuzz), at 32 the list stays short and the coverage reached is the same.
"$binary" "$corpus" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -reload=0 \
  -entropic_feature_frequency_threshold=32 "${max_len[@]}" \
  -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1
status=$?
# The last value of libFuzzer's final statistic NAME (-print_final_stats).
final_stat() { grep -o "stat::$1: *[0-9]*" "$log" | grep -o '[0-9]*$' | tail -1; }
runs=$(final_stat number_of_executed_units)
rate=$(grep -o 'exec/s: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
if [ "$status" -ne 0 ]; then
  input=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
  grep -E "ERROR: |SUMMARY: |runtime error|Test unit written" "$log" | head -20
  echo "fuzz: $target: FAILED on ${input:-an input (see $log)}"
  exit 1
fi
# The slowest input is printed too: one that takes seconds (fuzz_sim's
# mutant that spun 10^8 statements at one instant, 17 s) sinks the rate
# without failing the run.
slowest=$(final_stat slowest_unit_time_sec)
echo "fuzz: $target: ${runs:-?} runs in $seconds s (${rate:-?} exec/s), corpus $(ls "$corpus" | wc -l) inputs, slowest input ${slowest:-?} s"
