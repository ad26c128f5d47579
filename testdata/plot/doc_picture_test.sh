#!/usr/bin/env bash
# docs/img/plot-cdf.svg and plot-series.svg (docs/view.md §Plots) are
# goldens of this suite, cdf.svg and series.svg, byte for byte.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
status=0
for pair in plot-cdf.svg:cdf.svg plot-series.svg:series.svg; do
  doc=${pair%%:*} golden=${pair##*:}
  if ! cmp "$root/docs/img/$doc" "$root/testdata/plot/$golden"; then
    echo "docs/img/$doc differs from testdata/plot/$golden: cp the golden to docs/img/$doc"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "the docs' plots are the goldens"
exit "$status"
