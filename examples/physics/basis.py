#!/usr/bin/env python3
"""The physics step time's basis functions at each step of a serq --trace, as a CSV for
`serq fit-steps` (docs/examples.md §Calibration to a profile's rows).

    basis.py PROGRAM TRACE > basis.csv

PROGRAM is a program `serq physics --mixed-attention` wrote (examples/physics/*-mixed.sq):
the model's shape, the GPU's peak and bandwidth, the link, the CUDA graphs' largest size and
BLIS's fixed terms are read from its params, so any model and GPU it covers will do: a dense
model or a mixture of experts (whole over GPUs with --ep, or on one), at tensor parallel 1,
without latent attention, windows, shared experts or dense layers beside the experts'
(refused by name otherwise). Each column is one term of its step time, in microseconds at a
coefficient of 1, as the program computes it:
  pf_compute  prefill FLOPs (projections, attention, the experts' share, and the padded rows
              of a step with a prefill run as a CUDA graph; a decode-only step's padded rows
              are decode compute, PHYS_B2A, 0 in BLIS's corrections and no column here) / peak
  dc_kv       decode KV bytes / bandwidth
  weights     weight bytes read once a step (the experts reached) / bandwidth
  mixed       decodes beside a prefill at the padded query tile / peak
  layers      the layers (PHYS_B5's factor), seqs the batch (PHYS_B6's)
and `fixed`, what the fit does not move: BLIS's PHYS_B5 x layers and PHYS_B7 (on one model's
steps both are constants, as a dense model's weights are: one constant is all a fit can tell
apart) and the expert exchange over the program's link. `tau` is the trace's step time in
microseconds less `fixed`. The steps are those of the profile-driven programs
(examples/vllm/*.sq: each step's time is the GPU profile's operators at its figures), so a
fit to them is a fit to the profile, not to the run's latencies.
"""
import collections
import json
import math
import re
import sys


def read_params(path):
    """The program's `param NAME = VALUE;` lines (a range after VALUE, `in [LOW,
    HIGH]`, aside), as numbers."""
    params = {}
    for line in open(path):
        m = re.match(r'param (\w+) = ([^;]+?)(?: in \[[^]]*\])?;', line)
        if m:
            params[m.group(1)] = float(m.group(2))
    return params


def model_of(path):
    p = read_params(path)
    for name in ('KvLoraRank', 'WindowLayers', 'SharedIntermediate', 'DenseLayers'):
        if name in p:
            sys.exit(f'basis.py: {path}: {name}: latent attention, windows, shared experts and dense '
                     'layers beside the experts are not among the terms basis.py writes')
    if p.get('Tp', 1) != 1:
        sys.exit(f'basis.py: {path}: Tp {p["Tp"]:g}: basis.py writes the terms of tensor parallel 1')
    for name in ('Layers', 'Hidden', 'Heads', 'KvHeads', 'HeadDim', 'FlopsUs', 'BytesUs',
                 'WeightBytes', 'KvBytes', 'DtypeBytes', 'PHYS_B5', 'PHYS_B7', 'QueryTile'):
        if name not in p:
            sys.exit(f'basis.py: {path}: no param {name} (a program of serq physics --mixed-attention?)')
    moe = 'Experts' in p
    if moe and p.get('MoeLayers', p['Layers']) != p['Layers']:
        sys.exit(f'basis.py: {path}: MoeLayers: experts on some layers only')
    if 'Balancedness' in p and p['Balancedness'] != 1:
        sys.exit(f'basis.py: {path}: Balancedness {p["Balancedness"]:g}: basis.py writes balanced routing')
    return dict(
        L=p['Layers'], H=p['Hidden'], Heads=p['Heads'], KvH=p['KvHeads'], HD=p['HeadDim'],
        I=p.get('Intermediate', 0) if not moe else 0, E=p.get('Experts', 0), K=p.get('TopK', 0),
        EI=p.get('ExpertIntermediate', 0),
        # the GPUs the experts spread over, whole (--ep); 1 on one GPU
        EP=p.get('MoeGroup', 1) if moe else 1,
        flops_us=p['FlopsUs'], bytes_us=p['BytesUs'], link_bw=p.get('LinkBw', 0),
        link_latency=p.get('LinkLatency', 0), b4=p.get('PHYS_B4', 1), b5=p['PHYS_B5'], b7=p['PHYS_B7'],
        # bytes: a linear layer's weight, an expert's, the KV cache's, an activation's
        weight_bytes=p['WeightBytes'], expert_bytes=p.get('ExpertBytes', p['WeightBytes']),
        kv_bytes=p['KvBytes'], dtype_bytes=p['DtypeBytes'],
        query_tile=p['QueryTile'],
        # the largest CUDA graph (GraphMax), none under --enforce-eager
        graph_max=p.get('GraphMax', 0))


def ring(m, n, size):  # net/collective.h's all-gather and reduce-scatter over a ring
    return (n - 1) * (size / n / m['link_bw'] + m['link_latency'])


def padded(m, x):  # the CUDA graph a step of x tokens runs at (vLLM's sizes to GraphMax), else x
    if x > m['graph_max']:
        return x
    if x <= 2:
        return x
    if x <= 4:
        return 4
    return 8 * math.ceil(x / 8) if x <= 256 else 256 + 16 * math.ceil((x - 256) / 16)


def basis(m, s, gathered, pad):
    L, H, Heads, KvH, HD = m['L'], m['H'], m['Heads'], m['KvH'], m['HD']
    attn = H * (2 * Heads * HD + 2 * KvH * HD)
    flops_token = 2 * L * attn + 2 * L * 3 * H * m['I'] + 2 * L * H * m['E']  # the router's
    # the linear layers' weights at their bytes, the routers' at the activations'
    weight_bytes = (L * attn + L * 3 * H * m['I']) * m['weight_bytes'] + L * H * m['E'] * m['dtype_bytes']
    flops_pair = 4 * Heads * HD
    kv_bytes = 2 * KvH * HD * m['kv_bytes']
    prefill, decode = s['prefill'], s['decode']
    pf_share = prefill / max(s['tokens'], 1)
    expert = 3 * H * m['EI']
    pairs = gathered * m['K'] / m['EP']
    reached = m['E'] / m['EP'] * (1 - (1 - m['K'] / m['E']) ** gathered) if m['E'] else 0
    # sum_prefill(prefill * (prefill_context + prefill / 2)): one prefill job a step is exact;
    # with more, the step's totals (the trace has no per-job figures).
    pa = prefill * (s['prefill_context'] / max(s['prefill_jobs'], 1) + prefill / max(s['prefill_jobs'], 1) / 2)
    out = collections.OrderedDict()
    out['pf_compute'] = (flops_token * (prefill + (prefill > 0) * pad) + flops_pair * L * pa + 2 * L * expert * pairs * pf_share) / m['flops_us']
    out['dc_kv'] = kv_bytes * L * (s['decode_kv'] + decode) / m['bytes_us']
    out['weights'] = (weight_bytes + L * expert * m['expert_bytes'] * reached) / m['bytes_us']
    out['mixed'] = (prefill > 0) * flops_pair * m['query_tile'] * L * s['decode_kv'] / m['flops_us']
    out['layers'] = L
    out['seqs'] = s['seqs']
    comm = m['b4'] * 1e6 * L * 2 * ring(m, m['EP'], gathered * H * m['dtype_bytes']) if m['EP'] > 1 else 0
    out['fixed'] = m['b5'] * L + m['b7'] + comm
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: basis.py PROGRAM TRACE > basis.csv')
    m = model_of(sys.argv[1])
    steps = [json.loads(line) for line in open(sys.argv[2]) if '"event":"step"' in line]
    group = collections.defaultdict(int)  # lockstep: the tokens of every engine's step at t
    most = collections.defaultdict(int)   # and the largest, which every engine pads to
    for s in steps:
        group[s['t']] += s['tokens']
        most[s['t']] = max(most[s['t']], s['tokens'])
    rows = []
    for s in steps:
        if m['EP'] > 1:  # the engines at their largest step's graph, or all eagerly
            top = most[s['t']]
            gathered = m['EP'] * padded(m, top) if top <= m['graph_max'] else group[s['t']]
            pad = padded(m, top) - s['tokens'] if top <= m['graph_max'] else 0
        else:
            gathered, pad = s['tokens'], padded(m, s['tokens']) - s['tokens']
        b = basis(m, s, gathered, pad)
        rows.append(list(b.values()) + [s['tau'] * 1e6 - b['fixed']] + [s['prefill'], s['decode']])
    print(','.join(list(b.keys()) + ['tau', 'prefill', 'decode']))
    for r in rows:
        print(','.join(repr(float(x)) for x in r))


if __name__ == '__main__':
    main()
