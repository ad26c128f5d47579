#!/usr/bin/env bash
# Golden tests: run a command on every input of a suite directory and diff
# what it prints, byte for byte, against the files kept beside the input.
#
#   golden_test.sh SUITE GLOB OUT_EXT COMMAND
#
# SUITE    a directory under testdata/, e.g. testdata/parse
# GLOB     the inputs in it, e.g. '*.sq' (several patterns: separated by spaces)
# OUT_EXT  the extension of the expected stdout, e.g. .ir.json ('' = none kept)
# COMMAND  a shell command; {in} is the input's path, {stem} its path without
#          the extension. Tool names (serq-parse, serq, ...) are on PATH.
#
# For input NAME.x the expectations are:
#   NAME<OUT_EXT>  stdout (when OUT_EXT is given; it must exist, except for a
#                  bad- input, where its absence means stdout must be empty)
#   NAME.err       stderr (absent: stderr must be empty)
#   exit status    1 when NAME starts with "bad-", else 0
#
# To regenerate goldens on purpose (then review the diff):
#   SERQ_UPDATE_GOLDENS=1 bazel run //testdata:<suite>_golden
# or tools/update-goldens.sh for every suite.
set -u

suite=$1 glob=$2 out_ext=$3 command=$4
# stderr is compared byte for byte: no progress line, however slow the
# build (ASan) makes a run (docs/cli.md: SERQ_PROGRESS=0).
export SERQ_PROGRESS=0

# Runfiles root: the workspace directory inside the test's runfiles.
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
for d in "$root"/serq-parse "$root"/serq-link "$root"/serq-sim "$root"/serq-report \
         "$root"/serq-view "$root"/serq; do
  [ -d "$d" ] && PATH="$d:$PATH"
done
export PATH

update=${SERQ_UPDATE_GOLDENS:-0}
dest=$root
if [ "$update" = 1 ]; then
  dest=${BUILD_WORKSPACE_DIRECTORY:?update mode needs bazel run}
fi

cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0 failed=0
cases_xml=""
shopt -s nullglob
inputs=()
set -f  # split GLOB into patterns without expanding them here
patterns=($glob)
set +f
for pattern in "${patterns[@]}"; do inputs+=("$suite"/$pattern); done
if [ ${#inputs[@]} -eq 0 ]; then
  echo "no inputs matched $suite/$glob" >&2
  exit 1
fi

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

for input in "${inputs[@]}"; do
  base=${input##*/}
  stem=${input%.*}
  name=${base%.*}
  cmd=${command//\{in\}/$input}
  cmd=${cmd//\{stem\}/$stem}
  want_exit=0
  case "$name" in bad-*) want_exit=1 ;; esac

  timeout 120 bash -c "$cmd" >"$tmp/out" 2>"$tmp/err" </dev/null
  got_exit=$?

  if [ "$update" = 1 ]; then
    if [ -n "$out_ext" ]; then
      if [ "$want_exit" = 1 ] && [ ! -s "$tmp/out" ]; then
        rm -f "$dest/$stem$out_ext"
      else
        cp "$tmp/out" "$dest/$stem$out_ext"
      fi
    fi
    if [ -s "$tmp/err" ]; then cp "$tmp/err" "$dest/$stem.err"; else rm -f "$dest/$stem.err"; fi
  fi

  problems=""
  if [ "$got_exit" != "$want_exit" ]; then
    problems+="exit status $got_exit, expected $want_exit"$'\n'
  fi
  if [ -n "$out_ext" ]; then
    if [ ! -f "$stem$out_ext" ]; then
      if [ "$want_exit" != 1 ]; then
        problems+="missing golden $stem$out_ext"$'\n'
      elif [ -s "$tmp/out" ]; then
        problems+="unexpected stdout (no $stem$out_ext):"$'\n'"$(head -20 "$tmp/out")"$'\n'
      fi
    elif ! diff -u "$stem$out_ext" "$tmp/out" >"$tmp/diff"; then
      problems+="stdout differs from $stem$out_ext:"$'\n'"$(head -60 "$tmp/diff")"$'\n'
    fi
  fi
  if [ -f "$stem.err" ]; then
    if ! diff -u "$stem.err" "$tmp/err" >"$tmp/diff"; then
      problems+="stderr differs from $stem.err:"$'\n'"$(head -60 "$tmp/diff")"$'\n'
    fi
  elif [ -s "$tmp/err" ]; then
    problems+="unexpected stderr:"$'\n'"$(head -20 "$tmp/err")"$'\n'
  fi

  if [ -z "$problems" ] || [ "$update" = 1 ]; then
    passed=$((passed + 1))
    cases_xml+="<testcase name=\"$(printf %s "$base" | xml_escape)\" classname=\"$suite\"/>"
  else
    failed=$((failed + 1))
    echo "FAIL $input: $cmd"
    printf '%s\n' "$problems"
    cases_xml+="<testcase name=\"$(printf %s "$base" | xml_escape)\" classname=\"$suite\"><failure message=\"golden mismatch\">$(printf %s "$problems" | xml_escape)</failure></testcase>"
  fi
done

if [ -n "${XML_OUTPUT_FILE:-}" ]; then
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="%d" failures="%d"><testsuite name="%s" tests="%d" failures="%d">%s</testsuite></testsuites>\n' \
    $((passed + failed)) "$failed" "$suite" $((passed + failed)) "$failed" "$cases_xml" >"$XML_OUTPUT_FILE"
fi
echo "$suite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
