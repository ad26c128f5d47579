#!/usr/bin/env python3
"""Walks a doc's terminal sessions as written: the README's quick start.

  quickstart_test.py [DOC HEADING]   (default: README.md "## Quick start")

Every fenced block under the section whose heading starts with HEADING is a
terminal session: a line "$ CMD" (a line ending in "\\" continued by the
next) is run with bash (serq on the PATH, in a
scratch folder where examples/ is the repository's), and the lines after
it, up to the next "$ " line or the block's end, are what CMD must print:
each line, in order, must be a line of the command's output (standard
output, then standard error), except "..." which stands for any lines. A
command must exit 0. The README's figures are thus the tool's own, byte
for byte, whenever the suite passes. Commands run in the order written, so
a later one may read a file an earlier one wrote.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def blocks(doc, heading):
    inside_section = inside_block = False
    block = []
    for line in open(doc, encoding="utf-8").read().split("\n"):
        if line.startswith("## ") or line.startswith("# "):
            inside_section = line.strip().startswith(heading)
            continue
        if not inside_section:
            continue
        if line.startswith("```"):
            if inside_block:
                yield block
                block = []
            inside_block = not inside_block
        elif inside_block:
            block.append(line)


def commands(block):
    cmd, expected = None, []
    continued = False
    for line in block:
        if continued:
            cmd = cmd[:-1] + " " + line.strip()
            continued = cmd.endswith("\\")
        elif line.startswith("$ "):
            if cmd is not None:
                yield cmd, expected
            cmd, expected = line[2:], []
            continued = cmd.endswith("\\")
        elif cmd is not None:
            expected.append(line.rstrip())
    if cmd is not None:
        yield cmd, expected


def first_missing(expected, actual):
    """The first expected line not found, in order, among the actual ones."""
    at = 0
    for want in expected:
        if want in ("...", ""):
            continue
        while at < len(actual) and actual[at] != want:
            at += 1
        if at == len(actual):
            return want
        at += 1
    return None


def main():
    root = os.path.join(os.environ["TEST_SRCDIR"], "serq")
    serq = os.path.join(root, "serq", "serq")
    scratch = tempfile.mkdtemp()
    bindir = os.path.join(scratch, "bin")
    os.mkdir(bindir)
    os.symlink(serq, os.path.join(bindir, "serq"))
    os.symlink(os.path.join(root, "examples"), os.path.join(scratch, "examples"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    ran = failed = 0
    doc, heading = sys.argv[1:3] if len(sys.argv) == 3 else ("README.md", "## Quick start")
    for block in blocks(os.path.join(root, doc), heading):
        for cmd, expected in commands(block):
            ran += 1
            p = subprocess.run(["bash", "-c", cmd], cwd=scratch, env=env,
                               capture_output=True, text=True, timeout=600)
            actual = [l.rstrip() for l in (p.stdout + p.stderr).split("\n")]
            missing = first_missing(expected, actual)
            if p.returncode != 0:
                failed += 1
                print(f"FAIL $ {cmd}: exit {p.returncode}\n{p.stderr}")
            elif missing is not None:
                failed += 1
                print(f"FAIL $ {cmd}: {doc} shows a line it did not print (in order):\n"
                      f"  {missing}\nit printed:\n" + "\n".join(actual))
            else:
                print(f"ok   $ {cmd}")
    shutil.rmtree(scratch)
    if ran == 0:
        print(f"FAIL: {doc} has no commands under '{heading}'")
        return 1
    print(f"{ran} commands, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
