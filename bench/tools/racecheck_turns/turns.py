"""Does compute-sanitizer's racecheck follow the barriers of warpgroups
taking turns?  A hand-written kernel of 384 threads: two consumer
warpgroups (threads 0-255) exchange values through shared memory across
`bar.sync 1, 256`, after (mode 1) turns as the warp-specialized attention
takes them (`bar.arrive`/`bar.sync` on barriers 3 and 4: a prime by
warpgroup 1, `iters` turns each, a drain by warpgroup 0); warps 8-11 stand
for the producer and go straight to the final `bar.sync 0`.

    compute-sanitizer --tool racecheck python3 turns.py MODE ITERS

On the H100 (2026-11-27) every mode reports 0 hazards and the exchange
is correct, while the attention kernel's epilogue exchanges report
hazards (bench/results/racecheck-ws-attention-2026-11-27.log): the turn
protocol alone is not what racecheck objects to."""
import ctypes
import os
import subprocess
import sys
import tempfile

import torch

import warpforge

mode, iters = int(sys.argv[1]), int(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as tmp:
    cubin = os.path.join(tmp, "turns.cubin")
    subprocess.run([warpforge.knobs.nvidia.ptxas.path, "-arch=sm_90a",
                    os.path.join(here, "turns.ptx"), "-o", cubin], check=True)
    data = open(cubin, "rb").read()
cuda = ctypes.CDLL("libcuda.so.1")
out = torch.full((256,), -1, dtype=torch.int32, device="cuda")
mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
assert cuda.cuModuleLoadData(ctypes.byref(mod), data) == 0
assert cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"k") == 0
p, m, it = ctypes.c_uint64(out.data_ptr()), ctypes.c_uint32(mode), ctypes.c_uint32(iters)
args = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in (p, m, it)])
for _ in range(4):
    assert cuda.cuLaunchKernel(fn, 1, 1, 1, 384, 1, 1, 0, None, args, None) == 0
torch.cuda.synchronize()
ref = torch.arange(256, dtype=torch.int32, device="cuda") ^ 128
print("mode", mode, "iters", iters, "correct", bool((out == ref).all()))
