#!/usr/bin/env bash
# The README's example stays true: its program is examples/egress.sq (the
# same canonical source), and the rows it shows are what `serq run` prints.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# The first ``` block that holds a `pool` declaration is the program.
awk '/^```/{ if (inblock) { if (found) exit; inblock=0; buf="" } else inblock=1; next }
     inblock { buf = buf $0 "\n"; if ($0 ~ /^pool /) found=1 }
     END { printf "%s", buf }' README.md >"$tmp/readme.sq"
[ -s "$tmp/readme.sq" ] || fail "no program found in README.md"
"$serq" fmt "$tmp/readme.sq" >"$tmp/readme.fmt" || fail "the README's program does not parse"
"$serq" fmt examples/egress.sq >"$tmp/example.fmt" || fail "examples/egress.sq does not parse"
cmp -s "$tmp/readme.fmt" "$tmp/example.fmt" ||
  fail "the README's program is not examples/egress.sq: $(diff "$tmp/example.fmt" "$tmp/readme.fmt" | head -5)"

# Every line the README shows after `$ serq run examples/X.sq` (up to the
# "..." or the end of the block) is a line of that command's output. (A
# command with flags is the quick start's, which tools/quickstart_test.py
# walks.)
while IFS=: read -r line cmd; do
  program=${cmd#\$ serq run }
  "$serq" run "$program" >"$tmp/out" || { fail "serq run $program: exit $?"; continue; }
  tail -n +"$((line + 1))" README.md | awk '/^```/ || /^\.\.\./ { exit } { print }' >"$tmp/shown"
  [ -s "$tmp/shown" ] || fail "README shows no output for $program"
  while IFS= read -r shown; do
    grep -qxF -- "$shown" "$tmp/out" || fail "README shows '$shown' but serq run $program does not print it"
  done <"$tmp/shown"
done < <(grep -n '^\$ serq run examples/[^ ]*$' README.md)

if [ "$failed" -ne 0 ]; then exit 1; fi
echo "README example: ok"
