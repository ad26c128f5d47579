#!/usr/bin/env python3
"""docs/examples.md §Fitting a step time: its figures against the runs that
make them.

  doc_figures.py --serq BIN --doc docs/examples.md [--root DIR]

Run from the repository's root (or --root: the Bazel runfiles' serq
directory). As testdata/examples/doc_figures.py does for the other
sections (the rule and the counts are tools/docfig.py's), the expected
figures are read from the doc itself, a table's row found by its first cell
under its section and its header, a figure of prose by the words around it
within its section, and the command the doc gives for it is run; every
figure must equal what the run gives, rounded once to the digits the doc
prints (|doc - run| <= half a unit of the doc's last digit). "Within X%"
is a bound, and held as one: every figure it speaks of at most X.

The runs, and the figures each holds (the section's subsections):

  ## The fit
    the per-job form (`B2 * decode`, the doc's sed, in a scratch copy beside
    a link to the runs), `serq fit ... B2=0:2000`: B0, B1, B2, its RMSE, and
    TPOT's errors at the mean, p90 and p99 ("0.20% low ..."), its tail's
    "2% low"; the same in the context form's box, `B2=0:2`: B2, RMSE, TPOT
    at the mean and p90; both forms fitted to the three means
    (`--objective ttft.mean,tpot.mean,e2e.mean`): the largest error of each.
    The context form's own fit (the section's first command) is NOT run
    here: testdata/fit/dev_run_test.sh runs it, and holds
    examples/fit/predict.sq's params to the fit's "as params". Its figures
    are held at that point instead, one simulation: `serq compare` of the
    dev run and llama-steps.sq with predict.sq's params as -D is the fit's
    run at its fitted point (the fit's table is serq compare's, and the
    fit's last simulation is at that point). So: the fitted tau line, the
    fitted run's table in full, its RMSE ("the context form: 0.120%"), and
    TPOT's range and bounds.
  ## The prediction
    `serq run examples/fit/predict.sq`: TTFT mean and p99, TPOT, E2E;
    `serq physics ... --replay examples/fit/other-workload.csv` run with
    BLIS's corrections, and with the corrections the doc's §Calibration
    that transfers fitted to the dev run (its -D PHYS_ flags, read from
    that section's command); and the dev run's measured TTFT mean ("7 s").
  ## The analytic step time on the dev run
    `serq compare` of the dev run and llama-physics.sq: the table in full,
    and "within 10% on every mean".

Every fit's errors are read at full precision from `serq compare
--format=json` at the fitted point (the fit prints them to 3 decimals);
that compare must give the fit's own printed errors and RMSE (checked, not
counted as the doc's figures), so it is the fit's run.

Not held here: the first fit's "512 evaluations, 513 simulations"
(dev_run_test.sh, which runs that fit, holds them) and its "4.0 CPU
seconds" (the machine's).

A mismatch names the doc's line, the figure there, the run's figure and the
command; the last lines count the figures checked. Exit status 1 on any
mismatch (or a table, row, figure or run not found), else 0.
"""
import json
import math
import os
import re
import shlex
import sys
import tempfile
from decimal import Decimal

from docfig import (MS, Doc, arguments, check, check_bound, check_phrase, checked, documented, fail,  # tools/docfig.py
                    find_row, find_table, finish, phrase, run_serq)

RUN = "examples/vllm/runs/rtxpro6000-llama-3.1-8b/requests.jsonl"
SECTION = "# Examples: fitting a step time"
OBJECTIVE = ["ttft.mean", "ttft.p90", "e2e.mean", "e2e.p90"]  # serq fit's default
MEANS = ["ttft.mean", "tpot.mean", "e2e.mean"]

US_MS = Decimal("0.001")  # the doc's ms from a param in µs


# --- the runs ---------------------------------------------------------------


class Serq:
    def __init__(self, serq):
        self.serq = serq

    def __call__(self, argv, cwd=None):
        """The output of `serq ARGV` (run in `cwd`), or None on an error."""
        p = run_serq(self.serq, argv, cwd)
        return p.stdout if p else None


class Compare:
    """`serq compare --format=json`'s figures (ms; errors in %)."""

    def __init__(self, j, command):
        self.j, self.command = j, command
        if j.get("unit") != "ms":
            fail(f"{command}: the comparison's unit is {j.get('unit')!r}, not ms")

    def m(self, metric):
        return next(x for x in self.j["metrics"] if x["metric"] == metric)

    def sim(self, metric, figure):
        return self.m(metric)["simulated"][figure]

    def meas(self, metric, figure):
        return self.m(metric)["measured"][figure]

    def err(self, term):
        metric, figure = term.split(".")
        return self.m(metric)["error_pct"][figure]

    def rmse(self, terms):
        return math.sqrt(sum(self.err(t) ** 2 for t in terms) / len(terms))


def compare(serq, program, flags, cwd=None):
    argv = ["compare", "--format=json", RUN, program] + flags
    out = serq(argv, cwd)
    return Compare(json.loads(out), "serq " + " ".join(argv)) if out else None


class Fit:
    """A `serq fit`'s fitted point, and its run at full precision: the
    compare at that point, held to the errors the fit prints."""

    def __init__(self, serq, program, box, objective, cwd=None):
        argv = ["fit", program, "--param", box] + (["--objective", ",".join(objective)] if objective else []) + \
            ["--to", RUN]
        self.command = "serq " + " ".join(argv)
        self.params, self.compare = {}, None
        out = serq(argv, cwd)
        if out is None:
            return
        flags = re.search(r"^as flags:\s*(.*)$", out, re.M)
        rmse = re.search(r"^train\s+RMSE\s+(\S+)%", out, re.M)
        terms = re.search(r"^\s+\S+: (.*)$", out[rmse.end():] if rmse else "", re.M)
        if not (flags and rmse and terms):
            fail(f"{self.command}: no 'as flags', 'train RMSE' or terms in its output")
            return
        flags = shlex.split(flags.group(1))
        self.params = {k: float(v) for k, v in (f.split("=", 1) for f in flags if f != "-D")}
        self.compare = c = compare(serq, program, flags, cwd)
        if c is None:
            return
        c.command = f"{self.command}  (its run at the fitted point: {c.command})"
        # The compare is the fit's run: its errors, rounded as the fit
        # rounds them, are the fit's.
        objective = objective or OBJECTIVE
        printed = dict(re.findall(r"(\w+\.\w+) ([+-]?[\d.]+)%", terms.group(1)))
        mine = {t: c.err(t) for t in objective}
        mine_rmse = c.rmse(objective)
        bad = [t for t in objective if t not in printed or abs(float(printed[t]) - mine[t]) > 0.0005 + 1e-9]
        if bad or abs(float(rmse.group(1)) - mine_rmse) > 0.0005 + 1e-9:
            fail(f"{self.command}: serq compare at the fitted point is not the fit's run: the fit prints "
                 f"RMSE {rmse.group(1)}% and {printed}, the compare {mine_rmse:.3f}% and "
                 f"{ {t: round(v, 3) for t, v in mine.items()} }")
            self.compare = None
        else:
            checked["(the compares are the fits' runs)"] = checked.get("(the compares are the fits' runs)", 0) + 1


# --- the subsections --------------------------------------------------------


def the_fit(doc, serq, scratch):
    H = "## The fit"
    # The per-job form, as the doc makes it: its sed, in a copy beside a
    # link to the runs (the trace's path is relative to the program).
    documented(doc, H, "sed 's/B2 \\* decode_context/B2 * decode/' examples/fit/llama-steps.sq > "
               "examples/fit/llama-decode.sq")
    documented(doc, H, "serq fit examples/fit/llama-decode.sq --param B0=1000:40000,B1=0:400,B2=0:2000 "
               "--to " + RUN)
    source = open("examples/fit/llama-steps.sq", encoding="utf-8").read()
    if source.count("B2 * decode_context") != 1:
        fail("examples/fit/llama-steps.sq: not one 'B2 * decode_context' for the doc's sed to replace")
        return
    os.makedirs(os.path.join(scratch, "examples/fit"))
    os.makedirs(os.path.join(scratch, "examples/vllm"))
    os.symlink(os.path.abspath("examples/vllm/runs"), os.path.join(scratch, "examples/vllm/runs"))
    with open(os.path.join(scratch, "examples/fit/llama-decode.sq"), "w", encoding="utf-8") as f:
        f.write(source.replace("B2 * decode_context", "B2 * decode"))
    job = Fit(serq, "examples/fit/llama-decode.sq", "B0=1000:40000,B1=0:400,B2=0:2000", None, scratch)
    box = Fit(serq, "examples/fit/llama-decode.sq", "B0=1000:40000,B1=0:400,B2=0:2", None, scratch)
    job3 = Fit(serq, "examples/fit/llama-decode.sq", "B0=1000:40000,B1=0:400,B2=0:2000", MEANS, scratch)
    ctx3 = Fit(serq, "examples/fit/llama-steps.sq", "B0=1000:40000,B1=0:400,B2=0:2", MEANS)

    # The context form's fit at predict.sq's params (dev_run_test.sh holds
    # them to the fit's): the fit's run, one simulation.
    documented(doc, H, "serq fit examples/fit/llama-steps.sq --param B0=1000:40000,B1=0:400,B2=0:2 --to " + RUN)
    predict = dict(re.findall(r"^param (B[012]) = ([\d.eE+-]+);", open("examples/fit/predict.sq").read(), re.M))
    if sorted(predict) != ["B0", "B1", "B2"]:
        fail(f"examples/fit/predict.sq: params {sorted(predict)}, not B0, B1, B2")
        return
    flags = [x for k, v in sorted(predict.items()) for x in ["-D", f"{k}={v}"]]
    ctx = compare(serq, "examples/fit/llama-steps.sq", flags)
    if ctx:
        ctx.command += "  (predict.sq's params: the fit's, testdata/fit:dev_run_test)"

    name = "the fit: the tau line (predict.sq's params)"
    check_phrase(name, phrase(doc, H, r"tau = ([\d.]+) ms \+ ([\d.]+) us x prefill tokens \+ ([\d.]+) us x "
                                      r"decode context tokens"),
                 [("tau, B0 (ms)", float(predict["B0"]), US_MS), ("tau, B1 (µs)", float(predict["B1"]), 1),
                  ("tau, B2 (µs)", float(predict["B2"]), 1)], "examples/fit/predict.sq's params")

    name = "the fit: the fitted run's table"
    where, _, rows = find_table(doc, H, ["", "measured mean", "fitted mean", "error", "measured p90", "fitted p90",
                                      "error"])
    if where and ctx:
        for first, metric in [("TTFT", "ttft"), ("TPOT", "tpot"), ("E2E", "e2e")]:
            line, c = find_row(rows, first, where)
            if not line:
                continue
            values = [("measured mean", ctx.meas(metric, "mean")), ("fitted mean", ctx.sim(metric, "mean")),
                      ("error, mean (%)", ctx.err(metric + ".mean")),
                      ("measured p90", ctx.meas(metric, "p90")), ("fitted p90", ctx.sim(metric, "p90")),
                      ("error, p90 (%)", ctx.err(metric + ".p90"))]
            if len(c) != 7:
                fail(f"docs/examples.md:{line}: {len(c)} cells, the check expects 7")
                continue
            for cell, (what, value) in zip(c[1:], values):
                check(name, line, f"the fitted run's table, {first}, {what}", cell, value, ctx.command)

    name = "the fit: the context form's TPOT (after the table)"
    found = phrase(doc, H, r"comes within ([\d.]+)% at every figure")
    if found and ctx:
        check_bound(name, found[0][0], "the context form's TPOT, every figure", found[0][1],
                    [ctx.err("tpot." + f) for f in ["mean", "p50", "p90", "p95", "p99"]], ctx.command)

    name = "the fit: the per-job form, the B2=0:2 box, the three means"
    if job.compare:
        c = job.compare
        check_phrase(name, phrase(doc, H, r"finds B0 = ([\d.]+) ms, B1 = ([\d.]+) µs and B2 = ([\d.]+) µs "
                                          r"a decode job"),
                     [("per-job fit, B0 (ms)", job.params["B0"], US_MS), ("per-job fit, B1 (µs)", job.params["B1"], 1),
                      ("per-job fit, B2 (µs)", job.params["B2"], 1)], job.command)
        found = phrase(doc, H, r"([\d.]+)% RMSE on its four terms \(the context form: ([\d.]+)%\)")
        if found:
            check(name, found[0][0], "per-job fit, RMSE (%)", found[0][1], c.rmse(OBJECTIVE), c.command)
            if ctx:
                check(name, found[1][0], "the context form's fit, RMSE (%)", found[1][1], ctx.rmse(OBJECTIVE),
                      ctx.command)
        # "low": the doc's figure is the error's magnitude, the error negative.
        check_phrase(name, phrase(doc, H, r"TPOT, outside the objective, ([\d.]+)% low at the mean, ([\d.]+)% at "
                                          r"p90 and ([\d.]+)% at p99"),
                     [("per-job fit, TPOT mean, % low", -c.err("tpot.mean"), 1),
                      ("per-job fit, TPOT p90, % low", -c.err("tpot.p90"), 1),
                      ("per-job fit, TPOT p99, % low", -c.err("tpot.p99"), 1)], c.command)
        found = phrase(doc, H, r"is TPOT's tail, (\d+)% low with a cost a job")
        if found:
            for f in ["p90", "p99"]:
                check(name, found[0][0], f"per-job fit, TPOT's tail ({f}), % low", found[0][1], -c.err("tpot." + f),
                      c.command)
    if ctx:
        # "within 0.5% at the mean and every percentile (+0.13% to
        # +0.42%)": the context form's TPOT errors, the least and the
        # greatest of the five (the mean's is the least).
        tpot = [ctx.err("tpot." + f) for f in ["mean", "p50", "p90", "p95", "p99"]]
        found = phrase(doc, H, r"within ([\d.]+)% at the mean and every percentile\s+"
                               r"\(([+\u2212-]?[\d.]+)% to\s+([+\u2212-]?[\d.]+)%\)")
        if found:
            check_bound(name, found[0][0], "the context form's TPOT, the mean and every percentile", found[0][1],
                        tpot, ctx.command)
            check(name, found[1][0], "the context form's TPOT, least error (%)", found[1][1], min(tpot), ctx.command)
            check(name, found[2][0], "the context form's TPOT, greatest error (%)", found[2][1], max(tpot), ctx.command)
    if box.compare:
        c = box.compare
        check_phrase(name, phrase(doc, H, r"the same fit stops at B2 = ([\d.]+) µs with ([\d.]+)% RMSE and TPOT "
                                          r"([\d.]+)% low at the mean and ([\d.]+)% at p90"),
                     [("B2=0:2 box, B2 (µs)", box.params["B2"], 1), ("B2=0:2 box, RMSE (%)", c.rmse(OBJECTIVE), 1),
                      ("B2=0:2 box, TPOT mean, % low", -c.err("tpot.mean"), 1),
                      ("B2=0:2 box, TPOT p90, % low", -c.err("tpot.p90"), 1)], c.command)
    found = phrase(doc, H, r"the context form matches them within ([\d.]+)% and the per-job form, `B2=0:2000`, "
                           r"within ([\d.]+)%")
    if found:
        # "within": the largest of the three means' errors, rounded once.
        for (line, figure), fit, what in [(found[0], ctx3, "the context form"), (found[1], job3, "the per-job form")]:
            if fit.compare:
                check(name, line, f"fitted to the three means, {what}, largest error (%)", figure,
                      max(abs(fit.compare.err(t)) for t in MEANS), fit.compare.command)
    return ctx


def the_prediction(doc, serq, scratch, dev):
    H = "## The prediction"
    name = "the prediction: predict.sq, physics on other-workload.csv"
    documented(doc, H, "serq run examples/fit/predict.sq")
    argv = ["run", "--quantiles=50,99", "--format=json", "examples/fit/predict.sq"]
    out = serq(argv)
    if out:
        r = json.loads(out)
        obs = {o["name"]: o for o in r["observation"]}
        p99 = r["quantile"].index(99)
        check_phrase(name, phrase(doc, H, r"predicts TTFT ([\d.]+) ms mean \(p99 ([\d.]+) ms\), TPOT ([\d.]+) ms, "
                                          r"E2E ([\d.]+) s mean"),
                     [("predict.sq, TTFT mean (ms)", obs["ttft"]["mean"], MS),
                      ("predict.sq, TTFT p99 (ms)", obs["ttft"]["quantile"][p99], MS),
                      ("predict.sq, TPOT mean (ms)", obs["tpot"]["mean"], MS),
                      ("predict.sq, E2E mean (s)", obs["e2e"]["mean"], 1)], "serq " + " ".join(argv))
    if dev:
        # "where on the dev run it was 7 s of queueing": its measured TTFT mean.
        check_phrase(name, phrase(doc, H, r"where on the dev run it was (\d+) s of queueing"),
                     [("the dev run's measured TTFT mean (s)", dev.meas("ttft", "mean"), Decimal("0.001"))],
                     dev.command)

    physics = ["physics", "--model", "examples/fit/llama-3.1-8b.config.json", "--gpu",
               "examples/fit/rtxpro6000.hardware.json", "--max-num-seqs", "128", "--max-num-batched-tokens", "2048",
               "--replay", "examples/fit/other-workload.csv"]
    documented(doc, H, "serq " + " ".join(physics))
    program = serq(physics)
    if program is None:
        return
    path = os.path.join(scratch, "other-workload-physics.sq")
    with open(path, "w", encoding="utf-8") as f:
        f.write(program)
    # The corrections fitted to the dev run: the -D flags of the doc's
    # §Calibration that transfers (examples/physics/prediction_test.sh holds
    # the fit to them).
    first, text = doc.section("## Calibration that transfers")
    fitted = re.findall(r"-D (PHYS_\w+)=([\d.]+)", text)
    if sorted(k for k, _ in fitted) != ["PHYS_B1A", "PHYS_B2B", "PHYS_B3"]:
        fail(f"docs/examples.md:{first}: §Calibration that transfers gives {fitted}, not one -D each of "
             "PHYS_B1A, PHYS_B2B and PHYS_B3")
        fitted = None
    for pattern, flags, what in [
            (r"predicts TTFT ([\d.]+) ms, TPOT ([\d.]+) ms and E2E ([\d.]+) s on the same workload with BLIS's "
             r"corrections", [], "BLIS's corrections"),
            (r"and ([\d.]+) ms, ([\d.]+) ms and ([\d.]+) s with the corrections fitted to the dev run",
             [x for k, v in fitted for x in ["-D", f"{k}={v}"]] if fitted else None,
             "the corrections fitted to the dev run")]:
        if flags is None:
            continue
        argv = ["run", "--format=json", "--data-dir", os.getcwd(), path] + flags
        out = serq(argv)
        if not out:
            continue
        obs = {o["name"]: o for o in json.loads(out)["observation"]}
        command = "serq " + " ".join(physics) + " > P.sq; serq " + " ".join(argv).replace(path, "P.sq")
        check_phrase(name, phrase(doc, H, pattern),
                     [(f"physics, {what}, TTFT mean (ms)", obs["ttft"]["mean"], MS),
                      (f"physics, {what}, TPOT mean (ms)", obs["tpot"]["mean"], MS),
                      (f"physics, {what}, E2E mean (s)", obs["e2e"]["mean"], 1)], command)


def the_analytic(doc, serq):
    H = "## The analytic step time on the dev run"
    name = "the analytic step time: the table"
    documented(doc, H, "serq compare " + RUN + " examples/fit/llama-physics.sq")
    c = compare(serq, "examples/fit/llama-physics.sq", [])
    where, _, rows = find_table(doc, H, ["", "mean", "error", "p90", "error"])
    if not (where and c):
        return
    for first, metric in [("TTFT", "ttft"), ("TPOT", "tpot"), ("E2E", "e2e")]:
        line, cl = find_row(rows, first, where)
        if not line:
            continue
        if len(cl) != 5:
            fail(f"docs/examples.md:{line}: {len(cl)} cells, the check expects 5")
            continue
        for cell, (what, value) in zip(cl[1:], [("mean (ms)", c.sim(metric, "mean")),
                                                ("error, mean (%)", c.err(metric + ".mean")),
                                                ("p90 (ms)", c.sim(metric, "p90")),
                                                ("error, p90 (%)", c.err(metric + ".p90"))]):
            check(name, line, f"the analytic table, {first}, {what}", cell, value, c.command)
    found = phrase(doc, H, r"Within (\d+)% on every mean")
    if found:
        check_bound(name, found[0][0], "the analytic step time, every mean's error", found[0][1],
                    [c.err(m + ".mean") for m in ["ttft", "tpot", "e2e"]], c.command)


def main():
    args = arguments()
    doc = Doc(os.path.abspath(args.doc), SECTION, anywhere=("## Calibration",))
    os.chdir(args.root)
    serq = Serq(args.serq)
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        dev = the_fit(doc, serq, scratch)  # the context form's compare: its measured side is the dev run
        the_prediction(doc, serq, scratch, dev)
        the_analytic(doc, serq)
    consistency = checked.pop("(the compares are the fits' runs)", 0)
    return finish(f"docs/examples.md ({args.doc}), '{SECTION}' ({consistency} fits' runs reproduced by "
                  f"serq compare)")

if __name__ == "__main__":
    sys.exit(main())
