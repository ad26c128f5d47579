#!/usr/bin/env bash
# Runs every test (GoogleTest suites and golden suites, and the layering
# check, tools/layering.py) and ends with the line "N passed, N failed",
# counted per test case from Bazel's test.xml files; a test target that did
# not build or produced no XML counts as one failed case.
set -u
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

testlogs=$(bazel info "$@" bazel-testlogs 2>/dev/null)
passed=0 failed=0
# Summary lines look like "//ir:ir_test    PASSED in 0.1s" or
# "//x:y    (cached) PASSED in ..." or "//x:y   FAILED TO BUILD".
while read -r target rest; do
  case "$rest" in
    *PASSED*|*FAILED\ in*|*FAILED\ *in*)
      pkg=${target#//}; pkg=${pkg%%:*}; name=${target##*:}
      xml="$testlogs/$pkg/$name/test.xml"
      if [ -f "$xml" ]; then
        t=$(grep -o '<testsuites[^>]*' "$xml" | head -1 | grep -o ' tests="[0-9]*"' | grep -o '[0-9]*')
        f=$(grep -o '<testsuites[^>]*' "$xml" | head -1 | grep -o ' failures="[0-9]*"' | grep -o '[0-9]*')
        e=$(grep -o '<testsuites[^>]*' "$xml" | head -1 | grep -o ' errors="[0-9]*"' | grep -o '[0-9]*')
        t=${t:-1} f=${f:-0} e=${e:-0}
        bad=$((f + e))
        case "$rest" in *FAILED*) [ "$bad" -eq 0 ] && bad=1 ;; esac
        [ "$bad" -gt "$t" ] && t=$bad
        passed=$((passed + t - bad)); failed=$((failed + bad))
      else
        case "$rest" in *PASSED*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
      fi
      ;;
    *FAILED*|*NO\ STATUS*|*TIMEOUT*|*INCOMPLETE*|*FLAKY*)
      failed=$((failed + 1)) ;;
  esac
done < <(grep -E '^//[^ ]+ +' "$log")

# The layering of the packages (tools/layering.py): the check on the tree
# and its self-test, one case each.
for mode in "" --self-test; do
  if python3 tools/layering.py $mode; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done

# The docs and the code's comments stand alone, and the comments cite sections
# the docs have (tools/docs_refs.py): the check and its self-test.
for mode in "" --self-test; do
  if python3 tools/docs_refs.py $mode; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done

if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  # The build failed before any test could report: count it.
  failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
