#!/usr/bin/env bash
# Relative trace paths (language.md §3.5): they resolve against the
# program's directory wherever serq runs, or against --data-dir when it is
# given, for every trace format, in `serq run` and in the pipe alike.
set -u
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
root=$(cd "$root" && pwd)
serq=$root/serq/serq parse=$root/serq-parse/serq-parse link=$root/serq-link/serq-link
sim=$root/serq-sim/serq-sim report=$root/serq-report/serq-report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The report without its run line, which names the program as given.
figures() { tail -n +2 "$1"; }

cd "$tmp" || exit 2
for f in mooncake azure serq; do
  golden=$root/testdata/traces/$f.txt
  # From another directory, the program named by its absolute path.
  "$serq" run "$root/testdata/traces/$f.sq" >out 2>err || fail "$f: serq run: $(cat err)"
  diff <(figures out) <(figures "$golden") >/dev/null || fail "$f: serq run from elsewhere differs"
  # By a relative path that climbs out of this directory.
  rel=$(realpath --relative-to="$tmp" "$root/testdata/traces/$f.sq")
  "$serq" run "$rel" >out 2>err || fail "$f: serq run $rel: $(cat err)"
  diff <(figures out) <(figures "$golden") >/dev/null || fail "$f: serq run $rel differs"

  # A copy here naming the sample by its bare name: --data-dir finds it.
  sed 's|\.\./\.\./examples/traces/||' "$root/testdata/traces/$f.sq" >"$f.sq"
  "$serq" run --data-dir "$root/examples/traces" "$f.sq" >out 2>err ||
    fail "$f: serq run --data-dir: $(cat err)"
  diff <(figures out) <(figures "$golden") >/dev/null || fail "$f: serq run --data-dir differs"
  "$parse" "$f.sq" | "$link" | "$sim" --data-dir "$root/examples/traces" | "$report" >out 2>err ||
    fail "$f: pipe --data-dir: $(cat err)"
  diff <(figures out) <(figures "$golden") >/dev/null || fail "$f: pipe --data-dir differs"
  # Without it, the copy looks beside itself, and says where it looked.
  "$serq" run "$f.sq" >out 2>err && fail "$f: a trace that is not there was found"
  grep -q "^$f.sq:[0-9]*:[0-9]*: error: cannot open trace '[^/]*_sample\.[a-z]*': No such file" err ||
    fail "$f: missing trace: $(cat err)"
done

[ "$failures" -eq 0 ] && echo "paths_test: ok"
[ "$failures" -eq 0 ]
