#!/usr/bin/env bash
# Every golden DOT file of the view is accepted by Graphviz: `dot -Tsvg`
# exits 0, says nothing on stderr (no warning either), and writes an SVG.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
cd "$root/testdata/view" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v dot >/dev/null || { echo "dot is not installed (graphviz)"; exit 1; }

checked=0 failed=0
for gv in *.dot; do
  if ! dot -Tsvg "$gv" >"$tmp/out.svg" 2>"$tmp/err"; then
    echo "FAIL $gv: dot failed: $(cat "$tmp/err")"
    failed=$((failed + 1)); continue
  fi
  if [ -s "$tmp/err" ]; then
    echo "FAIL $gv: dot warned: $(cat "$tmp/err")"
    failed=$((failed + 1)); continue
  fi
  if ! grep -q "<svg" "$tmp/out.svg"; then
    echo "FAIL $gv: no SVG in dot's output"
    failed=$((failed + 1)); continue
  fi
  checked=$((checked + 1))
done
echo "laid out $checked DOT files, $failed failed"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
