#!/usr/bin/env bash
# The memory and time of `serq run` on the two benchmark programs, as
# /usr/bin/time -v measures them (maximum resident set, elapsed wall time,
# user time). Build first: bazel build -c opt //serq:serq
#   bench/memory.sh [path/to/serq [program.sq...]]
# (default bazel-bin/serq/serq, both programs)
set -eu
cd "$(dirname "$0")/.."
serq=${1:-bazel-bin/serq/serq}
shift || true
programs=("$@")
[ ${#programs[@]} -eq 0 ] && programs=(bench/mm1_observe.sq bench/tokens_observe.sq)
for program in "${programs[@]}"; do
  /usr/bin/time -v "$serq" run "$program" >/tmp/serq-memory.out 2>/tmp/serq-memory.time
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' /tmp/serq-memory.time)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' /tmp/serq-memory.time)
  user=$(awk -F': ' '/User time/ {print $2}' /tmp/serq-memory.time)
  sys=$(awk -F': ' '/System time/ {print $2}' /tmp/serq-memory.time)
  printf '%-26s max RSS %7.1f MB  wall %s  user %s s  sys %s s\n' "$program" "$(echo "$rss / 1024" | bc -l)" "$wall" "$user" "$sys"
  sed -n '3,4p' /tmp/serq-memory.out
done
