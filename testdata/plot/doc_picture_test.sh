#!/usr/bin/env bash
# docs/img/plot-cdf.svg, plot-cdf-sketch.svg and plot-series.svg
# (docs/view.md §Plots) are goldens of this suite, and sweep-chart.svg
# (§Charts) the sweep's chart golden, byte for byte.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
status=0
for pair in plot-cdf.svg:plot/cdf.svg plot-cdf-sketch.svg:plot/cdf-sketch.svg \
    plot-series.svg:plot/series.svg sweep-chart.svg:sweep/mm1-chart.svg; do
  doc=${pair%%:*} golden=${pair##*:}
  if ! cmp "$root/docs/img/$doc" "$root/testdata/$golden"; then
    echo "docs/img/$doc differs from testdata/$golden: cp the golden to docs/img/$doc"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "the docs' plots are the goldens"
exit "$status"
