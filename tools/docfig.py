"""What the doc-figure tests share (testdata/examples/doc_figures.py,
testdata/fit/doc_figures.py): a figure of docs/examples.md against the run
that makes it, the failures and counts, and the summary.

The rule: a figure passes when it is the run's value rounded once to the
digits the doc prints (|doc - value| <= half a unit of its last digit). A
figure rounded twice (the text report's 4 decimals, then the doc's: 0.0395
printed for 0.03947 made "0.040") fails: the doc gives the value rounded
once. Units are converted by the caller (`scale`: the doc's ms from the
tool's seconds is 1000).
"""
import argparse
import re
from decimal import ROUND_HALF_UP, Decimal

failures = []
checked = {}  # table or paragraph -> count of figures checked

MS = 1000  # scale: the doc's ms from the tool's seconds


def arguments():
    """The tests' command line: --serq BIN --doc DOC [--root DIR]."""
    a = argparse.ArgumentParser()
    a.add_argument("--serq", required=True)
    a.add_argument("--doc", required=True)
    a.add_argument("--root", default=".")
    return a.parse_args()


def fail(message):
    failures.append(message)
    print("FAIL " + message)


def cells(line):
    """A markdown table row's cells, stripped."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def number(text):
    """A doc figure as a plain decimal: the minus sign (−) as '-', a '+',
    a unit and a thousands comma dropped ("−0.18%" -0.18, "7,607.0 ms"
    7607.0); None if it is no number."""
    s = re.sub(r"\s*(%|ms|s|µs|us)$", "", text.strip()).replace("\u2212", "-").lstrip("+")
    if not re.fullmatch(r"-?\d[\d,]*(\.\d+)?", s):
        return None
    return s.replace(",", "")


def check(table, line, what, doc, value, command, scale=1):
    """The doc's figure `doc` against the run's `value` (the doc's unit is
    `scale` times the value's), rounded once to the doc's digits; a word
    (a verdict) equal as written."""
    checked[table] = checked.get(table, 0) + 1
    if isinstance(value, str):
        if doc != value:
            fail(f"docs/examples.md:{line}: {what}: the doc says {doc}, the run gives {value} — {command}")
        else:
            print(f"ok   docs/examples.md:{line}: {what}: {doc}")
        return
    s = number(doc)
    if s is None:
        fail(f"docs/examples.md:{line}: {what}: the doc's '{doc}' is not a number — {command}")
        return
    d = Decimal(s)
    places = max(0, -d.as_tuple().exponent)
    unit = Decimal(1).scaleb(-places)
    v = Decimal(repr(float(value))) * Decimal(scale)
    once = v.quantize(unit, rounding=ROUND_HALF_UP)
    if abs(d - v) <= unit / 2 * (1 + Decimal("1e-12")):
        print(f"ok   docs/examples.md:{line}: {what}: {doc}")
        return
    fail(f"docs/examples.md:{line}: {what}: the doc says {doc}, the run gives {once} ({float(v)!r}) — {command}")


def finish(title):
    """Prints the counts under `title` and the verdict; the exit status (1
    on any failure, or when nothing was checked)."""
    total = sum(checked.values())
    print(f"{title}: {total} figures checked:")
    for table, count in checked.items():
        print(f"  {count:3}  {table}")
    print(f"{len(failures)} mismatch(es)" if failures else "all equal")
    return 1 if failures or total == 0 else 0
