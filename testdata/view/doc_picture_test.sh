#!/usr/bin/env bash
# The pictures in the docs are goldens of this suite: docs/img/egress.svg
# (docs/view.md) is egress.svg, docs/img/pd-pull.svg (docs/cli.md) is
# pd-llmd_nixl_pull.svg, docs/img/view-step.svg (docs/view.md §Results) is
# results/step.svg. When the drawing changes on purpose, copy the new
# goldens there.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
failed=0
check() {
  if ! cmp "$root/docs/img/$1" "$root/testdata/view/$2"; then
    echo "docs/img/$1 differs from testdata/view/$2: cp the golden to docs/img/$1"
    failed=1
  fi
}
check egress.svg egress.svg
check pd-pull.svg pd-llmd_nixl_pull.svg
check view-step.svg results/step.svg
exit $failed
