#!/usr/bin/env bash
# The html report in a real browser: Debian's chromium, headless, with
# every host name unresolvable (so a page that needed the network would
# show it). Each golden page:
#   - refers to nothing outside itself (no src, href, url(), script, link
#     or @import; the only URL is SVG's namespace);
#   - parses into the DOM chromium dumps with every figure: the station row,
#     one CDF per observation and the time series (<svg> elements), and a
#     table per csv section with rows;
#   - renders: in a screenshot, the station's fill (read from the page)
#     near the top, and below it the charts' lines in the palette's first
#     two colours (#1f77b4, #ff7f0e).
set -u
root=${TEST_SRCDIR:-$PWD}/serq
cd "$root/testdata/html" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=$(command -v chromium || command -v chromium-browser) ||
  { echo "chromium missing (tools/install-deps.sh installs it)"; exit 1; }
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
run_browser() {  # run_browser PAGE ARGS...
  local page=$1
  shift
  HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --disable-background-networking --user-data-dir="$tmp/profile" \
    --host-resolver-rules="MAP * ~NOTFOUND" "$@" "file://$PWD/$page" 2>>"$tmp/browser.log"
}
for page in *.html; do
  if grep -Eq 'src=|href=|url\(|<script|<link|@import' "$page"; then
    fail "$page: refers to something outside the page"
  fi
  if grep -Eo 'https?://[^" ]*' "$page" | grep -vqx 'http://www.w3.org/2000/svg'; then
    fail "$page: a URL other than SVG's namespace"
  fi
  run_browser "$page" --dump-dom >"$tmp/dom.html" || fail "$page: --dump-dom failed"
  run_browser "$page" --window-size=1000,3600 --screenshot="$tmp/shot.png" >/dev/null ||
    fail "$page: --screenshot failed"
  PYTHONPATH="$root/tools" python3 - "$page" "$tmp/dom.html" "$tmp/shot.png" <<'PY' || fail "$page"
import re, sys
import png_pixels
page, dom_path, shot = sys.argv[1:4]
src, dom = open(page).read(), open(dom_path).read()
ok = True
def check(cond, what):
    global ok
    if not cond:
        print(f"FAIL {page}: {what}")
        ok = False
# The figures the page was written with are in the browser's DOM.
figures = re.findall(r'<figure id="([^"]+)"', src)
check(figures, "no figures in the page")
for f in figures:
    check(re.search(rf'<figure id="{f}">.*?<svg ', dom, re.S), f"figure {f} has no svg in the DOM")
check(dom.count("<svg") == src.count("<svg") >= 3, f"{dom.count('<svg')} svg in the DOM")
check(dom.count("<table") == src.count("<table") >= 4, f"{dom.count('<table')} tables in the DOM")
check('<p id="run">' in dom, "no run line in the DOM")
# The screenshot shows them.
w, h, rows = png_pixels.read(shot)
def near(p, c, d=24):
    return all(abs(p[i] - c[i]) <= d for i in range(3))
def rgb(hex_):
    return tuple(int(hex_[i:i + 2], 16) for i in (1, 3, 5))
fill = rgb(re.search(r'<rect [^>]*rx="4" fill="(#[0-9a-f]{6})"', src).group(1))
fill_rows = [y for y in range(h) if any(rows[y][x][:3] == fill for x in range(0, w, 2))]
check(fill_rows and max(fill_rows) < h // 3, f"the station fill {fill} is not near the top")
top = max(fill_rows) if fill_rows else 0
for colour in ("#1f77b4", "#ff7f0e"):
    c = rgb(colour)
    n = sum(1 for y in range(top, h) for x in range(w) if near(rows[y][x], c))
    # The legends' swatches alone make ~200 (a page with its lines taken
    # out: 200 and 120); step-grow's lines make 2221 and 4194.
    check(n >= 1000, f"{n} pixels of the lines' {colour} under the station row")
sys.exit(0 if ok else 1)
PY
done
[ "$failures" -eq 0 ] && echo "html: every page loads offline and shows its charts"
[ "$failures" -eq 0 ]
