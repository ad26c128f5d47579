#!/usr/bin/env python3
"""docs/examples.md §Examples: planning a deployment: its figures against
the runs that make them.

  plan_doc_figures.py --serq BIN --doc docs/examples.md [--root DIR]

Run from the repository's root (or --root: the Bazel runfiles' serq
directory). As testdata/examples/doc_figures.py and testdata/fit/
doc_figures.py do for the other sections (the rule and the counts are
tools/docfig.py's), the expected figures are read from the doc itself, a
table's row found by its first cell under its subsection and its header, a
figure of prose by the words around it within its subsection, a printed
block line by line, and the command the doc gives for it is run (every
command is checked to be the doc's: `documented`); every figure must equal
what the run gives, rounded once to the digits the doc prints (|doc - run|
<= half a unit of the doc's last digit). A block the doc says a command
printed is held to what the command prints, figure by figure as written
(the tool's own rounding, once). "About 3,020-3,160" is held to the ten.

The runs, in a scratch folder (examples/vllm/runs linked into it, so that
the doc's relative paths and the paths the plans print are the doc's), and
the figures each holds:

  The eight-GPU plan (the section's first command) is NOT run: ~150 CPU
  seconds. Its folder's programs are what the hand check runs, and the two
  candidates it checks are searched alone, as the plan searches them: the
  doc's command with --jobs 2 replaced by `--no-early-stop --emit=parallel`
  writes the same programs/ without searching (docs/cli.md §serq plan: the
  flags, not --jobs or --emit, make the files), `serq plan --merge` of that
  folder names each candidate K (it has no result yet: exit 1), and `serq
  plan --out plan --candidate K` searches it alone and writes its figures to
  17 digits: a colocated candidate's search depends on no other, and the
  best disaggregated one (2P tp1 + 3D tp2) was searched to its end in the
  doc's plan (not stopped early: its status is ok), so --no-early-stop
  changes neither. `best-colocated.sq` and `best-disaggregated.sq` are the
  candidate's program at the rate found (the plan writes them so: the
  program with `param Rate` set to it; the rest byte for byte, checked by
  hand against the eight-GPU plan's folder once).

  ## What it printed (the block and its prose, of the two candidates
    searched only): the block's two `colocated tp1 x1` rows (front, top 5)
    and its `best colocated` / `best disaggregated` rates; the prose's
    6,983 tokens a second a GPU, 11 requests a second, 45 a user, and the
    best disaggregated's 66, 5,355 and 59. The rest (the counts, the other
    candidates' rows, the front and what stopped early) is the whole plan's.
  ## A check by hand
    the table in full: each candidate's plan column (its search's result)
    and rerun column (`serq run plan/best-*.sq --replications 4 --format
    csv`, every operand of each formula), the header's rates; the goodput
    "10.3 of 11"; the steady-state verdict of 4 and of 16 replications
    (`--replications 16`); the point's "1,000 arrivals after 30 s"; the
    long run (`-D Requests=30000 --replications 2`, as csv): its horizon,
    its verdict and its completions a second; the GPUs each program states
    (`gpus NP * TpP + ND * TpD` = 2 x 1 + 3 x 2 = 8); the report's output
    tokens below the plan's ("2.3% and 1.9%").
  ## From a run folder's profile
    the doc's plan (`serq plan --run ... --out plan-run --jobs 2`, ~20 CPU
    seconds): the printed block line by line, figure by figure; "within
    0.5% on the means" (the step-time line's errors for this run); the
    prose on the candidates (candidates.csv: rates, tokens a second a GPU
    and a user); the best program rerun (`serq run plan-run/best-colocated.sq
    --replications 4 --format csv`): its figures and verdict; the transfer
    check (`--emit=parallel` into plan-kv, no search, and the two programs
    at -D Rate=0.2): the medians, the KV bytes a token and the link's bytes
    a second (the program's params), 2.796 ms from them and 2.797 ms from
    the medians.

Not held here:
  - the eight-GPU plan as a whole (~150 s CPU: its counts, the front's and
    the top five's other rows, "No disaggregated candidate reaches the
    front" and its prose), and §How many GPUs for a rate (`--rate 40`, ~90
    to 104 s CPU): too slow for this test, and a smaller plan would not
    make the doc's figures;
  - wall-clock and CPU-time figures (§Cost, the run folder's "Cost:"): the
    machine's;
  - "about 650 tokens", "~800 tokens" (the workload's lengths);
    the folder's link, memory and limits (inputs, not runs' figures).

A mismatch names the doc's line, the figure there, the run's figure and the
command; the last lines count the figures checked. Exit status 1 on any
mismatch (or a table, row, figure or run not found), else 0.
"""
import csv
import io
import os
import re
import sys
import tempfile
from decimal import Decimal

from docfig import (MS, Doc, arguments, check, check_bound, check_phrase, checked, documented, fail,  # tools/docfig.py
                    find_row, find_table, finish, number, phrase, run_serq, shell)

SECTION = "# Examples: planning a deployment"
RUN_DIR = "examples/vllm/runs/rtxpro6000-llama-3.1-8b"
PLAN8 = ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--rate", "10",
         "--until", "p99(ttft) <= 2 && p99(tpot) <= 0.05", "--price", "2.5", "--out", "plan", "--jobs", "2"]
PLAN_RUN = ["plan", "--run", RUN_DIR, "--gpus", "4", "--rate", "10", "--until", "p99(ttft) <= 2 && p99(tpot) <= 0.05",
            "--price", "2.5", "--out", "plan-run", "--jobs", "2"]
PLAN_KV = ["plan", "--run", RUN_DIR, "--gpus", "2", "--tps", "1", "--kv-link", "pcie5-x16", "--lengths",
           "fixed:1024,32", "--until", "p99(ttft) <= 2", "--no-early-stop", "--emit=parallel", "--out", "plan-kv"]
PRICE = 2.5  # the plans' --price, a GPU-hour
CONSISTENT = "(the reruns are the plans' points)"

# --- comparing --------------------------------------------------------------


def check_ten(table, line, what, doc, value, command):
    """"About N": the value rounded once to the ten."""
    checked[table] = checked.get(table, 0) + 1
    s = number(doc)
    if s is None:
        fail(f"docs/examples.md:{line}: {what}: the doc's '{doc}' is not a number — {command}")
    elif abs(Decimal(s) - Decimal(repr(float(value)))) <= 5:
        print(f"ok   docs/examples.md:{line}: {what}: about {doc}")
    else:
        fail(f"docs/examples.md:{line}: {what}: the doc says about {doc}, the run gives {value!r} — {command}")


def agree(what, mine, theirs, digits=None):
    """A consistency check, not a doc figure: the rerun's `mine` is the
    plan's `theirs` (exactly, or rounded to `digits` decimals)."""
    same = abs(mine - theirs) <= (0.5 * 10 ** -digits * (1 + 1e-9) if digits is not None else 1e-12 * abs(theirs))
    if same:
        checked[CONSISTENT] = checked.get(CONSISTENT, 0) + 1
    else:
        fail(f"{what}: the rerun gives {mine!r}, the plan {theirs!r}")


FIGURE = re.compile(r"(?<![\w.\-/])\d+(?:,\d{3})*(?:\.\d+)?(?![\w\-/]|\.\d)")


def summary_row(line):
    """A summary table's row: (its candidate, [its figures as printed]),
    the columns 2 or more spaces apart and `a ± b` two figures; None if it
    is no candidate's row."""
    m = re.match(r"((?:colocated|disaggregated) \S.*?)\s{2,}(\S.*)$", line.strip())
    if not m:
        return None
    figs = []
    for c in re.split(r"\s{2,}", m.group(2)):
        figs += [x.strip() for x in c.split(" ± ")]
    return m.group(1), figs


def check_block(table, block, out, command):
    """A printed block, line for line a slice of `out`: each line's words
    as written, its figures (a candidate's row: the columns after its name)
    each as printed."""
    if not block:
        return
    lines = out.split("\n")
    head = re.match(r"\S+ \S+", block[0][1]).group(0)
    start = next((i for i, l in enumerate(lines) if l.startswith(head)), None)
    if start is None:
        fail(f"docs/examples.md:{block[0][0]}: the block's first line ('{head} ...') is not in what the command "
             f"printed — {command}")
        return
    for k, (line, doc) in enumerate(block):
        run = lines[start + k] if start + k < len(lines) else ""
        d, r = summary_row(doc), summary_row(run)
        if d and r:
            if d[0] != r[0] or len(d[1]) != len(r[1]):
                fail(f"docs/examples.md:{line}: the row of '{d[0]}' ({len(d[1])} figures), the command printed "
                     f"'{r[0]}' ({len(r[1])}) — {command}")
                continue
            for i, (x, y) in enumerate(zip(d[1], r[1])):
                check(table, line, f"{d[0]}, figure {i + 1}", x, y, command)
            continue
        skeleton = [" ".join(FIGURE.sub("#", s).split()) for s in (doc, run)]
        if skeleton[0] != skeleton[1]:
            fail(f"docs/examples.md:{line}: the doc's line '{doc.strip()}', the command printed '{run.strip()}' "
                 f"— {command}")
            continue
        for i, (x, y) in enumerate(zip(FIGURE.findall(doc), FIGURE.findall(run))):
            check(table, line, f"'{skeleton[0][:40]}...', figure {i + 1}", x, y, command)


# --- the runs ---------------------------------------------------------------


class Serq:
    def __init__(self, serq, cwd):
        self.serq, self.cwd = serq, cwd

    def __call__(self, argv, status=0):
        """`serq ARGV` in the scratch folder: (stdout, stderr), or None on
        an exit status other than `status`."""
        p = run_serq(self.serq, argv, self.cwd, status)
        return (p.stdout, p.stderr) if p else None


class Csv:
    """`serq run --format csv`'s sections, by their first column's name:
    {section: {row's first cell: {column: cell}}}."""

    def __init__(self, text, command):
        self.command, self.s = command, {}
        for chunk in text.strip().split("\n\n"):
            rows = list(csv.reader(io.StringIO(chunk)))
            self.s[rows[0][0]] = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}

    def get(self, section, row, column):
        return float(self.s[section][row][column])

    def obs(self, name, column):
        return self.get("observe", name, column)

    def program(self, column):
        return float(next(iter(self.s["program"].values()))[column])

    def verdict(self):
        """The steady state: (verdict, replications flagged)."""
        row = next(iter(self.s.get("steady_state", {}).values()), None)
        return (row["steady_state"], int(row["replications_flagged"])) if row else (None, None)


def run_csv(serq, argv):
    out = serq(argv)
    return Csv(out[0], shell(argv)) if out else None


class Result:
    """A candidate's result file (`serq plan --candidate K`): its program's
    name, status, rate, replications, and each figure (value, half-width)
    to 17 digits."""

    def __init__(self, path):
        self.fig, self.name = {}, None
        for line in open(path, encoding="utf-8"):
            p = line.split()
            if line.startswith("serq plan result "):
                self.name = p[3]
            elif len(p) == 4:
                self.fig[p[0]] = (float(p[2]), float(p[3]))
            elif len(p) == 2:
                self.fig[p[0]] = p[1]
        self.rate, self.replications = float(self.fig["rate"]), int(self.fig["replications"])

    def v(self, name):
        return self.fig[name][0]

    def hw(self, name):
        return self.fig[name][1]


# --- the eight-GPU plan: its programs and two candidates --------------------


def plan8(doc, serq, scratch):
    """The eight-GPU plan's folder (emitted, not searched) and the two best
    candidates the hand check names, each searched alone: (the hand check
    table's header line, its rows, {"colocated": (label, Result, the best
    program's path, the header's rate), "disaggregated": ...})."""
    documented(doc, SECTION, shell(PLAN8))
    where, header, rows = find_table(doc, "## A check by hand", [
        "figure", re.compile(r"best colocated \(.+\): plan"), "rerun", re.compile(r"best disaggregated \(.+\): plan"),
        "rerun"])
    if where is None:
        return None, [], {}
    labels = {}
    for kind, cell in [("colocated", header[1]), ("disaggregated", header[3])]:
        m = re.fullmatch(r"best \w+ \((.+), ([\d.]+) req/s\): plan", cell)
        if not m:
            fail(f"docs/examples.md:{where}: the header '{cell}' names no candidate and rate")
            return None, [], {}
        # "tp1 × 1" is the plan's "colocated tp1 x1"; "2P tp1 + 3D tp2" its
        # "disaggregated 2P tp1 + 3D tp2".
        labels[kind] = (kind + " " + m.group(1).replace(" × ", " x"), m.group(2))
    emit = PLAN8[:PLAN8.index("--jobs")] + ["--no-early-stop", "--emit=parallel"]
    if serq(emit) is None:
        return None, [], {}
    merged = serq(["plan", "--merge", "plan"], status=1)  # no results yet: it names every candidate K
    if merged is None:
        return None, [], {}
    index = {label: int(k) for k, label in re.findall(r"^\s*candidate (\d+) \((.+?)\): no ", merged[1], re.M)}
    found = {}
    for kind, (label, rate) in labels.items():
        if label not in index:
            fail(f"docs/examples.md:{where}: the hand check's {kind} candidate '{label}' is none of the plan's "
                 f"({shell(emit)}: {sorted(index)})")
            continue
        argv = ["plan", "--out", "plan", "--candidate", str(index[label])]
        if serq(argv) is None:
            continue
        r = Result(os.path.join(scratch, "plan", "results", f"candidate-{index[label]}.txt"))
        r.command = f"{shell(emit)}; {shell(argv)}  (the doc's plan, its candidate '{label}' searched alone)"
        source = open(os.path.join(scratch, "plan", "programs", r.name + ".sq"), encoding="utf-8").read()
        best, n = re.subn(r"^param Rate = [^;]*;", f"param Rate = {r.fig['rate']};", source, flags=re.M)
        if n != 1:
            fail(f"plan/programs/{r.name}.sq: {n} lines 'param Rate = ...;' to set to the plan's rate (expected one)")
            continue
        path = f"plan/best-{kind}.sq"
        with open(os.path.join(scratch, path), "w", encoding="utf-8") as f:
            f.write(best)
        found[kind] = (label, r, path, rate)
    return where, rows, found


def what_it_printed(doc, found, reruns):
    H = "## What it printed"
    name = "what it printed: the two candidates searched (block rows, best lines, prose)"
    block = doc.block(H, r"\.\.\.$")
    if "colocated" in found and "colocated" in reruns:
        label, r, _, _ = found["colocated"]
        gpus = reruns["colocated"].get("throughput", "output_tokens", "gpus")  # the GPUs its program states
        want = [gpus, r.rate, r.v("tokens_per_gpu"), r.hw("tokens_per_gpu"),
                r.v("tokens_per_user"), r.hw("tokens_per_user"), r.v("ttft_p99"), r.hw("ttft_p99"),
                r.v("tpot_p99"), r.hw("tpot_p99"), r.v("cost_per_mtok"), r.hw("cost_per_mtok")]
        rows = [(line, summary_row(text)) for line, text in block]
        rows = [(line, row) for line, row in rows if row and row[0] == label]
        if len(rows) != 2:
            fail(f"docs/examples.md: {len(rows)} rows of '{label}' in §What it printed's block (expected 2: the "
                 "front's and the top five's)")
        for line, (_, figs) in rows:
            if len(figs) != len(want):
                fail(f"docs/examples.md:{line}: {len(figs)} figures in the row of '{label}', the check expects "
                     f"{len(want)}")
                continue
            whats = ["GPUs", "req/s", "tok/s/GPU", "± tok/s/GPU", "tok/s/user", "± tok/s/user", "p99 TTFT",
                     "± p99 TTFT", "p99 TPOT", "± p99 TPOT", "$/M tok", "± $/M tok"]
            for what, x, v in zip(whats, figs, want):
                check(name, line, f"the block's '{label}' row, {what}", x, v, r.command)
        check_phrase(name, phrase(doc, H, r"one engine of one GPU does the most work, ([\d,]+) output tokens a "
                                          r"second,[^;]*; but at (\d+) requests a second its users get (\d+) tokens a "
                                          r"second"),
                     [("best colocated, tok/s/GPU", r.v("tokens_per_gpu"), 1), ("best colocated, req/s", r.rate, 1),
                      ("best colocated, tok/s/user", r.v("tokens_per_user"), 1)], r.command)
    for kind in ["colocated", "disaggregated"]:
        if kind in found:
            label, r, _, _ = found[kind]
            line = next(((n, t) for n, t in block if t.startswith(f"best {kind}: ")), None)
            m = line and re.fullmatch(rf"best {kind}: (.+) at ([\d.]+) req/s: best-{kind}\.sq", line[1].strip())
            if not m or m.group(1) != label:
                fail(f"docs/examples.md: §What it printed's block has no line 'best {kind}: {label} at R req/s: "
                     f"best-{kind}.sq'")
            else:
                check(name, line[0], f"the block's best {kind}, req/s", m.group(2), r.rate, r.command)
    if "disaggregated" in found:
        label, r, _, _ = found["disaggregated"]
        check_phrase(name, phrase(doc, H, r"sustains (\d+) requests a second at ([\d,]+) tokens a second a GPU "
                                          r"and (\d+) a user"),
                     [("best disaggregated, req/s", r.rate, 1),
                      ("best disaggregated, tok/s/GPU", r.v("tokens_per_gpu"), 1),
                      ("best disaggregated, tok/s/user", r.v("tokens_per_user"), 1)], r.command)


def check_by_hand(doc, serq, scratch, where, rows, found):
    H = "## A check by hand"
    name = "a check by hand: the table"
    reruns = {}
    for column, kind in [(1, "colocated"), (3, "disaggregated")]:
        if kind not in found:
            continue
        label, r, path, header_rate = found[kind]
        check(name, where, f"the header's {kind} rate (req/s)", header_rate, r.rate, r.command)
        argv = ["run", path, "--replications", "4", "--format", "csv"]
        documented(doc, H, shell(argv))
        if r.replications != 4:
            fail(f"{r.command}: {r.replications} replications, the doc reruns with 4")
        c = run_csv(serq, argv)
        if not c:
            continue
        reruns[kind] = c
        gpus = c.get("throughput", "output_tokens", "gpus")
        tokens = c.obs("ttft", "rate") + c.obs("itl", "rate")
        # The plan's point is this run (the doc's claim; not a figure).
        for what, mine, theirs in [("p99 TTFT", c.obs("ttft", "p99"), r.v("ttft_p99")),
                                   ("p99 TPOT", c.obs("tpot", "p99"), r.v("tpot_p99")),
                                   ("p99 ITL", c.obs("itl", "p99"), r.v("itl_p99")),
                                   ("tokens/s", tokens, r.v("tokens")),
                                   ("tokens/s/user", 1 / c.obs("tpot", "mean"), r.v("tokens_per_user")),
                                   ("goodput", c.obs("e2e", "rate"), r.v("goodput"))]:
            agree(f"{c.command}: {what} (the plan's: {r.command})", mine, theirs)
        figures_of = {  # row: (the plan's figures, the rerun cell's pattern, its figures)
            "p99 TTFT (s)": ([r.v("ttft_p99")], r"([\d.]+)", [c.obs("ttft", "p99")]),
            "p99 TPOT (s)": ([r.v("tpot_p99")], r"([\d.]+)", [c.obs("tpot", "p99")]),
            "p99 ITL (s)": ([r.v("itl_p99")], r"([\d.]+)", [c.obs("itl", "p99")]),
            "tokens/s = rate(ttft) + rate(itl)": ([r.v("tokens")], r"([\d.]+) \+ ([\d.]+) = ([\d.]+)",
                                                  [c.obs("ttft", "rate"), c.obs("itl", "rate"), tokens]),
            "tokens/s/GPU": ([r.v("tokens_per_gpu")], r"([\d.]+) / (\d+)(?: = ([\d.]+))?",
                             [tokens, gpus, tokens / gpus]),
            "the report's output tokens/s per GPU (`throughput` section)":
                ([], r"([\d.]+) / (\d+) GPUs?(?: = ([\d.]+))?",
                 [c.get("throughput", "output_tokens", "rate"), gpus,
                  c.get("throughput", "output_tokens", "rate_per_gpu")]),
            "tokens/s/user = 1 / mean(tpot)": ([r.v("tokens_per_user")], r"1 / ([\d.]+) = ([\d.]+)",
                                               [c.obs("tpot", "mean"), 1 / c.obs("tpot", "mean")]),
            "goodput, rate(e2e) (req/s)": ([r.v("goodput")], r"([\d.]+)", [c.obs("e2e", "rate")]),
            "$/M tok at $2.50 a GPU-hour": ([r.v("cost_per_mtok")],
                                            r"([\d.]+) × (\d+) / 3600 / ([\d.]+) × 10\^6 = ([\d.]+)",
                                            [PRICE, gpus, tokens, PRICE * gpus / 3600 / tokens * 1e6]),
        }
        for line, cl in rows:  # in full: a row this test does not know is a figure no test holds
            if cl[0] not in figures_of:
                fail(f"docs/examples.md:{line}: the hand check's table has a row '{cl[0]}' this test does not check")
        for first, (plan, pattern, rerun) in figures_of.items():
            line, cl = find_row(rows, first, where)
            if not line:
                continue
            plan_cell, rerun_cell = cl[column], cl[column + 1]
            if len(plan) != (1 if plan_cell else 0):
                fail(f"docs/examples.md:{line}: {first}, {kind}: the plan's cell '{plan_cell}', the check expects "
                     f"{len(plan)} figure(s)")
            for x, v in zip([plan_cell] if plan_cell else [], plan):
                check(name, line, f"{first}, {kind}, the plan's", x, v, r.command)
            m = re.fullmatch(pattern, rerun_cell)
            if not m:
                fail(f"docs/examples.md:{line}: {first}, {kind}: the rerun's cell '{rerun_cell}' is not /{pattern}/")
                continue
            for i, (x, v) in enumerate(zip(m.groups(), rerun)):
                if x is not None:
                    check(name, line, f"{first}, {kind}, the rerun's [{i + 1}]", x, v, c.command)

    name = "a check by hand: the prose"
    if "colocated" in reruns:
        c, (label, r, path, _) = reruns["colocated"], found["colocated"]
        check_phrase(name, phrase(doc, H, r"a little below the arrival rate \(([\d.]+) of (\d+)\)"),
                     [("best colocated, rerun's goodput (req/s)", c.obs("e2e", "rate"), 1),
                      ("best colocated, its rate (req/s)", r.rate, 1)], c.command)
        c16 = run_csv(serq, ["run", path, "--replications", "16", "--format", "csv"])
        if c16:
            v4, v16 = c.verdict(), c16.verdict()
            check_phrase(name, phrase(doc, H, r"`not in a steady state: (\w+) in (\d+) of (\d+) replications` "
                                              r"\((\d+) replications: (\d+) of (\d+)\)"),
                         [("the rerun's verdict", str(v4[0]), 1), ("replications flagged", v4[1], 1),
                          ("replications", c.program("replications"), 1),
                          ("replications (the second rerun)", c16.program("replications"), 1),
                          ("replications flagged (16)", v16[1], 1), ("replications (16)", c16.program("replications"), 1)],
                         f"{c.command}; {c16.command}")
            if v16[0] != v4[0]:
                fail(f"{c16.command}: the verdict is {v16[0]}, not {v4[0]} as in 4 replications (the doc says "
                     "only how many)")
        requests = re.search(r"^param Requests = (\d+);", open(os.path.join(scratch, path)).read(), re.M)
        check_phrase(name, phrase(doc, H, r"A plan point is a short run \(([\d,]+) arrivals after (\d+) s of "
                                          r"warm-up\)"),
                     [("a point's arrivals (the program's Requests)", float(requests.group(1)) if requests else -1, 1),
                      ("its warm-up (s)", c.program("warmup"), 1)], c.command)
        # The long run (as csv: its figures in full).
        argv = ["run", path, "-D", "Requests=30000", "--replications", "2"]
        documented(doc, H, shell(argv))
        long = run_csv(serq, argv + ["--format", "csv"])
        if long:
            verdict = long.verdict()
            steady = "steady" if verdict == ("STABLE", 0) else f"{verdict[0]} in {verdict[1]}"
            check_phrase(name, phrase(doc, H, r"--replications 2` \(([\d,]+) s a replication\) is (\w+), ([\d.]+) "
                                              r"requests a second complete of the (\d+) that arrive"),
                         [("the long run's horizon (s)", long.program("horizon"), 1),
                          ("the long run's steady state", steady, 1),
                          ("the long run's completions (req/s)", long.obs("e2e", "rate"), 1),
                          ("its rate (req/s)", r.rate, 1)], long.command)
            check_phrase(name, phrase(doc, H, r"with a p99 TTFT of ([\d.]+) ms, where an overloaded"),
                         [("the long run's p99 TTFT (ms)", long.obs("ttft", "p99"), MS)], long.command)
        # The window the rerun's output tokens are counted in: the point's
        # horizon less its warm-up.
        check_phrase(name, phrase(doc, H, r"weigh in a window of about\s+(\d+) s \(([\d.]+) s less the (\d+) s of "
                                          r"warm-up, the colocated point's\)"),
                     [("the colocated point's window (s)", c.program("horizon") - c.program("warmup"), 1),
                      ("its horizon (s)", c.program("horizon"), 1), ("its warm-up (s)", c.program("warmup"), 1)],
                     c.command)
    if "disaggregated" in reruns:
        c, (label, r, path, _) = reruns["disaggregated"], found["disaggregated"]
        source = open(os.path.join(scratch, path), encoding="utf-8").read()
        params = dict(re.findall(r"^param (NP|TpP|ND|TpD) = (\d+);", source, re.M))
        if "gpus NP * TpP + ND * TpD;" not in source or len(params) != 4:
            fail(f"{path}: no 'gpus NP * TpP + ND * TpD;' in its run block, or not one param each of NP, TpP, ND, TpD")
        else:
            check_phrase(name, phrase(doc, H, r"`gpus NP \* TpP \+ ND \* TpD;` = (\d+) × (\d+) \+ (\d+) × (\d+) = "
                                              r"(\d+)"),
                         [("NP", float(params["NP"]), 1), ("TpP", float(params["TpP"]), 1),
                          ("ND", float(params["ND"]), 1), ("TpD", float(params["TpD"]), 1),
                          ("the GPUs the report counts", c.get("throughput", "output_tokens", "gpus"), 1)],
                         c.command)
    if len(reruns) == 2:
        below = [100 * (1 - reruns[k].get("throughput", "output_tokens", "rate_per_gpu") /
                        found[k][1].v("tokens_per_gpu")) for k in ["colocated", "disaggregated"]]
        check_phrase(name, phrase(doc, H, r"so it reads ([\d.]+)% and ([\d.]+)% below the plan's figure"),
                     [("the report's output tokens/s per GPU below the plan's, colocated (%)", below[0], 1),
                      ("the same, disaggregated (%)", below[1], 1)],
                     f"{reruns['colocated'].command}; {reruns['disaggregated'].command}")
    return reruns


# --- the run folder's plan --------------------------------------------------


def from_a_run_folder(doc, serq, scratch):
    H = "## From a run folder's profile"
    documented(doc, H, shell(PLAN_RUN))
    out = serq(PLAN_RUN)
    if out is None:
        return
    stdout, command = out[0], shell(PLAN_RUN)
    check_block("a run folder's profile: the printed block", doc.block(H, r"\d+ candidates:"), stdout, command)

    name = "a run folder's profile: the prose"
    m = re.search(r"Llama-3\.1-8B on one RTX PRO 6000 TTFT mean ([+-][\d.]+)%.*?TPOT mean ([+-][\d.]+)%.*?"
                  r"E2E mean ([+-][\d.]+)%", stdout)
    found = phrase(doc, H, r"\(`serq vllm` replays this run within ([\d.]+)% on the means\)")
    if not m:
        fail(f"{command}: no step-time line with this run's TTFT, TPOT and E2E mean errors")
    elif found:
        check_bound(name, found[0][0], "the step-time line's mean errors on this run", found[0][1],
                    [float(x) for x in m.groups()], command)

    rows = list(csv.DictReader(open(os.path.join(scratch, "plan-run", "candidates.csv"), encoding="utf-8")))
    c = {(int(r["tp"]), int(r["replicas"])): r for r in rows if r["kind"] == "colocated"}
    ccsv = command + "  (plan-run/candidates.csv)"
    tp1 = [c[k] for k in sorted(c) if k[0] == 1]
    tp2 = [c[k] for k in sorted(c) if k[0] == 2]
    if [k for k in sorted(c)] != [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2)]:
        fail(f"{ccsv}: the colocated candidates are {sorted(c)}, not tp1 x1-x4 and tp2 x1-x2")
        return
    gpu = lambda rs: [float(r["tokens_s_gpu"]) for r in rs]
    user = lambda rs: [float(r["tokens_s_user"]) for r in rs]
    found = phrase(doc, H, r"One GPU an engine does about ([\d,]+)–([\d,]+) output tokens a second a GPU")
    if found:
        check_ten(name, found[0][0], "tp1, the least tok/s/GPU", found[0][1], min(gpu(tp1)), ccsv)
        check_ten(name, found[1][0], "tp1, the most tok/s/GPU", found[1][1], max(gpu(tp1)), ccsv)
    check_phrase(name, phrase(doc, H, r"\(([\d.]+) requests a second for one engine, ([\d.]+) for two, ([\d.]+) for "
                                      r"three, ([\d.]+) for four:"),
                 [(f"tp1 x{n}, req/s", float(r["rate"]), 1) for n, r in enumerate(tp1, 1)], ccsv)
    found = phrase(doc, H, r"two GPUs an engine do about half that, ([\d,]+)–([\d,]+),")
    if found:
        check_ten(name, found[0][0], "tp2, the least tok/s/GPU", found[0][1], min(gpu(tp2)), ccsv)
        check_ten(name, found[1][0], "tp2, the most tok/s/GPU", found[1][1], max(gpu(tp2)), ccsv)
    check_phrase(name, phrase(doc, H, r"\(([\d.]+) and ([\d.]+) against ([\d.]+)–([\d.]+)\)"),
                 [("tp2 x1, tok/s/user", user(tp2)[0], 1), ("tp2 x2, tok/s/user", user(tp2)[1], 1),
                  ("tp1, the least tok/s/user", min(user(tp1)), 1), ("tp1, the most tok/s/user", max(user(tp1)), 1)],
                 ccsv)

    # The best program rerun.
    argv = ["run", "plan-run/best-colocated.sq", "--replications", "4", "--format", "csv"]
    documented(doc, H, shell(argv))
    best = [r for r in rows if r["status"] == "front"]
    best = max(best, key=lambda r: float(r["tokens_s_gpu"])) if best else None
    r = run_csv(serq, argv)
    if not (r and best):
        return
    check_phrase(name, phrase(doc, H, r"The best, `best-colocated.sq` \(tp(\d) × (\d) at (\d+) requests a second\), "
                                      r"rerun alone with the plan's (\d+) replications"),
                 [("the best's tp", float(best["tp"]), 1), ("the best's engines", float(best["replicas"]), 1),
                  ("the best's rate (req/s)", float(best["rate"]), 1),
                  ("the best's replications", float(best["replications"]), 1)], ccsv)
    tokens = r.obs("ttft", "rate") + r.obs("itl", "rate")
    gpus = r.get("throughput", "output_tokens", "gpus")
    check_phrase(name, phrase(doc, H, r"gives the plan's figures: p99 TTFT ([\d.]+) s, p99 TPOT ([\d.]+) s, tokens a "
                                      r"second rate\(ttft\) \+ rate\(itl\) = ([\d.]+) \+ ([\d.]+) = ([\d.]+) "
                                      r"\(([\d.]+) a GPU\), 1 / mean\(tpot\) = 1 / ([\d.]+) = ([\d.]+) a user"),
                 [("rerun, p99 TTFT (s)", r.obs("ttft", "p99"), 1), ("rerun, p99 TPOT (s)", r.obs("tpot", "p99"), 1),
                  ("rerun, rate(ttft)", r.obs("ttft", "rate"), 1), ("rerun, rate(itl)", r.obs("itl", "rate"), 1),
                  ("rerun, tokens/s", tokens, 1), ("rerun, tokens/s/GPU", tokens / gpus, 1),
                  ("rerun, mean(tpot) (s)", r.obs("tpot", "mean"), 1),
                  ("rerun, tokens/s/user", 1 / r.obs("tpot", "mean"), 1)], r.command)
    verdict = r.verdict()
    words = {1: "One", 2: "Two", 3: "Three", 4: "Four"}
    check_phrase(name, phrase(doc, H, r"(\w+) of those (\w+) replications are flagged (\w+)"),
                 [("rerun, replications flagged", words.get(verdict[1], str(verdict[1])), 1),
                  ("rerun, replications", words.get(int(r.program("replications")), "?").lower(), 1),
                  ("rerun, the verdict", str(verdict[0]), 1)], r.command)
    # The plan's point is this run (the doc's claim; candidates.csv's digits).
    for what, mine, col, digits in [("p99 TTFT", r.obs("ttft", "p99"), "ttft_p99", 6),
                                    ("p99 TPOT", r.obs("tpot", "p99"), "tpot_p99", 6),
                                    ("tokens/s/GPU", tokens / gpus, "tokens_s_gpu", 3),
                                    ("tokens/s/user", 1 / r.obs("tpot", "mean"), "tokens_s_user", 3)]:
        agree(f"{r.command}: {what} (plan-run/candidates.csv)", mine, float(best[col]), digits)

    # The KV transfer by hand: the plan written (no search), two programs at
    # 0.2 a second.
    name = "a run folder's profile: the transfer by hand"
    documented(doc, H, shell(PLAN_KV))
    if serq(PLAN_KV) is None:
        return
    med = {}
    for key, program in [("agg", "plan-kv/programs/agg-tp1x1-s128-t2048.sq"),
                         ("pd", "plan-kv/programs/pd-1p-tp1-1d-tp1-s128-t2048.sq")]:
        argv = ["run", program, "-D", "Rate=0.2", "--quantiles=50"]
        documented(doc, H, shell(argv))
        c = run_csv(serq, argv + ["--format", "csv"])
        if c is None:
            return
        med[key] = (c.obs("ttft", "p50"), c.obs("itl", "p50"), c.command)
    source = open(os.path.join(scratch, "plan-kv/programs/pd-1p-tp1-1d-tp1-s128-t2048.sq"), encoding="utf-8").read()
    kv = re.search(r"^param KvTokenBytes = (\d+);", source, re.M)
    link = re.search(r"^param XferTokens = ([\d.]+) \* ([\d.e+]+) / KvTokenBytes;", source, re.M)
    if not (kv and link):
        fail("plan-kv/programs/pd-1p-tp1-1d-tp1-s128-t2048.sq: no 'param KvTokenBytes = N;' or 'param XferTokens = "
             "N * B / KvTokenBytes;'")
        return
    kv, bw = float(kv.group(1)), float(link.group(2))  # bytes a token; the link's bytes a second, a GPU
    program = f"{shell(PLAN_KV)}  (its pd-1p-tp1-1d-tp1-s128-t2048.sq's params)"
    check_phrase(name, phrase(doc, H, r"\(`--kv-link pcie5-x16`: (\d+) GB/s a direction a GPU\)"),
                 [("the KV link (GB/s)", bw, Decimal("1e-9"))], program)
    (ttft, itl, cmd), (ttft_pd, _, cmd_pd) = med["agg"], med["pd"]
    check_phrase(name, phrase(doc, H, r"median TTFT is its prefill step, ([\d.]+) ms, and its median ITL ([\d.]+) "
                                      r"ms; 1P1D at tp1's median TTFT, ([\d.]+) ms"),
                 [("colocated tp1, median TTFT (ms)", ttft, MS), ("colocated tp1, median ITL (ms)", itl, MS),
                  ("1P1D, median TTFT (ms)", ttft_pd, MS)], f"{cmd}; {cmd_pd}")
    found = phrase(doc, H, r"the KV of ([\d,]+) tokens over the link, ([\d,]+) × ([\d,]+) bytes / (\d+)e9 = ([\d.]+) "
                           r"ms")
    if found:
        prompt = 1024.0  # --lengths fixed:1024,32
        check_phrase(name, found, [("the prompt's tokens", prompt, 1), ("the prompt's tokens", prompt, 1),
                                   ("KV bytes a token", kv, 1), ("the link (e9 bytes/s)", bw, Decimal("1e-9")),
                                   ("the transfer (ms)", prompt * kv / bw, MS)], program)
    check_phrase(name, phrase(doc, H, r"the decode engine's first step: ([\d.]+) − ([\d.]+) − ([\d.]+) = ([\d.]+) ms"),
                 [("1P1D, median TTFT (ms)", ttft_pd, MS), ("colocated tp1, median TTFT (ms)", ttft, MS),
                  ("colocated tp1, median ITL (ms)", itl, MS),
                  ("the transfer and the decode's first step (ms)", ttft_pd - ttft - itl, MS)], f"{cmd}; {cmd_pd}")


def main():
    args = arguments()
    doc = Doc(os.path.abspath(args.doc), SECTION)
    os.chdir(args.root)
    root = os.getcwd()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        # The doc's relative paths: the run folder linked into the scratch.
        os.makedirs(os.path.join(scratch, "examples/vllm"))
        os.symlink(os.path.join(root, "examples/vllm/runs"), os.path.join(scratch, "examples/vllm/runs"))
        serq = Serq(os.path.abspath(args.serq) if os.sep in args.serq else args.serq, scratch)
        where, rows, found = plan8(doc, serq, scratch)
        reruns = check_by_hand(doc, serq, scratch, where, rows, found) if where is not None else {}
        what_it_printed(doc, found, reruns)
        from_a_run_folder(doc, serq, scratch)
    consistency = checked.pop(CONSISTENT, 0)
    return finish(f"docs/examples.md ({args.doc}), '{SECTION}' ({consistency} figures of the reruns equal to the "
                  f"plans')")


if __name__ == "__main__":
    sys.exit(main())
