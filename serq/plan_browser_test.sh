#!/usr/bin/env bash
# serq plan's page in a real browser: Debian's chromium, headless, offline
# (every host name unresolvable), 1400 px wide, on the page of a small plan
# (two colocated candidates and one disaggregated, Llama-3.1-8B on up to 2
# H100s). The page must:
#   - load nothing from outside its folder (no src, script, link, url() or
#     @import; its links are to its own CSV files);
#   - parse into the DOM chromium dumps with the chart (one <svg>, a mark a
#     candidate on the chart, each with its configuration in a <title>), the
#     front's table with a row a front point, and the step-time paragraph;
#   - lay out without a horizontal scroll bar at 1400 px.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=$(command -v chromium || command -v chromium-browser) ||
  { echo "chromium missing (tools/install-deps.sh installs it)"; exit 1; }
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

"$serq" plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 1 --until 'p99(ttft) <= 1 && p99(tpot) <= 0.05' \
  --requests 200 --replications 2 --max-replications 4 --rate-steps 16 --no-early-stop --out "$tmp/plan" \
  >"$tmp/out" 2>&1 || { echo "serq plan failed: $(cat "$tmp/out")"; exit 1; }
page=$tmp/plan/pareto.html
grep -Eq '<script|<link|src=|url\(|@import' "$page" && fail "the page loads something"
# The page with a script after </body> that measures the layout and writes
# the figures into the DOM.
sed '/<\/body>/r /dev/stdin' "$page" >"$tmp/measured.html" <<'JS'
<script>
(function () {
  var pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = 'page scroll ' + document.documentElement.scrollWidth + ' window ' + window.innerWidth +
      ' marks ' + document.querySelectorAll('svg g.point').length +
      ' titles ' + document.querySelectorAll('svg g.point title').length +
      ' front ' + document.querySelectorAll('table#front tr').length;
  document.body.appendChild(pre);
})();
</script>
JS
HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --disable-background-networking --user-data-dir="$tmp/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
  --window-size=1400,1000 --dump-dom "file://$tmp/measured.html" >"$tmp/dom" 2>"$tmp/browser.log"
line=$(sed -n 's/.*<pre id="layout">\(.*\)<\/pre>.*/\1/p' "$tmp/dom")
[ -n "$line" ] || fail "no measurement in the DOM ($(tail -3 "$tmp/browser.log"))"
read -r _ _ scroll _ window _ marks _ titles _ front <<<"$line"
ok=$(awk -F, 'NR > 1 && ($12 == "ok" || $12 == "front")' "$tmp/plan/candidates.csv" | wc -l)
onfront=$(awk -F, 'NR > 1' "$tmp/plan/pareto.csv" | wc -l)
[ "${marks:-0}" = "$ok" ] && [ "$ok" -gt 0 ] || fail "marks: ${marks:-none}, candidates on the chart: $ok"
[ "${titles:-0}" = "$ok" ] || fail "titles: ${titles:-none}, marks $ok"
[ "${front:-0}" = $((onfront + 1)) ] || fail "front table rows: ${front:-none}, expected $onfront and a header"
[ "${scroll:-1}" -le "${window:-0}" ] || fail "the page scrolls sideways: $line"
grep -q 'Step time:</b> serq physics' "$tmp/dom" || fail "no step-time source in the DOM"
if [ "$failures" -ne 0 ]; then echo "$failures failed"; exit 1; fi
echo "serq plan page: all passed ($line)"
