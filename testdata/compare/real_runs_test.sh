#!/usr/bin/env bash
# serq compare's figures of two real runs, against figures computed by
# others from the same files:
# - the vLLM run (examples/vllm/runs/rtxpro6000-llama-3.1-8b): its README's
#   measured table (LLMServingSim's definitions: TTFT = first - queued,
#   TPOT = (last - first) / (out - 1), E2E = last - queued; ms, to 0.1);
# - BLIS's w1 results: BLIS's own summary of the same run, w1.metrics.json
#   (its mean, p90, p95, p99 of TTFT and E2E, to 1e-9 relative).
# The run compared with itself: every error 0.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
cd "$root" || exit 2
PATH="$root/serq:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl
serq compare --format=json "$run" "$run" > "$tmp/vllm.json" || { echo "FAIL: serq compare vllm"; exit 1; }
serq compare --format=json testdata/blis/w1.results.json testdata/blis/w1.results.json \
  > "$tmp/blis.json" || { echo "FAIL: serq compare blis"; exit 1; }
python3 - "$tmp/vllm.json" "$tmp/blis.json" testdata/blis/w1.metrics.json <<'PY'
import json, sys
vllm, blis, metrics = (json.load(open(p)) for p in sys.argv[1:])
failed = 0
def check(what, got, want, tol):
    global failed
    ok = abs(got - want) <= tol
    failed += not ok
    print(("ok   " if ok else "FAIL ") + f"{what}: {got!r}, expected {want!r}")
# The README's table (ms, one decimal).
table = {"ttft": [7097.2, 9442.7, 16852.7, 19755.3],
         "tpot": [32.5, 33.4, 36.5, 37.3],
         "e2e": [28200.7, 29615.6, 35450.7, 37638.8]}
got = {m["metric"]: m for m in vllm["metrics"]}
assert vllm["measured"]["requests"] == 300 and set(got) == set(table), vllm
for name, want in table.items():
    for figure, w in zip(["mean", "p50", "p90", "p99"], want):
        check(f"vllm {name} {figure}", got[name]["measured"][figure], w, 0.05 + 1e-9)
    for figure, e in got[name]["error_pct"].items():
        check(f"vllm {name} {figure} error", e, 0.0, 0.0)
    check(f"vllm {name} n", got[name]["measured"]["n"], 300, 0)
got = {m["metric"]: m for m in blis["metrics"]}
for name in ["ttft", "e2e"]:
    for figure in ["mean", "p90", "p95", "p99"]:
        want = metrics[f"{name}_{figure}_ms"]
        check(f"blis {name} {figure}", got[name]["measured"][figure], want, 1e-9 * want)
    check(f"blis {name} n", got[name]["measured"]["n"], metrics["completed_requests"], 0)
sys.exit(1 if failed else 0)
PY
