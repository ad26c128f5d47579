#!/usr/bin/env bash
# docs/img/egress.svg, the picture in docs/view.md, is the egress golden:
# when the drawing changes on purpose, copy the new golden there.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
if ! cmp "$root/docs/img/egress.svg" "$root/testdata/view/egress.svg"; then
  echo "docs/img/egress.svg differs from testdata/view/egress.svg: cp the golden to docs/img"
  exit 1
fi
