#!/usr/bin/env bash
# The html report in a real browser: Debian's chromium, headless, with
# every host name unresolvable (so a page that needed the network would
# show it), in a window 1400 px wide. Each golden page:
#   - refers to nothing outside itself (no src, href, url(), script, link
#     or @import; the only URL is SVG's namespace);
#   - parses into the DOM chromium dumps with every figure: the station row,
#     one CDF per observation and the time series (<svg> elements), and a
#     table per csv section with rows;
#   - renders: in a screenshot, the station's fill (read from the page)
#     near the top, and below it the charts' lines in the palette's first
#     two colours (#1f77b4, #ff7f0e);
#   - a sweep's page (sweep-*.html, serq sweep --format=html) has its
#     table and a chart a figure, and no station row; a search's
#     (search-*.html, serq search --format=html) its answer, its table and
#     a chart; a bound (--slo, --until) is a red line with its label on its
#     figure's chart; a sweep of two programs has a program column and a
#     legend entry a program;
#   - every chart (a CDF, the time series, a sweep's figure) is at least
#     900 px wide as laid out, no legend is cut, a latency's CDF axis has
#     its unit, a step stage's series its running and waiting requests,
#     and a run's page its throughputs (line and table);
#   - lays out without a horizontal scroll bar: a copy of the page with a
#     script added measures, at 1400 px, every table against the box it is
#     in (scrollWidth <= clientWidth) and the page against the window, and
#     writes the figures into the DOM that chromium dumps. The same check on
#     a page with a table far too wide must find it (so it can fail).
set -u
root=${TEST_SRCDIR:-$PWD}/serq
cd "$root/testdata/html" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=$(command -v chromium || command -v chromium-browser) ||
  { echo "chromium missing (tools/install-deps.sh installs it)"; exit 1; }
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
run_browser() {  # run_browser PAGE ARGS... (PAGE an absolute path)
  local page=$1
  shift
  HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --disable-background-networking --user-data-dir="$tmp/profile" \
    --host-resolver-rules="MAP * ~NOTFOUND" "$@" "file://$page" 2>>"$tmp/browser.log"
}
# The measuring script: one line a table ("table I: scroll S client C"),
# then the page's width against the window's.
cat >"$tmp/measure.js" <<'JS'
<script>
(function () {
  var lines = [];
  var tables = document.querySelectorAll('table');
  for (var i = 0; i < tables.length; i++) {
    var box = tables[i].parentElement;
    lines.push('table ' + i + ': scroll ' + box.scrollWidth + ' client ' + box.clientWidth +
               ' right ' + Math.ceil(tables[i].getBoundingClientRect().right) +
               ' body ' + Math.floor(document.body.getBoundingClientRect().right));
  }
  lines.push('page: scroll ' + document.documentElement.scrollWidth + ' window ' + window.innerWidth);
  // The charts as laid out: the narrowest CDF or time-series chart.
  var narrowest = 100000;
  var charts = document.querySelectorAll('figure[id^="cdf-"] svg, figure#series svg, figure[id^="chart-"] svg');
  for (var j = 0; j < charts.length; j++) {
    narrowest = Math.min(narrowest, Math.floor(charts[j].getBoundingClientRect().width));
  }
  lines.push('charts: narrowest ' + narrowest + ' count ' + charts.length);
  var pre = document.createElement('pre');
  pre.id = 'overflow';
  pre.textContent = lines.join('\n');
  document.body.appendChild(pre);
})();
</script>
JS
measure() {  # measure PAGE OUT: the figures of PAGE at 1400 px
  # The script after </body>: the parser puts it at the body's end, so it
  # runs once everything it measures is there.
  sed '/<\/body>/r '"$tmp/measure.js" "$1" >"$tmp/measured.html"
  run_browser "$tmp/measured.html" --window-size=1400,1000 --dump-dom >"$2"
}
overflows() {  # overflows DOM: prints the figures that overflow
  python3 - "$1" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
m = re.search(r'<pre id="overflow">(.*?)</pre>', dom, re.S)
if not m:
    print("no measurement in the DOM")
    sys.exit(0)
for line in m.group(1).strip().split("\n"):
    f = dict(re.findall(r"(\w+) (\d+)", line.split(":", 1)[1]))
    f = {k: int(v) for k, v in f.items()}
    if line.startswith("table") and (f["scroll"] > f["client"] or f["right"] > f["body"] + 1):
        print("overflows: " + line)
    if line.startswith("page") and f["scroll"] > f["window"]:
        print("overflows: " + line)
PY
}

# The check can fail: a table of 40 wide columns in the page's own style.
python3 - "$tmp/wide.html" step-grow.html <<'PY'
import re, sys
style = re.search(r"<style>.*?</style>", open(sys.argv[2]).read(), re.S).group(0)
cells = "".join(f"<td class=\"n\">{i * 1234567.891:,.3f}</td>" for i in range(40))
open(sys.argv[1], "w").write(f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">{style}</head><body>"
                             f"<div class=\"table\"><table><tr>{cells}</tr></table></div>\n</body></html>\n")
PY
measure "$tmp/wide.html" "$tmp/wide.dom"
grep -q "overflows: table 0" <(overflows "$tmp/wide.dom") ||
  fail "the overflow check does not find a table of 40 wide columns: $(overflows "$tmp/wide.dom")"

for page in *.html; do
  if grep -Eq 'src=|href=|url\(|<script|<link|@import' "$page"; then
    fail "$page: refers to something outside the page"
  fi
  if grep -Eo 'https?://[^" ]*' "$page" | grep -vqx 'http://www.w3.org/2000/svg'; then
    fail "$page: a URL other than SVG's namespace"
  fi
  run_browser "$PWD/$page" --dump-dom >"$tmp/dom.html" || fail "$page: --dump-dom failed"
  run_browser "$PWD/$page" --window-size=1400,5000 --screenshot="$tmp/shot.png" >/dev/null ||
    fail "$page: --screenshot failed"
  measure "$PWD/$page" "$tmp/measured.dom"
  wide=$(overflows "$tmp/measured.dom")
  [ -z "$wide" ] || fail "$page: at 1400 px: $wide"
  grep -q '<pre id="overflow">table 0' "$tmp/measured.dom" || fail "$page: no table measured"
  # Charts at least 900 px wide as the browser lays them out (issue 36).
  narrowest=$(sed -n 's/^charts: narrowest \([0-9]*\) count [1-9][0-9]*.*/\1/p' "$tmp/measured.dom")
  [ -n "$narrowest" ] && [ "$narrowest" -ge 900 ] ||
    fail "$page: the narrowest chart is ${narrowest:-not measured} px wide, not at least 900"
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
# A sweep's page (sweep-*.html): its table, a chart a figure, no station
# row; a search's (search-*.html) likewise, with one chart a figure of its
# condition; a run's: the report.
search = page.startswith("search-")
sweep = page.startswith("sweep-") or search
check(dom.count("<svg") == src.count("<svg") >= (1 if search else 3), f"{dom.count('<svg')} svg in the DOM")
check(dom.count("<table") == src.count("<table") >= (1 if sweep else 4),
      f"{dom.count('<table')} tables in the DOM")
check('<p id="run">' in dom, "no run line in the DOM")
# A bound the page was written with: a dashed red rule and its label, in a
# chart, as the browser parsed it.
for label in re.findall(r'fill="#b22222">([^<]*)</text>', src):
    check(re.search(r'<figure id="chart-\d+">(?:(?!</figure>).)*<line [^>]*stroke="#b22222"[^>]*stroke-dasharray'
                    rf'(?:(?!</figure>).)*fill="#b22222">{re.escape(label)}</text>', dom, re.S),
          f"the bound {label} is not a labelled line in a chart")
if sweep:
    check(re.search(r'<figure id="chart-0">', dom), "no chart of the first figure")
    if search:
        check('<p class="headline" id="answer">answer: ' in dom, "no answer under the question")
        check(re.search(r'<td>(pass|fail|undecided)</td>', dom), "no verdict in the table")
        check('stroke="#b22222"' in dom, "no bound drawn")
    else:
        check('request_throughput' in dom, "no request throughput column in the sweep's table")
    if '<th>program</th>' in src:
        # Two programs: each named in the legend of every chart.
        for name in set(re.findall(r'<td>[^<]*/([^/<]+\.sq)</td>', src)):
            check(re.search(rf'>{re.escape(name)}[,<]', dom), f"{name} is not in a legend")
    sys.exit(0 if ok else 1)
check('<p class="headline">busiest: ' in dom, "no busiest resource under the run line")
# vLLM's throughputs under the run line and as a table (docs/report.md
# §Throughput).
check('<p class="headline">throughput: ' in dom and ' requests/s' in dom,
      "no throughput line under the run line")
check(re.search(r'<h2>Throughput</h2>', dom), "no Throughput table")
# Legends whole: no label cut with `~`.
check(not re.search(r'<text [^>]*>[^<]*~</text>', dom), "a legend label is cut")
# A step stage's series: requests running and waiting.
if 'id="series"' in src and '(step)' in src:
    check(re.search(r'>[^<]* running</text>', dom) and re.search(r'>[^<]* waiting</text>', dom),
          "no running and waiting lines in the time series")
# A program with prefill and decode runs: its token throughput over time;
# with preemptions, their rate; an observation, its percentiles over time,
# a latency's axis with its unit (docs/report.md §Time series).
if 'id="series"' in src and '(step)' in src:
    check(re.search(r'>token throughput \(replication \d+\)</text>', dom)
          and re.search(r'>output tokens/s</text>', dom) and re.search(r'>total tokens/s</text>', dom),
          "no token throughput chart in the time series")
if 'id="series"' in src and '<p class="headline">preemptions: ' in src:
    check(re.search(r'>preemptions/s</text>', dom), "no preemptions chart in the time series")
for name in re.findall(r'CDF of (ttft|tpot)<', src):
    if 'id="series"' in src:
        check(re.search(rf'>{name} percentiles of each [0-9.]+ s interval', dom)
              and re.search(rf'>{name} \((ms|s)\)</text>', dom) and re.search(r'>p99</text>', dom),
              f"no percentiles of {name} over time")
# A latency's CDF axis names its unit, as its table does.
for name in re.findall(r'CDF of (ttft|tpot|itl|e2e)<', src):
    check(re.search(rf'>{name} \((ms|s)\)( \(log scale\))?</text>', dom),
          f"the CDF of {name} has no unit on its axis")
# The screenshot shows them.
w, h, rows = png_pixels.read(shot)
check(w == 1400, f"the screenshot is {w} px wide")
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
    n = sum(1 for y in range(top, h) for x in range(0, w, 2) if near(rows[y][x], c))
    # Every other column, in the 5000 px shot (3600 before the throughput table and the running and waiting charts pushed the series down): the legends' swatches alone
    # make 100 and 60 (step-grow's page with its polylines taken out), 120
    # and 40 (vllm's); with the lines, 922 and 1812, 1269 and 444 (vllm's
    # series charts are mostly below the shot).
    check(n >= 300, f"{n} pixels of the lines' {colour} under the station row")
sys.exit(0 if ok else 1)
PY
done
[ "$failures" -eq 0 ] && echo "html: every page loads offline, shows its charts and fits 1400 px"
[ "$failures" -eq 0 ]
