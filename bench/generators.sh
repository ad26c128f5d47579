#!/usr/bin/env bash
# bench/generators.sh [SERQ] [REPEATS]: the CPU time of a first answer from
# each generator, the targets of the fidelity and physics work (under one
# CPU second a run): `serq vllm RUN_DIR` then `serq compare` of its program
# against the run (both runs of examples/vllm/runs), and `serq physics` then
# `serq run` of its program (the two deployments of examples/physics,
# replaying those runs' 300 requests). Each pair runs REPEATS times (default
# 3); it prints the user and system CPU seconds of each run of each pair.
# SERQ defaults to bazel-bin/serq/serq: build it with -c opt (bazel-bin is
# the last configuration built, an ASan build's after one).
set -u
cd "$(dirname "$0")/.." || exit 2
serq=$(realpath "${1:-bazel-bin/serq/serq}")
repeats=${2:-3}
[ -x "$serq" ] || { echo "bench/generators.sh: no serq binary at $serq (bazel build -c opt //serq)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu LABEL COMMAND: the pair's user and system seconds, REPEATS times.
cpu() {
  local label=$1 i out user sys
  shift
  printf '%-58s' "$label"
  for ((i = 0; i < repeats; i++)); do
    # bash's `time` of a compound command counts its children's CPU.
    out=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 ) || { echo " failed"; return; }
    read -r user sys <<<"$out"
    printf '  %s+%s' "$user" "$sys"
  done
  echo
}

echo "user+sys CPU seconds of each pair, $repeats runs ($(nproc) cores, $serq)"
runs=examples/vllm/runs
for run in rtxpro6000-llama-3.1-8b rtxpro6000-qwen3-30b-a3b-dp2-ep; do
  cpu "serq vllm + serq compare, $run" \
    sh -c "'$serq' vllm '$runs/$run' --out '$tmp/$run.sq' && '$serq' compare '$runs/$run/requests.jsonl' '$tmp/$run.sq'"
done
cpu "serq physics + serq run, llama-3.1-8b" \
  sh -c "'$serq' physics --model llama-3.1-8b --gpu rtx-pro-6000 --max-num-seqs 128 --max-num-batched-tokens 2048 \
    --replay '$runs/rtxpro6000-llama-3.1-8b/requests.jsonl' --out '$tmp/l.sq' && '$serq' run '$tmp/l.sq'"
cpu "serq physics + serq run, qwen3-30b-a3b dp2 ep" \
  sh -c "'$serq' physics --model qwen3-30b-a3b --gpu rtx-pro-6000 --dp 2 --ep --link-bw 17.179869184 \
    --link-latency 20 --max-num-seqs 128 --max-num-batched-tokens 2048 \
    --replay '$runs/rtxpro6000-qwen3-30b-a3b-dp2-ep/requests.jsonl' --out '$tmp/m.sq' && '$serq' run '$tmp/m.sq'"
