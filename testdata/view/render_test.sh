#!/usr/bin/env bash
# Every golden SVG of the view renders with librsvg: rsvg-convert exits 0
# and writes a PNG whose size is the SVG's width and height (at 1 px per
# unit), so a drawing that librsvg cannot parse, or that it draws at a
# size other than the one the view declared, fails here.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
cd "$root/testdata/view" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v rsvg-convert >/dev/null || { echo "rsvg-convert is not installed (librsvg2-bin)"; exit 1; }

checked=0 failed=0
for svg in *.svg results/*.svg; do
  png="$tmp/out.png"
  rm -f "$png"
  if ! rsvg-convert -o "$png" "$svg" 2>"$tmp/err"; then
    echo "FAIL $svg: rsvg-convert failed: $(cat "$tmp/err")"
    failed=$((failed + 1)); continue
  fi
  if [ -s "$tmp/err" ]; then
    echo "FAIL $svg: rsvg-convert warned: $(cat "$tmp/err")"
    failed=$((failed + 1)); continue
  fi
  # The PNG signature, then IHDR's width and height (big-endian, bytes 16-23).
  sig=$(od -An -tx1 -N8 "$png" | tr -d ' \n')
  if [ "$sig" != "89504e470d0a1a0a" ]; then
    echo "FAIL $svg: not a PNG ($sig)"
    failed=$((failed + 1)); continue
  fi
  read -r w1 w2 w3 w4 h1 h2 h3 h4 < <(od -An -tu1 -j16 -N8 "$png")
  width=$(( (w1 << 24) | (w2 << 16) | (w3 << 8) | w4 ))
  height=$(( (h1 << 24) | (h2 << 16) | (h3 << 8) | h4 ))
  want_w=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$svg")
  want_h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$svg")
  if [ -z "$want_w" ] || [ "$width" != "$want_w" ] || [ "$height" != "$want_h" ]; then
    echo "FAIL $svg: PNG is ${width}x${height}, the SVG says ${want_w}x${want_h}"
    failed=$((failed + 1)); continue
  fi
  checked=$((checked + 1))
done
echo "rendered $checked SVGs, $failed failed"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
