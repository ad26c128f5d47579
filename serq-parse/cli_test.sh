#!/usr/bin/env bash
# serq-parse as a command: standard input, --format=pb, --help, misuse.
# For every program of the parse suite:
#   serq-parse - < x.sq          is the golden x.ir.json with file "<stdin>"
#   serq-parse --format=pb x.sq  reads back (ir_echo) as the golden, byte for byte
set -u
root=${TEST_SRCDIR:?}/serq
parse=$root/serq-parse/serq-parse
echo_ir=$root/lang/parse/ir_echo
suite=$root/testdata/parse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 checked=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

cd "$root" || exit 2
for input in testdata/parse/*.sq; do
  name=$(basename "$input" .sq)
  case "$name" in bad-*) continue ;; esac
  golden=testdata/parse/$name.ir.json
  checked=$((checked + 1))

  # The golden's file line, as protobuf's JSON writes "<stdin>".
  sed 's|^ "file": ".*",$| "file": "\\u003cstdin\\u003e",|' "$golden" >"$tmp/want"
  "$parse" - <"$input" >"$tmp/got" 2>"$tmp/err" || fail "$name: stdin: exit $?"
  cmp -s "$tmp/want" "$tmp/got" || fail "$name: stdin output differs: $(diff "$tmp/want" "$tmp/got" | head -5)"
  [ -s "$tmp/err" ] && fail "$name: stdin: stderr: $(head -3 "$tmp/err")"

  "$parse" --format=pb "$input" >"$tmp/pb" || fail "$name: --format=pb: exit $?"
  head -c 1 "$tmp/pb" | grep -q '{' && fail "$name: --format=pb wrote JSON"
  "$echo_ir" <"$tmp/pb" >"$tmp/back" || fail "$name: binary IR did not read back"
  cmp -s "$golden" "$tmp/back" || fail "$name: JSON -> pb -> JSON differs: $(diff "$golden" "$tmp/back" | head -5)"
done
[ "$checked" -ge 10 ] || fail "only $checked programs found"

# Exit codes and what goes where.
expect() {  # expect STATUS STDOUT_EMPTY(yes|no) STDERR_PATTERN -- command...
  local status=$1 empty=$2 pattern=$3; shift 4
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = "$status" ] || fail "$*: exit $got, expected $status"
  if [ "$empty" = yes ] && [ -s "$tmp/out" ]; then fail "$*: wrote to stdout"; fi
  grep -q -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(head -3 "$tmp/err")"
}
expect 1 yes "bad-number.sq:1:11: error: invalid number '1e'" -- "$parse" testdata/parse/bad-number.sq
expect 2 yes "serq-parse: error: unknown flag '--bogus'" -- "$parse" --bogus testdata/parse/before.sq
expect 2 yes "serq-parse: error: unknown format 'xml' (expected json or pb)" -- "$parse" --format=xml testdata/parse/before.sq
expect 2 yes "serq-parse: error: flag '--format' needs a value" -- "$parse" --format
expect 2 yes "serq-parse: error: cannot open 'no/such.sq'" -- "$parse" no/such.sq
expect 2 yes "serq-parse: error: expected one input file, got 2" -- "$parse" testdata/parse/before.sq testdata/parse/egress.sq

"$parse" --help >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] || fail "--help: exit status not 0"
grep -q '^serq-parse \[file.sq|-\] \[--format=json|pb\]$' "$tmp/out" || fail "--help: no usage line"
grep -q -- '--format' "$tmp/out" || fail "--help: does not list --format"

# The same input gives the same bytes.
"$parse" testdata/parse/lang_sessions.sq >"$tmp/a"
"$parse" testdata/parse/lang_sessions.sq >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "two runs differ"

echo "checked $checked programs, $failed failures"
[ "$failed" -eq 0 ]
