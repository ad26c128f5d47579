#!/usr/bin/env bash
# The runner of the doc-figure tests: SCRIPT (a doc_figures.py, relative to
# the repository's root) checks docs/examples.md's figures against the runs
# that make them, with tools/docfig.py's rule (a figure is the run's value
# rounded once to the digits the doc prints).
#
#   doc_figures_test.sh SCRIPT [DOC]     (or DOC in $EXAMPLES_DOC)
#
# DOC defaults to the runfiles' docs/examples.md; another path (a copy with
# a figure changed) shows the test failing (under Bazel: --test_arg=PATH or
# --test_env=EXAMPLES_DOC=PATH, absolute). Outside Bazel it runs from the
# repository it is in, with `serq` on the PATH.
set -u

script=${1:?usage: doc_figures_test.sh SCRIPT [DOC]}
if [ -n "${TEST_SRCDIR:-}" ]; then
  root=$TEST_SRCDIR/serq            # the workspace 'serq' in the runfiles
  serq=$root/serq/serq
else
  root=$(cd "$(dirname "$0")/.." && pwd)
  serq=$(command -v serq) || { echo "serq is not on the PATH" >&2; exit 2; }
fi
doc=${2:-${EXAMPLES_DOC:-$root/docs/examples.md}}
case $doc in /*) ;; *) doc=$PWD/$doc ;; esac
[ -f "$doc" ] || { echo "no doc at $doc" >&2; exit 2; }
[ -x "$serq" ] || { echo "no serq at $serq" >&2; exit 2; }
export SERQ_PROGRESS=0  # no progress line on stderr (docs/cli.md)

cd "$root" || exit 2
PYTHONPATH=$root/tools exec python3 "$root/$script" --serq "$serq" --doc "$doc" --root "$root"
