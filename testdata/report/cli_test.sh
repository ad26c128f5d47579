#!/usr/bin/env bash
# serq-report's command line: what golden files cannot check (exit status 2
# for misuse, --help, standard input).
set -u
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
cd "$root" || exit 2
tool=serq-report/serq-report
suite=testdata/report
failed=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}

# expect WANT_STATUS WANT_STDERR_SUBSTRING COMMAND...
expect() {
  local want=$1 text=$2
  shift 2
  "$@" >$tmp/cli_out 2>$tmp/cli_err </dev/null
  local got=$?
  if [ "$got" != "$want" ] || ! grep -qF -- "$text" $tmp/cli_err; then
    echo "FAIL: $* -> exit $got (expected $want), stderr:"
    cat $tmp/cli_err
    echo "(expected it to contain: $text)"
    failed=$((failed + 1))
  fi
}

expect 2 "serq-report: error: --format: unknown format 'xml' (expected text, csv, json, md or html)" \
  $tool --format=xml $suite/before.json
expect 2 "serq-report: error: --ir applies to --format=html only" \
  $tool --ir $suite/before.json $suite/before.json
expect 2 "serq-report: error: --quantiles: quantile 100 is not between 0 and 100 (exclusive)" \
  $tool --quantiles=50,100 $suite/before.json
expect 2 "serq-report: error: --quantiles: quantile 'p99' is not a number" \
  $tool --quantiles=p99 $suite/before.json
expect 2 "serq-report: error: --quantiles: quantile 99 is given twice" \
  $tool --quantiles=99,99 $suite/before.json
# --series prints the series as CSV: the report's flags would be ignored.
expect 2 "serq-report: error: --format applies to the report, not to --series (always CSV)" \
  $tool --series --format=json $suite/before.json
expect 2 "serq-report: error: --quantiles applies to the report, not to --series (always CSV)" \
  $tool --series --quantiles=50 $suite/before.json
expect 2 "serq-report: error: standard input ('-') can be read only once" \
  $tool - -
expect 2 "serq-report: error: cannot open 'no-such-file.json'" $tool no-such-file.json
expect 1 "<stdin>: error: empty input: expected results as JSON or protobuf binary" $tool

# --help says what the tool reads and writes. (Abseil decides the exit
# status of --help and of an unknown flag, 1 for both; not pinned here.)
$tool --help >$tmp/cli_out 2>&1
if ! grep -qF "serq-report [results...|-] [--format=text|csv|json|md|html]" $tmp/cli_out; then
  echo "FAIL: --help does not print the usage"
  failed=$((failed + 1))
fi

# Standard input, with and without '-', gives the report of the file.
for args in "" "-"; do
  if ! $tool $args <$suite/before.json | diff -u $suite/before.txt - >$tmp/cli_diff; then
    echo "FAIL: serq-report $args < before.json differs from before.txt:"
    cat $tmp/cli_diff
    failed=$((failed + 1))
  fi
done

rm -f $tmp/cli_out $tmp/cli_err $tmp/cli_diff
echo "$failed failed"
[ "$failed" -eq 0 ]
