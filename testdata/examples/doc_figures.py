#!/usr/bin/env python3
"""docs/examples.md's figures against the runs that make them.

  doc_figures.py --serq BIN --doc docs/examples.md [--root DIR]

Run from the repository's root (or --root: the Bazel runfiles' serq
directory). For each table (or paragraph) listed below, the expected
figures are read from the doc itself, the markdown row found by its first
cell(s) under its section and its header, and the command the doc gives for
it is run; every figure must equal what the run prints, at the precision
the doc prints it (tools/docfig.py's rule). So the doc and the runs cannot
drift apart silently. The tables:
  §1  table 1 in full: the latencies (ttft, tpot, e2e), the prefill GPUs'
      utilisation, the decode jobs a step and the decoders' KV used (pull,
      push, colocated; the colocated cells' words too: "—", "and 66
      prefill tokens", "about 22,100 (each of 4)")
  §2  table 2, all four rows (400 and 25 Gb/s, maxmin and bottleneck;
      -D NicGbps=25, --share=bottleneck)
  §3  table 3 in full (-D KvCapD=50000, pull and push)
  §5  the colocated table's "reserve, 30k" and "vLLM, full" columns, the
      pull table's "reserve, 55k" and "vLLM, full", and the KvCapD sweep's
      rows at 20k, 40k, 100k and 396k (serq sweep + serq run, both variants)
  prefix caching: the multi-turn chat table, the shared-prompt table's
      rows (Route 0, 1 and 2), the weighted score's figures (Route 2 with
      the doc's choose line), and the Mooncake replay's
About 35 simulations of well under a second.

The runs are read as `--format=json`: the same results as the text report,
at full precision. The doc rounds them (a figure "52.1" in ms is the
report's 0.0521 s; "1.711" its 1.7110; "6.29" its 6.2874), so a figure
passes when it is the run's value rounded to the decimals the doc prints:
|doc - run| <= half a unit of the doc's last digit. Units are converted
explicitly where the doc prints ms and the tool seconds (x 1000: `scale`).
A figure the doc gives as "about N" is held at N's last nonzero digit
(check_about: "about 22,100" at the hundreds).

A mismatch names the doc's line, the figure there, the run's figure and the
command; the last line says how many figures were checked. Exit status 1
on any mismatch (or a table, row or run not found), else 0.
"""
import json
import os
import re
import sys
import tempfile
from decimal import ROUND_HALF_UP, Decimal

from docfig import (MS, Doc, arguments, check, check_phrase, fail, find_table, finish, number,  # tools/docfig.py
                    phrase, run_serq, stated)

PD = "examples/pd-disaggregation/"
PC = "examples/prefix-cache/"

# --- the doc's tables -------------------------------------------------------


class Table:
    """A table docfig.find_table found: its header's line and cells, and its
    rows [(line number, cells)]."""

    def __init__(self, section, line, header, rows):
        self.section, self.line, self.header, self.rows = section, line, header, rows

    def __str__(self):
        return f"the table at line {self.line} ({self.section.lstrip('# ')})"


class Tables:
    """The doc's tables by their subsection: §1 to §5 are the prefill/decode
    section's, the multi-turn chat and the shared prompt prefix caching's."""

    PREFIX_CACHING = ("## Multi-turn chat", "## Shared system prompt", "## Mooncake sample")

    def __init__(self, path):
        self.pd = Doc(path, "# Examples: prefill/decode disaggregation")
        self.pc = Doc(path, "# Examples: prefix caching")

    def find(self, section, header):
        """The table under the subsection that starts with `section` whose
        header row is `header`, cell for cell; None (and a failure) if not
        one."""
        doc = self.pc if section.startswith(self.PREFIX_CACHING) else self.pd
        line, head, rows = find_table(doc, section, header)
        return Table(section, line, head, rows) if line is not None else None


def find_row(table, *key):
    """The row whose first cells are `key`: (line number, {column: cell})."""
    found = [(n, c) for n, c in table.rows if tuple(c[:len(key)]) == key]
    if len(found) != 1:
        fail(f"docs/examples.md: {len(found)} rows '{' | '.join(key)}' in {table} (expected one)")
        return None, {}
    n, c = found[0]
    return n, dict(zip(table.header, c))


def figures(cell):
    """A cell's figures: "52.1 / 274.7" and "0.0033, 0.0035" are two; a
    thousands comma is no separator ("37,644, 38,508"); a unit is dropped
    ("48 ms")."""
    cell = re.sub(r"\s*ms$", "", cell.strip())
    if not cell:
        return []
    return [x.strip() for x in re.split(r" / |, ", cell)]


# --- the runs ---------------------------------------------------------------


class Runner:
    def __init__(self, serq, scratch):
        self.serq, self.scratch, self.cache = serq, scratch, {}

    def _json(self, argv):
        key = tuple(argv)
        if key not in self.cache:
            p = run_serq(self.serq, argv + ["--format=json"])
            self.cache[key] = json.loads(p.stdout) if p else None
        return self.cache[key]

    def run(self, *argv):
        """`serq run --quantiles=50,99 ARGV...`: a Report, or None."""
        argv = ["run", "--quantiles=50,99"] + list(argv)
        r = self._json(argv)
        return Report(r, "serq " + " ".join(argv)) if r else None

    def sweep(self, *argv):
        argv = ["sweep"] + list(argv)
        return self._json(argv), "serq " + " ".join(argv)


class Report:
    """One run's results (serq run --format=json), by the report's names."""

    def __init__(self, r, command):
        self.r, self.command = r, command

    def obs(self, name):
        return next(o for o in self.r["observation"] if o["name"] == name)

    def mean(self, name):
        return self.obs(name)["mean"]

    def p(self, q, name):
        return self.obs(name)["quantile"][self.r["quantile"].index(q)]

    def n(self, name):
        return int(self.obs(name)["n"])

    def stage(self, name):
        return next(s for s in self.r["stage"] if s["name"] == name)

    def stages(self, prefix):
        return [s for s in self.r["stage"] if s["name"].startswith(prefix + "[")]

    def pool(self, name):
        return next(p for p in self.r["pool"] if p["name"] == name)

    def pools(self, prefix):
        return [p for p in self.r["pool"] if p["name"].startswith(prefix + "[")]

    def preempted(self, prefix):
        return sum(int(s.get("preempted", 0)) for s in self.stages(prefix))

    def recomputed(self, prefix):
        return sum(int(s.get("recomputed", 0)) for s in self.stages(prefix))

    def hit_rate(self):
        # All engines' hit tokens over their looked-up tokens (the cache
        # table's hit rate, its engines pooled).
        c = self.r["cache"]
        return sum(x["hitTokens"] for x in c) / sum(x["lookupTokens"] for x in c)

    def evicted(self):
        return sum(int(x["blocksEvicted"]) for x in self.r["cache"])

    def prefills(self, prefix):
        # The engines' `done` (the stage table's column): a request's
        # prefill and decode runs both count, on the same engine, so the
        # busiest over the mean is the prefills'. The doc's "2483 against
        # 2351" are these (the mean: 9402 / 4 = 2350.5).
        return [int(s["done"]) for s in self.stages(prefix)]


# --- comparing --------------------------------------------------------------


def cell_form(line, what, cell, pattern, form):
    """The match of a table cell against `pattern`, or None once its line is
    said not to be of the `form` it should have."""
    m = re.fullmatch(pattern, cell)
    if not m:
        fail(f"docs/examples.md:{line}: {what}: '{cell}' is not '{form}'")
    return m


def check_cell(table, line, what, cell, values, command, scale=1):
    """The cell's figures, in order, against `values` (in the tool's unit;
    the doc's is `scale` times it)."""
    got = figures(cell)
    if len(got) != len(values):
        fail(f"docs/examples.md:{line}: {what}: the doc has {len(got)} figures ({cell!r}), "
             f"the check expects {len(values)}")
        return
    for i, (doc, value) in enumerate(zip(got, values)):
        check(table, line, what + (f" [{i + 1}]" if len(values) > 1 else ""), doc, value, command, scale)


def check_about(table, line, what, doc, value, command, coarser=1):
    """"about DOC": `value` at DOC's last digit (a power of ten `unit`: a
    whole number's last nonzero digit, "22,100" the hundreds; a decimal's
    last decimal) is DOC there, check()'s rule on both in units of `unit`;
    `coarser` (10, 100...) holds it that many times coarser."""
    s = number(doc)
    if s is None:
        fail(f"docs/examples.md:{line}: {what}: the doc's '{doc}' is not a number — {command}")
        return
    d = Decimal(s)
    exponent = d.as_tuple().exponent
    if exponent == 0:
        exponent = d.normalize().as_tuple().exponent if d else 0
    unit = Decimal(10) ** exponent * coarser
    if unit == 1 and exponent == 0:
        check(table, line, what, doc, value, command)
        return
    figure = (d / unit).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    check(table, line, f"{what} (about {doc}: in {unit:,}s)", str(figure), value, command, 1 / unit)




# --- the tables -------------------------------------------------------------


def table1(tables, run):
    # §1, "Pull, push and colocated": the latencies of the three programs as
    # they stand ("Reproducing the figures": serq run --quantiles=50,99
    # PROGRAM, table 1), in ms but the e2e row's seconds. (The rows of
    # utilisation, batch and KV, one stage or pool of each program, are
    # table1_engines'.)
    name = "§1 table 1 (latencies)"
    t = tables.find("## 1. Pull, push and colocated", ["", "pull", "push", "colocated"])
    if not t:
        return
    rows = [("ttft mean", lambda r: [r.mean("ttft")], MS),
            ("ttft p50 / p99", lambda r: [r.p(50, "ttft"), r.p(99, "ttft")], MS),
            ("tpot mean / p99", lambda r: [r.mean("tpot"), r.p(99, "tpot")], MS),
            ("e2e mean / p99 (s)", lambda r: [r.mean("e2e"), r.p(99, "e2e")], 1)]
    for first, values, scale in rows:
        line, row = find_row(t, first)
        for column, program in [("pull", "llmd_nixl_pull.sq"), ("push", "llmd_nixl_push.sq"),
                                ("colocated", "colocated.sq")]:
            r = run(PD + program)
            if r and line:
                check_cell(name, line, f"table 1, {first}, {column}", row[column], values(r), r.command, scale)


def table1_engines(tables, run):
    # §1, table 1's other rows, from the same runs as table1's: one stage or
    # pool of each program, its array's elements in order. Pull and push
    # (the stages and pools of llmd_nixl_{pull,push}.sq):
    #   prefill GPU utilisation          P[i]'s `utilisation` (a step stage:
    #                                    the time in a step)
    #   decode jobs a step               D[i]'s `meanBatchJobs` (jobs/step;
    #                                    D runs decodes only)
    #   decoder KV used, mean (tokens)   pool kvD[i]'s `meanUsed`
    # Colocated (colocated.sq: engines E[0..3], each with its pool kv[e]
    # of the request's prompt and output, as a decoder's kvD[j]):
    #   "—"  the program has no prefill GPU: its only stages are the
    #        engines E[i], which prefill and decode both (held as the word,
    #        "—" when so, else the stages it has).
    #   "13.8 (and 66 prefill tokens)"  13.8 is the engines' jobs/step
    #        (`meanBatchJobs`) pooled, one figure for four engines: Σ steps
    #        x jobs/step / Σ steps, 13.83 (not each engine's: E[2]'s is
    #        13.85, 13.9). That counts a step's prefill chunk as a job too;
    #        the decode jobs alone, (Σ steps x jobs/step − the prefill runs)
    #        / Σ steps (each prefill run a job in at least one step;
    #        throughput `prefills`), are 13.77, also held. 66 is
    #        the prefill tokens a step: throughput `promptTokens` (the work
    #        of the prefill runs completed in the window, `prompt - c`, the
    #        cached prefix off) over the engines' steps Σ E[i].steps
    #        (66.08; Σ steps x tokens/step less `decodeTokens`, the batches'
    #        tokens less the decode ones, is 66.07).
    #   "about 22,100 (each of 4)"  4 is the count of pools kv[e]; their
    #        `meanUsed`s' mean is 22,100 at the hundreds (22,105; check_about),
    #        and each is 22,100 at the thousands (21,871 to 22,232: kv[3]
    #        would be 21,900 and kv[2] 22,200 at the hundreds, so "each" is
    #        "about", held a digit coarser).
    name = "§1 table 1 (utilisation, batch, KV)"
    t = tables.find("## 1. Pull, push and colocated", ["", "pull", "push", "colocated"])
    if not t:
        return
    util, batch, kv = "prefill GPU utilisation", "decode jobs a step", "decoder KV used, mean (tokens)"
    rows = {first: find_row(t, first) for first in [util, batch, kv]}
    of = {util: lambda r: [s["utilisation"] for s in r.stages("P")],
          batch: lambda r: [s["meanBatchJobs"] for s in r.stages("D")],
          kv: lambda r: [p["meanUsed"] for p in r.pools("kvD")]}
    for column, program in [("pull", "llmd_nixl_pull.sq"), ("push", "llmd_nixl_push.sq")]:
        r = run(PD + program)
        for first, (line, row) in rows.items():
            if r and line:
                check_cell(name, line, f"table 1, {first}, {column}", row[column], of[first](r), r.command)

    r = run(PD + "colocated.sq")
    if not r:
        return
    engines = r.stages("E")
    line, row = rows[util]
    if line:
        others = [s["name"] for s in r.r["stage"] if s not in engines]
        check(name, line, f"table 1, {util}, colocated (no stage but the engines E)", row["colocated"],
              "—" if engines and not others else "stages " + ", ".join(others), r.command)
    line, row = rows[batch]
    if line:
        m = cell_form(line, f"table 1, {batch}, colocated", row["colocated"],
                      r"([\d.]+) \(and (\d+) prefill tokens\)", "JOBS (and TOKENS prefill tokens)")
        if m:
            steps = sum(int(s["steps"]) for s in engines)
            jobs = sum(int(s["steps"]) * s["meanBatchJobs"] for s in engines)
            tp = r.r["throughput"]
            check(name, line, f"table 1, {batch}, colocated, E[0..3]'s jobs/step pooled", m.group(1),
                  jobs / steps, r.command)
            check(name, line, f"table 1, {batch}, colocated, decode jobs alone (less a job a prefill)",
                  m.group(1), (jobs - int(tp["prefills"])) / steps, r.command)
            check(name, line, f"table 1, {batch}, colocated, prefill tokens a step (promptTokens / steps)",
                  m.group(2), tp["promptTokens"] / steps, r.command)
    line, row = rows[kv]
    if line:
        m = cell_form(line, f"table 1, {kv}, colocated", row["colocated"],
                      r"about ([\d,]+) \(each of (\d+)\)", "about TOKENS (each of N)")
        if m:
            used = [p["meanUsed"] for p in r.pools("kv")]
            check(name, line, f"table 1, {kv}, colocated, pools kv[e]", m.group(2), len(used), r.command)
            if used:
                check_about(name, line, f"table 1, {kv}, colocated, the pools' mean", m.group(1),
                            sum(used) / len(used), r.command)
            for i, u in enumerate(used):
                check_about(name, line, f"table 1, {kv}, colocated, kv[{i}]", m.group(1), u, r.command,
                            coarser=10)


def table2(tables, run):
    # §2, "maxmin against bottleneck": pull at 400 Gb/s under bottleneck,
    # and at 25 Gb/s under both (-D NicGbps=25; --share=bottleneck replaces
    # the program's `share maxmin;`: "Reproducing the figures"). TTFT in ms;
    # the reads are the egress NICs' stages: read mean = egress[i]'s mean
    # service (s), reads in flight = its mean present, and its utilisation.
    name = "§2 table 2 (maxmin against bottleneck)"
    t = tables.find("## 2. maxmin against bottleneck",
                   ["NIC", "share", "ttft mean", "ttft p99", "read mean (s)",
                    "reads in flight, egress", "egress utilisation"])
    if not t:
        return
    rows = {
        ("400 Gb/s", "maxmin"): [],
        ("400 Gb/s", "bottleneck"): ["--share=bottleneck"],
        ("25 Gb/s", "maxmin"): ["-D", "NicGbps=25"],
        ("25 Gb/s", "bottleneck"): ["-D", "NicGbps=25", "--share=bottleneck"],
    }
    for key, args in rows.items():
        line, row = find_row(t, *key)
        r = run(*args, PD + "llmd_nixl_pull.sq")
        if not (r and line):
            continue
        what = f"table 2, {key[0]} {key[1]}"
        egress = [r.stage(f"egress[{i}]") for i in range(2)]
        check_cell(name, line, what + ", ttft mean (ms)", row["ttft mean"], [r.mean("ttft")], r.command,
                   scale=MS)
        check_cell(name, line, what + ", ttft p99 (ms)", row["ttft p99"], [r.p(99, "ttft")], r.command,
                   scale=MS)
        check_cell(name, line, what + ", read mean (s)", row["read mean (s)"],
                   [e["meanService"] for e in egress], r.command)
        check_cell(name, line, what + ", reads in flight", row["reads in flight, egress"],
                   [e["meanPresent"] for e in egress], r.command)
        check_cell(name, line, what + ", egress utilisation", row["egress utilisation"],
                   [e["utilisation"] for e in egress], r.command)


def table3(tables, run):
    # §3, "When the decoder's memory binds", in full: pull and push with
    # -D KvCapD=50000 ("Reproducing the figures", table 3). TTFT in ms; the
    # decoders' admission wait is pool kvD[i]'s mean wait (s), the
    # prefillers' KV pool kvP[i]'s mean used (tokens).
    name = "§3 table 3 (KvCapD=50000)"
    t = tables.find("## 3. When the decoder's memory binds", ["", "pull", "push"])
    if not t:
        return
    figures_of = {  # row: (its figures, in the tool's unit; the doc's scale)
        "ttft mean": (lambda r: [r.mean("ttft")], MS),
        "ttft p50 / p99": (lambda r: [r.p(50, "ttft"), r.p(99, "ttft")], MS),
        "decoder admission wait, mean (s)":
            (lambda r: [r.pool(f"kvD[{i}]")["meanWait"] for i in range(2)], 1),
        "prefiller KV used, mean (tokens)":
            (lambda r: [r.pool(f"kvP[{i}]")["meanUsed"] for i in range(2)], 1),
        "e2e mean (s)": (lambda r: [r.mean("e2e")], 1),
    }
    # In full: a row the test does not know is a figure no test holds.
    for line, c in t.rows:
        if c[0] not in figures_of:
            fail(f"docs/examples.md:{line}: table 3 has a row '{c[0]}' this test does not check")
    for column in ["pull", "push"]:
        r = run("-D", "KvCapD=50000", PD + f"llmd_nixl_{column}.sq")
        if not r:
            continue
        for first, (values, scale) in figures_of.items():
            line, row = find_row(t, first)
            if line:
                check_cell(name, line, f"table 3, {first}, {column}", row[column], values(r), r.command,
                           scale=scale)


def section5(tables, run):
    # §5, "Two allocation policies": times in seconds (the doc says so).
    # Colocated: "reserve, 30k" is `serq run --quantiles=50,99 -D
    # KvCap=30000 colocated.sq`; "vLLM, full" `-D KvCap=396270
    # colocated_vllm.sq` (the section's commands). Preempted and tokens
    # recomputed are the engines' (E[0..3]) sums (the report's preemptions
    # line). A blank cell (reserve has no itl and no preemption) is not a
    # figure.
    def by_row(r, engines):
        return {
            "ttft mean": [r.mean("ttft")],
            "ttft p50 / p99": [r.p(50, "ttft"), r.p(99, "ttft")],
            "tpot p50 / p99": [r.p(50, "tpot"), r.p(99, "tpot")],
            "itl p50 / p99": lambda: [r.p(50, "itl"), r.p(99, "itl")],
            "preempted (4 engines, 300 s)": lambda: [r.preempted(engines)],
            "preempted (2 decoders)": lambda: [r.preempted(engines)],
            "tokens recomputed": lambda: [r.recomputed(engines)],
        }

    def columns(name, which, t, spec, engines):
        for column, args in spec:
            r = run(*args)
            if not r:
                continue
            known = by_row(r, engines)
            for line, c in t.rows:
                cell = dict(zip(t.header, c))[column]
                if not cell:
                    continue
                if c[0] not in known:
                    fail(f"docs/examples.md:{line}: row '{c[0]}' this test does not check")
                    continue
                values = known[c[0]]
                values = values() if callable(values) else values
                check_cell(name, line, f"§5 {which} table, {c[0]}, {column}", cell, values, r.command)

    name = "§5 colocated table (reserve 30k, vLLM full)"
    t = tables.find("## 5. Two allocation policies",
                   ["", "reserve, 30k", "reserve, full", "vLLM, 30k", "vLLM, full"])
    if t:
        columns(name, "colocated", t, [("reserve, 30k", ["-D", "KvCap=30000", PD + "colocated.sq"]),
                                       ("vLLM, full", ["-D", "KvCap=396270", PD + "colocated_vllm.sq"])],
                "E")
    # Pull, decoders of 55,000 tokens: "reserve, 55k" is `-D KvCapD=55000
    # llmd_nixl_pull.sq` (the section's commands); "vLLM, full" the vLLM
    # variant at 396,270 tokens (the KvCapD table's "396,270 (full)" row:
    # `-D KvCapD=396270 llmd_nixl_pull_vllm.sq`). Preempted: D[0] + D[1].
    name = "§5 pull table (reserve 55k, vLLM full)"
    t = tables.find("## 5. Two allocation policies", ["", "reserve, 55k", "vLLM, 55k", "vLLM, full"])
    if t:
        columns(name, "pull", t, [("reserve, 55k", ["-D", "KvCapD=55000", PD + "llmd_nixl_pull.sq"]),
                                  ("vLLM, full", ["-D", "KvCapD=396270", PD + "llmd_nixl_pull_vllm.sq"])],
                "D")


def kvcapd(tables, run, sweep):
    # §5's sweep over the decoders' KV, both vLLM variants: ttft p99 and itl
    # p99 (s) and the verdict are the sweep's (`serq sweep
    # llmd_nixl_${v}_vllm.sq -D KvCapD=20000,40000,55000,100000,396270
    # --metrics 'p99(ttft),p99(itl)'`; the doc runs its tasks with GNU
    # parallel and merges them, which gives the same figures: serq/
    # sweep_test.sh; here they run in place, as JSON for full precision:
    # the text table rounds to the interval, 120 for the doc's 119.6).
    # Preempted (D[0] + D[1]) and ttft n are `serq run -D KvCapD=…
    # llmd_nixl_${v}_vllm.sq`'s. The rows at 20k, 40k, 100k and 396k.
    name = "§5 KvCapD table (20k/40k/100k/396k)"
    t = tables.find("## 5. Two allocation policies",
                   ["variant", "KvCapD", "ttft p99", "itl p99", "preempted", "ttft n", "verdict"])
    if not t:
        return
    grid = [20000, 40000, 55000, 100000, 396270]
    for v in ["pull", "push"]:
        program = PD + f"llmd_nixl_{v}_vllm.sq"
        s, command = sweep(program, "-D", "KvCapD=" + ",".join(map(str, grid)),
                           "--metrics", "p99(ttft),p99(itl)", "--jobs", "1")
        points = {int(p["settings"]["KvCapD"]): p for p in s["points"]} if s else {}
        for kv, label in [(20000, "20,000"), (40000, "40,000"), (100000, "100,000"),
                          (396270, "396,270 (full)")]:
            line, row = find_row(t, v, label)
            if not line:
                continue
            what = f"KvCapD table, {v} {label}"
            p = points.get(kv)
            if p is None:
                fail(f"docs/examples.md:{line}: {what}: no point KvCapD={kv} in {command}")
            else:
                check_cell(name, line, what + ", ttft p99", row["ttft p99"],
                           [p["figures"]["p99(ttft)"]["value"]], command)
                check_cell(name, line, what + ", itl p99", row["itl p99"],
                           [p["figures"]["p99(itl)"]["value"]], command)
                check(name, line, what + ", verdict", row["verdict"], p["status"], command)
            r = run("-D", f"KvCapD={kv}", program)
            if r:
                check_cell(name, line, what + ", preempted", row["preempted"], [r.preempted("D")], r.command)
                check_cell(name, line, what + ", ttft n", row["ttft n"], [r.n("ttft")], r.command)


def prefix(tables, run, scratch):
    # Prefix caching, "Multi-turn chat: caching against none": `serq run
    # examples/prefix-cache/NAME.sq --quantiles 50,99` (the section's
    # opening). TTFT in ms; preempted: the engine's (its stage `E`).
    name = "prefix caching, multi-turn chat"
    t = tables.find("## Multi-turn chat", ["", "hit rate", "ttft mean", "ttft p50", "ttft p99", "preempted"])
    if t:
        for first, program in [("`chat.sq` (cache 16)", "chat.sq"), ("`chat_nocache.sq`", "chat_nocache.sq")]:
            line, row = find_row(t, first)
            r = run(PC + program)
            if not (r and line):
                continue
            what = f"multi-turn chat, {program}"
            if program == "chat.sq":  # the other has no cache: "—"
                check_cell(name, line, what + ", hit rate", row["hit rate"], [r.hit_rate()], r.command)
            for column, q in [("ttft mean", None), ("ttft p50", 50), ("ttft p99", 99)]:
                value = r.mean("ttft") if q is None else r.p(q, "ttft")
                check_cell(name, line, f"{what}, {column} (ms)", row[column], [value], r.command, scale=MS)
            check_cell(name, line, what + ", preempted", row["preempted"],
                       [int(r.stage("E").get("preempted", 0))], r.command)

    # Prefix caching, "Shared system prompt: three routings": the rows of
    # Route 0, 1 and 2, `serq run examples/prefix-cache/shared_prompt.sq
    # --quantiles 50,99 -D Route=N` (the section's opening). Hit rate: the
    # engines' hit tokens over their looked-up tokens; TTFT in ms (0
    # decimals); blocks evicted: the caches' sum; imbalance: the busiest
    # engine's prefills over the mean (Report.prefills).
    name = "prefix caching, shared prompt (Route 0, 1, 2)"
    t = tables.find("## Shared system prompt", ["`Route`", "routing", "hit rate", "ttft mean",
                                                       "ttft p50", "ttft p99", "blocks evicted", "imbalance"])
    if t:
        for route in ["0", "1", "2"]:
            line, row = find_row(t, route)
            r = run(PC + "shared_prompt.sq", "-D", f"Route={route}")
            if not (r and line):
                continue
            what = f"shared prompt, Route {route}"
            done = r.prefills("E")
            # The hit rate and the imbalance are computed here, not printed.
            check_cell(name, line, what + ", hit rate", row["hit rate"], [r.hit_rate()], r.command)
            check_cell(name, line, what + ", ttft mean (ms)", row["ttft mean"], [r.mean("ttft")], r.command,
                       scale=MS)
            check_cell(name, line, what + ", ttft p50 (ms)", row["ttft p50"], [r.p(50, "ttft")], r.command,
                       scale=MS)
            check_cell(name, line, what + ", ttft p99 (ms)", row["ttft p99"], [r.p(99, "ttft")], r.command,
                       scale=MS)
            check_cell(name, line, what + ", blocks evicted", row["blocks evicted"], [r.evicted()], r.command)
            check_cell(name, line, what + ", imbalance", row["imbalance"],
                       [max(done) / (sum(done) / len(done))], r.command)

    # "Mooncake sample": `serq run examples/prefix-cache/mooncake.sq
    # --quantiles 50,99`, its figures prose: each engine's hit rate (the
    # cache table's), the mean of the observations `hit` and
    # `shared_bound`, TTFT's mean and p99 in seconds.
    r = run(PC + "mooncake.sq")
    if r:
        name = "prefix caching, Mooncake sample"
        c = {x["name"]: x["hitTokens"] / x["lookupTokens"] for x in r.r["cache"]}
        check_phrase(name, phrase(tables.pc, "## Mooncake sample", r"the hit rate is ([\d.]+) and ([\d.]+) on the "
                                                                   r"two engines"),
                     [("hit rate, kv[0]", c.get("kv[0]", -1), 1), ("hit rate, kv[1]", c.get("kv[1]", -1), 1)],
                     r.command)
        check_phrase(name, phrase(tables.pc, "## Mooncake sample", r"\(per request ([\d.]+) on average, against "
                                                                   r"([\d.]+) for the trace's"),
                     [("hit per request, mean", r.mean("hit"), 1),
                      ("shared_bound, mean", r.mean("shared_bound"), 1)], r.command)
        check_phrase(name, phrase(tables.pc, "## Mooncake sample", r"ttft mean ([\d.]+) s, p99 ([\d.]+) s"),
                     [("ttft mean (s)", r.mean("ttft"), 1), ("ttft p99 (s)", r.p(99, "ttft"), 1)], r.command)

    # The weighted score: the doc gives no command line, but says what the
    # run is, "`Route = 2` with that line": the program's lexicographic
    # choose replaced by the doc's own code line (read from the doc, the
    # fenced block that starts "choose e in E by (queue"), in a copy in a
    # scratch folder. Its figures are prose, read by pattern from the
    # paragraph that starts "Here 2048 cached blocks". (cached()
    # counts blocks, docs/language.md, so this run's figures are the same
    # for any divisor from 256 up: they hold the figures, not the weight.)
    name = "prefix caching, weighted score"
    H = "## Shared system prompt"
    block = tables.pc.block(H, r"choose e in E by \(queue")
    paragraph = phrase(tables.pc, H, r"Here 2048 cached blocks")
    if not block or paragraph is None:
        return
    weighted = block[0][1].strip()
    source = open(PC + "shared_prompt.sq", encoding="utf-8").read()
    lexicographic = "choose e in E by (-cached(kv[e]), queue(E[e]));"
    if source.count(lexicographic) != 1:
        fail(f"{PC}shared_prompt.sq: not one line '{lexicographic}' to replace")
        return
    program = os.path.join(scratch, "shared_prompt_weighted.sq")
    with open(program, "w", encoding="utf-8") as f:
        f.write(source.replace(lexicographic, weighted))
    r = run(program, "-D", "Route=2")
    if not r:
        return
    r.command += f"  (shared_prompt.sq with '{weighted}')"
    done = r.prefills("E")
    mean = sum(done) / len(done)
    # Each pattern once in the subsection, the paragraph's words around it.
    for pattern, items in [
            (r"the hit rate is ([\d.]+)", [("hit rate", r.hit_rate(), 1)]),
            (r"the busiest engine does (\d+)% more prefills than the mean \((\d+) against (\d+)\)",
             [("busiest engine's prefills over the mean, % more", max(done) / mean - 1, 100),
              ("busiest engine's prefills", max(done), 1), ("their mean", mean, 1)]),
            (r"ttft mean (\d+) ?ms", [("ttft mean (ms)", r.mean("ttft"), MS)]),
            (r"p99 (\d+) ?ms", [("ttft p99 (ms)", r.p(99, "ttft"), MS)])]:
        check_phrase(name, phrase(tables.pc, H, pattern),
                     [("weighted score, " + what, value, scale) for what, value, scale in items], r.command)


# The commands this test runs that the doc gives in other words, each with
# the words it must still give: the doc's own command for them.
IN_OTHER_WORDS = {
    # §2: "--share does", beside the 25 Gb/s command; at the program's own
    # 400 Gb/s, the same without -D.
    "serq run --quantiles=50,99 --share=bottleneck examples/pd-disaggregation/llmd_nixl_pull.sq":
        "serq run --quantiles=50,99 -D NicGbps=25 --share=bottleneck examples/pd-disaggregation/llmd_nixl_pull.sq",
    # §5's KvCapD table (and the pull table's "vLLM, full", its 396,270
    # row): "the report's, `serq run -D KvCapD=… …pull_vllm.sq`", for both
    # variants.
    **{f"serq run --quantiles=50,99 -D KvCapD={kv} examples/pd-disaggregation/llmd_nixl_{v}_vllm.sq":
       "serq run -D KvCapD=… examples/pd-disaggregation/llmd_nixl_pull_vllm.sq"
       for kv in [20000, 40000, 55000, 100000, 396270] for v in ["pull", "push"]},
    # Prefix caching: "from `serq run examples/prefix-cache/NAME.sq
    # --quantiles 50,99` (and `-D Route=N`)".
    **{f"serq run --quantiles=50,99 examples/prefix-cache/{name}": "serq run examples/prefix-cache/NAME.sq --quantiles 50,99"
       for name in ["chat.sq", "chat_nocache.sq", "mooncake.sq"] + [f"shared_prompt.sq -D Route={k}" for k in range(3)]},
}


def stated_commands(doc, runner):
    """Every `serq run` this test made is one the doc gives, or one it gives
    in other words (IN_OTHER_WORDS): a command edited in the doc, and not
    here, fails rather than holding figures another command made. The
    sweeps and the weighted score's program (a copy the doc describes, not
    a file) are the doc's in other words, held by their own checks."""
    text = open(doc, encoding="utf-8").read()
    for key in runner.cache:
        if key[0] != "run" or any(a.startswith(runner.scratch) for a in key):
            continue
        command = "serq " + " ".join(key)
        said = IN_OTHER_WORDS.get(command, command)
        if not stated(text, said):
            fail(f"docs/examples.md: the doc does not give '{said}', the command behind its figures: {command}")


def main():
    args = arguments()
    doc = os.path.abspath(args.doc)
    os.chdir(args.root)
    tables = Tables(doc)
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        runner = Runner(args.serq, scratch)
        table1(tables, runner.run)
        table1_engines(tables, runner.run)
        table2(tables, runner.run)
        table3(tables, runner.run)
        section5(tables, runner.run)
        kvcapd(tables, runner.run, runner.sweep)
        prefix(tables, runner.run, scratch)
        stated_commands(doc, runner)
    return finish(f"docs/examples.md ({args.doc}), against "
                  f"{sum(1 for k in runner.cache if k[0] == 'run')} runs and "
                  f"{sum(1 for k in runner.cache if k[0] == 'sweep')} sweeps")

if __name__ == "__main__":
    sys.exit(main())
