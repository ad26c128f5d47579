#!/usr/bin/env python3
"""The docs stand alone: no reference to a document outside the repository.

serq's docs (docs/*.md, README.md) were written against specifications kept
outside the repository (the language's first draft, "the seed", and the
toolchain and engine specifications). A reader has only the repository, so
every rule those pointed at is in docs/ (docs/simulation.md, docs/report.md,
docs/language.md), and this check keeps it so: it prints each line that
names one of them and exits 1. The random seed (`--seed`, "the seed of
replication r") is not such a reference and is not matched.

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
    re.compile(r"\bthe seed(?:'s\b|\)|\s+(?:leaves|says|defines|specifies|exactly))"),
]


def references(text):
    """(line number, line) of each line that cites an outside document."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if any(p.search(line) for p in PATTERNS):
            found.append((n, line))
    return found


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
    bad = [t for t in must if not references(t)] + [t for t in must_not if references(t)]
    for t in bad:
        print(f"docs_refs self-test: wrong verdict on: {t}")
    print(f"docs_refs self-test: {len(must) + len(must_not)} cases, {len(bad)} wrong")
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
    print(f"docs_refs: {len(files)} files, {count} references")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
