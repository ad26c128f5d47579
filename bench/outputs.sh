#!/usr/bin/env bash
# bench/outputs.sh SERQ OUTDIR: writes the outputs that a change which must
# not change behaviour (a move, a speed-up) is held to, so that two builds
# can be compared with `diff -r` (or `cmp` file by file):
#   - the 72 runs: every example (examples/*.sq, examples/*/*.sq),
#     testdata/series/cache.sq and testdata/view/pools.sq, seeds 1 and 7,
#     the program's horizon and --horizon 3300; each as its text report
#     and its results (JSON);
#   - `--trace` of the vLLM-shaped programs (jsonl and chrome), shortened
#     with --horizon 40 to stay small.
# SERQ is the serq binary to run (e.g. bazel-bin/serq/serq, or a copy kept
# from the build before the change). Prints one line per run that failed.
set -u
if [ $# -ne 2 ]; then
  echo "usage: bench/outputs.sh SERQ OUTDIR" >&2
  exit 2
fi
serq=$(realpath "$1") out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
programs=$(ls examples/*.sq examples/*/*.sq testdata/series/cache.sq testdata/view/pools.sq)
for p in $programs; do
  name=$(echo "${p%.sq}" | tr / _)
  for seed in 1 7; do
    for horizon in "" 3300; do
      tag="$name.s$seed${horizon:+.h$horizon}"
      flags=(--seed "$seed")
      [ -n "$horizon" ] && flags+=(--horizon "$horizon")
      "$serq" run "$p" "${flags[@]}" --results "$out/$tag.results.json" \
        >"$out/$tag.txt" 2>"$out/$tag.err" || echo "failed: $tag (exit $?)"
    done
  done
done
for p in examples/pd-disaggregation/*_vllm.sq; do
  name=$(basename "${p%.sq}")
  for format in jsonl chrome; do
    "$serq" run "$p" --horizon 40 --trace "$out/$name.trace.$format" \
      --trace-format "$format" >/dev/null 2>&1 || echo "failed: trace $name $format"
  done
done
