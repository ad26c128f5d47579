#!/usr/bin/env python3
"""Writes the sample traces of this directory: synthetic, made here with a
fixed seed (nothing is copied from the published traces), in the published
formats and with realistic magnitudes.

  mooncake_sample.jsonl   Mooncake JSON lines (FAST'25 traces): 40 requests of
                          6 multi-turn conversations; timestamp in ms;
                          hash_ids one id per 512-token block, a turn
                          reusing its conversation's earlier blocks.
  azure_code_sample.csv   Azure LLM inference CSV (the 2023 code trace's
                          shape): 40 requests, 7-decimal date-times.
  serq_sample.csv         serq's CSV: 30 requests, time in seconds.

Run from this directory: python3 make_samples.py (Python 3.8 or later; the
output depends only on the seed and on Python's random module, whose
generator and these functions are stable across versions).
"""
import math
import random

BLOCK = 512  # tokens per hash id, as in the Mooncake traces


def mooncake(rng):
    next_id = 0
    convs = []  # per conversation: [ids of its full blocks, tokens so far]
    rows = []
    t = 0  # ms from the start of the trace: the first request at 0
    for k in range(40):
        if k > 0:
            t += int(rng.expovariate(1 / 400.0))  # 2.5 requests/s
        if not convs or (len(convs) < 6 and rng.random() < 0.3):
            convs.append([[], 0])
        conv = convs[rng.randrange(len(convs))]
        ids, tokens = conv
        turn = int(rng.lognormvariate(math.log(1800), 0.7))
        input_length = tokens + turn
        blocks = math.ceil(input_length / BLOCK)
        hash_ids = list(ids)
        while len(hash_ids) < blocks:
            hash_ids.append(next_id)
            next_id += 1
        output_length = max(1, int(rng.lognormvariate(math.log(250), 0.8)))
        rows.append((t, input_length, output_length, hash_ids))
        # The next turn's prompt holds this prompt and its answer; only
        # full blocks are shared.
        conv[1] = input_length + output_length
        conv[0] = hash_ids[: input_length // BLOCK]
    with open("mooncake_sample.jsonl", "w") as f:
        for t, i, o, h in rows:
            f.write('{"timestamp": %d, "input_length": %d, "output_length": %d, '
                    '"hash_ids": [%s]}\n' % (t, i, o, ", ".join(map(str, h))))


def azure(rng):
    # 100-ns ticks from 2023-11-20 14:00:00; the first row's fraction is random.
    ticks = rng.randrange(10**7)
    with open("azure_code_sample.csv", "w", newline="") as f:
        # CRLF line ends, as a file saved on Windows has them.
        f.write("TIMESTAMP,ContextTokens,GeneratedTokens\r\n")
        for _ in range(40):
            ticks += int(rng.expovariate(1 / 0.25) * 10**7)  # 4 requests/s
            s, frac = divmod(ticks, 10**7)
            m, s = divmod(s, 60)
            context = min(8000, max(50, int(rng.lognormvariate(math.log(1500), 0.9))))
            generated = min(500, max(1, int(rng.lognormvariate(math.log(20), 1.0))))
            f.write("2023-11-20 14:%02d:%02d.%07d,%d,%d\r\n" % (m, s, frac, context, generated))


def serq(rng):
    t = 0.0
    with open("serq_sample.csv", "w") as f:
        f.write("time,prompt,output\n")
        for _ in range(30):
            t += rng.expovariate(2.0)  # 2 requests/s
            prompt = int(round(rng.lognormvariate(6.5, 0.8)))
            output = 50 + int(rng.expovariate(1 / 150.0))
            f.write("%.3f,%d,%d\n" % (t, prompt, output))


if __name__ == "__main__":
    mooncake(random.Random(20250101))
    azure(random.Random(20231120))
    serq(random.Random(7))
