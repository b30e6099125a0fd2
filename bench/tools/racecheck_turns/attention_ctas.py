"""The warp-specialized attention forward (bench/kernels/attention.py, 128-row
query blocks on two consumer warpgroups taking turns, in order) at D 128
over one head of length S, checked against float64: S <= 128 runs one CTA,
longer ones ceil(S / 128).  Under racecheck (H100, 2026-11-27): one CTA
(S 120) clean; two CTAs (S 250) and eight (S 1000) report hazards at the
exchanges after the loop, as turns.py does once a second CTA runs.

    compute-sanitizer --tool racecheck python3 attention_ctas.py S BLOCK_N [BLOCK_M WARPS D [GROUPS]]

BLOCK_M WARPS D (default 128 8 128) pick another warp-specialized config:
`250 64 256 16 64` is the four-consumer-warpgroup kernel (256x64 blocks,
16 warps, D 64, products rotated) on one CTA. GROUPS: num_consumer_groups
of WARPS warps each (experimental, under WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1,
set here): `192 128 192 4 64 3` is three consumer warpgroups on 192x128
blocks at D 64, one CTA.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python", "test"))
import test_gpu_attention as t  # noqa: E402

groups = int(sys.argv[6]) if len(sys.argv) > 6 else 0
bn_arg = int(sys.argv[2])
if groups or bn_arg & (bn_arg - 1):
    # Experimental: three consumer groups, or K/V blocks of 80 or 176 columns.
    os.environ["WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS"] = "1"
m = t._kernels()
S, bn = int(sys.argv[1]), int(sys.argv[2])
bm, warps, D = (int(x) for x in sys.argv[3:6]) if len(sys.argv) > 3 else (128, 8, 128)
q, k, v = t._inputs(1, 1, S, D, torch.float16, ("rc", S))
o = torch.full_like(q, float("nan"))
lse = torch.empty((1, 1, S), device="cuda")
# The default config in order (the kernel first checked); others rotated
# (the four-warpgroup config is autotuned that way).
config = m.AttnConfig(bm, bn, warps, 2, len(sys.argv) > 3, True)
# One head: a block past S reads past the tensor, which the TMA fills with
# zeros, so the 2-D blocks the specialized loop takes are right at S < 128
# too (per_head=False; attention_call would read K and V per head there).
kernel, grid, args, meta = m.attention_call(q, k, v, o, lse, False, 1 / math.sqrt(D), config,
                                            per_head=False)
if groups:
    meta.update(num_consumer_groups=groups, num_buffers_warp_spec=2)
kernel[grid](*args, **meta)
torch.cuda.synchronize()
ref, _ = t._reference(q, k, v, False, 1 / math.sqrt(D))
print("S", S, "grid", grid, "err", t._rel_max(o, ref))
