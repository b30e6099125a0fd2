"""The warp-specialized attention forward (bench/kernels/attention.py, 128-row
query blocks on two consumer warpgroups taking turns, in order) at D 128
over one head of length S, checked against float64: S <= 128 runs one CTA,
longer ones ceil(S / 128).  Under racecheck (H100, 2026-11-27): one CTA
(S 120) clean; two CTAs (S 250) and eight (S 1000) report hazards at the
exchanges after the loop, as turns.py does once a second CTA runs.

    compute-sanitizer --tool racecheck python3 attention_ctas.py S BLOCK_N
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python", "test"))
import test_gpu_attention as t  # noqa: E402

m = t._kernels()
S, bn = int(sys.argv[1]), int(sys.argv[2])
q, k, v = t._inputs(1, 1, S, 128, torch.float16, ("rc", S))
o = torch.full_like(q, float("nan"))
lse = torch.empty((1, 1, S), device="cuda")
kernel, grid, args, meta = m.attention_call(q, k, v, o, lse, False, 1 / math.sqrt(128),
                                            m.AttnConfig(128, bn, 8, 2, False, True))
kernel[grid](*args, **meta)
torch.cuda.synchronize()
ref, _ = t._reference(q, k, v, False, 1 / math.sqrt(128))
print("S", S, "grid", grid, "err", t._rel_max(o, ref))
