#!/usr/bin/env bash
# The sweep's benchmarks (bench/README.md §sweep_bench), run by hand:
#   bazel run -c opt //bench:sweep_bench
# 1. A 40-task sweep of examples/pd-disaggregation/colocated.sq (10 rates x
#    4 replications): its tasks one after the other (the emitted list run by
#    sh), then `serq sweep --jobs 2`; the ratio must be at most 0.6.
# 2. serq-sim --replications 8 of the same program, --jobs 1 and --jobs 2;
#    the ratio must be at most 0.6.
# 3. The sweep's own overhead: planning (--emit) and merging (--merge, the
#    report) against the tasks' time; must be under 5%.
# Wall-clock times, best of 3 (the machine is shared).
set -eu
root=${BUILD_WORKSPACE_DIRECTORY:-$PWD}
bin=${RUNFILES_DIR:-$0.runfiles}/serq
serq=$bin/serq/serq parse=$bin/serq-parse/serq-parse link=$bin/serq-link/serq-link sim=$bin/serq-sim/serq-sim
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=examples/pd-disaggregation/colocated.sq
grid=(-D Rate=10:55:5 --replications 4)
now() { date +%s.%N; }
best() {  # best NAME command...: the least wall time of 3 runs, in seconds
  local b=""
  for _ in 1 2 3; do
    local t0 t1
    t0=$(now); "${@:2}" >/dev/null; t1=$(now)
    b=$(awk -v a="$b" -v d="$(awk -v x="$t0" -v y="$t1" 'BEGIN {print y - x}')" 'BEGIN {print (a == "" || d < a) ? d : a}')
  done
  echo "$b"
}
run_tasks() { rm -rf "$tmp/s"; "$serq" sweep $prog "${grid[@]}" --emit=parallel --out "$tmp/s" | sh; }
sweep2() { rm -rf "$tmp/p"; "$serq" sweep $prog "${grid[@]}" --jobs 2 --out "$tmp/p"; }
plan() { rm -rf "$tmp/e"; "$serq" sweep $prog "${grid[@]}" --emit=parallel --out "$tmp/e"; }
merge() { "$serq" sweep --merge "$tmp/s" --metrics 'mean(ttft),p99(ttft),rate(e2e)'; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
serial=$(best serial run_tasks)
parallel=$(best parallel sweep2)
awk -v s="$serial" -v p="$parallel" 'BEGIN {
  printf "40-task sweep of colocated.sq: tasks one after the other %.2f s, serq sweep --jobs 2 %.2f s, ratio %.2f (target <= 0.6)\n", s, p, p / s }'

"$parse" $prog | "$link" >"$tmp/col.json"
j1=$(best j1 "$sim" --replications 8 --jobs 1 "$tmp/col.json")
j2=$(best j2 "$sim" --replications 8 --jobs 2 "$tmp/col.json")
"$sim" --replications 8 --jobs 1 "$tmp/col.json" >"$tmp/a"
"$sim" --replications 8 --jobs 2 "$tmp/col.json" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && same="byte-identical" || same="DIFFERENT"
awk -v a="$j1" -v b="$j2" -v s="$same" 'BEGIN {
  printf "serq-sim --replications 8: --jobs 1 %.2f s, --jobs 2 %.2f s, ratio %.2f (target <= 0.6), output %s\n", a, b, b / a, s }'

p=$(best plan plan)
m=$(best merge merge)
awk -v p="$p" -v m="$m" -v s="$serial" 'BEGIN {
  printf "overhead: planning %.3f s + merging and reporting %.3f s = %.1f%% of the tasks %.2f s (target < 5%%)\n", p, m, 100 * (p + m) / s, s }'
