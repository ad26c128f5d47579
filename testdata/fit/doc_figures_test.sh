#!/usr/bin/env bash
# docs/examples.md §Fitting a step time ("# Examples: fitting a step time"):
# its figures read from the doc and held to the commands that make them,
# each equal to the run's value rounded once to the digits the doc prints
# (doc_figures.py says how; testdata/examples/doc_figures_test.sh does the
# same for the doc's other sections). What it holds:
#   The fit: the per-job form's fit (B2 * decode, B2=0:2000) and the same
#     in the B2=0:2 box: params, RMSE, TPOT's errors; both forms fitted to
#     the three means; the context form's tau line and fitted-run table at
#     predict.sq's params (its fit is dev_run_test's, not run again here)
#   The prediction: predict.sq's TTFT / p99 / TPOT / E2E, serq physics on
#     other-workload.csv with BLIS's corrections and with the fitted ones
#   The analytic step time on the dev run: the table, in full
# A mismatch names the doc's line, its figure, the run's figure and the
# command; the last lines count the figures checked. Four fits of about
# 500 simulations each (2 to 5 CPU seconds apiece) and a few single runs:
# about 15 CPU seconds.
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
exec python3 "$root/testdata/fit/doc_figures.py" --serq "$serq" --doc "$doc" --root "$root"
