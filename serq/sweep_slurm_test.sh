#!/usr/bin/env bash
# A sweep and a plan run by a real Slurm: a one-node cluster on localhost (munged,
# slurmctld and slurmd, every file of theirs in a temporary directory, no
# cgroups: proctrack/pgid, task/none), the emitted job array submitted with
# `sbatch --wait`, merged, and compared byte for byte with the same sweep or plan
# run by serq's local processes. Every daemon it started is stopped by the
# pid it recorded. Skipped, saying so, only when the Slurm or munge
# binaries are not installed (tools/install-deps.sh installs slurm-wlm and
# munge, and CI runs that); a daemon that does not come up is a failure,
# with its log.
set -u
root=${TEST_SRCDIR:?}/serq
serq=$root/serq/serq
for bin in munged munge slurmctld slurmd sbatch sinfo; do
  if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$bin" ]; then
    echo "SKIPPED: '$bin' is not installed (tools/install-deps.sh installs Debian's slurm-wlm and munge)"
    exit 0
  fi
done
export PATH=$PATH:/usr/sbin
# A short path: munge's socket is a Unix socket (108 bytes at most).
d=$(mktemp -d /tmp/serq-slurm.XXXXXX)
pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$d"
}
trap stop EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
die() { echo "FAIL: $*"; for f in "$d"/log/* "$d"/m/munged.log; do [ -f "$f" ] && { echo "== $f"; tail -20 "$f"; }; done; exit 1; }
# Waits for file $1 to hold a live pid, and records it.
record() {
  for _ in $(seq 100); do
    if [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; then pids+=("$(cat "$1")"); return 0; fi
    sleep 0.1
  done
  return 1
}

# munge: its own key, socket, pid, log and seed. The socket's directory
# must be searchable by all; the key's must not be readable by others.
chmod 755 "$d"
mkdir -p "$d/m" "$d/s" "$d/state" "$d/spool" "$d/log"
chmod 700 "$d/m"
dd if=/dev/urandom of="$d/m/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$d/m/munge.key"
munged --key-file="$d/m/munge.key" --socket="$d/s/munge.sock" --pid-file="$d/m/munged.pid" \
  --log-file="$d/m/munged.log" --seed-file="$d/m/munged.seed" || die "munged did not start"
record "$d/m/munged.pid" || die "munged wrote no pid"
munge -S "$d/s/munge.sock" -n | unmunge -S "$d/s/munge.sock" | grep -q 'Success' || die "munge does not work"

host=$(hostname -s)
user=$(id -un)
port=$((20000 + RANDOM % 20000))
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat >"$d/slurm.conf" <<CONF
ClusterName=serqtest
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/s/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
slurmctld -f "$SLURM_CONF" || die "slurmctld did not start"
record "$d/slurmctld.pid" || die "slurmctld wrote no pid"
slurmd -f "$SLURM_CONF" || die "slurmd did not start"
record "$d/slurmd.pid" || die "slurmd wrote no pid"
for _ in $(seq 60); do
  [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
  sleep 0.5
done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] || die "the node is not idle: $(sinfo 2>&1)"

cd "$root" || exit 2
grid=(testdata/sweep/flows.sq -D W=0.5:1.5:0.5 --share=maxmin,bottleneck --replications 2)
metrics='mean(f3),p50(f3),rate(f3),mean(f1)'
"$serq" sweep "${grid[@]}" --jobs 2 --out "$d/local" --metrics "$metrics" >"$d/local.txt" || fail "local sweep: exit $?"
"$serq" sweep "${grid[@]}" --emit=slurm --out "$d/sweep" >"$d/job.sh" || fail "emit=slurm: exit $?"
timeout 240 sbatch --wait "$d/job.sh" >"$d/sbatch.out" 2>&1 || die "sbatch --wait: exit $?: $(cat "$d/sbatch.out")"
"$serq" sweep --merge "$d/sweep" --metrics "$metrics" >"$d/slurm.txt" || fail "merge: exit $?"
cmp "$d/local.txt" "$d/slurm.txt" || fail "the report of Slurm's run differs from the local run's"
cmp -s "$d/slurm.txt" testdata/sweep/flows.txt || fail "Slurm's report is not flows.txt"
for i in $(seq 0 11); do
  cmp -s "$d/local/task-$i.pb" "$d/sweep/task-$i.pb" || fail "task $i: Slurm's file differs"
done
n=$(ls "$d/sweep" | grep -c '^slurm-.*\.out$')
[ "$n" = 12 ] || fail "$n array elements wrote their output, expected 12"
cat "$d/sbatch.out" "$d/slurm.txt"

# serq plan through the same machinery (plan_emit_test.sh's plan: three
# candidates, colocated tp1 x1 and x2 and disaggregated 1P1D): its job
# array run by Slurm and merged gives the files a local run writes, byte
# for byte. The local run writes into the folder the emitted one will use
# (the page prints the command, the best programs name files relative to
# it), then moves aside.
plan=(plan --model llama-3.1-8b --gpu h100-sxm --gpus 2 --tps 1 --rate 4 --price 2
      --until 'p99(ttft) <= 1 && p99(tpot) <= 0.05' --requests 200 --replications 2
      --max-replications 4 --rate-steps 16 --no-early-stop)
"$serq" "${plan[@]}" --out "$d/plan" >"$d/plan-local.out" 2>"$d/plan-local.err" ||
  fail "local plan: exit $?: $(cat "$d/plan-local.err")"
mv "$d/plan" "$d/plan-local"
"$serq" "${plan[@]}" --out "$d/plan" --emit=slurm >"$d/plan.sh" || fail "plan --emit=slurm: exit $?"
timeout 240 sbatch --wait "$d/plan.sh" >"$d/plan-sbatch.out" 2>&1 ||
  die "plan: sbatch --wait: exit $?: $(cat "$d/plan-sbatch.out")"
"$serq" plan --merge "$d/plan" >"$d/plan-merged.out" 2>"$d/plan-merge.err" ||
  fail "plan --merge: exit $?: $(cat "$d/plan-merge.err")"
cmp "$d/plan-local.out" "$d/plan-merged.out" || fail "the plan's summary from Slurm's run differs from the local run's"
for f in candidates.csv pareto.csv pareto.svg pareto.html best-colocated.sq best-disaggregated.sq vllm-serve.sh; do
  [ -s "$d/plan-local/$f" ] || fail "the local plan wrote no $f"
  cmp -s "$d/plan-local/$f" "$d/plan/$f" || fail "plan: $f differs between the local run and Slurm's"
done
for k in 0 1 2; do [ -s "$d/plan/results/candidate-$k.txt" ] || fail "plan: Slurm wrote no result of candidate $k"; done
n=$(ls "$d/plan" | grep -c '^slurm-.*\.out$')
[ "$n" = 3 ] || fail "plan: $n array elements wrote their output, expected 3"
grep -q ',front,' "$d/plan/candidates.csv" || fail "plan: no candidate on the front: $(cat "$d/plan/candidates.csv")"

if [ "$failed" -ne 0 ]; then echo "$failed failed"; exit 1; fi
echo "serq sweep and serq plan on Slurm: all passed"
