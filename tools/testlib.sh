# What the shell tests of the driver share, sourced after they set `root`
# (the runfiles' serq directory) and before their cases:
#   tmp      a scratch directory, removed at exit
#   failed   the count of failures; the test ends `[ "$failed" -eq 0 ]`
#   fail MESSAGE...                          counts and prints one failure
#   expect STATUS STDERR_PATTERN -- command...
#       runs the command (stdin /dev/null; stdout in $tmp/out, stderr in
#       $tmp/err) and fails unless it exits STATUS with PATTERN, a fixed
#       string, in its stderr
# and changes to $root. A test lists //tools:testlib.sh in its data.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
cd "$root" || exit 2

expect() {
  local status=$1 pattern=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  [ "$got" = "$status" ] || fail "$*: exit $got, expected $status ($(head -3 "$tmp/err"))"
  grep -qF -- "$pattern" "$tmp/err" || fail "$*: stderr lacks '$pattern': $(head -3 "$tmp/err")"
}
