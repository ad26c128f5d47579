#!/usr/bin/env bash
# The hostile-input suite (issue 12): every input that once took all memory,
# hung, read quadratically, or lost its output, each run under a memory and
# CPU limit (setrlimit through ulimit) and a wall-clock timeout, with the
# error and exit status it must end with. A case that comes back as a crash
# (std::bad_alloc, exit 134), a hang (timeout, exit 124) or a silent exit 0
# fails here, in seconds, instead of taking the machine down.
#
# Each case (listed in cases.sh): case_ NAME MEMORY_MB CPU_S STATUS PATTERN -- command...
# STATUS is the exit status wanted; PATTERN a fixed string stderr must hold
# ("": anything).
# Under --config=asan (SERQ_ASAN=1) the address space cannot be limited
# (ASan reserves terabytes of shadow), so ASan's own hard_rss_limit_mb is.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
cd "$root" || exit 2
for d in serq-parse serq-link serq-sim serq-report serq-view serq; do PATH="$root/$d:$PATH"; done
export PATH
here=testdata/hostile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 cases_xml=""
xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

case_() {
  local name=$1 mem=$2 cpu=$3 want=$4 pattern=$5; shift 6
  local limit="ulimit -v $((mem * 1024))"
  if [ "${SERQ_ASAN:-0}" = 1 ]; then
    limit="export ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}hard_rss_limit_mb=$((mem * 2))"
  fi
  local start=$SECONDS
  bash -c "$limit; ulimit -t $cpu; exec timeout $((cpu * 4 + 10)) \"\$@\"" _ "$@" \
    >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$? problem=""
  [ "$got" = "$want" ] || problem="exit $got, expected $want"
  if [ -n "$pattern" ] && ! grep -qF -- "$pattern" "$tmp/err"; then
    problem="${problem:+$problem; }stderr lacks '$pattern'"
  fi
  if [ -n "$problem" ]; then
    failed=$((failed + 1))
    echo "FAIL $name: $problem"
    head -c 600 "$tmp/err" | sed 's/^/  | /'
    cases_xml+="<testcase name=\"$name\" classname=\"hostile\"><failure message=\"$(printf %s "$problem" | xml_escape)\"/></testcase>"
  else
    passed=$((passed + 1))
    echo "ok   $name ($((SECONDS - start)) s)"
    cases_xml+="<testcase name=\"$name\" classname=\"hostile\"/>"
  fi
}

# The cases themselves: cases.sh (bench/hostile.sh measures the same list).
# A missing list, or one that ran no case, fails rather than passes empty.
[ -f "$here/cases.sh" ] || { echo "hostile: no $here/cases.sh"; exit 1; }
. "$here/cases.sh"
[ $((passed + failed)) -gt 0 ] || { echo "hostile: cases.sh ran no case"; exit 1; }

if [ -n "${XML_OUTPUT_FILE:-}" ]; then
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="%d" failures="%d"><testsuite name="hostile" tests="%d" failures="%d">%s</testsuite></testsuites>\n' \
    $((passed + failed)) "$failed" $((passed + failed)) "$failed" "$cases_xml" >"$XML_OUTPUT_FILE"
fi
echo "hostile: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
