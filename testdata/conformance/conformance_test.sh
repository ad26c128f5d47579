#!/usr/bin/env bash
# Conformance with a peer: serq replays BLIS's three published runs
# (testdata/blis: w1, rate40, kv800; TraceV2 read as published) with BLIS's
# blackbox coefficients, and `serq compare` puts each beside BLIS's
# results.json.
# - rate40 (saturated, KV plentiful) and w1 (light load, KV plentiful):
#   every TTFT and E2E figure within 0.5% (0.00% today: the step time in
#   whole microseconds, as BLIS's clock has it; with exact step times w1's
#   TTFT p95 and p99 were -0.57% and +1.27%, requests a step earlier or
#   later where BLIS's truncated steps drift across their arrivals).
# - kv800 (KV binds, 800 blocks of 16; prefix caching on in both, each
#   request's blocks its own): serq follows vLLM where BLIS does not
#   (kv800.sq's header): a preempted request keeps its tokens and
#   recomputes them as a prefill (hitting its own cached blocks), where
#   BLIS makes its outputs again one decode step at a time and so holds KV
#   longer. The test holds serq to that direction and size: every TTFT and
#   E2E figure 1% to 7% below BLIS's (today TTFT -5.62% mean, -4.46% p50,
#   -6.19% p99; E2E -5.03% mean; without the cache in serq -3.50%, -2.35%,
#   -4.14%, -2.96%: the cache makes serq's recomputes cheaper still), and
#   fewer preemptions than BLIS's 416 (kv800.metrics.json) but at least
#   half of them (211).
# - Request by request (issue 34's exact clock): every request's TTFT and
#   E2E within 1 us of BLIS's (BLIS counts whole microseconds; today they
#   are equal) on w1, rate40 and tie (tie.sq's header: a request reaches
#   the queue on the microsecond a step ends, deep in a busy period, which
#   a clock of summed floating-point seconds put a step late). w1 and
#   rate40 are run with each figure's request id observed beside it.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
cd "$root" || exit 2
PATH="$root/serq:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in w1 rate40 kv800; do
  serq run testdata/conformance/$c.sq --results "$tmp/$c.results.json" > /dev/null ||
    { echo "FAIL: serq run $c"; exit 1; }
  serq compare --format=json testdata/blis/$c.results.json "$tmp/$c.results.json" \
    > "$tmp/$c.json" || { echo "FAIL: serq compare $c"; exit 1; }
done
for c in w1 rate40; do
  sed -e "s#\.\./blis/#$root/testdata/blis/#" \
      -e 's/^\( *\)observe ttft = now - arrival;/&\n\1observe ttft_id = serial;/' \
      -e 's/^\( *\)observe e2e = now - arrival;/&\n\1observe e2e_id = serial;/' \
      testdata/conformance/$c.sq > "$tmp/$c-ids.sq"
  serq run "$tmp/$c-ids.sq" --results "$tmp/$c-ids.results.json" > /dev/null ||
    { echo "FAIL: serq run $c with ids"; exit 1; }
done
serq run testdata/conformance/tie.sq --results "$tmp/tie-ids.results.json" > /dev/null ||
  { echo "FAIL: serq run tie"; exit 1; }
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
failed = 0
def check(what, ok, detail):
    global failed
    failed += not ok
    print(("ok   " if ok else "FAIL ") + f"{what}: {detail}")
def errors(case):
    c = json.load(open(f"{tmp}/{case}.json"))
    assert c["measured"]["requests"] == 1000 * (4 if case == "rate40" else 1), c["measured"]
    return {m["metric"]: m["error_pct"] for m in c["metrics"] if m["error_pct"]}
for case in ("rate40", "w1"):
    for metric, figures in errors(case).items():
        for figure, e in figures.items():
            band = 0.5
            check(f"{case} {metric} {figure}", abs(e) <= band, f"{e:+.3f}% (within {band}%)")
for metric, figures in errors("kv800").items():
    for figure, e in figures.items():
        check(f"kv800 {metric} {figure}", -7 <= e <= -1, f"{e:+.3f}% (BLIS's later: -7% to -1%)")
results = json.load(open(f"{tmp}/kv800.results.json"))
stage = {s["name"]: s for s in results["replication"][0]["stage"]}
preempted = int(stage["E"].get("preempted", 0))
blis = json.load(open("testdata/blis/kv800.metrics.json"))["preemption_count"]
check("kv800 preemptions", blis / 2 <= preempted < blis, f"serq {preempted}, BLIS {blis}")
# Request by request: serq's i-th ttft (e2e) sample and its i-th ttft_id
# (e2e_id) are one request's; the serial counts requests from 0 in arrival
# order, BLIS's request_id the trace's rows.
for case, n in (("w1", 1000), ("rate40", 4000), ("tie", 831)):
    rep = json.load(open(f"{tmp}/{case}-ids.results.json"))["replication"][0]
    obs = {o["name"]: o["sample"] for o in rep["observation"]}
    blis = {r["request_id"]: r for r in json.load(open(f"testdata/blis/{case}.results.json"))}
    for m in ("ttft", "e2e"):
        got = {int(i): v for v, i in zip(obs[m], obs[m + "_id"])}
        worst = max(abs(got[i] * 1e6 - blis[i][m + "_us"]) for i in blis)
        check(f"{case} {m} request by request", len(got) == n == len(blis) and worst < 1,
              f"{len(got)} requests, max |serq - BLIS| {worst:.6f} us (under 1 us)")
print(f"{failed} failed")
sys.exit(1 if failed else 0)
PY
