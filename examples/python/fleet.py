#!/usr/bin/env python3
"""Writes serq IR for a fleet described by an inventory file.

The IR is built with protobuf's Python bindings: `ir_pb2` is generated from
proto/ir.proto at build time (`bazel build //examples/python:ir_py`, or
`protoc --python_out=DIR proto/ir.proto`), never checked in, and put on
PYTHONPATH. The output goes to `serq-link --check` (the same validation a
.sq file gets) and `serq-link | serq-sim | serq-report`; see docs/ir.md.

The fleet: `engines` engines, each a fifo stage element serving one request
at a time at `engine_rate`, exponential work of mean 1; requests arrive as a
Poisson process of `arrival_rate` (the param Rate, so `serq-link -D Rate=…`
overrides it) and are routed by `routing`:
  random          a uniformly random engine (each engine sees Poisson(Rate/N):
                  N independent M/M/1 queues, mean time 1 / (rate - Rate/N))
  shortest-queue  the engine with the fewest requests present
  round-robin     engine serial mod N
Each request observes `t`, its time in the system.

usage: fleet.py INVENTORY [--format=pb|json] [--ir-version=N] [--misspell]
  --misspell  name an undeclared stage in the run, to show what the
              validator says about IR a tool got wrong
"""
import argparse
import json
import sys

from google.protobuf import json_format

import ir_pb2 as ir

ROUTINGS = ("random", "shortest-queue", "round-robin")


def num(x):
    e = ir.Expr()
    e.number = float(x)
    return e


def ref(name, index=None):
    e = ir.Expr()
    e.ref.name = name
    if index is not None:
        e.ref.index.CopyFrom(index)
    return e


def call(function, *args):
    e = ir.Expr()
    e.call.function = function
    for a in args:
        e.call.arg.add().CopyFrom(a)
    return e


def binary(op, lhs, rhs):
    e = ir.Expr()
    e.binary.op = op
    e.binary.lhs.CopyFrom(lhs)
    e.binary.rhs.CopyFrom(rhs)
    return e


def build(inv, version, misspell):
    n = int(inv["engines"])
    routing = inv["routing"]
    if routing not in ROUTINGS:
        raise SystemExit(f"fleet.py: error: unknown routing '{routing}' (expected {', '.join(ROUTINGS)})")
    p = ir.Program()
    p.version = version
    rate = p.param.add()
    rate.name = "Rate"
    rate.value.CopyFrom(num(inv["arrival_rate"]))
    n_param = p.param.add()
    n_param.name = "N"
    n_param.value.CopyFrom(num(n))

    stage = p.stage.add()
    stage.name = "E"
    stage.size.CopyFrom(ref("N"))
    stage.kind = ir.Stage.FIFO
    stage.rate.CopyFrom(num(inv["engine_rate"]))

    w = p.workload.add()
    w.name = "req"
    w.process = ir.Workload.POISSON
    w.arg.CopyFrom(ref("Rate"))

    s = p.session.add()
    s.name = "req"
    if routing == "shortest-queue":
        choose = s.body.add().choose
        choose.variable = "e"
        choose.array.name = "E"
        choose.by.expr.add().CopyFrom(call("queue", ref("E", ref("e"))))
    else:
        st = s.body.add().set
        st.variable = "e"
        if routing == "random":
            # min(N - 1, floor(uniform(0, N))): uniform's top end excluded either way.
            st.value.CopyFrom(call("min", binary(ir.Expr.SUB, ref("N"), num(1)),
                                   call("floor", call("uniform", num(0), ref("N")))))
        else:
            st.value.CopyFrom(binary(ir.Expr.MOD, ref("serial"), ref("N")))
    run = s.body.add().run
    run.stage.name = "Eng" if misspell else "E"
    run.stage.index.CopyFrom(ref("e"))
    run.work.CopyFrom(call("exponential", num(1)))
    obs = s.body.add().observe
    obs.name = "t"
    obs.value.CopyFrom(binary(ir.Expr.SUB, ref("now"), ref("arrival")))

    p.run.horizon.CopyFrom(num(inv["horizon"]))
    p.run.warmup.CopyFrom(num(inv.get("warmup", 0)))
    p.run.replications.CopyFrom(num(inv.get("replications", 1)))
    return p


def main():
    ap = argparse.ArgumentParser(description="serq IR for a fleet from an inventory file")
    ap.add_argument("inventory")
    ap.add_argument("--format", choices=("pb", "json"), default="pb")
    ap.add_argument("--ir-version", type=int, default=9)
    ap.add_argument("--misspell", action="store_true")
    args = ap.parse_args()
    with open(args.inventory) as f:
        inv = json.load(f)
    program = build(inv, args.ir_version, args.misspell)
    if args.format == "json":
        sys.stdout.write(json_format.MessageToJson(program, indent=1) + "\n")
    else:
        sys.stdout.buffer.write(program.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
