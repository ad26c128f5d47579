#!/usr/bin/env bash
# Each golden chart renders with rsvg-convert (librsvg, as a browser would
# draw it: the SVG uses attributes only) at its declared size, and each of
# its charts (kPlotHeight = 280 px tall, one under the other) has coloured
# pixels -- its lines, never grey grid or black ink -- inside its plot area
# (x 71..553, y 35..235 of the chart: serq-view/chart.cc's margins).
set -u
root=${TEST_SRCDIR:-$PWD}/serq
cd "$root/testdata/plot" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
command -v rsvg-convert >/dev/null || { echo "rsvg-convert missing (apt-get install librsvg2-bin)"; exit 1; }
for svg in *.svg; do
  png="$tmp/${svg%.svg}.png"
  if ! rsvg-convert "$svg" -o "$png" 2>"$tmp/err"; then
    echo "FAIL $svg: rsvg-convert: $(cat "$tmp/err")"
    failures=$((failures + 1))
    continue
  fi
  PYTHONPATH="$root/tools" python3 - "$svg" "$png" <<'PY' || failures=$((failures + 1))
import re, sys
import png_pixels
svg, png = sys.argv[1], sys.argv[2]
text = open(svg).read()
w, h = map(int, re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', text).groups())
width, height, rows = png_pixels.read(png)
ok = (width, height) == (w, h)
if not ok:
    print(f"FAIL {svg}: rendered {width}x{height}, declared {w}x{h}")
for k in range(h // 280):
    y0 = 280 * k
    coloured = sum(1 for y in range(y0 + 35, y0 + 235) for x in range(71, 553)
                   if rows[y][x][3] > 0 and max(rows[y][x][:3]) - min(rows[y][x][:3]) > 40)
    if coloured < 50:
        print(f"FAIL {svg}: chart {k} has {coloured} coloured pixels in its plot area")
        ok = False
sys.exit(0 if ok else 1)
PY
done
[ "$failures" -eq 0 ] && echo "plot render: every chart renders with its lines"
[ "$failures" -eq 0 ]
