#!/usr/bin/env python3
"""The docs and the code stand alone: no reference to a document outside
the repository.

serq's docs (docs/*.md, README.md) were written against specifications kept
outside the repository (the language's first draft, "the seed", and the
toolchain and engine specifications). A reader has only the repository, so
every rule those pointed at is in docs/ (docs/simulation.md, docs/report.md,
docs/language.md), and this check keeps it so: it prints each line that
names one of them and exits 1. The random seed (`--seed`, "the seed of
replication r") is not such a reference and is not matched.

The code's comments are held to the same (the sources, headers, scripts,
BUILD files and .sq programs outside bazel-*), and each citation of a
section of the docs, `docs/NAME.md §Heading` or `§3.3`, must name a file
that exists and a heading it has, so that a comment sends its reader
somewhere real.

    python3 tools/docs_refs.py              # "docs_refs: N files, 0 references"
    python3 tools/docs_refs.py --self-test  # the patterns catch what they must
"""
import pathlib
import re
import sys

# A document outside the repository, named or cited.
PATTERNS = [
    re.compile(r"\bengine\.md\b"),
    re.compile(r"\btoolchain\.md\b"),
    re.compile(r"\bstyle\.md\b"),
    re.compile(r"/work/shared\b"),
    re.compile(r"\bspec/(language|toolchain|engine)\b"),
    # "the seed" as a document: "the seed's link rule", "(the seed)", "the
    # seed leaves", but not "the seed of", "the seed it has", "the seed must".
    re.compile(r"\(seed:"),
    re.compile(r"\bthe seed(?:'s\b|\)|:|\s+(?:leaves|says|defines|specifies|exactly))"),
]

# The code whose comments are checked too (this file is not: its patterns
# and self-test name what they catch).
CODE_SUFFIXES = (".cc", ".h", ".sh", ".py", ".sq")

# A citation of a section of the docs: "docs/simulation.md §Prefix caches",
# "docs/language.md §3.3". The heading is matched as a prefix of the words
# that follow, since a comment's sentence runs on after it.
CITATION = re.compile(r"docs/([a-z_]+\.md) §([0-9][0-9.]*[0-9]|[0-9]+|[A-Z][^,;:()\n]*)")


def references(text):
    """(line number, line) of each line that cites an outside document."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if any(p.search(line) for p in PATTERNS):
            found.append((n, line))
    return found


def doc_headings(root):
    """{"simulation.md": [section name, ...]} for every file of docs/: its
    headings and the bold leads of its paragraphs ("**Charts.** ...")."""
    out = {}
    for f in sorted((root / "docs").glob("*.md")):
        names = []
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                names.append(line.lstrip("#").strip())
            elif line.startswith("**") and ".**" in line:
                names.append(line[2:line.index(".**")])
        out[f.name] = names
    return out


def section_names(heading):
    """What a heading may be cited as: whole, without its number ("11.
    Static rules": "Static rules"), or after its colon ("Examples: fitting
    a step time": "fitting a step time"); lower case."""
    names = {heading.lower()}
    words = heading.split(" ", 1)
    if len(words) == 2 and words[0].rstrip(".").replace(".", "").isdigit():
        names.add(words[1].lower())
    if ": " in heading:
        names.add(heading.split(": ", 1)[1].lower())
    return names


def bad_citations(line, headings):
    """The citations in `line` of a docs file or section that does not exist."""
    bad = []
    for m in CITATION.finditer(line):
        name, section = m.group(1), m.group(2).strip()
        if name not in headings:
            bad.append(m.group(0))
        elif section[0].isdigit():
            # "§3.3" is the heading "3.3 stage"; "§1" the heading "1. A first program".
            if not any(h.split(" ")[0].rstrip(".") == section for h in headings[name]):
                bad.append(m.group(0))
        else:
            wanted = section.lower()
            if not any(wanted.startswith(n) or n.startswith(wanted)
                       for h in headings[name] for n in section_names(h)):
                bad.append(m.group(0))
    return bad


def code_files(root):
    """The files whose comments are checked, in a stable order."""
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root)
        if rel.parts[0].startswith("bazel-") or rel.parts[0].startswith("."):
            continue
        if f.is_file() and (f.suffix in CODE_SUFFIXES or f.name == "BUILD") and f.name != "docs_refs.py":
            yield f


def self_test():
    must = [
        "the rules (engine.md §3)",
        "toolchain.md §4 is the specification",
        "Example (the seed's): stage A",
        "in pull mode (the seed): 2 prefill",
        "the seed leaves the choice to the program",
        "see /work/shared/spec/engine.md",
    ]
    must_not = [
        "the seed of replication r",
        "replication with the seed it has in a run of R replications",
        "the seed must be a whole number from 0 to 2^53",
        "seeded by StreamSeed(seed, r) (SplitMix64 of the seed, mixed with r",
        "docs/simulation.md §Prefix caches",
    ]
    must += ["posted by the prefiller (the seed: a WRITE)", 'among flows (seed: "A transfer']
    bad = [t for t in must if not references(t)] + [t for t in must_not if references(t)]
    headings = {"simulation.md": ["Prefix caches", "The LLM engine as vLLM runs it"],
                "language.md": ["3.3 stage", "11. Static rules"]}
    cited_ok = ["docs/simulation.md §Prefix caches, case (a)", "docs/language.md §3.3: attention",
                "(docs/simulation.md §The LLM engine as vLLM runs it's example)",
                "docs/language.md §11 (the link rule)"]
    cited_bad = ["docs/simulation.md §Prefix cache lines", "docs/language.md §3.9",
                 "docs/nowhere.md §Anything"]
    bad += [t for t in cited_ok if bad_citations(t, headings)]
    bad += [t for t in cited_bad if not bad_citations(t, headings)]
    for t in bad:
        print(f"docs_refs self-test: wrong verdict on: {t}")
    cases = len(must) + len(must_not) + len(cited_ok) + len(cited_bad)
    print(f"docs_refs self-test: {cases} cases, {len(bad)} wrong")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(__file__).resolve().parent.parent
    files = sorted((root / "docs").glob("*.md")) + [root / "README.md"]
    count = 0
    for f in files:
        for n, line in references(f.read_text(encoding="utf-8")):
            print(f"{f.relative_to(root)}:{n}: cites a document outside the repository: {line.strip()}")
            count += 1
    headings = doc_headings(root)
    code = list(code_files(root))
    cited = 0
    for f in code:
        text = f.read_text(encoding="utf-8", errors="replace")
        for n, line in references(text):
            print(f"{f.relative_to(root)}:{n}: cites a document outside the repository: {line.strip()}")
            count += 1
        # A citation may wrap onto the next line: join each line with the next.
        lines = text.splitlines()
        for n, line in enumerate(lines, 1):
            if "docs/" not in line:
                continue
            joined = line.rstrip() + " " + (lines[n].lstrip(" /#") if n < len(lines) else "")
            for b in bad_citations(joined, headings):
                if b.split(" §")[0] in line or line.rstrip().endswith(b.split(" §")[0]):
                    print(f"{f.relative_to(root)}:{n}: cites no section the docs have: {b}")
                    count += 1
            cited += len(CITATION.findall(line))
    print(f"docs_refs: {len(files)} docs and {len(code)} code files, {cited} citations of the docs "
          f"checked, {count} references")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
