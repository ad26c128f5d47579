#!/usr/bin/env python3
"""Writes a profile's skew_alpha.csv: the skew blend's alpha of a pure-decode
step by bucket, as numbers serq's tables can key on.

LLMServingSim's profiler fits, for each bucket of a step's shape, the alpha
of t = t_mean + alpha (t_max - t_mean) (attention at the decodes' mean and
largest KV), in tp1/skew_fit.csv with text labels (pc, n_label,
skew_rate_label, kv_big_label, kp_label), and one alpha_default for every
shape without a bucket (meta.yaml). A pure-decode step (pc 0, kp 0) looks
its bucket up; this script keeps those rows, turns the labels into bin
numbers, and fills the buckets the fit has no row for with alpha_default,
so the grid is whole. serq's table values are times (at least 0) and a
fitted alpha may be below 0 (down to -0.2), so the file holds 1 + alpha:

  n_bin   0..8: n <= 2, <= 4, ..., <= 256, > 256   (decode count)
  sr_bin  0..4: skew rate <= 5%, <= 15%, <= 40%, <= 70%, > 70%
  kvb_bin 0..3: largest decode KV <= 1k, <= 4k, <= 16k, > 16k

Usage: skew_alpha.py PROFILE_DIR  (reads skew_fit.csv and meta.yaml there,
writes skew_alpha.csv there).
"""
import csv
import re
import sys

N = ["n<=2", "n<=4", "n<=8", "n<=16", "n<=32", "n<=64", "n<=128", "n<=256", "n>256"]
SR = ["sr<=5%", "sr<=15%", "sr<=40%", "sr<=70%", "sr>70%"]
KVB = ["kvB<=1k", "kvB<=4k", "kvB<=16k", "kvB>16k"]


def alpha_default(meta_text):
    # meta.yaml: skew_fit: per_tp: 1: ... alpha_default: X (tensor parallel 1)
    m = re.search(r"per_tp:\s*\n\s*1:\s*\n(?:\s+\w+:.*\n)*?\s+alpha_default:\s*([0-9.eE+-]+)", meta_text)
    if not m:
        sys.exit("meta.yaml: no skew_fit.per_tp.1.alpha_default")
    return float(m.group(1))


def main():
    d = sys.argv[1]
    default = alpha_default(open(f"{d}/meta.yaml").read())
    fit = {}
    for r in csv.DictReader(open(f"{d}/skew_fit.csv")):
        if r["pc"] == "0" and r["kp_label"] == "kp=0":
            fit[(r["n_label"], r["skew_rate_label"], r["kv_big_label"])] = r["alpha"]
    with open(f"{d}/skew_alpha.csv", "w", newline="") as out:
        out.write("n_bin,sr_bin,kvb_bin,one_plus_alpha\n")
        for i, n in enumerate(N):
            for j, sr in enumerate(SR):
                for k, kvb in enumerate(KVB):
                    alpha = float(fit.get((n, sr, kvb), default))
                    out.write(f"{i},{j},{k},{round(1 + alpha, 6)!r}\n")


if __name__ == "__main__":
    main()
