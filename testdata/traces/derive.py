#!/usr/bin/env python3
"""Derives the figures of the trace goldens from the sample files alone
(and the real vLLM run's requests.jsonl and BLIS's w1 trace), without
serq, and checks the goldens against them.

  python3 testdata/traces/derive.py           print the figures
  python3 testdata/traces/derive.py --check   compare them with the goldens
                                              (testdata/traces/*.txt and
                                              *.results.json,
                                              examples/traces/*.txt)

Run from the repository's root. The samples are read with Python's json,
csv and decimal modules: its own Mooncake prefix-cache count, its own
date-time arithmetic (Decimal, so exact), nothing shared with serq's
readers. Each observation's n, mean, ±95% (batch means from 100 samples),
std (divisor n - 1) and p99 (linear interpolation at h = (n - 1) 0.99)
follow docs/report.md; a delay stage's
present is the sum of its runs' work over the horizon (every run ends
before it); a fifo stage is Lindley's recursion (a job starts at the later
of its arrival and the previous job's end, in arrival order): present = the
sum of the sojourns / horizon, util = the sum of the services / horizon,
service = the mean service (start of service to end: the work over the
rate), wait = the mean wait.
"""
import csv
import json
import math
import statistics
import sys
from decimal import Decimal

SAMPLES = "examples/traces/"
VLLM_RUN = "examples/vllm/runs/rtxpro6000-llama-3.1-8b/"


def p99(xs):
    xs = sorted(xs)
    h = (len(xs) - 1) * 0.99
    i = int(h)
    upper = xs[i + 1] if i + 1 < len(xs) else xs[i]
    return xs[i] + (h - i) * (upper - xs[i])


def half_width(xs):
    """The ±95% cell of one replication (docs/report.md): below 100 samples
    none (±inf); else the batch means of 10 batches of n // 10 consecutive
    samples (the n % 10 earliest in none), t(0.975, 9) s / sqrt(10)."""
    if len(xs) < 100:
        return "±inf"
    size = len(xs) // 10
    rest = xs[len(xs) - 10 * size:]
    means = [statistics.mean(rest[k * size:(k + 1) * size]) for k in range(10)]
    return f"±{2.2621571627409915 * statistics.stdev(means) / 10**0.5:.12f}"


def same_cells(got, want):
    """Whether a golden row says what the derivation does: text cells equal,
    numbers the derived value rounded to the golden's decimals. A value
    within 1e-9 of a rounding tie (0.26195 at 4 decimals) may go either way:
    serq measures a service as a difference of two times, which rounds."""
    if got is None or len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g == w:
            continue
        if g.startswith("±") and w.startswith("±"):  # an interval's half-width
            g, w = g[1:], w[1:]
        try:
            gv, wv = float(g), float(w)
        except ValueError:
            return False
        decimals = len(g.split(".")[1]) if "." in g else 0
        if abs(gv - wv) > 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(wv)):
            return False
    return True


class Program:
    """What one program's report must say: observe rows and stage rows, as
    the report's cells (strings)."""

    def __init__(self, path, horizon):
        self.path, self.horizon = path, horizon
        self.observe, self.stage, self.samples = {}, {}, {}

    def obs(self, name, xs, exact=True):
        """`exact`: serq's samples are these very doubles (a variable, an
        arrival); not for a difference of times, which rounds its own way.
        `xs` in the order serq records them (for the batch means)."""
        if exact:
            self.samples[name] = xs
        self.observe[name] = [str(len(xs)), f"{statistics.mean(xs):.12f}", half_width(xs),
                              f"{statistics.stdev(xs):.12f}", f"{p99(xs):.12f}",
                              # rate/s: samples per second of the window [0, horizon]
                              f"{len(xs) / self.horizon:.12f}"]

    def delay(self, name, starts, works):
        assert all(s + w < self.horizon for s, w in zip(starts, works))
        self.stage[name] = ["delay", f"{sum(works) / self.horizon:.12f}", "-", str(len(works)),
                            f"{statistics.mean(works):.12f}", "-"]

    def fifo(self, name, arrivals, works):
        free, ends, waits = 0.0, [], []
        for a, w in zip(arrivals, works):
            start = max(a, free)
            waits.append(start - a)
            free = start + w
            ends.append(free)
        assert free < self.horizon
        sojourn = [e - a for a, e in zip(arrivals, ends)]
        self.stage[name] = ["fifo", f"{sum(sojourn) / self.horizon:.12f}",
                            f"{sum(works) / self.horizon:.12f}", str(len(works)),
                            f"{statistics.mean(works):.12f}", f"{statistics.mean(waits):.12f}"]
        return ends

    def show(self):
        print(self.path)
        for name, cells in sorted(self.observe.items()):
            print(f"  {name:14s} n {cells[0]}  mean {cells[1]}  std {cells[3]}  p99 {cells[4]}")
        for name, cells in sorted(self.stage.items()):
            print(f"  stage {name} {cells[0]}: present {cells[1]}  util {cells[2]}"
                  f"  done {cells[3]}  service {cells[4]}  wait {cells[5]}")

    def check(self):
        """Problems with the program's golden report (and results), or []."""
        problems = []
        table, rows = None, {"observe": {}, "stage": {}}
        for line in open(self.path[:-3] + ".txt"):
            cells = line.split()
            if not cells:
                table = None
            elif cells[0] in rows and table is None:
                table = cells[0]
            elif table:
                rows[table][cells[0]] = cells[1:]
        for table, want in (("observe", self.observe), ("stage", self.stage)):
            if set(rows[table]) != set(want):
                problems.append(f"{table} rows {sorted(rows[table])}, derived {sorted(want)}")
            for name, cells in want.items():
                if not same_cells(rows[table].get(name), cells):
                    problems.append(f"{table} {name}: {rows[table].get(name)}, derived {cells}")
        try:
            results = json.load(open(self.path[:-3] + ".results.json"))
        except FileNotFoundError:
            return problems
        # Every sample exact: the arrival times the readers made, above all.
        got = {o["name"]: o.get("sample", []) for o in results["replication"][0]["observation"]}
        for name, xs in self.samples.items():
            if got.get(name) != [float(x) for x in xs]:
                problems.append(f"samples of {name} differ from the derived ones")
        return problems


def mooncake_rows():
    rows = [json.loads(line) for line in open(SAMPLES + "mooncake_sample.jsonl")]
    seen, cached = set(), []
    for r in rows:
        c = 0
        while c < len(r["hash_ids"]) and r["hash_ids"][c] in seen:
            c += 1
        cached.append(c)
        seen.update(r["hash_ids"])
    return ([r["timestamp"] / 1000 for r in rows], [r["input_length"] for r in rows],
            [r["output_length"] for r in rows], [len(r["hash_ids"]) for r in rows], cached)


def azure_rows():
    rows = list(csv.DictReader(open(SAMPLES + "azure_code_sample.csv", newline="")))

    def seconds(text):  # every row is on 2023-11-20: the time of day will do
        date, time = text.split(" ")
        assert date == "2023-11-20"
        hh, mm, ss = time.split(":")
        return Decimal(int(hh) * 3600 + int(mm) * 60) + Decimal(ss)

    t0 = seconds(rows[0]["TIMESTAMP"])
    # float(Decimal) is the double nearest the exact difference.
    at = [float(seconds(r["TIMESTAMP"]) - t0) for r in rows]
    return at, [int(r["ContextTokens"]) for r in rows], [int(r["GeneratedTokens"]) for r in rows]


def serq_rows():
    rows = list(csv.DictReader(open(SAMPLES + "serq_sample.csv")))
    return ([float(r["time"]) for r in rows], [int(r["prompt"]) for r in rows],
            [int(r["output"]) for r in rows])


def in_end_order(starts, works):
    """Works (a delay stage's latencies) in the order the runs end, which
    is the order serq records what follows them: by end time, ties in
    start order."""
    order = sorted(range(len(works)), key=lambda i: (starts[i] + works[i], i))
    return [works[i] for i in order]


def vllm_rows():
    """The real vLLM run: arrival_time is on the Unix clock (1.78e9 s), the
    token times on the engine's (4.8e5 s), so the arrival is queued_ts
    (the bench's rule); seconds since the first row's."""
    rows = [json.loads(line) for line in open(VLLM_RUN + "requests.jsonl")]
    for r in rows:
        assert abs(r["arrival_time"] - r["first_token_ts"]) >= 1e5
        assert abs(r["queued_ts"] - r["first_token_ts"]) < 1e5
    t0 = rows[0]["queued_ts"]
    # serq's clock counts whole nanoseconds (docs/simulation.md §Time, order
    # and determinism): an arrival is the double nearest to its nearest
    # nanosecond, which these engine-clock times (to ~1e-10 s) are not.
    def on_clock(x):
        return math.floor(x * 1e9 + 0.5) / 1e9
    return ([on_clock(r["queued_ts"] - t0) for r in rows], [r["input_toks"] for r in rows],
            [r["output_toks"] for r in rows])


def blis_rows():
    """BLIS's w1 TraceV2: at send_time_us when > 0 (every row), else
    arrival_time_us, less the first row's, over 10^6 (one rounding, as
    Python's int / float division); prefix_group and session_id as 0 for
    none, 1, 2, ... by first appearance."""
    rows = list(csv.DictReader(open("testdata/blis/w1.trace.csv", newline="")))
    at = [int(r["send_time_us"]) if int(r["send_time_us"]) > 0 else int(r["arrival_time_us"])
          for r in rows]

    def ids(column):
        seen = {}
        return [0 if r[column] == "" else seen.setdefault(r[column], len(seen) + 1) for r in rows]

    return ([(a - at[0]) / 1e6 for a in at], [int(r["input_tokens"]) for r in rows],
            [int(r["output_tokens"]) for r in rows], ids("prefix_group"),
            [int(r["prefix_length"]) for r in rows], ids("session_id"),
            [int(r["round_index"]) for r in rows])


def programs():
    out = []
    at, inp, outl, blocks, cached = mooncake_rows()
    p = Program("testdata/traces/mooncake.sq", 60)
    for name, xs in [("at", at), ("input", inp), ("output", outl), ("blocks", blocks),
                     ("cached", cached), ("latency", [o / 100 for o in outl])]:
        p.obs(name, xs, name != "latency")
    p.delay("D", at, [o / 100 for o in outl])
    out.append(p)

    p = Program("examples/traces/mooncake.sq", 120)  # PrefillRate 10000, Tpot 0.03
    hit = [min(c * 512, i - 1) for c, i in zip(cached, inp)]
    ends = p.fifo("P", at, [(i - h) / 10000 for i, h in zip(inp, hit)])
    dec = [o * 0.03 for o in outl]
    p.obs("hit", [h / i for h, i in zip(hit, inp)])
    p.obs("ttft", [e - a for a, e in zip(at, ends)])
    p.obs("e2e", [e + d - a for a, e, d in zip(at, ends, dec)])
    p.delay("D", ends, dec)
    out.append(p)

    at, ctx, gen = azure_rows()
    p = Program("testdata/traces/azure.sq", 60)
    for name, xs in [("at", at), ("context", ctx), ("generated", gen),
                     ("latency", [g / 100 for g in gen])]:
        p.obs(name, xs, name != "latency")
    p.delay("D", at, [g / 100 for g in gen])
    out.append(p)

    p = Program("examples/traces/azure_code.sq", 60)  # PrefillRate 10000, Tpot 0.02
    ends = p.fifo("P", at, [c / 10000 for c in ctx])
    dec = [g * 0.02 for g in gen]
    p.obs("ttft", [e - a for a, e in zip(at, ends)])
    p.obs("e2e", [e + d - a for a, e, d in zip(at, ends, dec)])
    p.delay("D", ends, dec)
    out.append(p)

    at, prompt, outl = serq_rows()
    p = Program("testdata/traces/serq.sq", 60)
    for name, xs in [("at", at), ("prompt_tokens", prompt), ("output_tokens", outl),
                     ("latency", [o / 100 for o in outl])]:
        p.obs(name, xs, name != "latency")
    p.delay("D", at, [o / 100 for o in outl])
    out.append(p)

    at, inp, outl = vllm_rows()
    p = Program("testdata/traces/vllm.sq", 60)
    for name, xs in [("at", at), ("input", inp), ("output", outl),
                     ("latency", in_end_order(at, [o / 100 for o in outl]))]:
        p.obs(name, xs, name != "latency")
    p.delay("D", at, [o / 100 for o in outl])
    out.append(p)

    at, inp, outl, group, prefix, session, rnd = blis_rows()
    p = Program("testdata/traces/blis.sq", 200)
    for name, xs in [("at", at), ("input", inp), ("output", outl), ("group", group),
                     ("prefix", prefix), ("sessions", session), ("rounds", rnd),
                     ("latency", in_end_order(at, [o / 1000 for o in outl]))]:
        p.obs(name, xs, name != "latency")
    p.delay("D", at, [o / 1000 for o in outl])
    out.append(p)

    at, prompt, outl = serq_rows()
    p = Program("examples/traces/serq_csv.sq", 60)  # PrefillRate 4000, Tpot 0.025
    ends = p.fifo("P", at, [q / 4000 for q in prompt])
    dec = [o * 0.025 for o in outl]
    p.obs("ttft", [e - a for a, e in zip(at, ends)])
    p.obs("e2e", [e + d - a for a, e, d in zip(at, ends, dec)])
    p.delay("D", ends, dec)
    out.append(p)
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    failed = 0
    for p in programs():
        if not check:
            p.show()
            continue
        problems = p.check()
        failed += bool(problems)
        print(("FAIL " if problems else "ok   ") + p.path)
        for problem in problems:
            print("    " + problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
