#!/usr/bin/env python3
"""Writes a run's summary as vLLM's benchmark_serving writes its result
JSON (vllm bench serve --save-result --metric-percentiles 50,90,99): the
figures only, for `serq fit --to SUMMARY` (docs/examples.md, "Predicting a
GPU nobody profiled"). Made from a run folder's requests.jsonl, with the
metrics as the bench defines them (examples/vllm/runs/README.md): TTFT =
first - queued, TPOT = (last - first) / (output - 1), E2E = last - queued;
percentiles by linear interpolation.

    examples/physics/summary.py examples/vllm/runs/RUN/requests.jsonl > RUN.summary.json
"""
import json
import sys


def percentile(values, p):
    v = sorted(values)
    rank = p / 100 * (len(v) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if r.get("first_token_ts") is not None and r.get("last_token_ts") is not None]
    ttft = [(r["first_token_ts"] - r["queued_ts"]) * 1000 for r in rows]
    e2e = [(r["last_token_ts"] - r["queued_ts"]) * 1000 for r in rows]
    tpot = [(r["last_token_ts"] - r["first_token_ts"]) * 1000 / (r["output_toks"] - 1)
            for r in rows if r["output_toks"] > 1]
    arrivals = sorted(r["queued_ts"] for r in rows)
    out = {
        "completed": len(rows),
        "request_rate": round((len(rows) - 1) / (arrivals[-1] - arrivals[0]), 4),
        "total_input_tokens": sum(r["input_toks"] for r in rows),
        "total_output_tokens": sum(r["output_toks"] for r in rows),
    }
    for name, values in (("ttft", ttft), ("tpot", tpot), ("e2el", e2e)):
        out[f"mean_{name}_ms"] = round(sum(values) / len(values), 4)
        out[f"median_{name}_ms"] = round(percentile(values, 50), 4)
        for p in (90, 99):
            out[f"p{p}_{name}_ms"] = round(percentile(values, p), 4)
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
