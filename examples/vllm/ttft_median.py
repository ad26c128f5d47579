#!/usr/bin/env python3
"""What the error on TTFT's median is made of (docs/examples.md, the vLLM
section): the measured run beside serq's trace of the same replay.

  serq run examples/vllm/llama-3.1-8b-rtxpro6000.sq --trace /tmp/vllm.jsonl
  examples/vllm/ttft_median.py examples/vllm/runs/rtxpro6000-llama-3.1-8b /tmp/vllm.jsonl

Prints five tables:

1. The requests around the median TTFT, each TTFT split at its seat: the
   time the running request whose place it takes finishes. Once 128 run,
   a waiting request gets the seat of the (i - 128)-th request to finish
   (FCFS, nothing preempted: KV never binds), so its seat is the
   (i - 128)-th smallest last-token time (measured) or release (serq).
   TTFT = (seat - arrival) + (first token - seat): the queue, then the
   in-flight step and the prefill step.
2. The requests of each arrival band (10 at a time): TTFT, TPOT and end
   time, measured and serq; the seats of table 1 are the ends of the first
   bands.
3. The step time by decode count where the run decodes alone (the drain
   after the last arrival, no prompt tokens in the second): measured from
   the per-second series (the mean of the running counts at the second's
   ends over its generated tokens), serq's from its steps of that many
   decodes. No latency enters this table. Seconds ending with fewer
   than 3 running are left out: a mean of the ends says little there.
   It also gives serq's attention a layer in those steps (the profile's
   attention.csv at the decodes' mean and longest KV, read bilinearly:
   t_mean and t_max) and the difference a layer as a share of t_mean:
   what attention would have to add to close it.
4. The run's last second with one request running, the same way.
5. The profile's own skew.csv: one decode with 4 times the others' KV
   (pc 0, kp 0), its attention over the uniform batch's at the same mean,
   by the batch's decodes: the mean over the profile's KV sizes.
"""
import bisect
import csv
import json
import sys

SEATS = 128  # meta.json: max_num_seqs


def load(run_dir, trace):
    rows = [json.loads(l) for l in open(f"{run_dir}/requests.jsonl")]
    t0 = rows[0]["queued_ts"]
    m = []
    for r in rows:
        out = r["output_toks"]
        m.append({
            "arr": r["queued_ts"] - t0,
            "sched": r["scheduled_ts"] - t0,
            "first": r["first_token_ts"] - t0,
            "end": r["last_token_ts"] - t0,
            "tpot": (r["last_token_ts"] - r["first_token_ts"]) / (out - 1) if out > 1 else None,
        })
    s = [dict() for _ in rows]
    steps = []
    for line in open(trace):
        d = json.loads(line)
        e = d.get("event")
        if e == "arrive":
            s[d["session"]]["arr"] = d["t"]
        elif e == "observe" and d["name"] == "ttft":
            s[d["session"]]["first"] = d["t"]
        elif e == "observe" and d["name"] == "tpot":
            s[d["session"]]["tpot"] = d["value"]
        elif e == "release":
            s[d["session"]]["end"] = d["t"]
        elif e == "step":
            steps.append(d)
    series = list(csv.DictReader(open(f"{run_dir}/timeseries.csv")))
    return m, s, steps, series


def seat(reqs, i):
    """The seat time of request i: the (i - SEATS)-th end, or its arrival
    when it did not wait for one."""
    if i < SEATS:
        return reqs[i]["arr"]
    ends = sorted(r["end"] for r in reqs)
    return max(reqs[i]["arr"], ends[i - SEATS])


def ms(x):
    return x * 1e3


def median_table(m, s):
    ttft = [r["first"] - r["arr"] for r in m]
    order = sorted(range(len(m)), key=lambda i: ttft[i])
    mid = len(m) // 2
    print("1. around the median TTFT (ms; d = serq - measured; "
          "measured p50 = mean of ranks %d and %d)" % (mid, mid + 1))
    print("rank  req  TTFT meas  serq      d | queue meas  serq      d | "
          "after seat meas serq   d | vLLM sched - seat")
    tot = [0.0, 0.0, 0.0]
    near = order[mid - 6:mid + 6]
    for k, i in enumerate(near, mid - 5):
        ms_, ss_ = seat(m, i), seat(s, i)
        tm, ts = m[i]["first"] - m[i]["arr"], s[i]["first"] - s[i]["arr"]
        qm, qs = ms_ - m[i]["arr"], ss_ - s[i]["arr"]
        am, as_ = m[i]["first"] - ms_, s[i]["first"] - ss_
        tot[0] += ts - tm
        tot[1] += qs - qm
        tot[2] += as_ - am
        print("%4d %4d %8.0f %6.0f %+6.0f | %8.0f %6.0f %+6.0f | %7.0f %4.0f %+4.0f | %+.1f"
              % (k, i, ms(tm), ms(ts), ms(ts - tm), ms(qm), ms(qs), ms(qs - qm),
                 ms(am), ms(as_), ms(as_ - am), ms(m[i]["sched"] - ms_)))
    n = len(near)
    print("mean d over these %d: TTFT %+.0f = queue %+.0f + after seat %+.0f"
          % (n, ms(tot[0] / n), ms(tot[1] / n), ms(tot[2] / n)))


def band_table(m, s):
    print("\n2. by arrival band (means; TPOT in ms, end in s)")
    print("reqs     arrive  TTFT meas serq | TPOT meas  serq      d | end meas  serq      d")
    for a in range(0, len(m), 10):
        b = range(a, min(a + 10, len(m)))
        f = lambda rs, k: sum(rs[i][k] for i in b) / len(b)
        tp = [i for i in b if m[i]["tpot"] is not None]
        tm = sum(m[i]["tpot"] for i in tp) / len(tp)
        ts = sum(s[i]["tpot"] for i in tp) / len(tp)
        ttm = sum(m[i]["first"] - m[i]["arr"] for i in b) / len(b)
        tts = sum(s[i]["first"] - s[i]["arr"] for i in b) / len(b)
        print("%3d-%3d %6.1f %9.0f %5.0f | %9.2f %5.2f %+5.1f%% | %8.2f %5.2f %+6.2f"
              % (a, b[-1], f(m, "arr"), ms(ttm), ms(tts), ms(tm), ms(ts),
                 100 * (ts / tm - 1), f(m, "end"), f(s, "end"), f(s, "end") - f(m, "end")))


def attention_table(run_dir):
    """Attention of decodes alone, one layer (us): (n_decode, kv) -> time."""
    t = {}
    for r in csv.DictReader(open(f"{run_dir}/profile/tp1/attention.csv")):
        if r["prefill_chunk"] == "0" and r["kv_prefill"] == "0" and int(r["n_decode"]) > 0:
            t[(int(r["n_decode"]), int(r["kv_decode"]))] = float(r["time_us"])
    ns = sorted({k[0] for k in t})
    kvs = sorted({k[1] for k in t})

    def at(xs, x):
        i = max(0, min(bisect.bisect_right(xs, x) - 1, len(xs) - 2))
        return i, (x - xs[i]) / (xs[i + 1] - xs[i])

    def lookup(n, kv):
        i, fn = at(ns, n)
        j, fk = at(kvs, kv)
        g = lambda a, b: t[(ns[a], kvs[b])]
        return ((1 - fn) * ((1 - fk) * g(i, j) + fk * g(i, j + 1))
                + fn * ((1 - fk) * g(i + 1, j) + fk * g(i + 1, j + 1)))
    return lookup


def drain_table(steps, series, run_dir):
    attn = attention_table(run_dir)
    layers = json.load(open(f"{run_dir}/model.json"))["num_hidden_layers"]
    print("\n3. step time by decode count, decoding alone after the queue empties")
    print("second  decodes  measured ms  serq ms (steps)      d | a layer (us): t_mean  t_max       d  d/t_mean")
    last_arrival_second = max(int(float(r["t"])) for r in series if int(r["waiting"]) > 0)
    prev = None
    for r in series:
        t, run = int(float(r["t"])), int(r["running"])
        gen, prompt = float(r["gen_throughput"]), float(r["prompt_throughput"])
        if prev is not None and t > last_arrival_second + 1 and prompt == 0 and prev > 0 and run > 0:
            n = (prev + run) / 2
            chosen = [x for x in steps
                      if x["prefill"] == 0 and x["t"] > last_arrival_second - 5 and abs(x["decode"] - n) <= 2]
            taus = [x["tau"] for x in chosen]
            # A second that ends with a request or two has too few
            # decodes at its ends for their mean to stand for its steps.
            if taus and run > 2:
                sim = sum(taus) / len(taus)
                t_mean = sum(attn(x["decode"], x["decode_kv"] / x["decode"]) for x in chosen) / len(chosen)
                t_max = sum(attn(x["decode"], x["decode_kv_max"]) for x in chosen) / len(chosen)
                d_layer = (n / gen - sim) * 1e6 / layers
                print("%6d %8.1f %12.2f %8.2f (%3d) %+6.2f | %20.1f %6.1f %+7.1f %+8.0f%%"
                      % (t, n, ms(n / gen), ms(sim), len(taus), ms(n / gen - sim),
                         t_mean, t_max, d_layer, 100 * d_layer / t_mean))
            elif prev == 1 and run == 1:
                one = [x["tau"] for x in steps if x["decode"] == 1 and x["prefill"] == 0 and x["t"] > last_arrival_second]
                sim = sum(one) / len(one)
                print("\n4. one request running for the whole second %d: %.0f tokens, %.2f ms a step "
                      "(one token more or less: %.2f to %.2f); serq's one-decode steps of the drain %.2f ms"
                      % (t, gen, ms(1 / gen), ms(1 / (gen + 1)), ms(1 / (gen - 1)), ms(sim)))
        prev = run


def skew_table(run_dir):
    print("\n5. the profile's skew.csv: one decode 4x the others' KV among n, over the uniform batch at the mean")
    ratios = {}
    for r in csv.DictReader(open(f"{run_dir}/profile/tp1/skew.csv")):
        if (r["regime"] == "pure" and r["pc"] == "0" and r["kp"] == "0" and r["nb"] == "1"
                and int(r["kv_big"]) == 4 * int(r["kvs"])):
            ratios.setdefault(int(r["n"]), []).append(float(r["t_skew_us"]) / float(r["t_mean_us"]))
    print("decodes  " + "  ".join("%6d" % n for n in sorted(ratios)))
    print("ratio    " + "  ".join("%6.3f" % (sum(v) / len(v)) for n, v in sorted(ratios.items())))


def main():
    m, s, steps, series = load(sys.argv[1], sys.argv[2])
    median_table(m, s)
    band_table(m, s)
    drain_table(steps, series, sys.argv[1])
    skew_table(sys.argv[1])


if __name__ == "__main__":
    main()
