#!/usr/bin/env bash
# What a fuzz target's run costs, build against build (bench/README.md §fuzz):
#
#   bench/fuzz.sh TARGET SECONDS BINARY...
#   bench/fuzz.sh --from CORPUS TARGET SECONDS BINARY...
#
# Each BINARY is the target built with --config=fuzz and copied aside, one
# a build (cp "$(bazel info --config=fuzz bazel-bin)/fuzz/fuzz_parse"
# /tmp/fuzz_parse.before). Each runs in turn, as tools/fuzz.sh runs it
# (SERQ_FUZZ_BINARY), for SECONDS in a fresh directory: from testdata's
# seeds, or with --from from a copy of CORPUS as well. A corpus that a
# ten-minute run left measures what late inputs cost in a minute: they are
# larger and mostly fail, and the rate of a run falls as they take over.
# One row a binary: libFuzzer's runs and exec/s, the CPU seconds it used,
# the corpus at the end, the slowest input, and the load average around it
# (the machine is shared; compare rows of one call).
set -u
cd "$(dirname "$0")/.."
usage() { echo "usage: bench/fuzz.sh [--from CORPUS] TARGET SECONDS BINARY..." >&2; exit 2; }
from=""
if [ "${1:-}" = --from ]; then from=${2:-}; [ -n "$from" ] || usage; shift 2; fi
[ $# -ge 3 ] || usage
target=$1
seconds=$2
shift 2
printf '| %s | %s | %s | %s | %s | %s | %s |\n' binary runs exec/s "CPU s" corpus "slowest s" load
printf '|---|--:|--:|--:|--:|--:|---|\n'
for binary in "$@"; do
  [ -x "$binary" ] || { echo "bench/fuzz.sh: not an executable: $binary" >&2; exit 2; }
  dir=$(mktemp -d)
  mkdir -p "$dir/$target"
  [ -n "$from" ] && cp "$from"/* "$dir/$target/"
  load0=$(cut -d' ' -f1 /proc/loadavg)
  line=$(SERQ_FUZZ_DIR=$dir SERQ_FUZZ_BINARY=$binary /usr/bin/time -f 'cpu %U %S' -o "$dir/time" \
           tools/fuzz.sh "$target" "$seconds" 2>/dev/null | tail -1)
  load1=$(cut -d' ' -f1 /proc/loadavg)
  runs=$(echo "$line" | grep -o '[0-9]* runs' | grep -o '[0-9]*')
  rate=$(echo "$line" | grep -o '([0-9]* exec/s)' | grep -o '[0-9]*')
  corpus=$(echo "$line" | grep -o 'corpus [0-9]*' | grep -o '[0-9]*')
  slowest=$(echo "$line" | grep -o 'slowest input [0-9?]*' | grep -o '[0-9?]*$')
  cpu=$(awk '/^cpu/ {printf "%.1f", $2 + $3}' "$dir/time")
  printf '| %s | %s | %s | %s | %s | %s | %s → %s |\n' "$(basename "$binary")" "${runs:-?}" \
    "${rate:-?}" "${cpu:-?}" "${corpus:-?}" "${slowest:-?}" "$load0" "$load1"
  case $line in *FAILED*) echo "bench/fuzz.sh: $binary: $line" >&2 ;; esac
  rm -rf "$dir"
done
