#!/usr/bin/env bash
# Regenerates every golden file on purpose: runs each golden suite in update
# mode, which rewrites the expected files in the source tree. Review the
# diff (git diff testdata/) before committing: a golden is only as good as
# the hand check behind it.
#   tools/update-goldens.sh                # every suite
#   tools/update-goldens.sh parse link     # only these suites
set -eu
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  targets=$(bazel query 'attr(name, "_golden$", tests(//testdata/...))' 2>/dev/null)
else
  targets=""
  for s in "$@"; do targets="$targets $(bazel query "attr(name, \"_golden\$\", tests(//testdata/$s/...))" 2>/dev/null)"; done
fi
for t in $targets; do
  echo "== $t"
  SERQ_UPDATE_GOLDENS=1 bazel run "$t" 2>/dev/null | tail -1
done
git status --short testdata/
