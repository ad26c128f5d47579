#!/usr/bin/env python3
"""A sketch of the decode attention kernel, fitted to the Llama run's GPU
profile, set beside the program's skew blend on the steps of serq's replay
(docs/examples.md, "What the misses are made of": the third sketch).

  serq run examples/vllm/llama-3.1-8b-rtxpro6000.sq --trace /tmp/vllm.jsonl
  examples/vllm/kernel_sketch.py examples/vllm/runs/rtxpro6000-llama-3.1-8b /tmp/vllm.jsonl

Needs NumPy and SciPy (Debian: python3-numpy python3-scipy); no test runs
it. It takes a few minutes, most of them the fit.

The sketch: FlashAttention 2 runs a decode-only batch of n decodes with
8 KV heads as n x 8 thread blocks when n x 8 is at least 0.8 x 2 x 188
(its split heuristic on 188 SMs; below that it splits each sequence's
KV, so only n >= 64 rows are fitted). The blocks run SLOTS at a time in
the grid's order (KV head by KV head), each streaming its KV at
min(BMAX, B / running blocks) tokens a microsecond after a fixed C0, and
the call costs K0 more. B, BMAX, C0 and K0 are fitted by least squares to
attention.csv's decode-only rows (relative errors) and to skew.csv's
ratios t_skew / t_mean (skew.csv's times are on another scale than
attention.csv's, so only its ratios are used).

Then, for each decode-only step of serq's replay from 45 s on (the drain,
docs/examples.md's table 3 of ttft_median.py), each decode's KV is rebuilt
from the trace (its prompt and the tokens it had made), and the attention
of a layer is set three ways: the profile at the mean KV (t_mean), the
program's blend (t_mean + alpha (t_max - t_mean), the skew fit's bucket)
and the sketch (t_mean times the sketch's own ratio of the step's KVs to a
uniform batch at their mean). The table gives, by decode count, what the
sketch would add to the program's step (32 layers). Nothing here is
fitted to the run's latencies.
"""
import bisect
import collections
import csv
import json
import math
import os
import sys

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ttft_median import attention_table  # noqa: E402  (the profile's lookup, bilinear as table 3's)

HEADS_KV = 8
SLOTS = 376        # 2 blocks an SM on 188 SMs
LAYERS = 32        # Llama-3.1-8B


def kernel(works, b, bmax, c0):
    """The makespan (us) of blocks of `works` tokens each, in that order."""
    pending = list(works)[::-1]
    running = []  # [fixed time left, tokens left]
    t = 0.0
    while pending and len(running) < SLOTS:
        running.append([c0, pending.pop()])
    while running:
        rate = min(bmax, b / len(running))
        dt = min(r[0] if r[0] > 0 else r[1] / rate for r in running)
        for r in running:
            if r[0] > 0:
                r[0] -= dt
            else:
                r[1] -= dt * rate
        t += dt
        running = [r for r in running if not (r[0] <= 1e-12 and r[1] <= 1e-9)]
        while pending and len(running) < SLOTS:
            running.append([c0, pending.pop()])
    return t


def sketch(kvs, p):
    b, bmax, c0, k0 = p
    return k0 + kernel([kv for _ in range(HEADS_KV) for kv in kvs], b, bmax, c0)


def load_profile(tp1):
    att = {}
    for r in csv.DictReader(open(f"{tp1}/attention.csv")):
        if r["prefill_chunk"] == "0" and r["kv_prefill"] == "0" and int(r["n_decode"]) > 0:
            att[(int(r["n_decode"]), int(r["kv_decode"]))] = float(r["time_us"])
    skew = []
    for r in csv.DictReader(open(f"{tp1}/skew.csv")):
        if r["regime"] == "pure" and r["pc"] == "0" and r["kp"] == "0" and int(r["n"]) >= 64 \
                and int(r["kvs"]) >= 256:
            n, nb = int(r["n"]), int(r["nb"])
            kvs = [int(r["kv_big"])] * nb + [int(r["kvs"])] * (n - nb)
            skew.append((kvs, [int(r["kv_mean"])] * n, float(r["t_skew_us"]) / float(r["t_mean_us"])))
    alpha = {}
    for r in csv.DictReader(open(f"{tp1}/skew_fit.csv")):
        if r["pc"] == "0" and r["kp_label"] == "kp=0":
            alpha[(r["n_label"], r["skew_rate_label"], r["kv_big_label"])] = float(r["alpha"])
    return att, skew, alpha


def drain_steps(trace):
    """serq's decode-only steps, each with its decodes' KVs."""
    prompt, tokens, steps = {}, collections.defaultdict(list), []
    for line in open(trace):
        d = json.loads(line)
        e = d.get("event")
        if e == "run" and d["session"] not in prompt:
            prompt[d["session"]] = d["work"]
        elif e == "observe" and d["name"] in ("ttft", "itl"):
            tokens[d["session"]].append(d["t"])
        elif e == "step" and d["prefill"] == 0 and d["decode"] > 0 and d["t"] > 45:
            steps.append(d)
    for s in steps:
        t = s["t"]
        s["kvs"] = [prompt[k] + bisect.bisect_right(ts, t + 1e-12) - 1
                    for k, ts in tokens.items() if ts[0] <= t + 1e-12 and ts[-1] > t + 1e-9]
        assert len(s["kvs"]) == s["decode"] and sum(s["kvs"]) == s["decode_kv"], "KVs not rebuilt"
    return steps


def main():
    run, trace = sys.argv[1], sys.argv[2]
    att, skew, alpha = load_profile(f"{run}/profile/tp1")
    uniform = [([kv] * n, t) for (n, kv), t in att.items() if n >= 64 and kv >= 256]

    def residuals(p):
        return ([sketch(kvs, p) / t - 1 for kvs, t in uniform]
                + [sketch(kvs, p) / sketch(mean, p) / ratio - 1 for kvs, mean, ratio in skew])
    fit = least_squares(residuals, [2941, 63, 0.5, 27], bounds=([1, 0.1, 0, 0], [1e6, 1e4, 100, 100]))
    r = np.array(residuals(fit.x))
    print("fit: B %.0f tokens/us, BMAX %.2f tokens/us a block, C0 %.2f us, K0 %.2f us; "
          "rms %.1f%% on %d uniform rows, %.1f%% on %d skew ratios"
          % (*fit.x, 100 * math.sqrt((r[:len(uniform)] ** 2).mean()), len(uniform),
             100 * math.sqrt((r[len(uniform):] ** 2).mean()), len(skew)))

    lookup = attention_table(run)
    n_labels = ["n<=2", "n<=4", "n<=8", "n<=16", "n<=32", "n<=64", "n<=128", "n<=256", "n>256"]
    sr_labels = ["sr<=5%", "sr<=15%", "sr<=40%", "sr<=70%", "sr>70%"]
    kv_labels = ["kvB<=1k", "kvB<=4k", "kvB<=16k", "kvB>16k"]
    meta_default = 0.0543  # profile/meta.yaml skew_fit.per_tp.1.alpha_default
    by_n = collections.defaultdict(list)
    for s in drain_steps(trace):
        n = s["decode"]
        if n < 38:
            continue  # FA2 splits the KV there: not the sketch's kernel
        mean = math.floor(s["decode_kv"] / n)
        t_mean, t_max = lookup(n, mean), lookup(n, s["decode_kv_max"])
        rate = (mean - s["decode_kv_min"]) / max(s["decode_kv_max"] - s["decode_kv_min"], 1)
        key = (n_labels[sum(n > x for x in (2, 4, 8, 16, 32, 64, 128, 256))],
               sr_labels[sum(rate > x for x in (0.05, 0.15, 0.4, 0.7))],
               kv_labels[sum(s["decode_kv_max"] > x for x in (1024, 4096, 16384))])
        blend = max(t_mean + alpha.get(key, meta_default) * max(t_max - t_mean, 0), 0)
        ratio = sketch(s["kvs"], fit.x) / sketch([s["decode_kv"] / n] * n, fit.x)
        by_n[6 * round(n / 6)].append((t_mean, blend, t_mean * ratio, s["tau"]))
    print("\ndecodes  steps  t_mean  blend  sketch  (us a layer)  step ms: program -> with the sketch")
    for n in sorted(by_n):
        v = by_n[n]
        m = [sum(x[i] for x in v) / len(v) for i in range(4)]
        print("%7d %6d %7.1f %6.1f %7.1f %+13.1f %14.2f -> %.2f"
              % (n, len(v), m[0], m[1], m[2], m[2] - m[1], 1e3 * m[3], 1e3 * m[3] + LAYERS * (m[2] - m[1]) / 1e3))


if __name__ == "__main__":
    main()
