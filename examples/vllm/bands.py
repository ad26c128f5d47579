#!/usr/bin/env python3
"""The measured run, serq's replay and LLMServingSim's prediction of it,
request by request, in bands of arrival (docs/examples.md, "Predicting real
vLLM runs"): where the two simulators differ, and when.

  serq run examples/vllm/qwen3-30b-a3b-dp2-ep-rtxpro6000.sq --trace /tmp/moe.jsonl
  examples/vllm/bands.py examples/vllm/runs/rtxpro6000-qwen3-30b-a3b-dp2-ep /tmp/moe.jsonl

Requests are taken in arrival order (queued_ts, as serq replays them;
serq's sessions arrive in that order). For each band of 20: the mean TTFT
and TPOT (ms) measured, in serq's replay (its observations `ttft` and
`tpot`), and in LLMServingSim's sim.csv (its `TTFT` and `TPOT`, ns, by
request id). No figure is fitted; the table only sets the three side by
side.
"""
import csv
import json
import sys


def main():
    run, trace = sys.argv[1], sys.argv[2]
    band = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    rows = [json.loads(line) for line in open(f"{run}/requests.jsonl")]
    rows.sort(key=lambda r: r["queued_ts"])
    measured = []
    for r in rows:
        out = r["output_toks"]
        measured.append({
            "id": int(r["request_id"].split("-")[-1]),
            "ttft": r["first_token_ts"] - r["queued_ts"],
            "tpot": (r["last_token_ts"] - r["first_token_ts"]) / (out - 1) if out > 1 else None,
        })
    # serq's trace: a session id is reused once its session ends, so each
    # arrival opens the next request's record.
    serq, current = [], {}
    for line in open(trace):
        d = json.loads(line)
        event = d.get("event")
        if event == "arrive":
            current[d["session"]] = len(serq)
            serq.append({})
        elif event == "observe" and d.get("name") in ("ttft", "tpot"):
            serq[current[d["session"]]][d["name"]] = d["value"]
    peer = {}
    for r in csv.DictReader(open(f"{run}/llmservingsim/sim.csv")):
        peer[int(r["request id"])] = {"ttft": float(r["TTFT"]) / 1e9, "tpot": float(r["TPOT"]) / 1e9}

    def mean(xs):
        xs = [x for x in xs if x is not None]
        return sum(xs) / len(xs) * 1e3 if xs else float("nan")

    print("requests    TTFT measured    serq  LLMServingSim | TPOT measured   serq  LLMServingSim")
    for b in range(0, len(measured), band):
        m, s = measured[b:b + band], serq[b:b + band]
        p = [peer[x["id"]] for x in m if x["id"] in peer]
        print(f"{b:3}-{min(b + band, len(measured)) - 1:<3}     {mean(x['ttft'] for x in m):9.1f} "
              f"{mean(x.get('ttft') for x in s):9.1f} {mean(x['ttft'] for x in p):9.1f}     | "
              f"{mean(x['tpot'] for x in m):9.2f} {mean(x.get('tpot') for x in s):8.2f} "
              f"{mean(x['tpot'] for x in p):9.2f}")


if __name__ == "__main__":
    main()
