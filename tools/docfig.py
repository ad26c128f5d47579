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
import shlex
import subprocess
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


class Doc:
    """docs/examples.md, read by its headings: `top` is the section ("# ...")
    whose subsections the tests name; a subsection whose heading starts with
    one of `anywhere` is found wherever it is."""

    def __init__(self, path, top, anywhere=()):
        self.lines = open(path, encoding="utf-8").read().split("\n")
        self.top, self.anywhere = top, anywhere

    def section(self, heading):
        """The section `top` (heading `top`) or its subsection `heading`
        ("## ...", the first after `top`: "## Cost" is also an earlier
        section's): (first line number, its text up to the next heading of
        level 1 or 2; a fenced block's "#" is no heading)."""
        begin = 0
        if not heading.startswith(tuple(self.anywhere)):
            begin = next((i for i, l in enumerate(self.lines) if l.strip() == self.top), None)
            if begin is None:
                fail(f"docs/examples.md: no heading '{self.top}'")
                return None, ""
        start = next((i for i in range(begin, len(self.lines)) if self.lines[i].startswith(heading)), None)
        if start is None:
            fail(f"docs/examples.md: no heading '{heading}' (after line {begin + 1})")
            return None, ""
        fence, end = False, len(self.lines)
        for i in range(start + 1, len(self.lines)):
            s = self.lines[i]
            if s.strip().startswith("```"):
                fence = not fence
            elif not fence and re.match(r"#{1,2} ", s):
                end = i
                break
        return start + 1, "\n".join(self.lines[start:end])

    def block(self, heading, first):
        """The fenced block under `heading` whose first line matches
        `first`: [(line number, line)]."""
        start, text = self.section(heading)
        if start is None:
            return []
        found, fence, current = [], False, None
        for k, line in enumerate(text.split("\n")):
            if line.strip().startswith("```"):
                fence = not fence
                current = [] if fence else None
                if fence:
                    found.append(current)
            elif fence:
                current.append((start + k, line))
        found = [b for b in found if b and re.match(first, b[0][1])]
        if len(found) != 1:
            fail(f"docs/examples.md:{start}: {len(found)} blocks under '{heading}' starting /{first}/ (expected one)")
            return []
        return found[0]


def find_table(doc, heading, header):
    """The table under `heading` whose header row matches `header`, cell for
    cell (a string: the cell as written; a compiled pattern: a cell it
    matches whole): (line of its header, its header's cells, [(line number,
    cells)])."""
    first, text = doc.section(heading)
    if first is None:
        return None, [], []
    found, table = [], None
    for k, line in enumerate(text.split("\n")):
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and len(s) > 1:
            c = cells(s)
            if table is None:
                table = (first + k, c, [])
                found.append(table)
            elif not all(re.fullmatch(r":?-+:?", x) for x in c):
                table[2].append((first + k, c))
        else:
            table = None

    def matches(h, c):
        return h.fullmatch(c) is not None if isinstance(h, re.Pattern) else h == c

    found = [t for t in found if len(t[1]) == len(header) and all(matches(h, c) for h, c in zip(header, t[1]))]
    if len(found) != 1:
        shown = " | ".join(h.pattern if isinstance(h, re.Pattern) else h for h in header)
        fail(f"docs/examples.md: {len(found)} tables under '{heading}' with the header | {shown} | (expected one)")
        return None, [], []
    return found[0]


def find_row(rows, first, where):
    """The row whose first cell is `first`: (line number, cells)."""
    found = [(n, c) for n, c in rows if c and c[0] == first]
    if len(found) != 1:
        fail(f"docs/examples.md: {len(found)} rows '{first}' in the table at line {where} (expected one)")
        return None, []
    return found[0]


def phrase(doc, heading, pattern):
    """The figures of prose: `pattern` (its spaces match any white space, a
    line's end too) must match once in the subsection; its groups, each with
    its line: [(line, figure)]."""
    first, text = doc.section(heading)
    if first is None:
        return None
    rx = re.compile(pattern.replace(" ", r"\s+"))
    found = list(rx.finditer(text))
    if len(found) != 1:
        fail(f"docs/examples.md:{first}: {len(found)} matches of /{pattern}/ under '{heading}' (expected one)")
        return None
    m = found[0]
    return [(first + text.count("\n", 0, m.start(g)), m.group(g)) for g in range(1, len(m.groups()) + 1)]


def shell(argv):
    """`serq ARGV` as a shell would read it."""
    return "serq " + " ".join(shlex.quote(a) for a in argv)


def stated(text, command):
    """Whether `text` gives `command` whole: a line of a fenced block (its
    continuation lines joined; a `$ ` prompt and a `# comment` dropped; with
    its last `> FILE` or without) or a span in backticks (over lines) that
    is the command and no more, whose other arguments would make other
    figures."""
    want = " ".join(command.split())
    said = []
    fence = False
    for line in text.replace("\\\n", " ").split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
        elif fence:
            line = re.sub(r"\s+#.*$", "", line.strip()).removeprefix("$ ")
            said += [line, re.sub(r"\s+>\s*\S+$", "", line)]
    said += re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return any(" ".join(x.split()) == want for x in said)


def documented(doc, heading, command):
    """The doc gives `command` under `heading`: a test that ran another
    command would hold nothing."""
    first, text = doc.section(heading)
    if first is not None and not stated(text, command):
        fail(f"docs/examples.md:{first}: '{heading}' does not give the command this test runs: {command}")


def run_serq(serq, argv, cwd=None, status=0):
    """`serq ARGV` (in `cwd`): its completed process, or None (and a
    failure naming the command) on an exit status other than `status`."""
    p = subprocess.run([serq] + argv, capture_output=True, text=True, timeout=300, cwd=cwd)
    if p.returncode != status:
        fail(f"{shell(argv)}: exit {p.returncode} (expected {status}): {p.stderr.strip()[:500]}")
        return None
    return p


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


def check_bound(table, line, what, doc, values, command):
    """"Within `doc`%": every value's magnitude at most the doc's figure."""
    checked[table] = checked.get(table, 0) + 1
    s = number(doc)
    worst = max(abs(v) for v in values)
    if s is None:
        fail(f"docs/examples.md:{line}: {what}: the doc's '{doc}' is not a number — {command}")
    elif worst <= float(s):
        print(f"ok   docs/examples.md:{line}: {what}: within {doc} (at most {worst:.4g})")
    else:
        fail(f"docs/examples.md:{line}: {what}: the doc says within {doc}, the run's largest is {worst!r} — {command}")


def check_phrase(table, found, items, command):
    """The figures of a phrase() against `items`: (what, value, scale) for
    each group, in order (a str value: the word as written)."""
    if found is None:
        return
    if len(found) != len(items):
        fail(f"docs/examples.md:{found[0][0] if found else '?'}: {len(found)} figures, the check expects {len(items)}")
        return
    for (line, doc), (what, value, scale) in zip(found, items):
        check(table, line, what, doc, value, command, scale)


def finish(title):
    """Prints the counts under `title` and the verdict; the exit status (1
    on any failure, or when nothing was checked)."""
    total = sum(checked.values())
    print(f"{title}: {total} figures checked:")
    for table, count in checked.items():
        print(f"  {count:3}  {table}")
    print(f"{len(failures)} mismatch(es)" if failures else "all equal")
    return 1 if failures or total == 0 else 0
