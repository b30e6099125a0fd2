"""Does compute-sanitizer's racecheck follow the barriers of warpgroups
taking turns?  A hand-written kernel of 384 threads (turns.ptx): two
consumer warpgroups (threads 0-255) exchange values through shared memory
across `bar.sync 1, 256`, after (mode bit 1) turns as the warp-specialized
attention takes them: warpgroup 1 primes with `bar.arrive 3, 256`, ITERS
turns each (`bar.sync` on its own barrier, `bar.arrive` on the other's),
warpgroup 0 drains with `bar.sync 3, 256`.  Other mode bits: 2 the
"producer" warps exit early, 4 four exchange rounds, 8 setmaxnreg.

    [GRID=n] [WARPGROUPS=4] compute-sanitizer --tool racecheck python3 turns.py MODE ITERS

WARPGROUPS=4 runs turns4.ptx: four consumer warpgroups (640 threads, as the
16-warp attention), turns round the four on barriers 3-6, the exchange
across `bar.sync 1, 512`. WARPGROUPS=3 runs turns3.ptx: three (512
threads, as the experimental 12-warp attention), barriers 3-5, the exchange
across `bar.sync 1, 384` (thread t reads (t + 128) % 384's value).

Result on the H100 (2026-11-27, compute-sanitizer of the CUDA on the device):
- Every mode, one CTA (GRID=1): 0 hazards, exchange correct.
- Without turns (modes 0, 2, 4, 8), 8 CTAs: 0 hazards.
- With turns (modes 1, 3, 7, 9, 11, 15), 8 CTAs: 4 hazards reported between
  the exchange's `st.shared` and `ld.shared`, which have `bar.sync 1, 256`
  between them in every thread, and the exchange is correct.  ITERS 0 (the
  prime and the drain only, one `bar.arrive` in all) already does it.

Four warpgroups (WARPGROUPS=4, turns4.ptx), one CTA, ITERS 3 (H100,
2026-11-27): 0 hazards without turns (mode 0); 4 with turns (modes 1, 5,
9), 3 with the prime and the drain only (ITERS 0), the exchange correct
every time. So with four warpgroups the tool loses a `bar.arrive` on one
CTA already; the 16-warp attention's 2 hazards on one CTA (at its
epilogue's exchanges across `bar.sync 1, 512`) are the same signature.

CTAs share no shared memory, so a race that appears only when a second CTA
runs is the tool's: its named-barrier tracking loses the `bar.arrive` when
more than one CTA runs.  The warp-specialized attention behaves the same
way (README, "Attention"): clean with one CTA, hazards at its exchanges
with two or more."""
import ctypes
import os
import subprocess
import sys
import tempfile

import torch

import warpforge

mode, iters = int(sys.argv[1]), int(sys.argv[2])
grid = int(os.environ.get("GRID", 8))
groups = int(os.environ.get("WARPGROUPS", 2))
consumers = 128 * groups
here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as tmp:
    cubin = os.path.join(tmp, "turns.cubin")
    subprocess.run([warpforge.knobs.nvidia.ptxas.path, "-arch=sm_90a",
                    os.path.join(here, {4: "turns4.ptx", 3: "turns3.ptx"}.get(groups, "turns.ptx")),
                    "-o", cubin], check=True)
    data = open(cubin, "rb").read()
cuda = ctypes.CDLL("libcuda.so.1")
out = torch.full((consumers,), -1, dtype=torch.int32, device="cuda")
mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
assert cuda.cuModuleLoadData(ctypes.byref(mod), data) == 0
assert cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"k") == 0
p, m, it = ctypes.c_uint64(out.data_ptr()), ctypes.c_uint32(mode), ctypes.c_uint32(iters)
args = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in (p, m, it)])
for _ in range(4):
    assert cuda.cuLaunchKernel(fn, grid, 1, 1, consumers + 128, 1, 1, 0, None, args, None) == 0
torch.cuda.synchronize()
rounds = 4 if mode & 4 else 1
# Each thread reads its partner's (tid ^ consumers / 2; with three
# warpgroups (tid + 128) % 384) value tid + round, every round.
tid = torch.arange(consumers, dtype=torch.int32, device="cuda")
partner = (tid + 128) % consumers if groups == 3 else tid ^ (consumers // 2)
ref = partner * rounds + sum(range(rounds))
print("mode", mode, "iters", iters, "grid", grid, "groups", groups, "correct", bool((out == ref).all()))
