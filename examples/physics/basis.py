#!/usr/bin/env python3
"""The physics step time's basis functions at each step of a serq --trace, as a CSV for
`serq fit-steps` (docs/examples.md §Calibration to a profile's rows).

    basis.py MODEL TRACE > basis.csv     (MODEL: llama-3.1-8b or qwen3-30b-a3b-dp2-ep)

Each column is one term of the step time `serq physics --mixed-attention` writes for the runs
of examples/vllm/runs (examples/physics/*.sq), in microseconds at a coefficient of 1, from
the model's shape and the RTX PRO 6000's datasheet, as the programs compute them:
  pf_compute  prefill FLOPs (projections, attention, the experts' share, and the padded rows
              of a step with a prefill run as a CUDA graph; a decode-only step's padded rows
              are decode compute, PHYS_B2A, 0 in BLIS's corrections and no column here) / peak
  dc_kv       decode KV bytes / bandwidth
  weights     weight bytes read once a step (the experts reached) / bandwidth
  mixed       decodes beside a prefill at the padded query tile / peak
  layers      the layers (PHYS_B5's factor), seqs the batch (PHYS_B6's)
and `fixed`, what the fit does not move: BLIS's PHYS_B5 x layers and PHYS_B7 (on one model's
steps both are constants, as a dense model's weights are: one constant is all a fit can tell
apart) and the expert exchange over the link (the MoE run's, at its folder's 16 GB/s). `tau` is the trace's step time in
microseconds less `fixed`. The steps are those of the profile-driven programs
(examples/vllm/*.sq: each step's time is the GPU profile's operators at its figures), so a
fit to them is a fit to the profile, not to the run's latencies.
"""
import collections
import math
import json
import sys

MODELS = {
    # layers, hidden, heads, kv heads, head_dim, MLP, experts, top-k, expert MLP, engines (EP)
    'llama-3.1-8b': dict(L=32, H=4096, Heads=32, KvH=8, HD=128, I=14336, E=0, K=0, EI=0, EP=1),
    'qwen3-30b-a3b-dp2-ep': dict(L=48, H=2048, Heads=32, KvH=4, HD=128, I=0, E=128, K=8, EI=768, EP=2),
}
FLOPS_US, BYTES_US = 503.8e6, 1.597e6     # the rtx-pro-6000 preset: BF16 dense peak, bandwidth
LINK_BW, LINK_LATENCY = 17179869184, 2e-5  # the MoE folder's link (llmservingsim-config.json)
B5, B7 = 32.09546717, 126.024825            # BLIS's overheads a layer and a step
QUERY_TILE = 64


def ring(n, size):  # net/collective.h's all-gather and reduce-scatter over a ring
    return (n - 1) * (size / n / LINK_BW + LINK_LATENCY)


# The largest CUDA graph of both runs' engines, as the programs' GraphMax:
# min(2 x max_num_seqs 128, 512, max_num_batched_tokens 2048).
GRAPH_MAX = min(2 * 128, 512, 2048)


def padded(x):  # the CUDA graph a step of x tokens runs at (vLLM's sizes to GRAPH_MAX), else x
    if x > GRAPH_MAX:
        return x
    return x if x <= 2 else 4 if x <= 4 else 8 * math.ceil(x / 8)


def basis(m, s, gathered, pad):
    L, H, Heads, KvH, HD = m['L'], m['H'], m['Heads'], m['KvH'], m['HD']
    attn = H * (2 * Heads * HD + 2 * KvH * HD)
    flops_token = 2 * L * attn + 2 * L * 3 * H * m['I'] + 2 * L * H * m['E']  # the router's
    weight_bytes = (L * attn + L * 3 * H * m['I'] + L * H * m['E']) * 2
    flops_pair = 4 * Heads * HD
    kv_bytes = 2 * KvH * HD * 2
    prefill, decode = s['prefill'], s['decode']
    pf_share = prefill / max(s['tokens'], 1)
    expert = 3 * H * m['EI']
    pairs = gathered * m['K'] / m['EP']
    reached = m['E'] / m['EP'] * (1 - (1 - m['K'] / m['E']) ** gathered) if m['E'] else 0
    # sum_prefill(prefill * (prefill_context + prefill / 2)): one prefill job a step is exact;
    # with more, the step's totals (the trace has no per-job figures).
    pa = prefill * (s['prefill_context'] / max(s['prefill_jobs'], 1) + prefill / max(s['prefill_jobs'], 1) / 2)
    out = collections.OrderedDict()
    out['pf_compute'] = (flops_token * (prefill + (prefill > 0) * pad) + flops_pair * L * pa + 2 * L * expert * pairs * pf_share) / FLOPS_US
    out['dc_kv'] = kv_bytes * L * (s['decode_kv'] + decode) / BYTES_US
    out['weights'] = (weight_bytes + L * expert * 2 * reached) / BYTES_US
    out['mixed'] = (prefill > 0) * flops_pair * QUERY_TILE * L * s['decode_kv'] / FLOPS_US
    out['layers'] = L
    out['seqs'] = s['seqs']
    comm = 1e6 * L * 2 * ring(m['EP'], gathered * H * 2) if m['EP'] > 1 else 0
    out['fixed'] = B5 * L + B7 + comm
    return out


def main():
    m = MODELS[sys.argv[1]]
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
            gathered = m['EP'] * padded(top) if top <= GRAPH_MAX else group[s['t']]
            pad = padded(top) - s['tokens'] if top <= GRAPH_MAX else 0
        else:
            gathered, pad = s['tokens'], padded(s['tokens']) - s['tokens']
        b = basis(m, s, gathered, pad)
        rows.append(list(b.values()) + [s['tau'] * 1e6 - b['fixed']] + [s['prefill'], s['decode']])
    print(','.join(list(b.keys()) + ['tau', 'prefill', 'decode']))
    for r in rows:
        print(','.join(repr(float(x)) for x in r))


if __name__ == '__main__':
    main()
