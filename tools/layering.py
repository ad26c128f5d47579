#!/usr/bin/env python3
"""Checks serq's layering from the includes themselves.

  tools/layering.py            check; print every violation, exit 1 on any
  tools/layering.py --arrows   also print the arrows between packages
  tools/layering.py --self-test  check that the check fails where it must

Every #include "..." of a .h or .cc file names a file of some package (the
nearest directory above it with a BUILD file). An arrow from package A to
package B must:
  - point down between top-level folders, by the ranks in LAYERS (the same
    layers as the package_groups of //:BUILD and docs/internals.md
    §Architecture): a folder may include a lower rank, or itself;
  - not close a cycle between packages (inside one top-level folder, e.g.
    serq-sim's rooms, the arrows must form a DAG).
Bazel's visibility already refuses a new upward dependency between targets;
this check covers what visibility cannot see (a header reached through a
dependency that exports it) and cycles between packages.
"""
import os
import re
import sys

# Rank of each top-level folder: an include may point to a lower rank or to
# the same folder.
LAYERS = {
    "proto": 0,
    "net": 0,
    "ir": 1,
    "text": 2,
    "stats": 2,
    "tables": 3,
    "chart": 3,
    "lang": 4,
    "diagram": 5,
    "serq-parse": 6,
    "serq-link": 6,
    "serq-sim": 6,
    "serq-report": 6,
    "serq-view": 6,
    "serq": 7,
    "bench": 8,
    "fuzz": 8,
    "testdata": 8,
    "examples": 8,
    "tools": 8,
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def package_of(path, packages):
    d = os.path.dirname(path)
    while d and d not in packages:
        d = os.path.dirname(d)
    return d


def check(root, show_arrows=False, quiet=False):
    """Returns the violations in the tree at `root`, printing a summary."""
    os.chdir(root)
    packages = set()
    sources = []
    for top in LAYERS:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if "BUILD" in filenames:
                packages.add(dirpath)
            sources += [os.path.join(dirpath, f) for f in sorted(filenames)
                        if f.endswith((".h", ".cc"))]
    # Generated headers (proto/*.pb.h) belong to their package too.
    errors = []
    arrows = {}
    for src in sources:
        pkg = package_of(src, packages)
        with open(src, encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            top = inc.split("/")[0]
            if top not in LAYERS:
                continue  # a system or third-party header
            target = package_of(inc, packages)
            if target == pkg:
                continue
            arrows.setdefault((pkg, target), []).append(src)
            src_top = pkg.split("/")[0]
            if src_top != top and LAYERS[top] >= LAYERS[src_top]:
                way = "sideways" if LAYERS[top] == LAYERS[src_top] else "upward"
                errors.append(f"{src}: includes \"{inc}\": {way}, from {src_top}/ "
                              f"(rank {LAYERS[src_top]}) to {top}/ (rank {LAYERS[top]})")
    # Cycles between packages (depth-first search over the arrows).
    graph = {}
    for a, b in arrows:
        graph.setdefault(a, set()).add(b)
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                errors.append("include cycle between packages: " + " -> ".join(cycle) +
                              f" (e.g. {arrows[(node, nxt)][0]})")
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)

    if show_arrows:
        for (a, b), files in sorted(arrows.items()):
            print(f"{a} -> {b} ({len(files)} files)")
    if quiet:
        return errors
    for e in errors:
        print("layering: " + e)
    print(f"layering: {len(sources)} files, {len(packages)} packages, "
          f"{len(arrows)} arrows between packages, {len(errors)} violations")
    return errors


def self_test():
    """A small tree with one arrow of each kind: the check must report the
    upward one, the sideways one and the cycle, and nothing else."""
    import tempfile
    files = {
        "ir/BUILD": "", "ir/io.h": "",
        "stats/BUILD": "", "stats/sketch.h": '#include "ir/io.h"\n',
        "stats/up.cc": '#include "serq-sim/engine/engine.h"\n',
        "serq-report/BUILD": "", "serq-report/x.cc": '#include "serq-view/y.h"\n',
        "serq-view/BUILD": "", "serq-view/y.h": '#include "stats/sketch.h"\n',
        "serq-sim/engine/BUILD": "", "serq-sim/engine/engine.h": '#include "serq-sim/pools/pool.h"\n',
        "serq-sim/pools/BUILD": "", "serq-sim/pools/pool.h": '#include "serq-sim/engine/engine.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        errors = check(root, quiet=True)
    want = ["stats/up.cc: includes \"serq-sim/engine/engine.h\": upward",
            "serq-report/x.cc: includes \"serq-view/y.h\": sideways",
            "include cycle between packages: serq-sim/engine -> serq-sim/pools -> serq-sim/engine"]
    missing = [w for w in want if not any(e.startswith(w) for e in errors)]
    if missing or len(errors) != len(want):
        print("layering: self-test FAILED: missing", missing, "got", errors)
        return 1
    print("layering: self-test passed")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return 1 if check(root, "--arrows" in sys.argv) else 0


if __name__ == "__main__":
    sys.exit(main())
