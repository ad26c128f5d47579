#!/usr/bin/env bash
# docs/examples.md's figures held to the commands that make them: each table
# below is read from the doc (its rows found by their first cells), its
# documented command run, and every figure compared with the run's at the
# precision the doc prints it (doc_figures.py says how; the doc's ms are the
# tool's seconds x 1000). The tables:
#   §1  table 1, ttft p50 / p99 (pull, push, colocated as they stand)
#   §2  table 2, all four rows (400 and 25 Gb/s, maxmin and bottleneck)
#       (-D NicGbps=25, --share=bottleneck)
#   §3  table 3 in full (-D KvCapD=50000, pull and push)
#   §5  the colocated table's "reserve, 30k" and "vLLM, full" columns, the
#       pull table's "reserve, 55k" and "vLLM, full", and the KvCapD sweep's
#       rows at 20k, 40k, 100k and 396k (serq sweep + serq run, both variants)
#   prefix caching: the shared-prompt table's Route 0 and 1 rows, and the
#       weighted score's figures (Route 2 with the doc's choose line)
# A mismatch names the doc's line, its figure and the run's; the last lines
# count the figures checked. About 35 simulations of well under a second.
#
#   doc_figures_test.sh [DOC]     (or DOC in $EXAMPLES_DOC)
#
# DOC defaults to the runfiles' docs/examples.md; another path (a copy with
# a figure changed) shows the test failing (under Bazel: --test_arg=PATH or
# --test_env=EXAMPLES_DOC=PATH, absolute). Outside Bazel it runs from the
# repository it is in, with `serq` on the PATH.
set -u

if [ -n "${TEST_SRCDIR:-}" ]; then
  root=$TEST_SRCDIR/serq            # the workspace 'serq' in the runfiles
  serq=$root/serq/serq
else
  root=$(cd "$(dirname "$0")/../.." && pwd)
  serq=$(command -v serq) || { echo "serq is not on the PATH" >&2; exit 2; }
fi
doc=${1:-${EXAMPLES_DOC:-$root/docs/examples.md}}
case $doc in /*) ;; *) doc=$PWD/$doc ;; esac
[ -f "$doc" ] || { echo "no doc at $doc" >&2; exit 2; }
[ -x "$serq" ] || { echo "no serq at $serq" >&2; exit 2; }
export SERQ_PROGRESS=0  # no progress line on stderr (docs/cli.md)

cd "$root" || exit 2
exec python3 "$root/testdata/examples/doc_figures.py" --serq "$serq" --doc "$doc" --root "$root"
