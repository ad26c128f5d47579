#!/usr/bin/env python3
"""bench/scaling.py: CPU seconds and peak memory against requests (issue 34).

Runs bench/scaling_engine.sq (one vLLM-shaped engine) and bench/scaling_pd.sq
(a prefill engine and a decode engine) in three regimes each, at each number
of requests, with `serq run`, and prints a table: the CPU seconds (user +
system, from wait4, so microseconds rather than time(1)'s hundredths), the
peak resident set, the CPU microseconds a request, and the growth against
the first size. With --blis, BLIS (inference-sim) runs the same requests
beside it (bench/README.md §scaling says how it was built and run), and the
table has its figures and the ratio of the CPU times.

  bench/scaling.py [--serq bazel-bin/serq/serq] [--sizes 5000,20000,100000,1000000]
                   [--blis BIN --blis-dir DIR [--blis-sizes 5000,20000,100000]]
                   [--rounds 3] [--only engine|pd]

A run of at most 20,000 requests is the best of --rounds (their CPU time
varies by a few hundredths on a shared machine); a larger one runs once.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The regimes: (name, rate, KV blocks). One engine's capacity with 800 blocks
# is 9.14 requests a second, the pair's 9.89 (serq's throughput with 10^5
# requests arriving at 20 a second); KV-bound is a little below it, overloaded
# 1.5 times it, and with 10^6 blocks the KV never binds.
TOPOLOGIES = {
    "engine": ("scaling_engine.sq", [("KV free", 20, 1000000), ("KV-bound", 8.5, 800),
                                     ("overloaded", 13.7, 800)]),
    "pd": ("scaling_pd.sq", [("KV free", 20, 1000000), ("KV-bound", 9, 800),
                             ("overloaded", 14.8, 800)]),
}
TITLES = {"engine": "one engine", "pd": "a P/D pair (one prefill engine, one decode engine)"}

# BLIS's flags for the same requests (bench/README.md §scaling).
BLIS_FLAGS = ["run", "--model", "qwen/qwen3-14b", "--hardware", "H100", "--tp", "1",
              "--latency-model", "blackbox", "--cache-signal-delay", "0", "--timeout", "-1"]
BLIS_PD_FLAGS = ["--num-instances", "2", "--prefill-instances", "1", "--decode-instances", "1",
                 "--pd-decider", "always"]
BLIS_WORKLOAD = """version: "2"
seed: 42
aggregate_rate: {rate}
num_requests: {n}
clients:
  - id: "c0"
    rate_fraction: 1.0
    arrival:
      process: poisson
    input_distribution:
      type: constant
      params:
        value: 512
    output_distribution:
      type: constant
      params:
        value: 128
"""


def measure(cmd, rounds, tmp, cwd=None):
    """The best (user + system CPU s, peak RSS MB) of `rounds` runs of cmd."""
    best = None
    rss_file = os.path.join(tmp, "rss")
    for _ in range(rounds):
        # The peak resident set from time(1) (%M, KB), which forks the
        # command from a small process: a child forked from Python counts
        # the interpreter's pages, before its exec, in its own peak. The CPU
        # time from wait4: time(1)'s usage with the command's, which it
        # waited for (time's own is a millisecond).
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd, cwd=cwd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.read()  # before waiting: a chatty child would block on the pipe
        _, status, usage = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"scaling.py: {' '.join(cmd)} failed:\n{err.decode(errors='replace')}")
        with open(rss_file) as f:
            rss_kb = int(f.read().split()[-1])
        figure = (usage.ru_utime + usage.ru_stime, rss_kb / 1024)
        if best is None or figure[0] < best[0]:
            best = figure
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--serq", default=os.path.join(HERE, "..", "bazel-bin", "serq", "serq"))
    ap.add_argument("--sizes", default="5000,20000,100000,1000000")
    ap.add_argument("--blis", help="BLIS's binary (built as bench/README.md §scaling says)")
    ap.add_argument("--blis-dir", help="BLIS's source tree (its defaults.yaml), BLIS's working directory")
    ap.add_argument("--blis-sizes", default="5000,20000,100000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=sorted(TOPOLOGIES))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    blis_sizes = {int(s) for s in args.blis_sizes.split(",")} if args.blis else set()
    if args.blis and not args.blis_dir:
        sys.exit("scaling.py: --blis needs --blis-dir")
    serq = os.path.abspath(args.serq)
    tmp = tempfile.mkdtemp(prefix="scaling.")
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"serq: {serq}" + (f"; BLIS: {os.path.abspath(args.blis)}" if args.blis else ""))
    for topology, (program, regimes) in TOPOLOGIES.items():
        if args.only and topology != args.only:
            continue
        print(f"\n{TITLES[topology]} (bench/{program})")
        head = f"{'regime':<11} {'rate/s':>6} {'blocks':>7} {'requests':>9} {'serq cpu s':>10} " \
               f"{'peak MB':>8} {'us/req':>7} {'x first':>8}"
        if args.blis:
            head += f" {'BLIS cpu s':>10} {'peak MB':>8} {'BLIS/serq':>9}"
        print(head)
        for name, rate, blocks in regimes:
            first = None
            for n in sizes:
                cmd = [serq, "run", os.path.join(HERE, program), "-D", f"N={n}", "-D",
                       f"Rate={rate}", "-D", f"Blocks={blocks}"]
                cpu, mb = measure(cmd, args.rounds if n <= 20000 else 1, tmp)
                if first is None:
                    first = (n, cpu)
                growth = cpu / first[1] if first[1] > 0 else float("inf")
                row = f"{name:<11} {rate:>6g} {blocks:>7d} {n:>9d} {cpu:>10.3f} {mb:>8.1f} " \
                      f"{cpu / n * 1e6:>7.2f} {growth:>8.2f}"
                if n in blis_sizes:
                    spec = os.path.join(tmp, f"w-{rate}-{n}.yaml")
                    with open(spec, "w") as f:
                        f.write(BLIS_WORKLOAD.format(rate=rate, n=n))
                    bcmd = [os.path.abspath(args.blis)] + BLIS_FLAGS + [
                        "--total-kv-blocks", str(blocks), "--workload-spec", spec]
                    if topology == "pd":
                        bcmd += BLIS_PD_FLAGS
                    bcpu, bmb = measure(bcmd, args.rounds if n <= 20000 else 1, tmp, cwd=args.blis_dir)
                    row += f" {bcpu:>10.3f} {bmb:>8.1f} {bcpu / cpu:>9.1f}"
                print(row, flush=True)
    print(f"\nx first: CPU time over the first size's ({sizes[0]} requests) in the same regime")


if __name__ == "__main__":
    main()
