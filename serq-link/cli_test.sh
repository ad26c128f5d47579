#!/usr/bin/env bash
# The serq-link command line: --check, -D, --format, exit codes. Each case
# states what it expects; the script fails on the first that does not hold.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
link=$root/serq-link/serq-link
ir=$root/testdata/link-ir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

expect() {  # expect NAME WANT_EXIT GOT_EXIT
  if [ "$2" != "$3" ]; then
    echo "FAIL $1: exit $3, expected $2"
    failures=$((failures + 1))
  fi
}

# --check on a valid program: exit 0, nothing on stdout or stderr.
"$link" --check "$ir/before.json" >"$tmp/out" 2>"$tmp/err"
expect check-valid 0 $?
[ -s "$tmp/out" ] && { echo "FAIL check-valid: printed IR"; failures=$((failures + 1)); }
[ -s "$tmp/err" ] && { echo "FAIL check-valid: printed errors"; failures=$((failures + 1)); }

# --check on an invalid one: exit 1, the errors, no IR.
"$link" --check "$ir/bad-run-without-stage.json" >"$tmp/out" 2>"$tmp/err"
expect check-invalid 1 $?
[ -s "$tmp/out" ] && { echo "FAIL check-invalid: printed IR"; failures=$((failures + 1)); }
grep -q "the run has no stage" "$tmp/err" || { echo "FAIL check-invalid: no error"; failures=$((failures + 1)); }

# The input from stdin is named <stdin> in diagnostics.
"$link" - <"$ir/bad-run-without-stage.json" >/dev/null 2>"$tmp/err"
expect stdin 1 $?
grep -q "^<stdin>:session\[0\].body\[0\].run.stage: error: the run has no stage$" "$tmp/err" ||
  { echo "FAIL stdin: $(cat "$tmp/err")"; failures=$((failures + 1)); }

# -D: kvD is an array of 2 pools in the program below; -D N=3 makes it 3,
# and every -D form is accepted.
cat >"$tmp/d.json" <<'JSON'
{"version": 8, "param": [{"name": "N", "value": {"number": 2}}, {"name": "B", "value": {"number": 1}}],
 "pool": [{"name": "kvD", "size": {"ref": {"name": "N"}}, "cap": {"number": 1}}],
 "workload": [{"process": "BATCH", "arg": {"number": 1}}],
 "session": [{"body": [{"load": {"pool": {"name": "kvD", "index": {"number": 2}}, "amount": {"number": 1}}}]}],
 "run": {"horizon": {"number": 10}}}
JSON
"$link" "$tmp/d.json" >/dev/null 2>"$tmp/err"
expect d-none 1 $?
grep -q "index 2 is out of range for 'kvD', an array of 2 pools (0 to 1)" "$tmp/err" ||
  { echo "FAIL d-none: $(cat "$tmp/err")"; failures=$((failures + 1)); }
for form in "-D N=3" "-DN=3" "--D=N=3" "-D=N=3" "--D N=3"; do
  # shellcheck disable=SC2086
  "$link" $form -D B=2.5e9 "$tmp/d.json" >"$tmp/out" 2>"$tmp/err"
  expect "d '$form'" 0 $?
  # The params' values in the output are the overrides.
  tr -d ' \n' <"$tmp/out" | grep -q '"name":"N","value":{"number":3}' ||
    { echo "FAIL d '$form': N not replaced"; failures=$((failures + 1)); }
  tr -d ' \n' <"$tmp/out" | grep -q '"name":"B","value":{"number":2500000000}' ||
    { echo "FAIL d '$form': B not replaced"; failures=$((failures + 1)); }
done
"$link" -D M=1 "$tmp/d.json" >/dev/null 2>"$tmp/err"
expect d-unknown 1 $?
grep -q "error: -D M: there is no param 'M'" "$tmp/err" || { echo "FAIL d-unknown"; failures=$((failures + 1)); }
for bad in "N" "N=" "N=x" "3N=1" "N=nan"; do
  "$link" -D "$bad" "$tmp/d.json" >/dev/null 2>"$tmp/err"
  expect "d-malformed '$bad'" 2 $?
done
"$link" "$tmp/d.json" -D >/dev/null 2>&1
expect d-missing 2 $?

# --format=pb writes binary IR that links again to the same JSON.
"$link" --format=pb "$ir/before.json" >"$tmp/before.pb"
expect pb 0 $?
"$link" "$ir/before.json" >"$tmp/a.json"
"$link" "$tmp/before.pb" >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "FAIL pb: JSON differs after binary"; failures=$((failures + 1)); }
# Linking linked IR again gives the same IR.
"$link" "$tmp/a.json" >"$tmp/c.json"
cmp -s "$tmp/a.json" "$tmp/c.json" || { echo "FAIL relink: differs"; failures=$((failures + 1)); }

# Misuse: exit 2.
"$link" --format=xml "$ir/before.json" >/dev/null 2>&1
expect bad-format 2 $?
"$link" "$ir/before.json" "$ir/before.json" >/dev/null 2>&1
expect two-inputs 2 $?
"$link" --no-such-flag >/dev/null 2>&1
expect unknown-flag 2 $?
"$link" --check=maybe "$ir/before.json" >/dev/null 2>&1
expect bad-flag-value 2 $?
"$link" --help >"$tmp/out" 2>&1
expect help 0 $?
for want in "serq-link \[ir|-\] \[--check\]" "-D name=value" "--check" "--format"; do
  grep -q -- "$want" "$tmp/out" || { echo "FAIL help: no '$want'"; failures=$((failures + 1)); }
done
# A file that cannot be read: exit 2, as serq-parse.
"$link" "$tmp/none.json" >/dev/null 2>"$tmp/err"
expect missing-file 2 $?

echo "serq-link cli: $failures failed"
[ "$failures" -eq 0 ]
